/* CUDA runtime of the harness: facts about the GPU, the stream and events,
 * device arenas, and the streaming-read ceiling kernel. */
#include "bench_cuda.cuh"
#include "../src/cuda/cuda_stream_load.cuh"
#include "../src/cuda/cuda_tuning.h" /* kReduceLoadHint */

#include <cub/version.cuh>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GPB_STR_(x) #x
#define GPB_STR(x) GPB_STR_(x)

int gpb_cuda_fail(const char *call, cudaError_t e, const char *file, int line)
{
    fprintf(stderr, "gpuprim bench: %s:%d: %s failed: %s: %s\n", file, line, call, cudaGetErrorName(e),
            cudaGetErrorString(e));
    return GPB_ERROR;
}

/* ----------------------------------------------------------- read ceiling */

enum { READ_THREADS = 256, READ_UNROLL = 4 };

/* The flush before each timed call reads this many times the L2. */
enum { GPB_FLUSH_L2S = 4 };

/* The load gp_reduce's large grids issue (GP_REDUCE_LOAD_HINT, a plain
 * ld.global.nc): the ceiling issues the reduction's own load so that the
 * two differ only in what they do with the data. With the hint that skips
 * L1 and fetches 256-byte L2 blocks, this ceiling read 5-6% under CUB's
 * reduction on H200 (docs/perf/reduce.md). The load's one definition is
 * shared (the bench includes nothing else of the library's internals but
 * the tuning constants). */
struct reduce_load {
    __device__ __forceinline__ uint4 operator()(const uint4 *p) const
    {
        return gp_cuda::load_stream<gp_cuda::kReduceLoadHint>(p);
    }
};
/* The flush's load, ld.global.cg: cached in L2 at normal priority, so that
 * it displaces what the previous call left there (flush_l2, below). */
struct l2_load {
    __device__ __forceinline__ uint4 operator()(const uint4 *p) const { return __ldcg(p); }
};

/*
 * Streams nvec 16-byte words plus a tail of under 16 bytes, each through
 * Load. Each thread has READ_UNROLL loads in flight before it uses any; the
 * xor is the cheapest combine, and the store happens only if the result
 * equals a key passed at run time, so the compiler must keep every load.
 * The read ceiling and the L2 flush are both this kernel.
 */
template <class Load>
__global__ void __launch_bounds__(READ_THREADS)
    stream_kernel(const uint4 *__restrict__ in, size_t nvec, const unsigned char *__restrict__ tail, unsigned ntail,
                  unsigned key, unsigned *sink)
{
    const Load load;
    size_t stride = (size_t)gridDim.x * READ_THREADS;
    size_t i = (size_t)blockIdx.x * READ_THREADS + threadIdx.x;
    unsigned acc = 0;
    for (; i + (READ_UNROLL - 1) * stride < nvec; i += READ_UNROLL * stride) {
        uint4 v[READ_UNROLL];
#pragma unroll
        for (int u = 0; u < READ_UNROLL; u++) v[u] = load(in + i + u * stride);
#pragma unroll
        for (int u = 0; u < READ_UNROLL; u++) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
    }
    for (; i < nvec; i += stride) {
        uint4 v = load(in + i);
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (blockIdx.x == 0 && threadIdx.x < ntail) acc ^= tail[threadIdx.x];
    if (acc == key) *sink = acc;
}

int gpb_cuda_read_ceiling(const gpb_env *env, const void *in, size_t bytes)
{
    gpb_cuda_rt *rt = gpb_cuda(env);
    size_t nvec = bytes / 16;
    /* Fill the GPU, but launch no block that would have nothing to read. */
    size_t per_block = (size_t)READ_THREADS * READ_UNROLL;
    size_t want = (nvec + per_block - 1) / per_block;
    int grid = want < (size_t)rt->read_grid ? (int)(want ? want : 1) : rt->read_grid;
    stream_kernel<reduce_load><<<grid, READ_THREADS, 0, rt->stream>>>(
        (const uint4 *)in, nvec, (const unsigned char *)in + nvec * 16, (unsigned)(bytes % 16), 0x5eed5eedu, rt->sink);
    GPB_CU(cudaGetLastError());
    return GPB_OK;
}

/* ---------------------------------------------------------------- timing */

/*
 * Holds the stream until the host has queued the timed call behind it, so
 * the events bracket the GPU's work and not the host's submission (the
 * method of NVIDIA's nvbench; GPB_TIMING_HELD). Gives up after `limit_ns`
 * (a call that synchronises inside would otherwise wait on it forever) and
 * says so.
 */
__global__ void hold_kernel(const volatile int *release, int *gave_up, unsigned long long limit_ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        if (*release) return;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < limit_ns);
    *gave_up = 1;
}

