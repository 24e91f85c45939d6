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

/* ------------------------------------------------------------ transpose */

/* cuda_transpose.cu and .cuh; e is the element size, v the width of every
 * global access (cuda_transpose.cuh). Reasoned values, not measured yet:
 * docs/perf/transpose.md has the predictions to check. */
namespace tp {

/* Tile side in elements: 128 bytes of every row per tile for 1- and 2-byte
 * elements (a whole 128-byte line per row on each side), 256 bytes for 4-
 * and 8-byte ones, 512 for 16-byte ones (PERF.md: the seed's 32 x 33 float
 * tile, 128-byte rows, reached 94% of the copy on H100; longer rows are the
 * bet). 16 KiB of shared memory or less per tile, 32 KiB for an in-place
 * pair (the static limit is 48 KiB). Bytes without 4-byte alignment take a
 * 64 x 64 tile, so that a thread's one-byte loads stay 16. */
__host__ __device__ constexpr int tile_side(int e, int v) { return e == 1 ? (v == 1 ? 64 : 128) : e <= 4 ? 64 : 32; }

/* R x R blocks (R = v / e) in a tile. */
__host__ __device__ constexpr int tile_blocks(int e, int v)
{
    return (tile_side(e, v) / (v / e)) * (tile_side(e, v) / (v / e));
}

/* Threads per block: one R x R block each, at most 256 (with more blocks
 * than threads, each thread takes several). 64-thread blocks are the 1- and
 * 2-byte, 16-byte-vector cases, where 16 or 8 loads of 16 bytes per thread
 * already keep 128-256 bytes in flight. */
__host__ __device__ constexpr int tile_threads(int e, int v) { return tile_blocks(e, v) < 256 ? tile_blocks(e, v) : 256; }

/* Resident blocks per SM the register budget is sized for (the
 * __launch_bounds__ minimum). 2- to 16-byte elements: 1024 threads (or 512
 * of 64-thread blocks), up to 64 registers (128). 1-byte elements hold 16
 * rows of a block at once (64 registers of data for 16-byte vectors) and
 * spilled under 64: 4 x 64 threads (v = 16) or 2 x 256 (v < 16), up to 255
 * and 128 registers; ptxas then reports no spills in any variant, and every
 * variant keeps 48-80 KiB of loads in flight per SM. */
__host__ __device__ constexpr int tile_min_blocks(int e, int v)
{
    return e == 1 ? (tile_threads(e, v) == 64 ? 4 : 2) : tile_threads(e, v) == 64 ? 8 : 4;
}

/* Threads per block of the flat copy and flip kernels (NONE). */
constexpr int kFlatThreads = 256;

} // namespace tp

/* ------------------------------------------------------------------ scan */
/* cuda_scan.cu. Tiles and look-back: docs/DESIGN.md. */

/* 256 threads = 8 warps: enough warps that the block-level combine is short
 * and small enough for 4 resident blocks under the 64-register cap below.
 * Reasoned, not yet measured: replace with the H100 numbers that confirm it. */
constexpr int kScanThreads = 256;
/* Resident blocks per SM (the __launch_bounds__ minimum): 4 caps registers
 * at 64, and 4 x 16 KiB (int32) of loads in flight per SM is ~3x what
 * Little's law asks at 3.35 TB/s and ~0.8 us latency over 132 SMs (~20 KiB),
 * which leaves room for blocks sitting in their ticket or look-back latency.
 * 8-byte accumulators hold twice the registers per item: 3 blocks (80
 * registers, no spills) still keep 3 x 32 KiB in flight. */
__host__ __device__ constexpr int scan_blocks_per_sm(int acc_bytes) { return acc_bytes == 8 ? 3 : 4; }

/* Elements per thread: 16 (one to eight 16-byte vectors), 32 for 1-byte
 * inputs with 32-bit accumulators (two vectors) so a tile stays >= 8 KiB of
 * input and the per-tile costs (ticket, look-back) stay amortised. */
__host__ __device__ constexpr int scan_items(int in_bytes, int acc_bytes)
{
    return in_bytes == 1 && acc_bytes <= 4 ? 32 : 16;
}

/* ---------------------------------------- select, partition, the filter */
/* cuda_select.cu. */

/* 256 threads x 16 items: a 4096-element tile (16 KiB of int32, 32 KiB of
 * staging for 8-byte items). 4 resident blocks per SM (64 registers, 4 x
 * the staging in shared memory); 8-byte items hold twice the registers per
 * item: 3 blocks (80 registers, no spills). Reasoned, not yet measured. */
constexpr int kSelectThreads = 256;
constexpr int kSelectItems = 16;
constexpr long long kSelectTile = (long long)kSelectThreads * kSelectItems;
__host__ __device__ constexpr int select_blocks_per_sm(int item_bytes) { return item_bytes == 8 ? 3 : 4; }

} // namespace gp_cuda

#endif
