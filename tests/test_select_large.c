/*
 * Partitions into one buffer of 8 to 40 million items: sizes test_select's
 * table (at most 2^20 + 1 items) never reaches, where on an H100 the CUDA
 * backend takes paths no other test does (docs/perf/scan.md, round 108,
 * from a reading of the code and the occupancy, not a coverage run):
 * - by flags, i32, 8388609 items one element into their buffer: misaligned,
 *   so one tile a block, 2049 tiles, their counts taken in groups of 8;
 * - by comparison, i32, 4 * 10^7 items: wide tiles, not counted first
 *   (under the 256 MiB bound), so grouped count tasks on the full grid;
 * - by flags, i32 2^25 + 4097 and i64 2^24 + 1 items: counted first, past
 *   the prefixed kernel's range, so the 4- and 8-byte Bits kernels.
 * Each runs on both backends against gp_ref_partition: random signed data
 * (kept where below 0) and flags (any non-zero byte selects), drawn from the
 * printed seed; the output poisoned inside guard bands, the count read back
 * to the host, the input and flags checked unchanged. At most some 0.5 GB
 * of host and 0.4 GB of device memory at a time (4 * 10^7 i32).
 */
#include "cpu_reference.h"
#include "reduce_data.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct lcase {
    gp_dtype t;
    int64_t n;
    int off; /* elements before the input in its buffer */
    bool by_flags;
} lcase;

static const lcase cases[] = {
    {GP_DTYPE_I32, 8388609, 1, true},
    {GP_DTYPE_I32, 40000000, 0, false},
    {GP_DTYPE_I32, (INT64_C(1) << 25) + 4097, 0, true},
    {GP_DTYPE_I64, (INT64_C(1) << 24) + 1, 0, true},
};

static const unsigned char POISON = 0xA5;

/* The first element where got and want differ, or -1. */
static int64_t first_diff(const unsigned char *got, const unsigned char *want, int64_t n, size_t sz)
{
    for (int64_t i = 0; i < n; i++)
        if (memcmp(got + (size_t)i * sz, want + (size_t)i * sz, sz) != 0) return i;
    return -1;
}

static void run_case(gpt *t, long k, const lcase *c)
{
    char desc[128], why[256] = "";
    const size_t sz = gpt_size(c->t);
    const size_t in_bytes = (size_t)(c->n + c->off) * sz, out_bytes = (size_t)c->n * sz;
    snprintf(desc, sizeof desc, "case %ld: partition_%s %s n=%" PRId64 " offset=%d", k, c->by_flags ? "flagged" : "if",
             gp_dtype_name(c->t), c->n, c->off);
    unsigned char *x = malloc(in_bytes), *ref = malloc(out_bytes), *got = malloc(out_bytes);
    uint8_t *flags = malloc((size_t)c->n);
    unsigned char *din = NULL;
    uint8_t *dflags = NULL;
    gpt_guarded out = {0};
    if (!x || !ref || !got || !flags) {
        gpt_skip_for_memory(t, desc);
        goto done;
    }
    const uint64_t seed = gpt_derive(t->seed, (uint64_t)k, (uint64_t)c->n, 0, 0);
    memset(x, 0x3c, (size_t)c->off * sz);
    unsigned char *xin = x + (size_t)c->off * sz;
    gpt_fill(xin, c->t, c->n, PAT_RANDOM, false, seed);
    gpt_rng r = {seed ^ 0x9e3779b97f4a7c15ull};
    for (int64_t i = 0; i < c->n; i++) {
        uint64_t v = gpt_next(&r);
        flags[i] = (v & 1) ? (uint8_t)((v >> 8) | 1) : 0;
    }
    unsigned char value[8] = {0}; /* x < 0 keeps about half of random signed integers */
    const int64_t want = gp_ref_partition(xin, c->t, c->n, c->by_flags ? flags : NULL, GP_CMP_LT, value, ref);

    gp_status s = gp_malloc(t->ctx, (void **)&din, in_bytes);
    if (s == GP_STATUS_OK) s = gp_malloc(t->ctx, (void **)&dflags, (size_t)c->n);
    if (s == GP_STATUS_OK) s = gpt_guarded_alloc(t->ctx, &out, out_bytes);
    if (s == GP_STATUS_OUT_OF_MEMORY || s == GP_STATUS_DEVICE_OUT_OF_MEMORY) {
        gpt_skip_for_memory(t, desc);
        goto done;
    }
    if (s == GP_STATUS_OK) s = gp_copy_from_host(t->ctx, din, x, in_bytes);
    if (s == GP_STATUS_OK) s = gp_copy_from_host(t->ctx, dflags, flags, (size_t)c->n);
    if (s == GP_STATUS_OK) s = gpt_guarded_poison(&out, &POISON, 1);
    int64_t count = -1;
    const unsigned char *din_at = din + (size_t)c->off * sz;
    if (s == GP_STATUS_OK)
        s = c->by_flags ? gp_partition_flagged(t->ctx, din_at, c->t, c->n, dflags, out.ptr, NULL, &count)
                        : gp_partition_if(t->ctx, din_at, c->t, c->n, GP_CMP_LT, value, out.ptr, NULL, &count);
    if (s != GP_STATUS_OK) {
        gpt_fail(t, "%s: %s", desc, gp_status_name(s));
        goto done;
    }
    GPT_CHECK(t, count == want, "%s: count %" PRId64 ", want %" PRId64, desc, count, want);
    GPT_CHECK(t, want > c->n / 4 && want < c->n - c->n / 4, "%s: the reference kept %" PRId64 ", not about half",
              desc, want);
    if (!gpt_guarded_check(&out, got, why, sizeof why)) {
        gpt_fail(t, "%s: %s", desc, why);
    } else {
        const int64_t bad = first_diff(got, ref, c->n, sz);
        GPT_CHECK(t, bad < 0, "%s: out[%" PRId64 "] differs from the reference (%" PRId64 " selected)", desc, bad, want);
    }
    GPT_CHECK(t, gpt_unchanged(t->ctx, din, x, in_bytes, "input", why, sizeof why), "%s: %s", desc, why);
    GPT_CHECK(t, gpt_unchanged(t->ctx, dflags, flags, (size_t)c->n, "flags", why, sizeof why), "%s: %s", desc, why);
done:
    gpt_guarded_free(&out);
    gp_free(t->ctx, dflags);
    gp_free(t->ctx, din);
    free(x), free(ref), free(got), free(flags);
}

int main(int argc, char **argv)
{
    gpt t;
    gpt_init(&t, argc, argv);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        if (gpt_selected(&t, (long)k)) run_case(&t, (long)k, &cases[k]);
    return gpt_finish(&t);
}
