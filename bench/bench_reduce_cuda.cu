/*
 * `bench reduce` on the CUDA backend: gp_reduce against cub::DeviceReduce
 * and the read ceiling, on the context's stream, on the same rotated inputs,
 * in the same run. Both write their result to device memory; both get their
 * scratch allocated before timing. Output dtype = input dtype throughout.
 */
#include "bench_cuda.cuh"

#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>

#include <limits.h>
#include <stdio.h>

/* ----------------------------------------------------------------- peer */

/* CUB's call for `op`; with temp == nullptr its scratch-size query. Sum, Min
 * and Max are CUB's own entry points; the rest go through Reduce with the
 * op's identity as the initial value. */
template <class T, class N>
static cudaError_t cub_reduce(void *temp, size_t &temp_bytes, const T *in, T *out, N n, gp_op op,
                              cudaStream_t st)
{
    namespace cs = cuda::std;
    switch (op) {
    case GP_OP_SUM: return cub::DeviceReduce::Sum(temp, temp_bytes, in, out, n, st);
    case GP_OP_MIN: return cub::DeviceReduce::Min(temp, temp_bytes, in, out, n, st);
    case GP_OP_MAX: return cub::DeviceReduce::Max(temp, temp_bytes, in, out, n, st);
    case GP_OP_PROD: return cub::DeviceReduce::Reduce(temp, temp_bytes, in, out, n, cs::multiplies<>{}, T(1), st);
    default: break;
    }
    if constexpr (std::is_integral_v<T>) {
        switch (op) {
        case GP_OP_AND: return cub::DeviceReduce::Reduce(temp, temp_bytes, in, out, n, cs::bit_and<>{}, T(~T(0)), st);
        case GP_OP_OR: return cub::DeviceReduce::Reduce(temp, temp_bytes, in, out, n, cs::bit_or<>{}, T(0), st);
        case GP_OP_XOR: return cub::DeviceReduce::Reduce(temp, temp_bytes, in, out, n, cs::bit_xor<>{}, T(0), st);
        default: break;
        }
    }
    return cudaErrorInvalidValue;
}

/* An int count makes CUB use 32-bit offsets, its faster path; what a caller
 * would pass below 2^31. The 64-bit instantiations are built for sum only:
 * all ops doubled this file's compile time on the 2-core machine. */
template <class T>
static cudaError_t cub_call(void *temp, size_t &temp_bytes, const T *in, T *out, int64_t n, gp_op op,
                            cudaStream_t st)
{
    if (n <= INT_MAX) return cub_reduce<T, int>(temp, temp_bytes, in, out, (int)n, op, st);
    if (op == GP_OP_SUM) return cub::DeviceReduce::Sum(temp, temp_bytes, in, out, n, st);
    return cudaErrorNotSupported;
}

/* ----------------------------------------------------------------- point */

/* What one point holds on the device; released on every path out. */
struct bufs {
    gpb_arena arena = {};
    void *cub_temp = nullptr;
    size_t cub_temp_bytes = 0;
    void *gp_ws = nullptr;
    size_t gp_ws_bytes = 0;
    unsigned char *outs = nullptr; /* gpuprim's result at 0, CUB's at 256 */
    bool ws_set = false;
};

/* Frees everything; GPB_ERROR (printed) if any of it failed. */
static int release(gpb_env *env, bufs *b)
{
    int rc = GPB_OK;
    if (b->ws_set) {
        gp_status st = gp_ctx_set_workspace(env->ctx, NULL, 0); /* synchronises */
        if (st != GP_STATUS_OK) {
            fprintf(stderr, "gpuprim bench: gp_ctx_set_workspace(NULL, 0) failed: %s\n", gpb_status_why(env->ctx, st));
            rc = GPB_ERROR;
        }
    }
    if (gpb_cuda_arena_free(&b->arena) != GPB_OK) rc = GPB_ERROR;
    void *ptrs[] = {b->cub_temp, b->gp_ws, b->outs};
    for (void *p : ptrs) {
        cudaError_t e = p ? cudaFree(p) : cudaSuccess;
        if (e != cudaSuccess) rc = gpb_cuda_fail("cudaFree", e, __FILE__, __LINE__);
    }
    return rc;
}

