/*
 * Seed 002's "Stalin sort" through the C API: keep each element that is not
 * below the maximum of those before it. Filters n int32 values (a random walk
 * that climbs, so many survive) on the backend asked for, then checks the
 * survivors against the article's serial loop.
 *   example_stalin [--backend auto|cpu|cuda] [--seed S] [N]
 * Exits 0 when the survivors match, 1 when they differ or a call fails, 2 on
 * a bad argument.
 */
#include <gpuprim.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* splitmix64: a small generator whose stream the seed alone fixes. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* The article's loop: the survivors of x[0..n) in order; returns their number. */
static int64_t stalin_serial(const int32_t *x, int64_t n, int32_t *kept)
{
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++)
        if (i == 0 || x[i] >= kept[k - 1]) kept[k++] = x[i];
    return k;
}

static int usage(const char *why)
{
    fprintf(stderr, "example_stalin: %s\nusage: example_stalin [--backend auto|cpu|cuda] [--seed S] [N]\n", why);
    return 2;
}

int main(int argc, char **argv)
{
    gp_backend backend = GP_BACKEND_AUTO;
    uint64_t seed = (uint64_t)time(NULL);
    long long n = 1000000;
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        if (!strcmp(argv[i], "--backend") && i + 1 < argc) {
            if (gp_backend_from_name(argv[++i], &backend) != GP_STATUS_OK) return usage("unknown backend");
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            seed = strtoull(argv[++i], &end, 10);
            if (end == argv[i] || *end || argv[i][0] == '-') return usage("the seed is not a number");
        } else {
            n = strtoll(argv[i], &end, 10);
            if (end == argv[i] || *end || n < 1 || n > (1LL << 28)) return usage("N must be a number from 1 to 2^28");
        }
    }
    printf("n = %lld, seed = %llu\n", n, (unsigned long long)seed);

    int32_t *x = malloc((size_t)n * sizeof *x);
    int32_t *expect = malloc((size_t)n * sizeof *x);
    int32_t *got = malloc((size_t)n * sizeof *x);
    if (!x || !expect || !got) return 1;
    /* Steps of -3..+4 climb by half a unit an element on average, so about
     * three elements in ten survive; the walk stays inside int32 for any allowed n. */
    uint64_t state = seed;
    x[0] = 0;
    for (long long i = 1; i < n; i++) x[i] = x[i - 1] + (int32_t)(next_random(&state) % 8) - 3;

    gp_ctx *ctx = NULL;
    void *in = NULL, *out = NULL;
    int64_t count = -1;
    size_t bytes = (size_t)n * sizeof *x;
    gp_status s = gp_ctx_create(&ctx, backend, 0);
    if (s == GP_STATUS_OK) s = gp_malloc(ctx, &in, bytes);
    if (s == GP_STATUS_OK) s = gp_malloc(ctx, &out, bytes);
    if (s == GP_STATUS_OK) s = gp_copy_from_host(ctx, in, x, bytes);
    /* One fused pass on CUDA; host_count makes the call wait for its count. */
    if (s == GP_STATUS_OK) s = gp_filter_running_max(ctx, in, GP_DTYPE_I32, n, 0, out, NULL, &count);
    /* A count outside 1..n is wrong on its face; copying that many would overrun got. */
    int count_sane = count >= 1 && count <= n;
    if (s == GP_STATUS_OK && count_sane) s = gp_copy_to_host(ctx, got, out, (size_t)count * sizeof *x);
    int ok = 0;
    if (s == GP_STATUS_OK && !count_sane) {
        fprintf(stderr, "example_stalin: the filter returned a count of %lld for %lld elements\n", (long long)count, n);
    } else if (s != GP_STATUS_OK) {
        fprintf(stderr, "gpuprim: %s (%s)\n", gp_status_string(s), ctx ? gp_ctx_last_error(ctx) : "no context");
    } else {
        int64_t want = stalin_serial(x, n, expect);
        ok = count == want && !memcmp(got, expect, (size_t)want * sizeof *x);
        printf("%lld of %lld survive on the %s backend, first %d, last %d: %s\n", (long long)count, n,
               gp_backend_name(gp_ctx_backend(ctx)), got[0], got[count - 1],
               ok ? "the serial loop agrees" : "the serial loop DIFFERS");
    }
    gp_free(ctx, in);
    gp_free(ctx, out);
    gp_ctx_free(ctx);
    free(x);
    free(expect);
    free(got);
    return ok ? 0 : 1;
}
