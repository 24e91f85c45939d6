/*
 * Just enough of CUDA, on the CPU, to run src/cuda/cuda_histogram.cu's
 * kernels and host code where there is no GPU (emu_histogram.cc). Include it
 * before the .cu, compiled as C++17.
 *
 * Model (the fibers of tests/emu_core/emu_fibers.h): every GPU thread is a
 * fiber with its own stack; the fibers of a block run on one OS thread and
 * switch at __syncthreads, at warp collectives (real 32-lane barriers
 * here) and, at random, at atomics.
 * Blocks run on a few OS threads at once, so the count's ticket and the
 * global atomics race for real. __shared__ is thread_local: one copy per
 * resident block. What it cannot show: the GPU's memory model beyond x86
 * and the atomics, timing, alignment faults, register pressure.
 */
#ifndef GP_HIST_EMU_H
#define GP_HIST_EMU_H

#define GP_CUDA_EMULATE 1
#define GP_CUDA_COMMON_CUH 1 /* its device half is replaced below */

#include <stdint.h>
#include <string.h>

#include "emu_fibers.h"
#include "gp_internal.h"

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static thread_local
#define __align__(n) alignas(n)

struct uint4 {
    unsigned x, y, z, w;
};
struct dim3 {
    unsigned x, y, z;
    dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
struct gp_emu_index {
    unsigned x;
};

inline unsigned char *gp_emu_dynamic_smem() { return gp_emu::dynamic_shared(); }

#define threadIdx (gp_emu_index{gp_emu::thread_x()})
#define blockIdx (gp_emu_index{gp_emu::block_x()})
#define gridDim (gp_emu_index{gp_emu::grid_x()})
#define blockDim (gp_emu_index{gp_emu::block_dim_x()})

/* ---------------------------------------------------------------- device */

inline void __syncthreads() { gp_emu::block_barrier(); }
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

template <class T>
inline T __shfl_sync(unsigned, T v, int src)
{
    uint64_t b = 0;
    memcpy(&b, &v, sizeof v);
    const uint64_t *all = gp_emu::warp_exchange_begin(b);
    uint64_t r = all[(unsigned)src % 32];
    gp_emu::warp_exchange_end();
    T out;
    memcpy(&out, &r, sizeof out);
    return out;
}

template <class T>
inline T __shfl_xor_sync(unsigned m, T v, int mask)
{
    return __shfl_sync(m, v, (int)((gp_emu::thread_x() % 32) ^ (unsigned)mask));
}

inline unsigned __match_any_sync(unsigned, int v)
{
    const uint64_t *all = gp_emu::warp_exchange_begin((uint64_t)(uint32_t)v);
    unsigned m = 0;
    for (int l = 0; l < 32; l++) m |= (all[l] == (uint64_t)(uint32_t)v ? 1u : 0u) << l;
    gp_emu::warp_exchange_end();
    return m;
}

inline int __popc(unsigned x) { return __builtin_popcount(x); }

/* The SIMD compares: each of the word's 32/W lanes of W bits, compared as
 * L (a W-bit integer type), all ones where true. */
template <class L, class F>
inline unsigned gp_emu_vcmp(unsigned a, unsigned b, F f)
{
    constexpr int W = 8 * sizeof(L);
    constexpr unsigned lane = W == 32 ? ~0u : (1u << W) - 1;
    unsigned r = 0;
    for (int k = 0; k < 32; k += W) {
        L x = (L)((a >> k) & lane), y = (L)((b >> k) & lane);
        if (f(x, y)) r |= lane << k;
    }
    return r;
}
#define GP_EMU_VCMP(name, L, expr) \
    inline unsigned name(unsigned a, unsigned b) { return gp_emu_vcmp<L>(a, b, [](L x, L y) { return expr; }); }
GP_EMU_VCMP(__vcmpltu4, uint8_t, x < y)
GP_EMU_VCMP(__vcmpleu4, uint8_t, x <= y)
GP_EMU_VCMP(__vcmpgtu4, uint8_t, x > y)
GP_EMU_VCMP(__vcmpgeu4, uint8_t, x >= y)
GP_EMU_VCMP(__vcmplts4, int8_t, x < y)
GP_EMU_VCMP(__vcmples4, int8_t, x <= y)
GP_EMU_VCMP(__vcmpgts4, int8_t, x > y)
GP_EMU_VCMP(__vcmpges4, int8_t, x >= y)
GP_EMU_VCMP(__vcmpeq4, uint8_t, x == y)
GP_EMU_VCMP(__vcmpne4, uint8_t, x != y)
GP_EMU_VCMP(__vcmpltu2, uint16_t, x < y)
GP_EMU_VCMP(__vcmpleu2, uint16_t, x <= y)
GP_EMU_VCMP(__vcmpgtu2, uint16_t, x > y)
GP_EMU_VCMP(__vcmpgeu2, uint16_t, x >= y)
GP_EMU_VCMP(__vcmplts2, int16_t, x < y)
GP_EMU_VCMP(__vcmples2, int16_t, x <= y)
GP_EMU_VCMP(__vcmpgts2, int16_t, x > y)
GP_EMU_VCMP(__vcmpges2, int16_t, x >= y)
GP_EMU_VCMP(__vcmpeq2, uint16_t, x == y)
GP_EMU_VCMP(__vcmpne2, uint16_t, x != y)
#undef GP_EMU_VCMP
inline int __ffs(unsigned x) { return __builtin_ffs((int)x); }

inline unsigned atomicAdd(unsigned *p, unsigned v)
{
    gp_emu::maybe_yield();
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}
inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v)
{
    gp_emu::maybe_yield();
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}