static int gp_fail(const gpb_env *env, const char *call, const gpb_spec *s, gp_status st)
{
    fprintf(stderr, "gpuprim bench: %s(%s, n = %lld, %s) on cuda failed: %s\n", call,
            gp_dtype_name(s->dtype), (long long)s->n, gp_op_name(s->op), gpb_status_why(env->ctx, st));
    return GPB_ERROR;
}

template <class T>
static int run_point(gpb_env *env, const gpb_spec *s, gpb_point *pt, bufs *b)
{
    gpb_cuda_rt *rt = gpb_cuda(env);
    const int64_t n = s->n;
    size_t slice;
    if (!gpb_point_fits(pt, n, sizeof(T), "device", &slice)) return GPB_OK;

    /* Scratch sizes first: they count toward what must fit. */
    cudaError_t e = cub_call<T>(nullptr, b->cub_temp_bytes, (const T *)nullptr, (T *)nullptr, n, s->op, rt->stream);
    if (e == cudaErrorNotSupported) {
        snprintf(pt->note, sizeof pt->note, "skipped: this build has the CUB peer past 2^31 - 1 for sum only");
        return GPB_OK;
    }
    GPB_CU(e);
    bool supported = gp_supports(env->ctx, GP_PRIM_REDUCE, s->op, s->dtype, s->dtype);
    if (supported) {
        gp_status st = gp_reduce_workspace_size(env->ctx, s->dtype, n, s->op, s->dtype, &b->gp_ws_bytes);
        if (st != GP_STATUS_OK) return gp_fail(env, "gp_reduce_workspace_size", s, st);
    }
    size_t extra = gpb_round_up(b->cub_temp_bytes, 256) + gpb_round_up(b->gp_ws_bytes, 256) + 512;
    if (gpb_cuda_arena_alloc(env, &b->arena, slice, extra, pt->note, sizeof pt->note) != GPB_OK) return GPB_ERROR;
    if (!b->arena.base) return GPB_OK; /* does not fit: the note says so */
    if (!supported)
        snprintf(pt->note, sizeof pt->note, "gpuprim: no %s %s reduction on cuda", gp_op_name(s->op),
                 gp_dtype_name(s->dtype));

    GPB_CU(cudaMalloc((void **)&b->outs, 512));
    if (b->cub_temp_bytes) GPB_CU(cudaMalloc(&b->cub_temp, b->cub_temp_bytes));
    if (b->gp_ws_bytes) {
        GPB_CU(cudaMalloc(&b->gp_ws, b->gp_ws_bytes));
        gp_status st = gp_ctx_set_workspace(env->ctx, b->gp_ws, b->gp_ws_bytes);
        if (st != GP_STATUS_OK) return gp_fail(env, "gp_ctx_set_workspace", s, st);
        b->ws_set = true;
    }
    if (gpb_cuda_fill<T>(env, &b->arena, n, s->op == GP_OP_PROD) != GPB_OK) return GPB_ERROR;

    T *gp_out = (T *)b->outs, *cub_out = (T *)(b->outs + 256);
    auto gp_call = [&](const void *in) -> int {
        gp_status st = gp_reduce(env->ctx, in, s->dtype, n, s->op, gp_out, s->dtype);
        return st == GP_STATUS_OK ? GPB_OK : gp_fail(env, "gp_reduce", s, st);
    };
    auto peer_call = [&](const void *in) -> int {
        size_t bytes = b->cub_temp_bytes;
        GPB_CU(cub_call<T>(b->cub_temp, bytes, (const T *)in, cub_out, n, s->op, rt->stream));
        return GPB_OK;
    };
    auto ceiling_call = [&](const void *in) -> int { return gpb_cuda_read_ceiling(env, in, slice); };

    /* CUB's answer on slice 0 is what gpuprim must match. Each output is
     * poisoned first, differently, so an unwritten one cannot pass. */
    T want, got;
    GPB_CU(cudaMemsetAsync(cub_out, 0xA5, sizeof(T), rt->stream));
    if (peer_call(b->arena.base) != GPB_OK) return GPB_ERROR;
    GPB_CU(cudaMemcpyAsync(&want, cub_out, sizeof(T), cudaMemcpyDeviceToHost, rt->stream));
    GPB_CU(cudaStreamSynchronize(rt->stream));
    auto check = [&](const char *when) -> int {
        GPB_CU(cudaMemsetAsync(gp_out, 0x5A, sizeof(T), rt->stream));
        if (gp_call(b->arena.base) != GPB_OK) return GPB_ERROR;
        GPB_CU(cudaMemcpyAsync(&got, gp_out, sizeof(T), cudaMemcpyDeviceToHost, rt->stream));
        GPB_CU(cudaStreamSynchronize(rt->stream));
        char why[200], nb[32];
        if (gpb_check_scalar(s->dtype, s->op, n, &got, &want, why, sizeof why)) return GPB_OK;
        fprintf(stderr, "CHECK FAILED: reduce %s %s n = %s on cuda (%s), gpuprim against cub: %s\n",
                gp_op_name(s->op), gp_dtype_name(s->dtype), gpb_fmt_n(n, nb, sizeof nb), when, why);
        pt->check_failed = 1;
        return GPB_CHECK_FAILED;
    };

    int failed = 0, rc = GPB_OK;
    if (supported) rc = gpb_keep_going(check("before timing"), &failed);
    gpb_impl impls[3] = {supported ? gpb_impl_of(gp_call) : gpb_impl{nullptr, nullptr}, gpb_impl_of(peer_call),
                         gpb_impl_of(ceiling_call)};
    gpb_time t[3];
    if (rc == GPB_OK) rc = gpb_cuda_time(env, &b->arena, impls, 3, t);
    if (rc == GPB_OK) pt->subject = t[0], pt->peer = t[1], pt->ceiling = t[2];
    /* Again after the timed runs: a result that moves is a race. */
    if (rc == GPB_OK && supported) rc = gpb_keep_going(check("after timing"), &failed);
    return rc == GPB_OK && failed ? GPB_CHECK_FAILED : rc;
}

