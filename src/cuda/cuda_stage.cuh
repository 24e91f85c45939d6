/*
 * Staging whole tiles in shared memory with Hopper's bulk copy engine, for
 * the persistent look-back kernels (cuda_scan.cu, cuda_select.cu).
 *
 * Why. A look-back tile's life is a serial chain (loads, block scan,
 * look-back, stores). Loaded into registers, its bytes are in flight only
 * during the load phase, so the SM idles its memory pipe while the tile
 * waits on its predecessors (docs/perf/scan.md: ~64 KiB in flight per SM,
 * ~9 us per tile at 2^30). With a few stages per block, one thread issues
 * the copy of a later tile (one instruction, no registers held) as soon as
 * a stage frees up, and the copy runs beside the chain.
 *
 * A stage is a tile's bytes (a selection by flags: its flags too) plus an
 * mbarrier that the copies complete (complete_tx). Its k-th use waits for
 * phase parity k & 1. Sources and
 * sizes must be multiples of 16 bytes: callers stage whole, 16-byte aligned
 * tiles only and load the rest from global memory.
 *
 * GP_CUDA_EMULATE (tests/emu): the copy is a memcpy at issue that completes
 * the phase, and the wait yields until it has: a legal schedule.
 */
#ifndef GP_CUDA_STAGE_CUH
#define GP_CUDA_STAGE_CUH

#include <stdint.h>

#include "cuda_common.cuh"

/* The block's dynamic shared memory, where the stages live. */
#ifdef GP_CUDA_EMULATE
#define GP_DYNAMIC_SHARED(name) unsigned char *const name = gp_emu::dynamic_shared()
#else
#define GP_DYNAMIC_SHARED(name) extern __shared__ __align__(128) unsigned char name[]
#endif

namespace gp_cuda {
namespace stage {

#ifdef GP_CUDA_EMULATE
/* A barrier is (phases completed << 32 | expected << 16 | still to arrive);
 * a block's fibers share one OS thread, so plain accesses do. */
__device__ __forceinline__ void barrier_init(uint64_t *bar, unsigned count = 1)
{
    *bar = (uint64_t)count << 16 | count;
}
__device__ __forceinline__ void fence_init() {}
__device__ __forceinline__ void arrive(uint64_t *bar)
{
    if ((*bar & 0xffffu) > 1) {
        --*bar;
        return;
    }
    const uint64_t expected = *bar >> 16 & 0xffffu;
    *bar = ((*bar >> 32) + 1) << 32 | expected << 16 | expected;
}
/* The arrival comes first here: a fiber does not yield between it and the
 * copies that follow, so no waiter sees the phase before they are done. */
__device__ __forceinline__ void expect_bytes(uint64_t *bar, unsigned) { arrive(bar); }
__device__ __forceinline__ void copy(void *dst, const void *src, unsigned bytes, uint64_t *) { memcpy(dst, src, bytes); }
__device__ __forceinline__ void prefetch_l2(const void *, unsigned) {}
__device__ __forceinline__ unsigned launch_index() { return 0; } /* blocks are known by ticket only */
__device__ __forceinline__ void wait(uint64_t *bar, unsigned parity)
{
    while ((*bar >> 32 & 1u) == parity) gp_emu::sleep_a_little();
}
template <int Threads>
__device__ __forceinline__ void sync_threads() { gp_emu::named_barrier(Threads); }
__device__ __forceinline__ void store_fence() {}
__device__ __forceinline__ void store(void *dst, const void *src, unsigned bytes) { memcpy(dst, src, bytes); }
__device__ __forceinline__ void stores_read() {}
__device__ __forceinline__ void stores_done() {}
#else
__device__ __forceinline__ unsigned smem_address(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

/* One thread, before any use; then fence_init and a block barrier. A phase
 * completes after `count` arrivals (and, for a copy, its bytes). */
__device__ __forceinline__ void barrier_init(uint64_t *bar, unsigned count = 1)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_address(bar)), "r"(count) : "memory");
}

/* One arrival (release at block scope: the caller's earlier shared-memory
 * accesses happen before whatever follows the phase's wait). */
__device__ __forceinline__ void arrive(uint64_t *bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_address(bar)) : "memory");
}

/* bar.sync 1, Threads: a barrier among the block's first Threads threads
 * (whole warps), leaving the others free. */
