/*
 * Scan, selection, partition and the running-max filter past 2^31
 * elements, where a 32-bit index, offset or count would wrap:
 * N = 2^31 + 4099 bytes.
 *
 * - inclusive u8 sum in place (u8 wraps mod 256) and, on CUDA, u8 -> u32
 *   (8 GiB of output, wraps mod 2^32): checked exactly and in parallel by
 *   out[i] - out[i-1] == x[i] with out[0] == x[0], which pins every element;
 * - inclusive u8 max: out[i] == max(out[i-1], x[i]);
 * - select_flagged with every flag set: count N (past 2^31), out == in;
 * - partition_if x < 200: rejected items land past index 2^31;
 * - the filter on non-decreasing data with a few smaller bytes past 2^31:
 *   every element but those survives (count past 2^31), and descending
 *   keeps only the leading run of the minimum.
 * On the CPU backend (2 cores, shared) only the in-place scan and the
 * filter run: the others add 8 GiB of memory for the same index paths.
 */
#include "cpu_reference.h"
#include "reduce_data.h"

#include <inttypes.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int64_t N = (INT64_C(1) << 31) + 4099;

/* Random bytes, counter based, in parallel. */
static void random_bytes(unsigned char *x, int64_t n, uint64_t seed)
{
#pragma omp parallel for schedule(static)
    for (int64_t w = 0; w < n / 8; w++) {
        gpt_rng r = gpt_rng_at(seed, (uint64_t)w);
        uint64_t v = gpt_next(&r);
        memcpy(x + 8 * w, &v, 8);
    }
    for (int64_t i = n / 8 * 8; i < n; i++) x[i] = (unsigned char)(i * 131);
}

/* The first index where the check fails, or -1 (parallel). */
#define FIRST_BAD(n, cond_ok)                                         \
    ({                                                                \
        int64_t bad_ = INT64_MAX;                                     \
        _Pragma("omp parallel for reduction(min : bad_)")             \
        for (int64_t i = 0; i < (n); i++)                             \
            if (!(cond_ok) && i < bad_) bad_ = i;                     \
        bad_ == INT64_MAX ? -1 : bad_;                                \
    })

static void check_status(gpt *t, const char *what, gp_status s)
{
    GPT_CHECK(t, s == GP_STATUS_OK, "%s: %s (%s)", what, gp_status_name(s), gp_ctx_last_error(t->ctx));
}

