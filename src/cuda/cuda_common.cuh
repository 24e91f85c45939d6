/*
 * Building blocks shared by the CUDA backend's files: CUDA error checks that
 * map to a gp_status, the kernel launch helper, the device switch, and the
 * warp/block reductions and streaming loads the kernels are made of.
 */
#ifndef GP_CUDA_COMMON_CUH
#define GP_CUDA_COMMON_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include <type_traits>

#include "cuda_stream_load.cuh"
#include "gp_internal.h"

/* ------------------------------------------------------- host: errors */

namespace gp_cuda {

/* Records "cudaXxx failed: <name> (<string>) at file:line" on ctx (which may
 * be NULL) and returns the status: cudaErrorMemoryAllocation gives
 * DEVICE_OUT_OF_MEMORY, anything else `other`. Clears the runtime's last
 * error so that a later launch check does not see this one again. `call` is
 * the call's source text; the function name is taken up to its '('. */
gp_status fail(gp_ctx *ctx, cudaError_t err, const char *call, const char *file, int line,
               gp_status other = GP_STATUS_DEVICE_ERROR);

/* Launches `kernel` on the context's stream with `smem` bytes of dynamic
 * shared memory (over 48 KiB raises the kernel's limit first) and checks
 * the launch: a launch error gives LAUNCH_FAILED with `what` (the kernel
 * and its parameters) in the message. With GPUPRIM_DEBUG_LAUNCH the stream
 * is synchronised after the launch and the launch shape is logged to
 * stderr. */
gp_status launch(gp_ctx *ctx, const void *kernel, const char *what, unsigned grid, unsigned block,
                 void **args, const char *file, int line, size_t smem = 0);

/* How many blocks of `kernel` (block threads, `smem` bytes of dynamic
 * shared memory) an SM of `device` holds, after raising the kernel's
 * dynamic shared-memory limit to `smem`. Cached per kernel, device, block
 * and smem: the runtime's answer costs host time on every call otherwise. */
cudaError_t blocks_per_sm(int device, const void *kernel, unsigned block, size_t smem, int *per_sm);

/* How many blocks of `kernel` the context's device holds at once
 * (blocks_per_sm x SMs, capped by GPUPRIM_MAX_RESIDENT_BLOCKS); 0 if the
 * runtime cannot say or the device takes no cooperative launches
 * (launch_resident). */
unsigned resident_blocks(gp_ctx *ctx, const void *kernel, unsigned block, size_t smem);

/* Like launch, for a persistent grid whose blocks wait on each other: a
 * cooperative launch, so every block is resident at once. When the device
 * cannot hold the grid now (other work, MPS limits) it records nothing,
 * sets *too_large and returns OK: the caller falls back to a grid that
 * needs no co-residency. */
gp_status launch_resident(gp_ctx *ctx, const void *kernel, const char *what, unsigned grid, unsigned block,
                          size_t smem, void **args, bool *too_large, const char *file, int line);

/* Like launch, for a kernel that needs no co-residency, right after a
 * launch of ours that lets it start early (cuda_grid_dependency.cuh): its
 * blocks may be scheduled before that one ends, and wait for it before
 * they read what it wrote. Where the device or driver refuses the overlap,
 * a plain launch (and, once refused, for the context's life). */
gp_status launch_after_prior(gp_ctx *ctx, const void *kernel, const char *what, unsigned grid, unsigned block,
                             size_t smem, void **args, const char *file, int line);

/* The largest thread-block cluster launched: 16 blocks, above the portable
 * 8, where the device allows it (cluster_limit asks for it first). */
constexpr unsigned kClusterMaxBlocks = 16;

/* Like launch, with the grid in thread-block clusters of `cluster` blocks
 * (at most kClusterMaxBlocks; grid a multiple of it), so that a cluster's
 * blocks can reach each other's shared memory. */
gp_status launch_cluster(gp_ctx *ctx, const void *kernel, const char *what, unsigned grid, unsigned cluster,
                         unsigned block, void **args, const char *file, int line);

/* The largest cluster (16 or 8 blocks of `block` threads) of `kernel` the
 * context's device can run, or 0 (before compute capability 9.0, or when
 * the runtime cannot say). */
unsigned cluster_limit(gp_ctx *ctx, const void *kernel, unsigned block);

/* The largest cluster the small scans and filters may launch (16 or 8
 * blocks), or 0 (no clusters, or GPUPRIM_SMALL_CLUSTER=0): cluster_limit of
 * the first kernel asked about, once per context. Every such kernel is one
 * block of `block` (256) threads an SM, so the answer holds for all. */
unsigned small_cluster_blocks(gp_ctx *ctx, const void *kernel, unsigned block);

/* Number of CUDA devices, from the probe's cached answer (0 if none). */
int visible_devices();

/*
 * Makes `device` current for a scope and restores the caller's device at
 * its end. With one visible device there is nothing to switch (device 0 is
 * always current), so the hot path makes no runtime call at all.
 */
class device_scope {
public:
    device_scope() = default;
    device_scope(const device_scope &) = delete;
    device_scope &operator=(const device_scope &) = delete;
    ~device_scope()
    {
        if (prev_ >= 0) cudaSetDevice(prev_);
    }
    cudaError_t enter(int device)
    {
        if (visible_devices() <= 1) return cudaSuccess;
        int cur = 0;
        cudaError_t e = cudaGetDevice(&cur);
        if (e != cudaSuccess || cur == device) return e;
        e = cudaSetDevice(device);
        if (e == cudaSuccess) prev_ = cur;
        return e;
    }

private:
    int prev_ = -1;
};

} // namespace gp_cuda

