/*
 * Counting and histograms on the CUDA backend, each against a peer and the
 * read ceiling, on the context's stream, on the same rotated inputs:
 *   count              gp_count_if(x < mid)   vs a naive kernel, one atomic per hit
 *   histogram          gp_histogram_even      vs cub::DeviceHistogram::HistogramEven
 *                      (u8: 256 bins over [0, 256); u16: 1024 over [0, 65536);
 *                      f32, f64: 1024 over [0, 1)), uniform data
 *   histogram-one-bin  the same, every value in one bin (u8 17, u16 1700, floats 0.3)
 *   histogram-16384    16384 bins over the same ranges, uniform data (floats: one
 *                      shared counter a bin, the most bins a 64 KiB block holds)
 *   histogram-2^20     2^20 bins over the same ranges, uniform data
 *   histogram-edges    gp_histogram_edges     vs cub::DeviceHistogram::HistogramRange
 *                      (u8: 127 bins, u16: 1023, floats: 1024, evenly spaced edges)
 * The ranges and edges are powers of two apart, so CUB's arithmetic and the
 * header's formula bin every value alike and the checks are exact. CUB
 * counts in int (its usual use); gpuprim in uint64_t.
 */
#include "bench_cuda.cuh"

#include <cub/device/device_histogram.cuh>

#include <limits.h>
#include <stdio.h>
#include <vector>

enum hkind { HK_UNIFORM, HK_ONE_BIN, HK_WIDE_BINS, HK_MANY_BINS, HK_EDGES };

/* ------------------------------------------------------------ the setups */

template <class T>
struct traits;
/* Even range, bins (uniform, many), the one-bin value, edge count and step. */
template <>
struct traits<uint8_t> {
    using level = int;
    static constexpr double lo = 0, hi = 256, one = 17;
    static constexpr int64_t bins = 256, edge_bins = 127;
    static double edge(int64_t i) { return 2.0 * (double)i; }
};
template <>
struct traits<uint16_t> {
    using level = int;
    static constexpr double lo = 0, hi = 65536, one = 1700;
    static constexpr int64_t bins = 1024, edge_bins = 1023;
    static double edge(int64_t i) { return 64.0 * (double)i; }
};
template <>
struct traits<float> {
    using level = float;
    static constexpr double lo = 0, hi = 1, one = 0.3;
    static constexpr int64_t bins = 1024, edge_bins = 1024;
    static double edge(int64_t i) { return (double)i / 1024.0; }
};
template <>
struct traits<double> {
    using level = double;
    static constexpr double lo = 0, hi = 1, one = 0.3;
    static constexpr int64_t bins = 1024, edge_bins = 1024;
    static double edge(int64_t i) { return (double)i / 1024.0; }
};

template <class T>
static int64_t bins_of(hkind k)
{
    return k == HK_MANY_BINS ? INT64_C(1) << 20
           : k == HK_WIDE_BINS ? INT64_C(16384)
           : k == HK_EDGES     ? traits<T>::edge_bins
                               : traits<T>::bins;
}

/* Every element of every slice: `value`. */
template <class T>
__global__ void fill_const_kernel(unsigned char *base, size_t stride, int64_t n, int64_t total, T value)
{
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < total; k += (int64_t)gridDim.x * blockDim.x)
        ((T *)(base + (size_t)(k / n) * stride))[k % n] = value;
}

/* The peer of `count`: what a first attempt looks like, one 64-bit atomic
 * per element that passes (the compiler may still merge a warp's). */
template <class T>
__global__ void naive_count_kernel(const T *in, int64_t n, T value, unsigned long long *count)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        if (in[i] < value) atomicAdd(count, 1ull);
}

/* ------------------------------------------------------------ one point */

struct bufs {
    gpb_arena arena = {};
    void *cub_temp = nullptr, *gp_out = nullptr, *peer_out = nullptr, *gp_edges = nullptr, *cub_levels = nullptr;
};

