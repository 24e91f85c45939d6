/*
 * The host side of `gpuprim ladder stalin` (seed 002): the article's CPU
 * loop, the serial reference every rung is checked against, and the inputs.
 * In C and in its own file so that the loop is compiled as the article's
 * plain loop and cannot be folded into the timing loop around it.
 */
#include "ladder_stalin_cpu.h"

#include "bench_rng.h"

/* Seed 002's CPU loop, as the article writes it: the first element seeds the
 * maximum, later ones survive when >= it. (The article reads in[0] even when
 * n = 0; we return 0 there.) */
int64_t gpl_stalin_cpu_article(const int32_t *in, int64_t n, int32_t *out)
{
    if (n <= 0) return 0;
    out[0] = in[0];
    int64_t out_idx = 1;
    int32_t max_val = in[0];
    for (int64_t i = 1; i < n; i++) {
        if (in[i] >= max_val) {
            out[out_idx] = in[i];
            max_val = in[i];
            out_idx++;
        }
    }
    return out_idx;
}

/* The oracle, from the definition: x[i] survives when no earlier element is
 * greater, i.e. when it is >= the maximum of everything before it (none
 * before the first element). */
int64_t gpl_stalin_reference(const int32_t *in, int64_t n, int32_t *out)
{
    int64_t kept = 0;
    int have_max = 0;
    int32_t max_before = 0;
    for (int64_t i = 0; i < n; i++) {
        if (!have_max || in[i] >= max_before) out[kept++] = in[i];
        if (!have_max || in[i] > max_before) max_before = in[i];
        have_max = 1;
    }
    return kept;
}

/* Inputs, by pattern (the order of gpl_stalin_pattern in ladder_stalin.cu):
 * 0 random   random int32 bits: about ln n survivors
 * 1 mostly ascending   i/2 + noise in [-4, 4), as `gpuprim bench
 *                      filter-ascending`: about 2 in 5 survive
 * 2 ascending   i: all survive
 * 3 descending  -i: only the first survives
 * 4 constant    all equal: all survive (ties are kept)
 * 5 few values  random in [0, 16): the maximum reaches 15 at once, then
 *               every 15 survives (ties by the thousand) */
void gpl_stalin_fill(int32_t *x, int64_t n, int pattern, uint64_t seed)
{
#pragma omp parallel for schedule(static) /* 2^28 values: seconds on one thread */
    for (int64_t i = 0; i < n; i++) {
        const uint64_t h = gpb_hash64(seed, (uint64_t)i);
        switch (pattern) {
        case 0: x[i] = (int32_t)(uint32_t)h; break;
        case 1: x[i] = (int32_t)(uint32_t)(uint64_t)(i / 2 + (int64_t)(h >> 61) - 4); break;
        case 2: x[i] = (int32_t)(uint32_t)(uint64_t)i; break;
        case 3: x[i] = (int32_t)(uint32_t)(uint64_t)-i; break;
        case 4: x[i] = 7; break;
        default: x[i] = (int32_t)(h >> 60); break;
        }
    }
}
