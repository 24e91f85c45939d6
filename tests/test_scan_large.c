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
 * - partition_if x < 200: rejected items land past index 2^31; then
 *   partition_copy_if x < 200 into two buffers, which read as the same,
 *   and select_if x < 200, the first part of the same;
 * - partition_copy_flagged into two buffers, flags from the bytes, then
 *   partition_flagged into one with the same flags;
 * - the filter on non-decreasing data with a few smaller bytes past 2^31:
 *   every element but those survives (count past 2^31), and descending
 *   keeps only the leading run of the minimum and those bytes (both
 *   checked element by element).
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

/* Parallel checks: each gives the first index that fails, or -1. */
static int64_t first_bad_sum(const unsigned char *x, const unsigned char *y, int64_t n)
{
    int64_t bad = INT64_MAX;
#pragma omp parallel for reduction(min : bad)
    for (int64_t i = 0; i < n; i++)
        if ((i == 0 ? y[0] != x[0] : (unsigned char)(y[i] - y[i - 1]) != x[i]) && i < bad) bad = i;
    return bad == INT64_MAX ? -1 : bad;
}

static int64_t first_bad_max(const unsigned char *x, const unsigned char *y, int64_t n)
{
    int64_t bad = INT64_MAX;
#pragma omp parallel for reduction(min : bad)
    for (int64_t i = 0; i < n; i++)
        if ((i == 0 ? y[0] != x[0] : y[i] != (x[i] > y[i - 1] ? x[i] : y[i - 1])) && i < bad) bad = i;
    return bad == INT64_MAX ? -1 : bad;
}

/* o holds len u32 sums from x[lo], the sum before them being prev. */
static int64_t first_bad_sum32(const unsigned char *x, const uint32_t *o, int64_t lo, int64_t len, uint32_t prev)
{
    int64_t bad = INT64_MAX;
#pragma omp parallel for reduction(min : bad)
    for (int64_t i = 0; i < len; i++)
        if (o[i] - (i == 0 ? prev : o[i - 1]) != x[lo + i] && i < bad) bad = i;
    return bad == INT64_MAX ? -1 : lo + bad;
}

/* y holds x without the three dropped positions d[0] < d[1] < d[2]. */
static int64_t first_bad_survivor(const unsigned char *x, const unsigned char *y, int64_t n, const int64_t *d)
{
    int64_t bad = INT64_MAX;
#pragma omp parallel for reduction(min : bad)
    for (int64_t j = 0; j < n - 3; j++) {
        int64_t i = j;
        for (int k = 0; k < 3; k++) i += i >= d[k];
        if (y[j] != x[i] && j < bad) bad = j;
    }
    return bad == INT64_MAX ? -1 : bad;
}

/* A split's two buffers read back one after the other into y: selected
 * at d, rejected at d + N (count checked first, y holds N bytes). */