static int release(bufs *b)
{
    int rc = gpb_cuda_arena_free(&b->arena);
    void *ptrs[] = {b->cub_temp, b->gp_out, b->peer_out, b->gp_edges, b->cub_levels};
    for (void *p : ptrs) {
        cudaError_t e = p ? cudaFree(p) : cudaSuccess;
        if (e != cudaSuccess) rc = gpb_cuda_fail("cudaFree", e, __FILE__, __LINE__);
    }
    return rc;
}

static int gp_fail(const gpb_env *env, const char *call, const gpb_spec *s, gp_status st)
{
    fprintf(stderr, "gpuprim bench: %s(%s, n = %lld) on cuda failed: %s\n", call, gp_dtype_name(s->dtype),
            (long long)s->n, gpb_status_why(env->ctx, st));
    return GPB_ERROR;
}

/* Times {gpuprim, peer, ceiling}, checking gpuprim against the peer before
 * and after (a result that moves is a race). `check` returns GPB_OK or
 * GPB_CHECK_FAILED (printed) or GPB_ERROR. */
template <class G, class P, class C>
static int time_and_check(gpb_env *env, bufs *b, size_t slice, gpb_point *pt, G &gp_call, P &peer_call, C &check)
{
    auto ceiling_call = [&](const void *in) -> int { return gpb_cuda_read_ceiling(env, in, slice); };
    int failed = 0;
    int rc = gpb_keep_going(check("before timing"), &failed);
    gpb_impl impls[3] = {gpb_impl_of(gp_call), gpb_impl_of(peer_call), gpb_impl_of(ceiling_call)};
    gpb_time t[3];
    if (rc == GPB_OK) rc = gpb_cuda_time(env, &b->arena, impls, 3, t);
    if (rc == GPB_OK) pt->subject = t[0], pt->peer = t[1], pt->ceiling = t[2];
    if (rc == GPB_OK) rc = gpb_keep_going(check("after timing"), &failed);
    if (failed) pt->check_failed = 1;
    return rc == GPB_OK && failed ? GPB_CHECK_FAILED : rc;
}

template <class T>
static int count_point(gpb_env *env, const gpb_spec *s, gpb_point *pt, bufs *b)
{
    gpb_cuda_rt *rt = gpb_cuda(env);
    const int64_t n = s->n;
    size_t slice;
    if (!gpb_point_fits(pt, n, sizeof(T), "device", &slice)) return GPB_OK;
    if (gpb_cuda_arena_alloc(env, &b->arena, slice, 1024, pt->note, sizeof pt->note) != GPB_OK) return GPB_ERROR;
    if (!b->arena.base) return GPB_OK;
    if (gpb_cuda_fill<T>(env, &b->arena, n, false) != GPB_OK) return GPB_ERROR;
    GPB_CU(cudaMalloc(&b->gp_out, 256));
    GPB_CU(cudaMalloc(&b->peer_out, 256));
    /* About half the random inputs pass: random bits below the middle of
     * the range, floats in (0, 1] below 0.5. */
    T mid;
    if constexpr (std::is_floating_point_v<T>) mid = (T)0.5;
    else if constexpr (std::is_signed_v<T>) mid = 0;
    else mid = (T)(~T(0) / 2 + 1);
    int64_t *gp_count = (int64_t *)b->gp_out;
    unsigned long long *peer_count = (unsigned long long *)b->peer_out;
    auto gp_call = [&](const void *in) -> int {
        gp_status st = gp_count_if(env->ctx, in, s->dtype, n, GP_CMP_LT, &mid, gp_count, NULL);
        return st == GP_STATUS_OK ? GPB_OK : gp_fail(env, "gp_count_if", s, st);
    };
    /* The naive kernel needs its counter cleared: part of its cost. */
    auto peer_call = [&](const void *in) -> int {
        GPB_CU(cudaMemsetAsync(peer_count, 0, sizeof *peer_count, rt->stream));
        naive_count_kernel<T><<<rt->sm_count * 8, 256, 0, rt->stream>>>((const T *)in, n, mid, peer_count);
        GPB_CU(cudaGetLastError());
        return GPB_OK;
    };
    auto check = [&](const char *when) -> int {
        int64_t got = -1;
        unsigned long long want = 0;
        GPB_CU(cudaMemsetAsync(gp_count, 0x5A, sizeof *gp_count, rt->stream));
        if (gp_call(b->arena.base) != GPB_OK || peer_call(b->arena.base) != GPB_OK) return GPB_ERROR;
        GPB_CU(cudaMemcpyAsync(&got, gp_count, sizeof got, cudaMemcpyDeviceToHost, rt->stream));
        GPB_CU(cudaMemcpyAsync(&want, peer_count, sizeof want, cudaMemcpyDeviceToHost, rt->stream));
        GPB_CU(cudaStreamSynchronize(rt->stream));
        if (got == (int64_t)want) return GPB_OK;
        char nb[32];
        fprintf(stderr, "CHECK FAILED: count %s n = %s on cuda (%s): gpuprim %lld, naive kernel %llu\n",
                gp_dtype_name(s->dtype), gpb_fmt_n(n, nb, sizeof nb), when, (long long)got, want);
        return GPB_CHECK_FAILED;
    };
    return time_and_check(env, b, slice, pt, gp_call, peer_call, check);
}