template <class T>
static int measure_t(gpb_env *env, const gpb_spec *s, gpb_point *pt)
{
    bufs b;
    int rc = run_point<T>(env, s, pt, &b);
    int rc_free = release(env, &b);
    return rc == GPB_OK && rc_free != GPB_OK ? rc_free : rc;
}

/* ------------------------------------------------------------------ case */

static int is_float(gp_dtype t) { return t == GP_DTYPE_F32 || t == GP_DTYPE_F64; }

static int applicable(const gpb_spec *s, char *why, size_t size)
{
    bool bitwise = s->op == GP_OP_AND || s->op == GP_OP_OR || s->op == GP_OP_XOR;
    if (!bitwise || !is_float(s->dtype)) return 1;
    snprintf(why, size, "%s is not defined on %s", gp_op_name(s->op), gp_dtype_name(s->dtype));
    return 0;
}

static void bytes(const gpb_spec *s, double *rd, double *wr)
{
    *rd = (double)s->n * (double)gp_dtype_size(s->dtype);
    *wr = (double)gp_dtype_size(s->dtype);
}

static int measure(gpb_env *env, const gpb_spec *s, gpb_point *pt)
{
    switch (s->dtype) {
    case GP_DTYPE_I8: return measure_t<int8_t>(env, s, pt);
    case GP_DTYPE_U8: return measure_t<uint8_t>(env, s, pt);
    case GP_DTYPE_I16: return measure_t<int16_t>(env, s, pt);
    case GP_DTYPE_U16: return measure_t<uint16_t>(env, s, pt);
    case GP_DTYPE_I32: return measure_t<int32_t>(env, s, pt);
    case GP_DTYPE_U32: return measure_t<uint32_t>(env, s, pt);
    case GP_DTYPE_I64: return measure_t<int64_t>(env, s, pt);
    case GP_DTYPE_U64: return measure_t<uint64_t>(env, s, pt);
    case GP_DTYPE_F32: return measure_t<float>(env, s, pt);
    case GP_DTYPE_F64: return measure_t<double>(env, s, pt);
    }
    snprintf(pt->note, sizeof pt->note, "unknown dtype");
    return GPB_OK;
}

extern "C" const gpb_case gpb_reduce_cuda = {
    "reduce",
    GP_BACKEND_CUDA,
    "gpuprim",
    "cub",
    "read-ceiling",
    "out dtype = in dtype (u8 sums wrap mod 256; CUB accumulates u8 in int, same low bits); "
    "peer: cub::DeviceReduce; check against cub: ints/min/max exact, float sum/prod within bounds (bench.h)",
    30,
    /* The issue's targets: CUB's throughput at every size, 97% of the read
     * ceiling from 2^26, under 5 us up to 2^16. */
    {1.0, 97.0, INT64_C(1) << 26, 5.0, INT64_C(1) << 16},
    applicable,
    bytes,
    measure,
};
