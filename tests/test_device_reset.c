/*
 * The way out of a sticky CUDA error (gpuprim.h): free every context of the
 * device, cudaDeviceReset, make new ones. A context made after the reset
 * must still run the kernels whose launches raise a function attribute
 * first (dynamic shared memory past 48 KiB: the filter's chunks, the byte
 * transpose's tiles, large histograms, persistent grids; clusters of 9 to 16
 * blocks: small scans, filters and reductions), although the backend
 * remembers per process which attributes it raised and does not raise them
 * again (cuda_backend.cu, set_attribute_once): the runtime keeps them for the
 * new CUDA context. The same calls run before the reset, on the first
 * context, and after it, on a second; each is compared exactly with the
 * serial reference. CUDA only.
 */
#include "cpu_reference.h"
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef GPUPRIM_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#define CHECK GPT_CHECK

#ifdef GPUPRIM_HAVE_CUDA
/* n random elements of t in the context's space, and on the host. */
typedef struct array {
    void *dev, *host;
    size_t bytes;
} array;

static bool array_make(gpt *t, array *a, gp_dtype dt, int64_t n, uint64_t salt)
{
    a->bytes = (size_t)n * gp_dtype_size(dt);
    a->host = malloc(a->bytes);
    a->dev = NULL;
    if (!a->host || gp_malloc(t->ctx, &a->dev, a->bytes) != GP_STATUS_OK) return false;
    gpt_rng r = {gpt_derive(t->seed, salt, (uint64_t)n, (uint64_t)dt, 0)};
    unsigned char *b = a->host;
    if (dt == GP_DTYPE_F32) {
        for (int64_t i = 0; i < n; i++) ((float *)a->host)[i] = (float)(gpt_uniform(&r) * 2e6 - 1e6);
    } else {
        for (size_t i = 0; i < a->bytes; i++) b[i] = (unsigned char)gpt_next(&r);
    }
    return gp_copy_from_host(t->ctx, a->dev, a->host, a->bytes) == GP_STATUS_OK;
}

static void array_free(gpt *t, array *a)
{
    gp_free(t->ctx, a->dev);
    free(a->host);
}

/* The call's status, then its device output against the reference's. */
static void expect(gpt *t, const char *when, const char *what, gp_status s, const void *dev, const void *want,
                   size_t bytes)
{
    void *got = malloc(bytes ? bytes : 1);
    bool same = got && s == GP_STATUS_OK && gp_copy_to_host(t->ctx, got, dev, bytes) == GP_STATUS_OK &&
                memcmp(got, want, bytes) == 0;
    CHECK(t, same, "%s, %s: %s (%s)%s", when, what, gp_status_name(s), gp_ctx_last_error(t->ctx),
          s == GP_STATUS_OK ? ", output differs from the reference" : "");
    free(got);
}

/* The same for a call that also counts: `got` items against `m`. */
static void expect_counted(gpt *t, const char *when, const char *what, gp_status s, int64_t got, int64_t m,
                           const void *dev, const void *want, size_t bytes)
{
    CHECK(t, s != GP_STATUS_OK || got == m, "%s, %s: count %lld, want %lld", when, what, (long long)got,
          (long long)m);
    expect(t, when, what, s, dev, want, bytes);
}

static void scans(gpt *t, const char *when)
{
    /* 12 tiles (a cluster of more than 8 blocks) and a persistent grid. */
    const int64_t sizes[] = {12 * 4096 + 5, (1 << 24) + 3};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        const int64_t n = sizes[k];
        array in = {0}, out = {0};
        int32_t *want = malloc((size_t)n * 4);
        char what[64];
        snprintf(what, sizeof what, "scan i32 sum of %lld", (long long)n);
        if (!want || !array_make(t, &in, GP_DTYPE_I32, n, 1) || !array_make(t, &out, GP_DTYPE_I32, n, 2)) {
            gpt_fail(t, "%s, %s: could not allocate", when, what);
        } else {
            gp_ref_scan(in.host, GP_DTYPE_I32, n, GP_OP_SUM, false, NULL, want, GP_DTYPE_I32);
            gp_status s = gp_scan_inclusive(t->ctx, in.dev, GP_DTYPE_I32, n, GP_OP_SUM, out.dev, GP_DTYPE_I32);
            expect(t, when, what, s, out.dev, want, out.bytes);
        }
        array_free(t, &in);
        array_free(t, &out);
        free(want);
    }
}