/*
 * Reads the flush buffer through L2 (ld.global.cg). Without it the inputs of
 * 4x L2 and more, one slice read by every call, ran partly from what the
 * calls before had left in L2, and how much depended on which kernels those
 * were: under Nsight Compute on H100 (int32 2^26, 256 MiB) the reduction
 * and the read ceiling took 21.7% of their sectors from L2 and CUB 0.5%;
 * with two slices in turn the reduction still took 9% and the other two
 * none, and measured 7% faster than the ceiling. From a flushed L2 all
 * three read in the same 86-88 us (docs/perf/reduce.md).
 */
static int flush_l2(gpb_cuda_rt *rt)
{
    /* The buffer is zeros, so the key is never matched; the loads stay. */
    stream_kernel<l2_load><<<rt->read_grid, READ_THREADS, 0, rt->stream>>>(rt->flush, rt->flush_words, NULL, 0,
                                                                           0x5eed5eedu, rt->sink);
    GPB_CU(cudaGetLastError());
    return GPB_OK;
}

static int time_one(gpb_cuda_rt *rt, const gpb_impl *impl, const void *in, double *us, int timing)
{
    if (flush_l2(rt) != GPB_OK) return GPB_ERROR; /* before the hold or the first event: untimed */
    if (timing == GPB_TIMING_HOST) { /* the call itself runs or waits on the host */
        GPB_CU(cudaStreamSynchronize(rt->stream));
        const double t0 = gpb_now_us();
        if (impl->call(impl->self, in) != GPB_OK) return GPB_ERROR;
        GPB_CU(cudaStreamSynchronize(rt->stream));
        *us = gpb_now_us() - t0;
        return GPB_OK;
    }
    const bool hold = timing == GPB_TIMING_HELD && rt->hold;
    if (hold) {
        __atomic_store_n(rt->hold, 0, __ATOMIC_SEQ_CST);
        __atomic_store_n(rt->hold + 1, 0, __ATOMIC_SEQ_CST); /* the last hold has ended: ev1 was waited for */
        hold_kernel<<<1, 1, 0, rt->stream>>>(rt->hold, rt->hold + 1, 200ull * 1000 * 1000);
        GPB_CU(cudaGetLastError());
    }
    GPB_CU(cudaEventRecord(rt->ev0, rt->stream));
    if (impl->call(impl->self, in) != GPB_OK) return GPB_ERROR;
    GPB_CU(cudaEventRecord(rt->ev1, rt->stream));
    if (hold) __atomic_store_n(rt->hold, 1, __ATOMIC_SEQ_CST);
    GPB_CU(cudaEventSynchronize(rt->ev1));
    if (hold && __atomic_load_n(rt->hold + 1, __ATOMIC_SEQ_CST)) {
        fprintf(stderr, "gpuprim bench: the stream hold timed out (a call that waits on the host?)\n");
        return GPB_ERROR;
    }
    float ms = 0;
    GPB_CU(cudaEventElapsedTime(&ms, rt->ev0, rt->ev1));
    *us = ms * 1e3;
    return GPB_OK;
}