template <class T>
static int histogram_point(gpb_env *env, const gpb_spec *s, gpb_point *pt, bufs *b, hkind kind)
{
    using L = typename traits<T>::level;
    gpb_cuda_rt *rt = gpb_cuda(env);
    const int64_t n = s->n, bins = bins_of<T>(kind);
    size_t slice;
    if (!gpb_point_fits(pt, n, sizeof(T), "device", &slice)) return GPB_OK;
    /* The peer's counters and item count are ints here: past INT_MAX items
     * both would wrap, and the check would compare against garbage. */
    if (n > INT_MAX) {
        snprintf(pt->note, sizeof pt->note, "skipped: CUB's histogram here counts in int, %d items at most", INT_MAX);
        return GPB_OK;
    }
    const int levels = (int)bins + 1;
    const L lower = (L)traits<T>::lo, upper = (L)traits<T>::hi;

    /* CUB's scratch first: it counts toward what must fit. */
    size_t temp_bytes = 0;
    if (kind == HK_EDGES)
        GPB_CU(cub::DeviceHistogram::HistogramRange(nullptr, temp_bytes, (const T *)nullptr, (int *)nullptr, levels,
                                                    (const L *)nullptr, (int)n, rt->stream));
    else
        GPB_CU(cub::DeviceHistogram::HistogramEven(nullptr, temp_bytes, (const T *)nullptr, (int *)nullptr, levels,
                                                   lower, upper, (int)n, rt->stream));
    size_t extra = temp_bytes + (size_t)bins * 12 + (size_t)levels * (sizeof(T) + sizeof(L)) + 4096;
    if (gpb_cuda_arena_alloc(env, &b->arena, slice, extra, pt->note, sizeof pt->note) != GPB_OK) return GPB_ERROR;
    if (!b->arena.base) return GPB_OK;
    if (kind == HK_ONE_BIN) {
        int64_t total = (int64_t)b->arena.nslices * n;
        fill_const_kernel<T><<<rt->sm_count * 8, 256, 0, rt->stream>>>(b->arena.base, b->arena.stride, n, total,
                                                                       (T)traits<T>::one);
        GPB_CU(cudaGetLastError());
        GPB_CU(cudaStreamSynchronize(rt->stream));
    } else if (gpb_cuda_fill<T>(env, &b->arena, n, false) != GPB_OK) {
        return GPB_ERROR;
    }
    if (temp_bytes) GPB_CU(cudaMalloc(&b->cub_temp, temp_bytes));
    GPB_CU(cudaMalloc(&b->gp_out, (size_t)bins * sizeof(uint64_t)));
    GPB_CU(cudaMalloc(&b->peer_out, (size_t)bins * sizeof(int)));
    if (kind == HK_EDGES) {
        std::vector<T> e((size_t)levels);
        std::vector<L> l((size_t)levels);
        for (int i = 0; i < levels; i++) e[i] = (T)traits<T>::edge(i), l[i] = (L)traits<T>::edge(i);
        GPB_CU(cudaMalloc(&b->gp_edges, e.size() * sizeof(T)));
        GPB_CU(cudaMalloc(&b->cub_levels, l.size() * sizeof(L)));
        GPB_CU(cudaMemcpy(b->gp_edges, e.data(), e.size() * sizeof(T), cudaMemcpyHostToDevice));
        GPB_CU(cudaMemcpy(b->cub_levels, l.data(), l.size() * sizeof(L), cudaMemcpyHostToDevice));
    }

    uint64_t *gp_hist = (uint64_t *)b->gp_out;
    int *cub_hist = (int *)b->peer_out;
    auto gp_call = [&](const void *in) -> int {
        gp_status st = kind == HK_EDGES ? gp_histogram_edges(env->ctx, in, s->dtype, n, bins, b->gp_edges, gp_hist, 0)
                                        : gp_histogram_even(env->ctx, in, s->dtype, n, bins, traits<T>::lo,
                                                            traits<T>::hi, gp_hist, 0);
        return st == GP_STATUS_OK ? GPB_OK : gp_fail(env, kind == HK_EDGES ? "gp_histogram_edges" : "gp_histogram_even", s, st);
    };
    auto peer_call = [&](const void *in) -> int {
        size_t tb = temp_bytes;
        if (kind == HK_EDGES)
            GPB_CU(cub::DeviceHistogram::HistogramRange(b->cub_temp, tb, (const T *)in, cub_hist, levels,
                                                        (const L *)b->cub_levels, (int)n, rt->stream));
        else
            GPB_CU(cub::DeviceHistogram::HistogramEven(b->cub_temp, tb, (const T *)in, cub_hist, levels, lower, upper,
                                                       (int)n, rt->stream));
        return GPB_OK;
    };
    std::vector<uint64_t> got((size_t)bins);
    std::vector<int> want((size_t)bins);
    auto check = [&](const char *when) -> int {
        GPB_CU(cudaMemsetAsync(gp_hist, 0xA5, (size_t)bins * sizeof(uint64_t), rt->stream));
        if (gp_call(b->arena.base) != GPB_OK || peer_call(b->arena.base) != GPB_OK) return GPB_ERROR;
        GPB_CU(cudaMemcpyAsync(got.data(), gp_hist, got.size() * sizeof(uint64_t), cudaMemcpyDeviceToHost, rt->stream));
        GPB_CU(cudaMemcpyAsync(want.data(), cub_hist, want.size() * sizeof(int), cudaMemcpyDeviceToHost, rt->stream));
        GPB_CU(cudaStreamSynchronize(rt->stream));
        for (int64_t i = 0; i < bins; i++)
            if (got[i] != (uint64_t)(unsigned)want[i]) {
                char nb[32];
                fprintf(stderr, "CHECK FAILED: histogram %s n = %s, %lld bins on cuda (%s): bin %lld gpuprim %llu, cub %d\n",
                        gp_dtype_name(s->dtype), gpb_fmt_n(n, nb, sizeof nb), (long long)bins, when, (long long)i,
                        (unsigned long long)got[i], want[i]);
                return GPB_CHECK_FAILED;
            }
        return GPB_OK;
    };
    return time_and_check(env, b, slice, pt, gp_call, peer_call, check);
}