static void selections(gpt *t, const char *when)
{
    /* Filters of 12 tiles (a cluster) and of many chunks (54 KiB of shared
     * memory a block); persistent selections and partitions. */
    const int64_t sizes[] = {12 * 4096 + 1, (1 << 22) + 7, (1 << 24) + 1};
    const int32_t middle = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        const int64_t n = sizes[k];
        array in = {0}, out = {0}, rejected = {0};
        int32_t *want = malloc((size_t)n * 4), *want_rejected = malloc((size_t)n * 4);
        int64_t got = -1;
        char what[64];
        if (!want || !want_rejected || !array_make(t, &in, GP_DTYPE_I32, n, 3) ||
            !array_make(t, &out, GP_DTYPE_I32, n, 4) || !array_make(t, &rejected, GP_DTYPE_I32, n, 5)) {
            gpt_fail(t, "%s, selections of %lld: could not allocate", when, (long long)n);
        } else {
            /* The filter's survivors are few in random data: start with an
             * ascending run so that it writes many. */
            for (int64_t i = 0; i < n / 2; i++) ((int32_t *)in.host)[i] = (int32_t)(i - n);
            gp_copy_from_host(t->ctx, in.dev, in.host, in.bytes);
            int64_t m = gp_ref_filter(in.host, GP_DTYPE_I32, n, false, want);
            snprintf(what, sizeof what, "filter of %lld (%lld kept)", (long long)n, (long long)m);
            gp_status s = gp_filter_running_max(t->ctx, in.dev, GP_DTYPE_I32, n, 0, out.dev, NULL, &got);
            expect_counted(t, when, what, s, got, m, out.dev, want, (size_t)m * 4);

            m = gp_ref_select(in.host, GP_DTYPE_I32, n, NULL, GP_CMP_LT, &middle, want);
            snprintf(what, sizeof what, "select_if of %lld", (long long)n);
            s = gp_select_if(t->ctx, in.dev, GP_DTYPE_I32, n, GP_CMP_LT, &middle, out.dev, NULL, &got);
            expect_counted(t, when, what, s, got, m, out.dev, want, (size_t)m * 4);

            m = gp_ref_partition(in.host, GP_DTYPE_I32, n, NULL, GP_CMP_LT, &middle, want);
            snprintf(what, sizeof what, "partition_if of %lld", (long long)n);
            s = gp_partition_if(t->ctx, in.dev, GP_DTYPE_I32, n, GP_CMP_LT, &middle, out.dev, NULL, &got);
            expect_counted(t, when, what, s, got, m, out.dev, want, out.bytes);

            m = gp_ref_partition_copy(in.host, GP_DTYPE_I32, n, NULL, GP_CMP_LT, &middle, want, want_rejected);
            snprintf(what, sizeof what, "partition_copy_if of %lld", (long long)n);
            s = gp_partition_copy_if(t->ctx, in.dev, GP_DTYPE_I32, n, GP_CMP_LT, &middle, out.dev, rejected.dev,
                                     NULL, &got);
            expect_counted(t, when, what, s, got, m, out.dev, want, (size_t)m * 4);
            expect(t, when, "its rejected items", s, rejected.dev, want_rejected, (size_t)(n - m) * 4);
        }
        array_free(t, &in);
        array_free(t, &out);
        array_free(t, &rejected);
        free(want);
        free(want_rejected);
    }
}