int main(int argc, char **argv)
{
    gpt t;
    gpt_init(&t, argc, argv);
    const bool cuda = t.backend == GP_BACKEND_CUDA;
    gp_ctx *ctx = t.ctx;
    unsigned char *x = malloc((size_t)N), *y = malloc((size_t)N);
    unsigned char *din = NULL, *dout = NULL;
    if (!x || !y || gp_malloc(ctx, (void **)&din, (size_t)N) != GP_STATUS_OK) {
        printf("SKIPPED: not enough memory for 2 x %" PRId64 " bytes\n", N);
        free(x), free(y);
        gpt_skip(&t);
        return gpt_finish(&t);
    }
    random_bytes(x, N, t.seed);

    /* Inclusive u8 sum in place. */
    gp_status s = gp_copy_from_host(ctx, din, x, (size_t)N);
    if (s == GP_STATUS_OK) s = gp_scan_inclusive(ctx, din, GP_DTYPE_U8, N, GP_OP_SUM, din, GP_DTYPE_U8);
    if (s == GP_STATUS_OK) s = gp_copy_to_host(ctx, y, din, (size_t)N);
    check_status(&t, "u8 sum in place", s);
    if (s == GP_STATUS_OK) {
        int64_t bad = FIRST_BAD(N, i == 0 ? y[0] == x[0] : (unsigned char)(y[i] - y[i - 1]) == x[i]);
        GPT_CHECK(&t, bad < 0, "u8 sum in place: wrong at %" PRId64, bad);
    }

    /* Inclusive u8 max. */
    s = gp_copy_from_host(ctx, din, x, (size_t)N);
    if (s == GP_STATUS_OK && cuda) s = gp_malloc(ctx, (void **)&dout, (size_t)N * 4);
    unsigned char *maxout = cuda ? dout : din;
    if (s == GP_STATUS_OK) s = gp_scan_inclusive(ctx, din, GP_DTYPE_U8, N, GP_OP_MAX, maxout, GP_DTYPE_U8);
    if (s == GP_STATUS_OK) s = gp_copy_to_host(ctx, y, maxout, (size_t)N);
    check_status(&t, "u8 max", s);
    if (s == GP_STATUS_OK) {
        int64_t bad = FIRST_BAD(N, i == 0 ? y[0] == x[0] : y[i] == (x[i] > y[i - 1] ? x[i] : y[i - 1]));
        GPT_CHECK(&t, bad < 0, "u8 max: wrong at %" PRId64, bad);
    }

    if (cuda && s == GP_STATUS_OK) {
        /* u8 -> u32 sum: 8 GiB out, read back in 2 GiB pieces. */
        s = gp_copy_from_host(ctx, din, x, (size_t)N);
        if (s == GP_STATUS_OK) s = gp_scan_inclusive(ctx, din, GP_DTYPE_U8, N, GP_OP_SUM, dout, GP_DTYPE_U32);
        check_status(&t, "u8 -> u32 sum", s);
        uint32_t prev = 0;
        const int64_t piece = INT64_C(1) << 29;
        for (int64_t lo = 0; s == GP_STATUS_OK && lo < N; lo += piece) {
            int64_t len = N - lo < piece ? N - lo : piece;
            uint32_t *o = (uint32_t *)y; /* 2 GiB: a piece of 2^29 u32 */
            s = gp_copy_to_host(ctx, o, dout + (size_t)lo * 4, (size_t)len * 4);
            const uint32_t first_prev = prev;
            int64_t bad = FIRST_BAD(len, o[i] - (i == 0 ? first_prev : o[i - 1]) == x[lo + i]);
            GPT_CHECK(&t, s == GP_STATUS_OK && bad < 0, "u8 -> u32 sum: wrong at %" PRId64, lo + bad);
            prev = o[len - 1];
        }

        /* select_flagged, every flag set: count N, out == in. */
        uint8_t *dflags = NULL;
        int64_t count = -1;
        s = gp_malloc(ctx, (void **)&dflags, (size_t)N);
        if (s == GP_STATUS_OK) s = gp_memset(ctx, dflags, 7, (size_t)N);
        if (s == GP_STATUS_OK) s = gp_select_flagged(ctx, din, GP_DTYPE_U8, N, dflags, dout, NULL, &count);
        if (s == GP_STATUS_OK) s = gp_copy_to_host(ctx, y, dout, (size_t)N);
        check_status(&t, "select_flagged all", s);
        GPT_CHECK(&t, count == N && memcmp(x, y, (size_t)N) == 0, "select_flagged all: count %" PRId64, count);
        gp_free(ctx, dflags);

        /* partition_if x < 200. */
        unsigned char v = 200, *ref = malloc((size_t)N);
        if (!ref) abort();
        int64_t want = gp_ref_partition(x, GP_DTYPE_U8, N, NULL, GP_CMP_LT, &v, ref);
        s = gp_partition_if(ctx, din, GP_DTYPE_U8, N, GP_CMP_LT, &v, dout, NULL, &count);
        if (s == GP_STATUS_OK) s = gp_copy_to_host(ctx, y, dout, (size_t)N);
        check_status(&t, "partition_if", s);
        GPT_CHECK(&t, count == want && memcmp(ref, y, (size_t)N) == 0, "partition_if: count %" PRId64 ", want %" PRId64,
                  count, want);
        free(ref);
    }

    /* The filter: non-decreasing bytes, with drops past 2^31. */
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < N; i++) x[i] = (unsigned char)(i * 250 / N + 2);
    const int64_t drops[] = {(INT64_C(1) << 31) + 1, (INT64_C(1) << 31) + 2048, N - 1};
    for (size_t k = 0; k < 3; k++) x[drops[k]] = 1; /* below everything before it */
    int64_t count = -1, zeros = 0;
    for (int64_t i = 0; i < N && x[i] == 2; i++) zeros++;
    s = gp_copy_from_host(ctx, din, x, (size_t)N);
    unsigned char *fout = cuda ? dout : y;
    if (!cuda) s = GP_STATUS_OK;
    if (s == GP_STATUS_OK) s = gp_filter_running_max(ctx, din, GP_DTYPE_U8, N, 0, fout, NULL, &count);
    if (s == GP_STATUS_OK && cuda) s = gp_copy_to_host(ctx, y, dout, (size_t)N);
    check_status(&t, "filter", s);
    if (s == GP_STATUS_OK) {
        GPT_CHECK(&t, count == N - 3, "filter: count %" PRId64 ", want %" PRId64, count, N - 3);
        /* Survivor j is x[j + (number of drops before it)]. */
        int64_t bad = FIRST_BAD(N - 3, y[i] == x[i + (i >= drops[0]) + (i + 1 >= drops[1])]);
        GPT_CHECK(&t, bad < 0, "filter: survivor %" PRId64 " is wrong", bad);
    }
    if (!cuda) { /* descending: the leading run of the minimum, then the drops */
        s = gp_filter_running_max(ctx, din, GP_DTYPE_U8, N, GP_FILTER_DESCENDING, y, NULL, &count);
        check_status(&t, "filter descending", s);
        GPT_CHECK(&t, count == zeros + 3, "filter descending: count %" PRId64 ", want %" PRId64, count, zeros + 3);
    } else {
        s = gp_filter_running_max(ctx, din, GP_DTYPE_U8, N, GP_FILTER_DESCENDING, dout, NULL, &count);
        check_status(&t, "filter descending", s);
        GPT_CHECK(&t, count == zeros + 3, "filter descending: count %" PRId64 ", want %" PRId64, count, zeros + 3);
    }

    gp_free(ctx, din);
    gp_free(ctx, dout);
    free(x), free(y);
    return gpt_finish(&t);
}