/* ------------------------------------------------------------------ cases */

static int count_measure(gpb_env *env, const gpb_spec *s, gpb_point *pt)
{
    bufs b;
    int rc = GPB_OK;
    switch (s->dtype) {
    case GP_DTYPE_I8: rc = count_point<int8_t>(env, s, pt, &b); break;
    case GP_DTYPE_U8: rc = count_point<uint8_t>(env, s, pt, &b); break;
    case GP_DTYPE_I16: rc = count_point<int16_t>(env, s, pt, &b); break;
    case GP_DTYPE_U16: rc = count_point<uint16_t>(env, s, pt, &b); break;
    case GP_DTYPE_I32: rc = count_point<int32_t>(env, s, pt, &b); break;
    case GP_DTYPE_U32: rc = count_point<uint32_t>(env, s, pt, &b); break;
    case GP_DTYPE_I64: rc = count_point<int64_t>(env, s, pt, &b); break;
    case GP_DTYPE_U64: rc = count_point<uint64_t>(env, s, pt, &b); break;
    case GP_DTYPE_F32: rc = count_point<float>(env, s, pt, &b); break;
    case GP_DTYPE_F64: rc = count_point<double>(env, s, pt, &b); break;
    }
    int rc_free = release(&b);
    return rc == GPB_OK && rc_free != GPB_OK ? rc_free : rc;
}