template <int Threads>
__device__ __forceinline__ void sync_threads()
{
    asm volatile("bar.sync 1, %0;" ::"n"(Threads) : "memory");
}

/* Makes the initialised barriers visible to the copy engine. */
__device__ __forceinline__ void fence_init() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }

/* One thread, before the copies of one stage use: arrives on `bar`,
 * whose phase then also waits for `bytes` (the copies' total) to land. The
 * caller has ordered every earlier access to the stage before this (a block
 * barrier); the proxy fence orders them against the copy engine's writes. */
__device__ __forceinline__ void expect_bytes(uint64_t *bar, unsigned bytes)
{
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_address(bar)), "r"(bytes)
                 : "memory");
}

/* Copies `bytes` (a multiple of 16; both addresses 16-byte aligned) from
 * global `src` to shared `dst`, completing on `bar` (after expect_bytes). */
__device__ __forceinline__ void copy(void *dst, const void *src, unsigned bytes, uint64_t *bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     smem_address(dst)),
                 "l"(src), "r"(bytes), "r"(smem_address(bar))
                 : "memory");
}

/* The block's place in the launch, for hints only: a persistent kernel's
 * work goes by ticket (cuda_lookback.cuh). */
__device__ __forceinline__ unsigned launch_index() { return blockIdx.x; }

/* Asks L2 for `bytes` (a multiple of 16) at global `src`, 16-byte aligned,
 * ahead of a copy that will want them; nothing to wait for. */
__device__ __forceinline__ void prefetch_l2(const void *src, unsigned bytes)
{
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(src), "r"(bytes) : "memory");
}

/* Bulk stores, shared to global by the copy engine (one thread issues;
 * each store is a bulk group of its own). Every thread that wrote the
 * source calls store_fence after its writes, then a barrier (or
 * __syncwarp among one warp's writers) orders them before the store. */
__device__ __forceinline__ void store_fence() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

/* `bytes` (a multiple of 16; both addresses 16-byte aligned) from shared
 * `src` to global `dst`. */
__device__ __forceinline__ void store(void *dst, const void *src, unsigned bytes)
{
    /* No L2 hint: evict-first lost the stores' gain (round 63). */
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(smem_address(src)),
                 "r"(bytes)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

/* The issuing thread: its bulk stores have read their sources (which may
 * then be written again), or are done. */
__device__ __forceinline__ void stores_read() { asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory"); }
__device__ __forceinline__ void stores_done() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }

/* Every thread that reads the stage: waits until its phase `parity` completes. */
__device__ __forceinline__ void wait(uint64_t *bar, unsigned parity)
{
    unsigned done;
    do {
        asm volatile("{\n\t.reg .pred p;\n\t"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done)
                     : "r"(smem_address(bar)), "r"(parity)
                     : "memory");
    } while (!done);
}
#endif

/* One thread: a stage's use that is one copy. */
__device__ __forceinline__ void fetch(void *dst, const void *src, unsigned bytes, uint64_t *bar)
{
    expect_bytes(bar, bytes);
    copy(dst, src, bytes, bar);
}

/* A persistent block's stage ring, kept by thread 0: stage_use(v) stages
 * use v in stage v % Stages (its tile's copies, or whatever else that
 * use's readers wait for). The first `primed` uses (at most Stages) are
 * staged at once, before the first use; then, at use u, use u + Lead,
 * once past a barrier that every reader of the stages passes only when
 * done with use u + Lead - Stages, the last use of that stage (callers
 * keep K uses parked behind the current one, Lead landing ahead of it,
 * Stages = K + 1 + Lead, and prime at least Lead uses). */
template <class StageUse>
__device__ __forceinline__ void prime(unsigned primed, StageUse &stage_use)
{
    for (unsigned v = 0; v < primed; v++) stage_use(v);
}

template <unsigned Lead = 1, class StageUse>
__device__ __forceinline__ void refill(unsigned use, unsigned primed, StageUse &stage_use)
{
    if (use + Lead >= primed) stage_use(use + Lead);
}

/* Stages of `tile_bytes` a block keeps within `budget` bytes: at least 2
 * (one read while the next lands), at most 4. */
__host__ __device__ constexpr int stages_for(long long tile_bytes, long long budget)
{
    return budget / tile_bytes < 2 ? 2 : budget / tile_bytes > 4 ? 4 : (int)(budget / tile_bytes);
}

} // namespace stage
} // namespace gp_cuda

#endif