int gpb_cuda_time(const gpb_env *env, gpb_arena *a, const gpb_impl *impls, int nimpl, gpb_time *outs)
{
    gpb_cuda_rt *rt = gpb_cuda(env);
    int runs = env->opts.runs;
    if (nimpl > GPB_MAX_IMPLS) {
        fprintf(stderr, "gpuprim bench: %d implementations, at most %d\n", nimpl, (int)GPB_MAX_IMPLS);
        return GPB_ERROR;
    }
    for (int r = 0; r < env->opts.warmup; r++)
        for (int k = 0; k < nimpl; k++)
            if (impls[k].call && impls[k].call(impls[k].self, gpb_arena_next(a)) != GPB_OK) return GPB_ERROR;
    GPB_CU(cudaStreamSynchronize(rt->stream));
    for (int r = 0; r < runs; r++) {
        for (int k = 0; k < nimpl; k++) {
            if (!impls[k].call) continue;
            if (time_one(rt, &impls[k], gpb_arena_next(a), &rt->times[k * runs + r], env->opts.timing) !=
                GPB_OK)
                return GPB_ERROR;
        }
    }
    for (int k = 0; k < nimpl; k++)
        outs[k] = impls[k].call ? gpb_summarize(rt->times + k * runs, runs) : gpb_time{0, 0, 0, 0};
    return GPB_OK;
}

/* ---------------------------------------------------------------- arenas */

int gpb_cuda_arena_alloc(const gpb_env *env, gpb_arena *a, size_t slice_bytes, size_t extra_bytes, char *note,
                         size_t note_size)
{
    size_t bytes = gpb_arena_layout(a, slice_bytes, env->meta.cache_bytes);
    size_t free_b = 0, total_b = 0;
    GPB_CU(cudaMemGetInfo(&free_b, &total_b));
    /* Keep a margin for the runtime and fragmentation. */
    size_t need = bytes + extra_bytes + ((size_t)256 << 20);
    if (need > free_b) {
        snprintf(note, note_size, "skipped: needs %.2f GiB of device memory, %.2f GiB free",
                 need / 1073741824.0, free_b / 1073741824.0);
        return GPB_OK;
    }
    cudaError_t e = cudaMalloc((void **)&a->base, bytes);
    if (e == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError(); /* not sticky: clear it and skip the size */
        a->base = NULL;
        snprintf(note, note_size, "skipped: cudaMalloc of %.2f GiB failed", bytes / 1073741824.0);
        return GPB_OK;
    }
    GPB_CU(e);
    return GPB_OK;
}

int gpb_cuda_arena_free(gpb_arena *a)
{
    void *p = a->base;
    a->base = NULL;
    if (p) GPB_CU(cudaFree(p));
    return GPB_OK;
}

/* --------------------------------------------------------------- runtime */

static void version_str(char *out, size_t size, int v)
{
    snprintf(out, size, "%d.%d", v / 1000, v % 1000 / 10);
}

static void cuda_fini(gpb_env *env)
{
    gpb_cuda_rt *rt = gpb_cuda(env);
    if (!rt) return;
    /* Back to the default stream (this synchronises ours) before it goes.
     * Failures here are reported; there is nothing left to undo. */
    if (env->ctx && rt->stream) {
        gp_status st = gp_ctx_set_stream(env->ctx, NULL);
        if (st != GP_STATUS_OK)
            fprintf(stderr, "gpuprim bench: gp_ctx_set_stream(NULL) failed: %s\n", gpb_status_why(env->ctx, st));
    }
    cudaError_t e;
    if (rt->ev0 && (e = cudaEventDestroy(rt->ev0)) != cudaSuccess) gpb_cuda_fail("cudaEventDestroy", e, __FILE__, __LINE__);
    if (rt->ev1 && (e = cudaEventDestroy(rt->ev1)) != cudaSuccess) gpb_cuda_fail("cudaEventDestroy", e, __FILE__, __LINE__);
    if (rt->stream && (e = cudaStreamDestroy(rt->stream)) != cudaSuccess)
        gpb_cuda_fail("cudaStreamDestroy", e, __FILE__, __LINE__);
    if (rt->sink && (e = cudaFree(rt->sink)) != cudaSuccess) gpb_cuda_fail("cudaFree", e, __FILE__, __LINE__);
    if (rt->flush && (e = cudaFree((void *)rt->flush)) != cudaSuccess) gpb_cuda_fail("cudaFree", e, __FILE__, __LINE__);
    if (rt->hold && (e = cudaFreeHost(rt->hold)) != cudaSuccess) gpb_cuda_fail("cudaFreeHost", e, __FILE__, __LINE__);
    free(rt->times);
    free(rt);
    env->rt = NULL;
}