/* Evaluates a CUDA runtime call; on failure records it on ctx and returns
 * the mapped status from the enclosing function. */
#define GP_CUDA_TRY(ctx, call)                                                   \
    do {                                                                         \
        cudaError_t gp_err_ = (call);                                            \
        if (gp_err_ != cudaSuccess)                                              \
            return gp_cuda::fail((ctx), gp_err_, #call, __FILE__, __LINE__);     \
    } while (0)

/* Makes the context's device current for `scope` (see device_scope). */
#define GP_CUDA_ENTER_DEVICE(ctx, scope)                                                 \
    do {                                                                                 \
        cudaError_t gp_err_ = (scope).enter((ctx)->device);                              \
        if (gp_err_ != cudaSuccess)                                                      \
            return gp_cuda::fail((ctx), gp_err_, "cudaSetDevice", __FILE__, __LINE__);   \
    } while (0)

/* Launches a kernel through gp_cuda::launch and returns on failure. */
#define GP_CUDA_LAUNCH(ctx, kernel, what, grid, block, args)                                   \
    do {                                                                                       \
        gp_status gp_ls_ = gp_cuda::launch((ctx), (const void *)(kernel), (what), (grid), (block), \
                                           (args), __FILE__, __LINE__);                        \
        if (gp_ls_ != GP_STATUS_OK) return gp_ls_;                                             \
    } while (0)

#define GP_CUDA_LAUNCH_SMEM(ctx, kernel, what, grid, block, smem, args)                        \
    do {                                                                                       \
        gp_status gp_ls_ = gp_cuda::launch((ctx), (const void *)(kernel), (what), (grid), (block), \
                                           (args), __FILE__, __LINE__, (smem));                \
        if (gp_ls_ != GP_STATUS_OK) return gp_ls_;                                             \
    } while (0)

/* ------------------------------------------------ device: building blocks */

namespace gp_cuda {

constexpr int kWarp = 32;

/*
 * What redux.sync (sm_80 and later) does in one instruction on a warp's
 * 32-bit integers: an op opts in with `static constexpr int kRedux`, one of
 * these; the others reduce through shuffles.
 */
enum warp_redux { kReduxNone, kReduxAdd, kReduxMin, kReduxMax, kReduxAnd, kReduxOr, kReduxXor };
template <class Op, class = void>
struct redux_of {
    static constexpr int value = kReduxNone;
};
template <class Op>
struct redux_of<Op, std::void_t<decltype(Op::kRedux)>> {
    static constexpr int value = Op::kRedux;
};

/*
 * Combines the first Lanes lanes' v with Op::combine; lane 0 gets the total
 * (every lane does when Lanes is 32). Ops with a redux.sync form take one
 * instruction on 32-bit integers, over all 32 lanes, so lanes past Lanes
 * must then hold the identity; other types take log2(Lanes) shuffle steps.
 */
template <class Op, int Lanes = kWarp, class T>
__device__ __forceinline__ T warp_reduce(T v)
{
    static_assert(Lanes >= 1 && Lanes <= kWarp && (Lanes & (Lanes - 1)) == 0, "a power of two up to a warp");
    constexpr int kind = std::is_integral_v<T> && sizeof(T) == 4 ? redux_of<Op>::value : kReduxNone;
    if constexpr (kind != kReduxNone && Lanes > 1) {
        using R = std::conditional_t<std::is_signed_v<T>, int, unsigned>;
        const R r = static_cast<R>(v);
        const unsigned u = static_cast<unsigned>(v), all = 0xffffffffu;
        if constexpr (kind == kReduxAdd) return static_cast<T>(__reduce_add_sync(all, u));
        else if constexpr (kind == kReduxMin) return static_cast<T>(__reduce_min_sync(all, r));
        else if constexpr (kind == kReduxMax) return static_cast<T>(__reduce_max_sync(all, r));
        else if constexpr (kind == kReduxAnd) return static_cast<T>(__reduce_and_sync(all, u));
        else if constexpr (kind == kReduxOr) return static_cast<T>(__reduce_or_sync(all, u));
        else return static_cast<T>(__reduce_xor_sync(all, u));
    } else {
#pragma unroll
        for (int offset = Lanes / 2; offset > 0; offset /= 2)
            v = Op::combine(v, __shfl_xor_sync(0xffffffffu, v, offset));
        return v;
    }
}

/* Addition for block_reduce. */
struct sum_op {
    template <class T> __device__ static T combine(T a, T b) { return a + b; }
    template <class T> __device__ static T identity() { return T(0); }
};

/*
 * Combines v across a block of Threads threads; the total is valid in
 * thread 0. Every thread of the block must call it. Two calls in a row need
 * a __syncthreads() between them (warp 0 of the first call still reads the
 * shared slots that the second call writes). Warp 0 combines the warps'
 * totals in log2(warps) steps, not a whole warp's five.
 */
template <class Op, int Threads, class T>
__device__ __forceinline__ T block_reduce(T v)
{
    static_assert(Threads % kWarp == 0 && Threads <= kWarp * kWarp, "block must be whole warps, <= 1024");
    constexpr int kWarps = Threads / kWarp;
    __shared__ T warp_totals[kWarps];
    const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
    v = warp_reduce<Op>(v);
    if (kWarps == 1) return v;
    if (lane == 0) warp_totals[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < kWarps ? warp_totals[lane] : Op::template identity<T>();
        v = warp_reduce<Op, kWarps>(v);
    }
    return v;
}

} // namespace gp_cuda

#endif