static int histogram_measure(gpb_env *env, const gpb_spec *s, gpb_point *pt, hkind kind)
{
    bufs b;
    int rc = GPB_OK;
    switch (s->dtype) {
    case GP_DTYPE_U8: rc = histogram_point<uint8_t>(env, s, pt, &b, kind); break;
    case GP_DTYPE_U16: rc = histogram_point<uint16_t>(env, s, pt, &b, kind); break;
    case GP_DTYPE_F32: rc = histogram_point<float>(env, s, pt, &b, kind); break;
    case GP_DTYPE_F64: rc = histogram_point<double>(env, s, pt, &b, kind); break;
    default: snprintf(pt->note, sizeof pt->note, "no setup for %s", gp_dtype_name(s->dtype)); break;
    }
    int rc_free = release(&b);
    return rc == GPB_OK && rc_free != GPB_OK ? rc_free : rc;
}

static int measure_uniform(gpb_env *e, const gpb_spec *s, gpb_point *p) { return histogram_measure(e, s, p, HK_UNIFORM); }
static int measure_one_bin(gpb_env *e, const gpb_spec *s, gpb_point *p) { return histogram_measure(e, s, p, HK_ONE_BIN); }
static int measure_wide(gpb_env *e, const gpb_spec *s, gpb_point *p) { return histogram_measure(e, s, p, HK_WIDE_BINS); }
static int measure_many(gpb_env *e, const gpb_spec *s, gpb_point *p) { return histogram_measure(e, s, p, HK_MANY_BINS); }
static int measure_edges(gpb_env *e, const gpb_spec *s, gpb_point *p) { return histogram_measure(e, s, p, HK_EDGES); }

static int histogram_applicable(const gpb_spec *s, char *why, size_t size)
{
    if (s->dtype == GP_DTYPE_U8 || s->dtype == GP_DTYPE_U16 || s->dtype == GP_DTYPE_F32 || s->dtype == GP_DTYPE_F64)
        return 1;
    snprintf(why, size, "the histogram benches have setups for u8, u16, f32 and f64 only");
    return 0;
}

static void count_bytes(const gpb_spec *s, double *rd, double *wr)
{
    *rd = (double)s->n * (double)gp_dtype_size(s->dtype);
    *wr = 8;
}