static int cuda_setup(gpb_env *env, gpb_cuda_rt *rt)
{
    gpb_meta *m = &env->meta;
    rt->device = gp_ctx_device(env->ctx);
    GPB_CU(cudaSetDevice(rt->device));
    cudaDeviceProp p;
    GPB_CU(cudaGetDeviceProperties(&p, rt->device));
    snprintf(m->device, sizeof m->device, "%s", p.name);
    int v = 0;
    GPB_CU(cudaDriverGetVersion(&v));
    version_str(m->driver, sizeof m->driver, v);
    GPB_CU(cudaRuntimeGetVersion(&v));
    version_str(m->runtime, sizeof m->runtime, v);
    snprintf(m->peer_version, sizeof m->peer_version, "CUB %d.%d.%d", CUB_MAJOR_VERSION, CUB_MINOR_VERSION,
             CUB_SUBMINOR_VERSION);
#if defined(__CUDA_ARCH_LIST__)
    /* Without the build's own flags, at least say what this file targets. */
    if (!strcmp(m->build_flags, "unknown"))
        snprintf(m->build_flags, sizeof m->build_flags, "unknown (bench built for arch list %s)",
                 GPB_STR(__CUDA_ARCH_LIST__));
#endif
    rt->sm_count = p.multiProcessorCount;
    m->parallelism = p.multiProcessorCount;
    m->cache_bytes = (size_t)p.l2CacheSize;

    GPB_CU(cudaStreamCreateWithFlags(&rt->stream, cudaStreamNonBlocking));
    gp_status st = gp_ctx_set_stream(env->ctx, rt->stream);
    if (st != GP_STATUS_OK) {
        fprintf(stderr, "gpuprim bench: gp_ctx_set_stream failed: %s\n", gpb_status_why(env->ctx, st));
        return GPB_ERROR;
    }
    GPB_CU(cudaEventCreate(&rt->ev0));
    GPB_CU(cudaEventCreate(&rt->ev1));
    GPB_CU(cudaMalloc((void **)&rt->sink, sizeof *rt->sink));
    if (env->opts.timing == GPB_TIMING_HELD) {
        GPB_CU(cudaHostAlloc((void **)&rt->hold, 2 * sizeof(int), cudaHostAllocMapped));
        rt->hold[0] = rt->hold[1] = 0;
    }
    int per_sm = 0;
    GPB_CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, stream_kernel<reduce_load>, READ_THREADS, 0));
    rt->read_grid = rt->sm_count * (per_sm > 0 ? per_sm : 1);
    rt->flush_words = (size_t)GPB_FLUSH_L2S * (m->cache_bytes > 0 ? m->cache_bytes : (size_t)1 << 20) / 16;
    void *flush = NULL;
    GPB_CU(cudaMalloc(&flush, rt->flush_words * 16));
    rt->flush = (const uint4 *)flush;
    GPB_CU(cudaMemset(flush, 0, rt->flush_words * 16));
    rt->times = (double *)malloc((size_t)GPB_MAX_IMPLS * env->opts.runs * sizeof *rt->times);
    if (!rt->times) {
        fprintf(stderr, "gpuprim bench: out of host memory\n");
        return GPB_ERROR;
    }
    return GPB_OK;
}

static int cuda_init(gpb_env *env)
{
    gpb_cuda_rt *rt = (gpb_cuda_rt *)calloc(1, sizeof *rt);
    if (!rt) {
        fprintf(stderr, "gpuprim bench: out of host memory\n");
        return GPB_ERROR;
    }
    env->rt = rt;
    int rc = cuda_setup(env, rt);
    if (rc != GPB_OK) cuda_fini(env);
    return rc;
}

extern "C" const gpb_runtime gpb_cuda_runtime = {cuda_init, cuda_fini};
