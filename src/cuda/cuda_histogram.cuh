/*
 * The CUDA backend's counting and histograms (cuda_histogram.cu): entry
 * points for the backend table, and their tuning as data. These are reasoned
 * values, not measured ones yet: replace each reason with the GPU, size and
 * GB/s that confirmed it (PERF.md).
 */
#ifndef GP_CUDA_HISTOGRAM_CUH
#define GP_CUDA_HISTOGRAM_CUH

#include "gp_internal.h"

namespace gp_cuda {

size_t count_workspace(const gp_ctx *ctx, const gp_count_args *a);
gp_status count(gp_ctx *ctx, const gp_count_args *a, void *ws);
size_t histogram_workspace(const gp_ctx *ctx, gp_dtype t, int64_t n, int64_t bins);
gp_status histogram(gp_ctx *ctx, const gp_histogram_args *a, void *ws);

/* ------------------------------------------------------------------ count */

/* 256 threads, 4 blocks per SM, 4 independent 16-byte loads per thread: the
 * reduction's shape (cuda_tuning.h), which has the same job (read once,
 * combine). 64 KiB in flight per SM against the ~20 KiB Little's law asks. */
constexpr int kCountThreads = 256;
constexpr int kCountBlocksPerSm = 4;
constexpr int kCountUnroll = 4;

/* ------------------------------------------------------------- histograms */

/* 512 threads: 16 warps share one set of shared counters, so zeroing and
 * flushing them is paid once per 16 warps; 4 blocks (2048 threads) fit on a
 * Hopper SM when registers allow. */
constexpr int kHistThreads = 512;
/* 16-byte loads per thread per tile, all issued before the first is used. */
constexpr int kHistUnroll = 4;
/* The 8-bit kernel's hot loop needs ~30 registers (4 vectors, addresses),
 * only its flush (the bin formula, once per value) more: 4 blocks of 512
 * threads per SM caps it at 32, so the SM holds 2048 threads and 128 KiB of
 * loads in flight; the 4 x 32 KiB of counters fit in shared memory. */
constexpr int kHistBytesBlocksPerSm = 4;
/* The other kernels compute bins in double (~45 registers unbounded); 3
 * blocks per SM (42 registers) match what 64 KiB of counters allow. */
constexpr int kHistSharedBlocksPerSm = 3;

/* Shared counters are 32-bit; a block adds them into the 64-bit histogram
 * and clears them after at most this many of its elements (a round), so no
 * counter can wrap. 2^20 keeps the flush under ~0.1% of the time for 1024
 * bins (1024 atomics per 2^20 elements), and lets the large tests (2^30
 * f32, 2^32 u8) run several rounds per block. */
constexpr long long kHistRoundElems = 1LL << 20;
static_assert(kHistRoundElems <= 0xffffffffLL, "a 32-bit shared counter must not wrap within a round");

/* Shared memory per block the column layout aims at: 64 KiB lets 3 blocks
 * (1536 threads) share a 228 KiB Hopper SM. Bins get as many lane columns
 * (1..32) as fit in it; past it (more than 16384 bins) one column, up to
 * the device's opt-in limit (227 KiB: ~58000 bins), then the global path. */
constexpr int kHistSmemTarget = 64 * 1024;

/* With 8 or more columns, equal bins in a warp collide at most 4 ways; with
 * fewer, lanes first group equal bins (__match_any_sync) and one lane adds
 * the group's size, so data that falls in one bin does not serialise. */
constexpr int kHistMinColumnsUnmatched = 8;

/* The elements a block of the shared kernel counts (shared_block_elems):
 * at least kHistMinElemsPerBin a bin, for its flush's atomics, and
 * kHistBlockElemsPerRootN sqrt(n), so that small inputs spread over many
 * blocks and large ones pay fewer clears and flushes; below a full tile a
 * block loads one vector a thread a tile. H100, f32 into 1024 bins, the
 * best of four fixed shapes at each size was 2048 elements a block up to
 * 2^16, 4096 at 2^18, 8192 at 2^20, 16384 at 2^22 and the full grid from
 * 2^24, which 8 sqrt(n) gives: 2^16 7.5 us where 16 a bin took 12.0
 * with the same flush (docs/perf/histogram.md). Chosen at 1024 bins; at
 * 16384 (one column) it beats the old rule everywhere (f32 2^18 306 ->
 * 54 us) but 2 a bin still leaves f32 under CUB at 2^14-2^20. */
constexpr int kHistMinElemsPerBin = 2;
constexpr long long kHistBlockElemsPerRootN = 8;

/* Up to this many bins (non-accumulate mode) a block of the launch clears
 * the histogram, where a cudaMemsetAsync before it would be one more
 * operation on the stream (~2 us): one block clears 16384 bins faster.
 * Past it, or for the global kernel, whose blocks add from their first
 * element, the memset goes first. */
constexpr int kHistClearInKernelBins = 16384;

} // namespace gp_cuda

#endif