/* Output: gpuprim's 64-bit counts, written once. */
static void hist_bytes(const gpb_spec *s, double *rd, double *wr, int64_t bins)
{
    *rd = (double)s->n * (double)gp_dtype_size(s->dtype);
    *wr = 8.0 * (double)bins;
}
static int64_t usual_bins(gp_dtype t) { return t == GP_DTYPE_U8 ? 256 : 1024; }
static void bytes_usual(const gpb_spec *s, double *rd, double *wr) { hist_bytes(s, rd, wr, usual_bins(s->dtype)); }
static void bytes_wide(const gpb_spec *s, double *rd, double *wr) { hist_bytes(s, rd, wr, 16384); }
static void bytes_many(const gpb_spec *s, double *rd, double *wr) { hist_bytes(s, rd, wr, INT64_C(1) << 20); }
static void bytes_edges(const gpb_spec *s, double *rd, double *wr)
{
    hist_bytes(s, rd, wr, s->dtype == GP_DTYPE_U8 ? 127 : s->dtype == GP_DTYPE_U16 ? 1023 : 1024);
}

/* The issue's targets: counting at 97% of the read ceiling (from 2^26) and
 * at least the naive kernel's speed; histograms at least CUB's speed at
 * every size (256 bins over u8 should reach 2800 GB/s, 1024 over f32 twice
 * CUB: read those off the tables). */
extern "C" const gpb_case gpb_count_cuda = {
    "count", GP_BACKEND_CUDA, "gpuprim", "naive-atomic", "read-ceiling",
    "gp_count_if(x < middle of the range) into device memory; peer: one atomicAdd per passing element "
    "(+ a memset of its counter); check: exact against the peer",
    30, {1.0, 97.0, INT64_C(1) << 26, 0, 0}, nullptr, count_bytes, count_measure, nullptr, "u8,i32,f32,f64", 1,
};

#define GPB_HIST_ABOUT "peer: cub::DeviceHistogram (int counters); check: exact against cub; "
extern "C" const gpb_case gpb_histogram_cuda = {
    "histogram", GP_BACKEND_CUDA, "gpuprim", "cub", "read-ceiling",
    GPB_HIST_ABOUT "HistogramEven, uniform data: u8 256 bins over [0, 256), u16 1024 over [0, 65536), floats 1024 over [0, 1)",
    30, {1.0, 0, 0, 0, 0}, histogram_applicable, bytes_usual, measure_uniform, nullptr, "u8,f32", 1,
};
extern "C" const gpb_case gpb_histogram_one_bin_cuda = {
    "histogram-one-bin", GP_BACKEND_CUDA, "gpuprim", "cub", "read-ceiling",
    GPB_HIST_ABOUT "HistogramEven as `histogram`, every value in one bin (u8 17, u16 1700, floats 0.3)",
    30, {1.0, 0, 0, 0, 0}, histogram_applicable, bytes_usual, measure_one_bin, nullptr, "u8,f32", 1,
};
extern "C" const gpb_case gpb_histogram_wide_bins_cuda = {
    "histogram-16384", GP_BACKEND_CUDA, "gpuprim", "cub", "read-ceiling",
    GPB_HIST_ABOUT "HistogramEven, 16384 bins over the ranges of `histogram`, uniform data",
    30, {1.0, 0, 0, 0, 0}, histogram_applicable, bytes_wide, measure_wide, nullptr, "u8,f32", 1,
};
extern "C" const gpb_case gpb_histogram_many_bins_cuda = {
    "histogram-2^20", GP_BACKEND_CUDA, "gpuprim", "cub", "read-ceiling",
    GPB_HIST_ABOUT "HistogramEven, 2^20 bins over the ranges of `histogram`, uniform data",
    28, {1.0, 0, 0, 0, 0}, histogram_applicable, bytes_many, measure_many, nullptr, "u8,f32", 1,
};
extern "C" const gpb_case gpb_histogram_edges_cuda = {
    "histogram-edges", GP_BACKEND_CUDA, "gpuprim", "cub", "read-ceiling",
    GPB_HIST_ABOUT "HistogramRange, evenly spaced edges: u8 127 bins, u16 1023, floats 1024 over [0, 1); "
    "gp_histogram_edges checks its edges on the host, so both sides are timed with the host clock",
    30, {1.0, 0, 0, 0, 0}, histogram_applicable, bytes_edges, measure_edges, nullptr, "u8,f32", 1, 1,
};