template <class T>
inline T __ldcg(const T *p)
{
    return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/* Host doubles on x86-64 round each operation to nearest, as these do. */
inline double __dsub_rn(double a, double b) { return a - b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __ddiv_rn(double a, double b) { return a / b; }
inline int __double2int_rz(double a) { return (int)a; }

/* ----------------------------------------------- what cuda_common.cuh gives */

typedef int cudaError_t;
typedef void *cudaStream_t;
enum { cudaSuccess = 0, cudaErrorInvalidValue = 1 };
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };
enum cudaDeviceAttr { cudaDevAttrMaxSharedMemoryPerBlockOptin = 97 };

inline const char *cudaGetErrorName(cudaError_t e) { return e ? "cudaErrorEmulated" : "cudaSuccess"; }
inline const char *cudaGetErrorString(cudaError_t e) { return e ? "emulated error" : "no error"; }
inline cudaError_t cudaGetLastError() { return cudaSuccess; }
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t) { return memset(p, v, n), cudaSuccess; }
cudaError_t cudaFuncSetAttribute(const void *fn, cudaFuncAttribute attr, int value);
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *fn, int threads, size_t smem);
cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device);
cudaError_t cudaLaunchKernel(const void *fn, dim3 grid, dim3 block, void **args, size_t smem, cudaStream_t stream);

namespace gp_cuda {
constexpr int kWarp = 32;
inline gp_status fail(gp_ctx *ctx, cudaError_t, const char *call, const char *, int,
                      gp_status other = GP_STATUS_DEVICE_ERROR)
{
    return gp_set_error(ctx, other, "%s failed (emulated)", call);
}
inline gp_status launch(gp_ctx *ctx, const void *kernel, const char *what, unsigned grid, unsigned block,
                        void **args, const char *, int)
{
    if (cudaLaunchKernel(kernel, dim3(grid), dim3(block), args, 0, ctx->stream) != cudaSuccess)
        return gp_set_error(ctx, GP_STATUS_LAUNCH_FAILED, "launch of %s failed (emulated)", what);
    return GP_STATUS_OK;
}
/* As cuda_common.cuh's (cuda_backend.cu caches it; no need here). */
inline cudaError_t blocks_per_sm(int, const void *kernel, unsigned block, size_t smem, int *per_sm)
{
    const cudaError_t e =
        smem > 0 ? cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem) : cudaSuccess;
    return e == cudaSuccess ? cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, kernel, (int)block, smem) : e;
}
class device_scope {
public:
    cudaError_t enter(int) { return cudaSuccess; }
};

template <int Hint>
inline uint4 load_stream(const uint4 *p)
{
    return *p;
}

template <class Op, class T>
inline T warp_reduce(T v)
{
    for (int offset = kWarp / 2; offset > 0; offset /= 2) v = Op::combine(v, __shfl_xor_sync(0xffffffffu, v, offset));
    return v;
}

/* As cuda_common.cuh's: addition for block_reduce. */
struct sum_op {
    template <class T> static T combine(T a, T b) { return a + b; }
    template <class T> static T identity() { return T(0); }
};

/* As cuda_common.cuh's: the total in thread 0. */
template <class Op, int Threads, class T>
inline T block_reduce(T v)
{
    constexpr int kWarps = Threads / kWarp;
    __shared__ T warp_totals[kWarps];
    const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
    v = warp_reduce<Op>(v);
    if (kWarps == 1) return v;
    if (lane == 0) warp_totals[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < kWarps ? warp_totals[lane] : Op::template identity<T>();
        v = warp_reduce<Op>(v);
    }
    return v;
}
} // namespace gp_cuda

#define GP_CUDA_TRY(ctx, call)                                                                       \
    do {                                                                                             \
        cudaError_t gp_err_ = (call);                                                                \
        if (gp_err_ != cudaSuccess) return gp_cuda::fail((ctx), gp_err_, #call, __FILE__, __LINE__); \
    } while (0)
#define GP_CUDA_LAUNCH(ctx, kernel, what, grid, block, args)                                                  \
    do {                                                                                                      \
        gp_status gp_ls_ = gp_cuda::launch((ctx), (const void *)(kernel), (what), (grid), (block), (args),     \
                                           __FILE__, __LINE__);                                               \
        if (gp_ls_ != GP_STATUS_OK) return gp_ls_;                                                            \
    } while (0)

#endif
