/*
 * A CPU emulation of the CUDA features the look-back kernels use (scan,
 * select, partition, filter), so that their logic runs and is checked on a
 * machine without a GPU. Include it before a .cu file compiled as C++.
 *
 * Model (the fibers of tests/emu_core/emu_fibers.h). Every GPU thread is
 * a fiber with its own stack; the fibers of one block run cooperatively on
 * one OS thread and switch at every __syncthreads and warp collective,
 * which are real barriers here. Several OS threads run blocks at once (like
 * SMs), so blocks race on the look-back statuses with real concurrency,
 * preemption and optional random delays. __shared__ is thread_local: one
 * copy per OS thread, i.e. per resident block. Global memory is host memory; the look-back's acquire and
 * release accesses map to C11 atomics (GP_CUDA_EMULATE in cuda_lookback.cuh).
 *
 * What it cannot show: the GPU's weak memory model beyond what x86 and the
 * atomics give, real timing, alignment faults, register pressure.
 */
#ifndef GP_CUDA_EMU_H
#define GP_CUDA_EMU_H

#define GP_CUDA_EMULATE 1

#include <stdint.h>
#include <string.h>

#include <atomic>

#include "emu_fibers.h"
#include "gp_internal.h"

/* ------------------------------------------------------- language features */

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __grid_constant__
#define __shared__ static thread_local

struct uint4 {
    unsigned x, y, z, w;
};
struct uint2 {
    unsigned x, y;
};
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return {x, y, z, w}; }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
struct gp_emu_index {
    unsigned x;
};

namespace gp_emu {

/* Launch thunks by kernel-name prefix ("scan_kernel", ...), registered by each emulated file. */
typedef void (*thunk_fn)(const void *fn, const void *params);
void register_thunk(const char *prefix, thunk_fn t);
/* Blocks a persistent launch may count on running at once: the workers. */
unsigned resident_blocks();
/* cuda_select.cu's choose_persistent took wider tiles on a cut grid, for
 * a selection or a split (tests/emu/emu_select.cc counts them). */
void note_wider_cut(bool split);

template <class P>
void call_kernel(const void *fn, const void *params)
{
    reinterpret_cast<void (*)(P)>(const_cast<void *>(fn))(*static_cast<const P *>(params));
}

} // namespace gp_emu

#define threadIdx (gp_emu_index{gp_emu::thread_x()})

/* Look-back coverage: every window a look-back reads (cuda_lookback.cuh). */
void gp_emu_lookback_window(unsigned stop_mask, unsigned upto);
/* After a status is published: with chaos, a random pause that lets
 * successors see aggregates rather than inclusive prefixes. */
void gp_emu_published(unsigned state, unsigned long long slot);

/* ------------------------------------------------------------- intrinsics */

inline void __syncthreads() { gp_emu::block_barrier(); }
inline int __syncthreads_or(int pred) { return gp_emu::block_barrier_or(pred); }

template <class T>
inline T __shfl_sync(unsigned, T v, int src)
{
    uint64_t b = 0;
    memcpy(&b, &v, sizeof v);
    const uint64_t *all = gp_emu::warp_exchange_begin(b);
    uint64_t r = all[src & 31];
    gp_emu::warp_exchange_end();
    T out;
    memcpy(&out, &r, sizeof out);
    return out;
}

template <class T>
inline T __shfl_up_sync(unsigned, T v, unsigned delta)
{
    uint64_t b = 0;
    memcpy(&b, &v, sizeof v);
    const unsigned lane = gp_emu::thread_x() % 32;
    const uint64_t *all = gp_emu::warp_exchange_begin(b);
    uint64_t r = lane >= delta ? all[lane - delta] : b;
    gp_emu::warp_exchange_end();
    T out;
    memcpy(&out, &r, sizeof out);
    return out;
}

inline unsigned __ballot_sync(unsigned, int pred)
{
    const uint64_t *all = gp_emu::warp_exchange_begin(pred ? 1 : 0);
    unsigned m = 0;
    for (int l = 0; l < 32; l++) m |= (unsigned)(all[l] & 1) << l;
    gp_emu::warp_exchange_end();
    return m;
}

inline void __syncwarp()
{
    gp_emu::warp_exchange_begin(0);
    gp_emu::warp_exchange_end();
}

inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline void __nanosleep(unsigned) { gp_emu::sleep_a_little(); }

inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v)
{
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}
inline unsigned long long atomicExch(unsigned long long *p, unsigned long long v)
{
    return __atomic_exchange_n(p, v, __ATOMIC_RELAXED);
}

