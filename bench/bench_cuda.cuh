/*
 * The CUDA backend's side of the harness (CUDA C++ only): checked calls, the
 * run's stream and events, device arenas, event timing, the read ceiling.
 */
#ifndef GP_BENCH_CUDA_CUH
#define GP_BENCH_CUDA_CUH

#include "bench.h"
#include "bench_rng.h"

#include <cuda_runtime.h>
#include <type_traits>

/* Prints the failing call and returns GPB_ERROR from the enclosing function. */
#define GPB_CU(call)                                                          \
    do {                                                                      \
        cudaError_t gpb_e_ = (call);                                          \
        if (gpb_e_ != cudaSuccess) return gpb_cuda_fail(#call, gpb_e_, __FILE__, __LINE__); \
    } while (0)

int gpb_cuda_fail(const char *call, cudaError_t e, const char *file, int line);

struct gpb_cuda_rt {
    int device;
    cudaStream_t stream; /* the context's stream: every call is issued here */
    cudaEvent_t ev0, ev1;
    int sm_count, read_grid; /* read ceiling: blocks that fill the GPU */
    unsigned *sink;          /* the ceiling's conditional store */
    const uint4 *flush;      /* GPB_FLUSH_L2S x L2 bytes of zeros, read before every timed call */
    size_t flush_words;
    int *hold;               /* mapped host words: release, gave up (NULL: no hold) */
    double *times;           /* GPB_MAX_IMPLS x env->opts.runs */
};

inline gpb_cuda_rt *gpb_cuda(const gpb_env *env) { return (gpb_cuda_rt *)env->rt; }

/* Allocates an arena for inputs of `slice_bytes` if it and `extra_bytes`
 * (the implementations' scratch) fit in free device memory. Returns GPB_OK,
 * with a->base == NULL and `note` set when they do not fit. */
int gpb_cuda_arena_alloc(const gpb_env *env, gpb_arena *a, size_t slice_bytes, size_t extra_bytes,
                         char *note, size_t note_size);
int gpb_cuda_arena_free(gpb_arena *a); /* GPB_OK or GPB_ERROR (printed) */

/* The read ceiling: streams `bytes` from `in` (256-byte aligned). Launch checked. */
int gpb_cuda_read_ceiling(const gpb_env *env, const void *in, size_t bytes);

/*
 * Times nimpl (<= GPB_MAX_IMPLS) implementations in interleaved rounds, as
 * gpb_cpu_time does, each call on the arena's next slice and between its own
 * pair of events on the stream. We wait for each call, so the stream is idle
 * when the first event is recorded: a time is the latency of one call as a
 * caller sees it, launch costs included, the same for every implementation.
 * Before each call, untimed, a read of an unrelated buffer GPB_FLUSH_L2S
 * times the L2 leaves nothing of the previous call's input in L2: every
 * implementation starts from the same cache, whatever ran before it.
 */
int gpb_cuda_time(const gpb_env *env, gpb_arena *a, const gpb_impl *impls, int nimpl, gpb_time *outs);

/* Wraps a callable `int f(const void *in)` (a lambda) as a gpb_impl; f must
 * outlive the timing. */
template <class F>
gpb_impl gpb_impl_of(F &f)
{
    return gpb_impl{[](void *self, const void *in) { return (*(F *)self)(in); }, (void *)&f};
}

/* ------------------------------------------------------------- inputs */

/* Integers: random bits. Floats: (0, 1], or 1 +- 2^-10 for products. */
template <class T>
__device__ __forceinline__ T gpb_random_value(uint64_t h, bool for_product)
{
    if constexpr (std::is_integral_v<T>) return (T)h; /* low bits, wrapped */
    else return (T)(for_product ? gpb_near_one(h) : gpb_unit(h));
}

/* Element i of slice s is hash(seed, s * n + i), as on the CPU backend. */
template <class T>
__global__ void gpb_fill_kernel(unsigned char *base, size_t stride, int64_t n, int64_t total, uint64_t seed,
                                bool for_product)
{
    int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < total; k += step) {
        T *p = (T *)(base + (size_t)(k / n) * stride) + k % n;
        *p = gpb_random_value<T>(gpb_hash64(seed, (uint64_t)k), for_product);
    }
}

/* Fills every slice of the arena with random T. */
template <class T>
int gpb_cuda_fill(const gpb_env *env, gpb_arena *a, int64_t n, bool for_product)
{
    gpb_cuda_rt *rt = gpb_cuda(env);
    int64_t total = (int64_t)a->nslices * n;
    int grid = rt->sm_count * 8;
    gpb_fill_kernel<T><<<grid, 256, 0, rt->stream>>>(a->base, a->stride, n, total, env->opts.seed, for_product);
    GPB_CU(cudaGetLastError());
    GPB_CU(cudaStreamSynchronize(rt->stream));
    return GPB_OK;
}

#endif