static void others(gpt *t, const char *when)
{
    /* A byte matrix of 64 MiB (256 x 256 byte tiles, 64 KiB of shared
     * memory), histograms of 2^14 and 2^16 bins (their counts past 48 KiB),
     * and a reduction small enough for a cluster of 16. */
    const int64_t side = 8192, samples = (1 << 20) + 3;
    array m = {0}, mt = {0}, u8s = {0}, f32s = {0}, hist = {0};
    unsigned char *want = malloc((size_t)(side * side));
    uint64_t *want_hist = malloc(sizeof(uint64_t) << 16);
    if (!want || !want_hist || !array_make(t, &m, GP_DTYPE_U8, side * side, 6) ||
        !array_make(t, &mt, GP_DTYPE_U8, side * side, 7) || !array_make(t, &u8s, GP_DTYPE_U8, samples, 8) ||
        !array_make(t, &f32s, GP_DTYPE_F32, samples, 9) || !array_make(t, &hist, GP_DTYPE_U64, 1 << 16, 10)) {
        gpt_fail(t, "%s, transpose and histograms: could not allocate", when);
    } else {
        gp_transpose_params p = {.elem_size = 1, .rows = side, .cols = side};
        gp_ref_transpose(m.host, want, &p);
        expect(t, when, "transpose u8 8192 x 8192", gp_transpose(t->ctx, m.dev, mt.dev, 1, side, side), mt.dev,
               want, mt.bytes);

        const int64_t bins[] = {1 << 14, 1 << 16};
        for (int k = 0; k < 2; k++) {
            char what[64];
            snprintf(what, sizeof what, "histogram_even u8 into %lld bins", (long long)bins[k]);
            gp_ref_histogram_even(u8s.host, GP_DTYPE_U8, samples, bins[k], 0.0, 256.0, want_hist, 0);
            gp_status s = gp_histogram_even(t->ctx, u8s.dev, GP_DTYPE_U8, samples, bins[k], 0.0, 256.0,
                                            hist.dev, 0);
            expect(t, when, what, s, hist.dev, want_hist, (size_t)bins[k] * 8);
            snprintf(what, sizeof what, "histogram_even f32 into %lld bins", (long long)bins[k]);
            gp_ref_histogram_even(f32s.host, GP_DTYPE_F32, samples, bins[k], -1e6, 1e6, want_hist, 0);
            s = gp_histogram_even(t->ctx, f32s.dev, GP_DTYPE_F32, samples, bins[k], -1e6, 1e6, hist.dev, 0);
            expect(t, when, what, s, hist.dev, want_hist, (size_t)bins[k] * 8);
        }

        uint64_t got = 0, ref = 0;
        gp_ref_reduce(u8s.host, GP_DTYPE_U8, 1 << 16, GP_OP_SUM, &ref, GP_DTYPE_U64);
        gp_status s = gp_reduce_to_host(t->ctx, u8s.dev, GP_DTYPE_U8, 1 << 16, GP_OP_SUM, &got, GP_DTYPE_U64);
        CHECK(t, s == GP_STATUS_OK && got == ref, "%s, reduce u8 sum of 2^16: %s, %llu, want %llu", when,
              gp_status_name(s), (unsigned long long)got, (unsigned long long)ref);
    }
    array_free(t, &m);
    array_free(t, &mt);
    array_free(t, &u8s);
    array_free(t, &f32s);
    array_free(t, &hist);
    free(want);
    free(want_hist);
}

static void run_all(gpt *t, const char *when)
{
    scans(t, when);
    selections(t, when);
    others(t, when);
}
#endif

int main(int argc, char **argv)
{
    gpt t;
    gpt_init(&t, argc, argv);
    if (t.backend != GP_BACKEND_CUDA) {
        printf("skipped: cudaDeviceReset concerns the CUDA backend only (run with --backend cuda)\n");
        gpt_skip(&t);
        return gpt_finish(&t);
    }
#ifdef GPUPRIM_HAVE_CUDA
    run_all(&t, "first context");
    gp_ctx_free(t.ctx);
    t.ctx = NULL;
    cudaError_t e = cudaDeviceReset();
    gp_status s = e == cudaSuccess ? gp_ctx_create(&t.ctx, GP_BACKEND_CUDA, 0) : GP_STATUS_DEVICE_ERROR;
    if (s != GP_STATUS_OK) {
        gpt_fail(&t, "after cudaDeviceReset (%s): a new context: %s", cudaGetErrorName(e), gp_status_name(s));
        return gpt_finish(&t);
    }
    run_all(&t, "context made after cudaDeviceReset");
#endif
    return gpt_finish(&t);
}
