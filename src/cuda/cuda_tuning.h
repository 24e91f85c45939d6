/*
 * Tuning of the CUDA backend, as data in one place. Each value says what
 * justified it. These are reasoned values, not measured ones yet: replace
 * each reason with the GPU, size and GB/s that confirmed it (PERF.md).
 */
#ifndef GP_CUDA_TUNING_H
#define GP_CUDA_TUNING_H

namespace gp_cuda {

/* ---------------------------------------------------------------- reduce */

/* Threads per block. 256 = 8 warps: enough warps per block for the shuffle +
 * shared-memory finish to stay short, and small enough that 4 blocks fit on
 * an SM under the 64-register cap below. */
constexpr int kReduceThreads = 256;

/* Resident blocks per SM the grid is sized for (and the __launch_bounds__
 * minimum, which caps registers at 65536 / (256 * 4) = 64 per thread).
 * Gives 1024 threads per SM; with kReduceUnroll 16-byte loads each that is
 * 64 KiB in flight per SM. Little's law on H100: 3.35 TB/s x ~0.8 us loaded
 * latency / 132 SMs = ~20 KiB per SM, so about 3x headroom. */
constexpr int kReduceBlocksPerSm = 4;

/* Independent 16-byte loads each thread issues before it uses the first.
 * 4 x 16 B = 64 B per thread; the headroom above says more is not needed,
 * and fewer would fall under the Little's-law need at this occupancy. */
constexpr int kReduceUnroll = 4;

/* Inputs up to this many bytes run as one block with no ticket: every
 * thread then does at most one round of kReduceUnroll loads (one memory
 * latency), and the multi-block path's partial store, fence and atomic
 * (about 1 us of extra latency) are skipped. Derived, not free: a larger
 * value would give the lone block a second serial round of loads. */
constexpr long long kReduceSingleBlockBytes = 16LL * kReduceThreads * kReduceUnroll;

/* Above the single-block size the grid is ceil(vectors / kReduceThreads),
 * capped at SMs x kReduceBlocksPerSm: the work is spread over as many SMs as
 * possible (each thread at least one 16-byte vector), so mid sizes (2^16 to
 * 2^22 elements) finish in about one memory latency instead of queueing on
 * a few SMs; past 2^22 int32 the cap holds and the grid is persistent. */
constexpr int kReduceMinVectorsPerThread = 1;

/* How the streaming 16-byte loads are issued:
 *   0: ld.global.nc (LDG.E.128.CONSTANT), what CUB's reduce uses by default;
 *   1: ld.global.nc.L1::no_allocate.L2::256B: skip L1 (the data is used
 *      once) and have L2 fetch the whole 256-byte block around each access
 *      (LDG.E.NA.LTC256B.128 in SASS).
 * 0 until a measurement shows 1 is faster on H100 at 2^26..2^30. */
constexpr int kReduceLoadHint = 0;

} // namespace gp_cuda

#endif