inline unsigned __dp4a(unsigned a, unsigned b, unsigned c)
{
    for (int i = 0; i < 4; i++) c += (a >> 8 * i & 0xffu) * (b >> 8 * i & 0xffu);
    return c;
}
/* The SIMD min and max of bytes and of 16-bit halves, a lane at a time. */
template <class L, bool Max>
inline unsigned emu_lanes_minmax(unsigned a, unsigned b)
{
    constexpr int bits = 8 * (int)sizeof(L);
    constexpr unsigned mask = (1u << bits) - 1;
    unsigned r = 0;
    for (int i = 0; i < 32 / bits; i++) {
        const L x = (L)(a >> bits * i & mask), y = (L)(b >> bits * i & mask);
        r |= ((unsigned)(Max ? (x > y ? x : y) : (x < y ? x : y)) & mask) << bits * i;
    }
    return r;
}
inline unsigned __vmaxu4(unsigned a, unsigned b) { return emu_lanes_minmax<unsigned char, true>(a, b); }
inline unsigned __vminu4(unsigned a, unsigned b) { return emu_lanes_minmax<unsigned char, false>(a, b); }
inline unsigned __vmaxs4(unsigned a, unsigned b) { return emu_lanes_minmax<signed char, true>(a, b); }
inline unsigned __vmins4(unsigned a, unsigned b) { return emu_lanes_minmax<signed char, false>(a, b); }
inline unsigned __vmaxu2(unsigned a, unsigned b) { return emu_lanes_minmax<unsigned short, true>(a, b); }
inline unsigned __vminu2(unsigned a, unsigned b) { return emu_lanes_minmax<unsigned short, false>(a, b); }
inline unsigned __vmaxs2(unsigned a, unsigned b) { return emu_lanes_minmax<short, true>(a, b); }
inline unsigned __vmins2(unsigned a, unsigned b) { return emu_lanes_minmax<short, false>(a, b); }
/* Byte i of the result: byte (s >> 4i) & 7 of {x, y} (x's bytes 0-3, y's 4-7). */
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s)
{
    const unsigned long long both = (unsigned long long)y << 32 | x;
    unsigned r = 0;
    for (int i = 0; i < 4; i++) r |= (unsigned)(both >> 8 * (s >> 4 * i & 7u) & 0xffu) << 8 * i;
    return r;
}
inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned shift)
{
    const unsigned long long both = (unsigned long long)hi << 32 | lo;
    return (unsigned)(both >> (shift & 31));
}

template <class T>
inline T __ldcs(const T *p)
{
    return *p;
}
template <class T>
inline void __stcs(T *p, T v)
{
    *p = v;
}

/* ---------------------------------------------- what cuda_common.cuh gives */

#define GP_CUDA_COMMON_CUH 1
typedef int cudaError_t;
typedef void *cudaStream_t;
enum { cudaSuccess = 0 };
inline cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t) { return memset(p, v, n), cudaSuccess; }
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }

namespace gp_cuda {
constexpr int kWarp = 32;
inline gp_status fail(gp_ctx *ctx, cudaError_t, const char *call, const char *, int,
                      gp_status other = GP_STATUS_DEVICE_ERROR)
{
    return gp_set_error(ctx, other, "%s failed (emulated)", call);
}
gp_status launch(gp_ctx *ctx, const void *kernel, const char *what, unsigned grid, unsigned block, void **args,
                 const char *file, int line, size_t smem = 0);
unsigned resident_blocks(gp_ctx *ctx, const void *kernel, unsigned block, size_t smem);
gp_status launch_resident(gp_ctx *ctx, const void *kernel, const char *what, unsigned grid, unsigned block,
                          size_t smem, void **args, bool *too_large, const char *file, int line);
/* Runs the grid on fewer workers than it has blocks where it can: a grid
 * launched this way must not need co-residency. */
gp_status launch_after_prior(gp_ctx *ctx, const void *kernel, const char *what, unsigned grid, unsigned block,
                             size_t smem, void **args, const char *file, int line);
/* No thread-block clusters here: small_cluster_blocks is 0, so the
 * emulated host sides never launch one, and launch_cluster refuses. */
unsigned small_cluster_blocks(gp_ctx *ctx, const void *kernel, unsigned block);
gp_status launch_cluster(gp_ctx *ctx, const void *kernel, const char *what, unsigned grid, unsigned cluster,
                         unsigned block, void **args, const char *file, int line);
class device_scope {
public:
    cudaError_t enter(int) { return cudaSuccess; }
};
} // namespace gp_cuda

#define GP_CUDA_TRY(ctx, call)                                                   \
    do {                                                                         \
        cudaError_t gp_err_ = (call);                                            \
        if (gp_err_ != cudaSuccess) return gp_cuda::fail((ctx), gp_err_, #call, __FILE__, __LINE__); \
    } while (0)
#define GP_CUDA_ENTER_DEVICE(ctx, scope) (void)(scope)
#define GP_CUDA_LAUNCH(ctx, kernel, what, grid, block, args)                                                   \
    do {                                                                                                       \
        gp_status gp_ls_ = gp_cuda::launch((ctx), (const void *)(kernel), (what), (grid), (block), (args),      \
                                           __FILE__, __LINE__);                                                \
        if (gp_ls_ != GP_STATUS_OK) return gp_ls_;                                                             \
    } while (0)
#define GP_CUDA_LAUNCH_SMEM(ctx, kernel, what, grid, block, smem, args)                                        \
    do {                                                                                                       \
        gp_status gp_ls_ = gp_cuda::launch((ctx), (const void *)(kernel), (what), (grid), (block), (args),      \
                                           __FILE__, __LINE__, (smem));                                        \
        if (gp_ls_ != GP_STATUS_OK) return gp_ls_;                                                             \
    } while (0)

#endif