static gp_status read_split(gp_ctx *ctx, unsigned char *y, const unsigned char *d, int64_t count)
{
    if (count < 0 || count > N) return GP_STATUS_OK; /* the count check fails it */
    gp_status s = gp_copy_to_host(ctx, y, d, (size_t)count);
    if (s == GP_STATUS_OK) s = gp_copy_to_host(ctx, y + count, d + N, (size_t)(N - count));
    return s;
}

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
        char why[96];
        snprintf(why, sizeof why, "not enough memory for 2 x %" PRId64 " bytes", N);
        free(x), free(y);
        gpt_skip_for_memory(&t, why);
        return gpt_finish(&t);
    }
    random_bytes(x, N, t.seed);

    /* Inclusive u8 sum in place. */
    gp_status s = gp_copy_from_host(ctx, din, x, (size_t)N);
    if (s == GP_STATUS_OK) s = gp_scan_inclusive(ctx, din, GP_DTYPE_U8, N, GP_OP_SUM, din, GP_DTYPE_U8);
    if (s == GP_STATUS_OK) s = gp_copy_to_host(ctx, y, din, (size_t)N);
    check_status(&t, "u8 sum in place", s);
    if (s == GP_STATUS_OK) {
        int64_t bad = first_bad_sum(x, y, N);
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
        int64_t bad = first_bad_max(x, y, N);
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
            int64_t bad = s == GP_STATUS_OK ? first_bad_sum32(x, o, lo, len, prev) : lo;
            GPT_CHECK(&t, bad < 0, "u8 -> u32 sum: wrong at %" PRId64, bad);
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

        /* partition_copy_if x < 200: selected at dout, rejected at dout + N
         * (dout holds 4 N bytes), read back one after the other. */
        memset(y, 0, (size_t)N);
        count = -1;
        s = gp_partition_copy_if(ctx, din, GP_DTYPE_U8, N, GP_CMP_LT, &v, dout, dout + N, NULL, &count);
        if (s == GP_STATUS_OK) s = read_split(ctx, y, dout, count);
        check_status(&t, "partition_copy_if", s);
        GPT_CHECK(&t, count == want && memcmp(ref, y, (size_t)N) == 0,
                  "partition_copy_if: count %" PRId64 ", want %" PRId64, count, want);

        /* select_if x < 200: the partition's selected part (1-byte
         * selections by comparison this large take their wider kernel). */
        count = -1; /* dout still holds that part: poisoned first, with a byte it cannot hold */
        s = gp_memset(ctx, dout, 0xEE, (size_t)N);
        if (s == GP_STATUS_OK) s = gp_select_if(ctx, din, GP_DTYPE_U8, N, GP_CMP_LT, &v, dout, NULL, &count);
        if (s == GP_STATUS_OK && count == want) s = gp_copy_to_host(ctx, y, dout, (size_t)want);
        check_status(&t, "select_if", s);
        GPT_CHECK(&t, count == want && memcmp(ref, y, (size_t)want) == 0, "select_if: count %" PRId64 ", want %" PRId64,
                  count, want);

        /* partition_copy_flagged, flags from the bytes (about 2/3 set, any
         * non-zero value): 1-byte splits by flags take their own kernel. */
        uint8_t *flags = malloc((size_t)N);
        if (!flags) abort();
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < N; i++) flags[i] = x[i] % 3 ? (uint8_t)(x[i] | 1) : 0;
        want = gp_ref_partition(x, GP_DTYPE_U8, N, flags, GP_CMP_LT, &v, ref);
        memset(y, 0, (size_t)N);
        count = -1;
        s = gp_malloc(ctx, (void **)&dflags, (size_t)N);
        if (s == GP_STATUS_OK) s = gp_copy_from_host(ctx, dflags, flags, (size_t)N);
        if (s == GP_STATUS_OK)
            s = gp_partition_copy_flagged(ctx, din, GP_DTYPE_U8, N, dflags, dout, dout + N, NULL, &count);
        if (s == GP_STATUS_OK) s = read_split(ctx, y, dout, count);
        check_status(&t, "partition_copy_flagged", s);
        GPT_CHECK(&t, count == want && count > N / 2 && memcmp(ref, y, (size_t)N) == 0,
                  "partition_copy_flagged: count %" PRId64 ", want %" PRId64, count, want);

        /* partition_flagged into one buffer, the same flags: counted first
         * by bits, then the prefixed kernel. */
        memset(y, 0, (size_t)N);
        count = -1; /* dout still holds the split's selected part: poisoned first */
        s = gp_memset(ctx, dout, 0xEE, (size_t)N);
        if (s == GP_STATUS_OK) s = gp_partition_flagged(ctx, din, GP_DTYPE_U8, N, dflags, dout, NULL, &count);
        if (s == GP_STATUS_OK) s = gp_copy_to_host(ctx, y, dout, (size_t)N);
        check_status(&t, "partition_flagged", s);
        GPT_CHECK(&t, count == want && memcmp(ref, y, (size_t)N) == 0,
                  "partition_flagged: count %" PRId64 ", want %" PRId64, count, want);
        gp_free(ctx, dflags);
        free(flags);
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
    if (s == GP_STATUS_OK) s = gp_filter_running_max(ctx, din, GP_DTYPE_U8, N, 0, fout, NULL, &count);
    if (s == GP_STATUS_OK && cuda) s = gp_copy_to_host(ctx, y, dout, (size_t)N);
    check_status(&t, "filter", s);
    if (s == GP_STATUS_OK) {
        GPT_CHECK(&t, count == N - 3, "filter: count %" PRId64 ", want %" PRId64, count, N - 3);
        int64_t bad = first_bad_survivor(x, y, N, drops);
        GPT_CHECK(&t, bad < 0, "filter: survivor %" PRId64 " is wrong", bad);
    }
    /* Descending: the leading run of the minimum (2s), then the three drops
     * (1s; ties with the running minimum survive). The output and PAST bytes
     * after it are poisoned first: the ascending survivors there start with
     * the same 2s, and nothing may be written past the last survivor. */
    enum { PAST = 4096 };
    const size_t dlen = (size_t)zeros + 3;
    count = -1;
    if (cuda) s = gp_memset(ctx, dout, 0xEE, dlen + PAST);
    else memset(y, 0xEE, dlen + PAST), s = GP_STATUS_OK;
    if (s == GP_STATUS_OK) s = gp_filter_running_max(ctx, din, GP_DTYPE_U8, N, GP_FILTER_DESCENDING, fout, NULL, &count);
    if (s == GP_STATUS_OK && cuda) s = gp_copy_to_host(ctx, y, dout, dlen + PAST);
    check_status(&t, "filter descending", s);
    if (s == GP_STATUS_OK) {
        GPT_CHECK(&t, count == zeros + 3, "filter descending: count %" PRId64 ", want %" PRId64, count, zeros + 3);
        int64_t bad = -1;
        for (size_t i = 0; i < dlen + PAST && bad < 0; i++)
            if (y[i] != (i < (size_t)zeros ? 2 : i < dlen ? 1 : 0xEE)) bad = (int64_t)i;
        GPT_CHECK(&t, bad < 0, "filter descending: byte %" PRId64 " is %u, want %u (%" PRId64 " survivors)", bad,
                  bad < 0 ? 0u : y[bad], bad < 0 ? 0u : bad < zeros ? 2u : bad < (int64_t)dlen ? 1u : 0xEEu, zeros + 3);
    }

    gp_free(ctx, din);
    gp_free(ctx, dout);
    free(x), free(y);
    return gpt_finish(&t);
}
