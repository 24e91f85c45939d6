/*
 * Tuning of the CUDA backend, as data in one place. Each value says what
 * justified it. These are reasoned values, not measured ones yet: replace
 * each reason with the GPU, size and GB/s that confirmed it (PERF.md).
 */
#ifndef GP_CUDA_TUNING_H
#define GP_CUDA_TUNING_H

namespace gp_cuda {

/* ---------------------------------------------------------------- reduce */

/* Threads per block. 512 = 16 warps: a cluster of 16 blocks then reads
 * 512 KiB in one round of loads (one memory latency). On H100 (docs/perf/
 * reduce.md) 512 against 256: f64 sum of 2^16 (512 KiB, one cluster instead
 * of two) 4.96 us against 5.06-5.22, f32 of 2^18 5.1-5.3 against 5.7-5.9,
 * other sizes within run-to-run noise (2^12: 3.9-4.0 us either way). */
constexpr int kReduceThreads = 512;

/* Resident blocks per SM the grid is sized for (and the __launch_bounds__
 * minimum, which caps registers at 65536 / (512 * 2) = 64 per thread).
 * Gives 1024 threads per SM; with kReduceUnroll 16-byte loads each that is
 * 64 KiB in flight per SM. Little's law on H100: 3.35 TB/s x ~0.8 us loaded
 * latency / 132 SMs = ~20 KiB per SM, so about 3x headroom. */
constexpr int kReduceBlocksPerSm = 2;

/* Independent 16-byte loads each thread issues before it uses the first.
 * 4 x 16 B = 64 B per thread; the headroom above says more is not needed,
 * and fewer would fall under the Little's-law need at this occupancy. */
constexpr int kReduceUnroll = 4;

/* Inputs of at most kReduceThreads x kReduceUnroll whole vectors (32 KiB)
 * run as one block: every thread then does at most one round of loads (one
 * memory latency), and nothing is combined across blocks. Larger ones get
 * one block per such round (cluster grids) or per vector (the others). */

/* Up to this many blocks (one round of loads each: 512 KiB), the grid is
 * one thread-block cluster and the blocks hand their partials to block 0
 * through its shared memory, with no fence and no global atomic; up to
 * twice as many, two clusters that meet in one 128-bit exchange. Measured
 * on H100 (docs/perf/reduce.md, 256-thread blocks), i32 sum of 64-256 KiB:
 * 4.0-4.7 us against 5.5-5.6 us for partials, fence and ticket; 16 blocks
 * beat 8 at 256 KiB (4.7 against 5.3 us). Needs compute capability 9.0;
 * 16 is above the portable cluster size, so 8 where the device cannot run
 * 16. */
constexpr int kReduceClusterMax = 16;

/* Above the single-block size the grid is ceil(vectors / kReduceThreads),
 * capped at SMs x kReduceBlocksPerSm: the work is spread over as many SMs as
 * possible (each thread at least one 16-byte vector), so mid sizes (2^16 to
 * 2^22 elements) finish in about one memory latency instead of queueing on
 * a few SMs; past 2^22 int32 the cap holds and the grid is persistent. */
constexpr int kReduceMinVectorsPerThread = 1;

/* How the streaming 16-byte loads of the grids past one round (reduce_grid)
 * are issued:
 *   0: ld.global.nc (LDG.E.128.CONSTANT), what CUB's reduce uses by default;
 *   1: ld.global.nc.L1::no_allocate.L2::256B: skip L1 (the data is used
 *      once) and have L2 fetch the whole 256-byte block around each access
 *      (LDG.E.NA.LTC256B.128 in SASS).
 * With L2 flushed before every timed call (docs/perf/reduce.md): on H100
 * the two read alike at every size (i32 2^26 89.6-89.7 us against
 * 89.7-89.8, 2^30 1385.4-1385.5 against 1385.4-1387.1); on H200 1 reads
 * 5-6% slower from 2^26 (i32 2^28 255.6-256.0 us against 239.2-239.5,
 * f64 2^30 1990-1995 against 1892-1893; CUB 241-242 and 1890-1894), so 0. */
#ifndef GP_REDUCE_LOAD_HINT
#define GP_REDUCE_LOAD_HINT 0
#endif
constexpr int kReduceLoadHint = GP_REDUCE_LOAD_HINT;

/* From this many bytes of input each block of a large grid reads one
 * contiguous segment, a round of the block at a time (CUB's even share),
 * rather than every round of the grid reading one contiguous stretch. On
 * H200 (hint 0, three interleaved rounds) segments read i32 2^30 in
 * 941.0-941.9 us against 946.1-947.1 for the stride (CUB 943.7-946.6) and
 * f64 2^28-2^30 0.2-0.4% faster; equal at 2^26-2^28 i32, 1% slower at
 * 2^24. On H100 they were 0.4% faster at 2^30 in one A/B and level in
 * another (docs/perf/reduce.md). GPUPRIM_REDUCE_SEGMENTS=1 gives every
 * grid segments (the tests), 0 none. */
constexpr long long kReduceSegmentMinBytes = 2LL << 30;

/* ------------------------------------------------------------ transpose */

/* cuda_transpose.cu and .cuh; e is the element size, v the width of every
 * global access (cuda_transpose.cuh). Reasoned values, not measured yet:
 * docs/perf/transpose.md has the predictions to check. */
namespace tp {

/* Tile side in elements: 256 bytes of every row per tile for 2- to 8-byte
 * elements, 512 for 16-byte ones, 128 for bytes and for 2-byte elements in
 * narrower vectors. On H100 (docs/perf/transpose.md) 128 x 128 u16 tiles
 * reached 96.5-97.7% of the copy at 8192^2 and 16384^2 where 64 x 64 ones
 * (128-byte rows) gave 93-95%; 256 x 256 byte tiles (64 KiB, one block an
 * SM at 186 registers a thread) gave 91-95%, no better than 128 x 128
 * (large byte matrices now take transpose_byte_tiles, below).
 * Bytes without 4-byte alignment take a 64 x 64 tile, so that a thread's
 * one-byte loads stay 16. The kernels take the side as a template
 * argument: cuda_transpose.cu builds the side each (E, V) picks. */
__host__ __device__ constexpr int tile_side(int e, int v)
{
    return e == 1 ? (v == 1 ? 64 : 128) : e == 2 && v == 16 ? 128 : e <= 4 ? 64 : 32;
}

/* R x R blocks (R = v / e) in a tile of side ts. */
__host__ __device__ constexpr int tile_blocks(int e, int v, int ts) { return (ts / (v / e)) * (ts / (v / e)); }

/* Threads per block: one R x R block each, at most 256 (with more blocks
 * than threads, each thread takes several). 64-thread blocks are the 1- and
 * 2-byte, 16-byte-vector cases of 128-byte rows, where 16 or 8 loads of 16
 * bytes per thread already keep 128-256 bytes in flight. */
__host__ __device__ constexpr int tile_threads(int e, int v, int ts)
{
    return tile_blocks(e, v, ts) < 256 ? tile_blocks(e, v, ts) : 256;
}

/* Resident blocks per SM the register budget is sized for (the
 * __launch_bounds__ minimum): 64 registers a thread, 128 for 2-byte
 * elements in 16-byte vectors (8 rows of 16 bytes held) and for bytes, 255
 * for bytes in 16-byte vectors (16 rows held; they spilled under 64).
 * ptxas then reports no spills in any variant. */
__host__ __device__ constexpr int tile_min_blocks(int e, int v, int ts)
{
    const int regs = e == 1 ? (v == 16 ? 255 : 128) : e == 2 && v == 16 ? 128 : 64;
    const int blocks = 65536 / (regs * tile_threads(e, v, ts));
    return blocks < 1 ? 1 : blocks > 8 ? 8 : blocks;
}

/* Matrices with a side of at most kSkinnySide elements and at most
 * kSkinnyMaxBytes in all (batches included) take the one-element-per-thread
 * kernel: tiles of 64 or more would leave most lanes idle, and the input,
 * read once per output row it feeds, stays in L2 (50 MB on H100). Measured
 * before it: 30000 x 7 and 7 x 30000 at 0.80-0.94x cublasSgeam/Dgeam
 * (docs/perf/transpose.md). Larger ones with elements of kNarrowMinElem
 * bytes or more take the narrow kernel, chunks of kNarrowChunkBytes through
 * shared memory: 1000000 x 3 f64 and c16 2.9-3.3x cuBLAS where tiles gave
 * 0.95-1.15x; bytes and halves stay on tiles (their element-wide accesses
 * made 16 x 4000000 u8 slower than tiles). */
constexpr long long kSkinnySide = 16;
constexpr long long kSkinnyMaxBytes = 16LL << 20;
constexpr int kNarrowMinElem = 4;
constexpr long long kNarrowChunkBytes = 8192;

/* Runs of 32 rows a thread of transpose_tall moves, all loads issued
 * before the first store: 4 x 16 bytes in flight for c16 (1 when 4 would
 * leave SMs without a block). On H100, 30000 x 7: f64 4.61 us, 1.07x
 * Dgeam, c16 5.41 us, 1.02x Zgeam, where one element a thread with
 * divisions for its indices gave 1.00x and 0.98x. */
constexpr int kTallRuns = 4;

/* Large byte matrices (out of place, 16-byte aligned, both sides multiples
 * of 16) take transpose_byte_tiles: 256 x 256 tiles that cross shared
 * memory untransposed, two blocks an SM (126 registers, 64 KiB), when they
 * fill at least kByteTileMinWaves waves of resident blocks (8192^2 and up
 * on 132 SMs). On H100 (docs/perf/transpose.md, sixth round), % of the
 * copy against 128 x 128 tiles: 16384^2 95.8-96.6 (92.4-93.4), 12288^2
 * 95.4-95.9 (92.5-92.9), 8192^2 94.0-95.8 (93.9-94.8); but at 2.2-3.0
 * waves (6144^2, 7168^2) 89-95 (94.4-95.5), and worse below. Three
 * blocks an SM (80 registers) lost 9 points. */
constexpr int kByteTileSide = 256;
constexpr int kByteTileThreads = (kByteTileSide / 16) * (kByteTileSide / 16); /* one 16 x 16 block each */
constexpr int kByteTileBlocksPerSM = 2;
constexpr int kByteTileMinWaves = 3;

/* Size classes of an out-of-place tiled transpose, by the bytes B of its
 * input (batch included) against the device's L2:
 * - mid, L2 / kStreamFromL2Div <= B <= kStreamToL2Mul x L2: loads and
 *   stores carry the evict-first hint (ld/st.global.cs). On H100 (50 MB
 *   L2, docs/perf/transpose.md, seventh round) that took 2-9% off every
 *   element size from 32 to 72 MB (c16 1920x1080 24.2 against 26.6 us;
 *   u8 8192^2 97.7% of the copy against 95.4%), about 1% at 128 MB, and
 *   cost 0.3-1.5% from 144 MB, where it is not used; below 25 MB it was
 *   level or slower.
 * - large, B > kStreamToL2Mul x L2: plain loads and stores, and 16-byte
 *   elements take kLargeC16Side tiles (1.002-1.009x Zgeam from 4096^2 to
 *   12288^2, where 32 x 32 tiles were 0.998-1.002x).
 * - small: plain, the tiles of tile_side. */
constexpr long long kStreamFromL2Div = 2;
constexpr long long kStreamToL2Mul = 2;
constexpr int kLargeC16Side = 16;

/* The tile side of a large matrix (above). */
__host__ __device__ constexpr int tile_side_large(int e, int v)
{
    return e == 16 && v == 16 ? kLargeC16Side : tile_side(e, v);
}

/* Threads per block of the flat copy and flip kernels (NONE). */
constexpr int kFlatThreads = 256;

} // namespace tp

/* ------------------------------------------------------------- look-back */
/* cuda_lookback.cuh. The GP_* macros are build-time knobs for measurement
 * (scripts/scan-sweep.sh builds variants with -D); the defaults are what
 * ships.
 *
 * What bounds the look-back kernels (docs/perf/scan.md, rounds 2 and 3):
 * not the window (64 and 128 tiles were no faster) nor the bytes in flight
 * (staged tiles were no faster alone), but the time a tile is held for its
 * look-back: ~7.7 us at 2^28 on the H100, a few L2 round trips under full
 * traffic, so 4 tiles of 16 KiB per SM move ~2.1 TB/s. More look-backs in
 * flight per SM is the lever (cuda_scan_pipelined.cuh). */

/* Statuses each lane reads per round trip: the window is 32 x this many
 * tiles, the loads of one lane independent, so one round trip still. */
#ifndef GP_LOOKBACK_TAGS_PER_LANE
#define GP_LOOKBACK_TAGS_PER_LANE 1
#endif
constexpr int kLookbackTagsPerLane = GP_LOOKBACK_TAGS_PER_LANE;
static_assert(kLookbackTagsPerLane >= 1 && kLookbackTagsPerLane <= 8, "1 to 8 statuses per lane");

/* Longest sleep between polls of a predecessor's status. A waiting tile is
 * on the critical path of every tile after it, so long sleeps stretch the
 * chain; 0 polls without sleeping. H200, 2^28 int32 (lookback-sweep.sh):
 * 1024 -> 0 ns gave the first kernels' scan +9%, select and the filter
 * nothing; today's kernels, nothing either (H100 scan, round 12 of
 * docs/perf/scan.md; H200 selections, round 60, and scans, round 62). */
#ifndef GP_LOOKBACK_MAX_SLEEP_NS
#define GP_LOOKBACK_MAX_SLEEP_NS 1024
#endif

/* 1: statuses whose value is all in the tag are polled and published with
 * relaxed accesses: nothing else is read behind them, so no acquire or
 * release is needed, and a release at gpu scope is a MEMBAR.GPU that waits
 * for the warp's outstanding stores. H100, 2^28 int32 scan: 1876 -> 2095
 * GB/s (docs/perf/scan.md, round 3). 0 gives every access acquire/release. */
#ifndef GP_LOOKBACK_RELAXED
#define GP_LOOKBACK_RELAXED 1
#endif

/* Bytes of look-back arena a tile's status takes (cuda_lookback.cuh): a
 * line of its own. Dense 8-byte tags put 16 tiles in a line that every
 * window polls while those tiles write it. H100, 2^28 scans (docs/perf/
 * scan.md, round 18): int32 776 -> 730 us (92 -> 98% of the copy), int64
 * 1507 -> 1457, u8 204 -> 190; 32 bytes a status gave about half of that. */
#ifndef GP_STATUS_BYTES
#define GP_STATUS_BYTES 128
#endif

/* Elements per thread rounded up to whole 16-byte vectors of `bytes`. */
__host__ __device__ constexpr int whole_vectors(int items, int bytes)
{
    return (items + 16 / bytes - 1) / (16 / bytes) * (16 / bytes);
}

/* ------------------------------------------------------------------ scan */
/* cuda_scan.cu. Tiles and look-back: docs/DESIGN.md. */

/* 256 threads = 8 warps: enough warps that the block-level combine is short.
 * Measured plateau with 256 x 16 on the H200: 2.1 TB/s (see above). */
#ifndef GP_SCAN_THREADS
#define GP_SCAN_THREADS 256
#endif
constexpr int kScanThreads = GP_SCAN_THREADS;
static_assert(kScanThreads % 32 == 0 && kScanThreads <= 1024, "whole warps");

/* Resident threads per SM (the __launch_bounds__ minimum): 1024 threads
 * per SM caps registers at 64, and 4 x 16 KiB (int32, 256 x 16) of loads in
 * flight per SM is ~3x what Little's law asks at 3.35 TB/s and ~0.8 us
 * latency over 132 SMs (~20 KiB). 8-byte accumulators hold twice the
 * registers per item: 768 threads (80 registers), and 64-bit products,
 * which spilled 4-52 bytes at 80 (ptxas), 512 threads (128). A wider
 * look-back holds M tags a lane beside the tile (ptxas, sm_90): M = 4
 * spilled 4-32 bytes at 64 and 8-24 at 80, so 768 and 512; M = 2 spilled
 * 4 bytes in the 32-item 1-byte kernels at 64, so 768 there. The
 * persistent loop (tile counter, stage state) made the 8-byte-input kernels
 * spill 24-56 bytes at 80: 512 threads for them. */
__host__ __device__ constexpr int scan_threads_per_sm(int in_bytes, int acc_bytes, bool wide_mul)
{
    return kLookbackTagsPerLane > 2 ? (acc_bytes == 8 ? 512 : 768)
           : acc_bytes == 8         ? (wide_mul || in_bytes == 8 ? 512 : 768)
           : kLookbackTagsPerLane == 2 && in_bytes == 1 ? 768
                                                        : 1024;
}
__host__ __device__ constexpr int scan_blocks_per_sm(int in_bytes, int acc_bytes, bool wide_mul)
{
    return scan_threads_per_sm(in_bytes, acc_bytes, wide_mul) / kScanThreads > 0
               ? scan_threads_per_sm(in_bytes, acc_bytes, wide_mul) / kScanThreads
               : 1;
}

/* Elements per thread: GP_SCAN_ITEMS (whole vectors), twice that for 1-byte
 * inputs with 1- or 4-byte accumulators, so a tile stays >= 8 KiB of input
 * and the per-tile costs (ticket, look-back) stay amortised. Not for 2-byte
 * accumulators (i8 -> i16 min/max): 32 of them spilled 26 bytes (ptxas).
 * Half for 8-byte inputs: 16 KiB tiles, which the look-back-warp scan
 * takes (cuda_scan_pipelined.cuh; 32 KiB tiles left 8-byte scans on the
 * staged kernel at 0.68x CUB on the H100). */
#ifndef GP_SCAN_ITEMS
#define GP_SCAN_ITEMS 16
#endif
__host__ __device__ constexpr int scan_items(int in_bytes, int acc_bytes)
{
    return whole_vectors(in_bytes == 1 && (acc_bytes == 1 || acc_bytes == 4) ? 2 * GP_SCAN_ITEMS
                         : in_bytes == 8                                   ? GP_SCAN_ITEMS / 2
                                                                           : GP_SCAN_ITEMS,
                         in_bytes);
}

/* Inputs of 2 to 16 blocks' worth (8 where the device runs no larger
 * clusters) run as one thread-block cluster (cuda_scan_cluster.cuh): no
 * ticket, no look-back, each block's total handed to the later blocks'
 * shared memory. A block takes a scan tile, 8-byte inputs twice their scan
 * tile (32 KiB: 2^16 elements in 16 blocks). */
__host__ __device__ constexpr int scan_cluster_items(int in_bytes, int acc_bytes)
{
    return in_bytes == 8 ? 2 * scan_items(in_bytes, acc_bytes) : scan_items(in_bytes, acc_bytes);
}

/* 1: the look-back-warp kernels (scan, select) publish a tile's aggregate
 * from the scan warps as soon as its total is known; 0: its look-back warp
 * publishes it when it takes the tile up, after its previous look-back, so
 * every later tile's look-back waited on that one too. H100, 2^28 int32
 * (docs/perf/scan.md, round 14): scan 867 -> 808-815 us (82 -> 88% of the
 * copy), int64 scan 1613 -> 1537-1541, select by flags 843 -> 793-797. */
#ifndef GP_EARLY_AGGREGATE
#define GP_EARLY_AGGREGATE 1
#endif

/* 1: inputs of more tiles than the device holds blocks run as a persistent
 * grid (cuda_scan.cu); 0: one tile a block at every size. H100, 2^28
 * int32, relaxed statuses: 2095 against 1875 GB/s (docs/perf/scan.md). */
#ifndef GP_SCAN_PERSISTENT
#define GP_SCAN_PERSISTENT 1
#endif
/* scan_kernel_pipelined (cuda_scan_pipelined.cuh): this many look-back
 * warps a block, each tile parked in shared memory while its look-back
 * runs (wide tiles: one). H100, 2^30, 16 KiB int32 tiles: K = 1, 2, 3
 * gave 0.93x, 1.01x, 0.97x CUB. */
#ifndef GP_SCAN_LOOKBACK_WARPS
#define GP_SCAN_LOOKBACK_WARPS 2
#endif
/* Wide tiles (cuda_scan_pipelined.cuh, cuda_select_pipelined.cuh): for
 * 4- and 8-byte scans and for every selection the look-back-warp kernels
 * also come with larger tiles and one look-back warp a block, taken where
 * the device's blocks get at least kWideMinTilesPerBlock of them each
 * (packed 1-byte scans: GP_SCAN_PACKED_BYTES). At 16 KiB a tile (two
 * look-back warps, 3 blocks an SM) every look-back kernel ran ~85 tiles/us
 * at 2^28 whatever its bytes a tile: the look-backs in flight set the
 * pace, and fewer of them run faster. H100, 2^28 (docs/perf/scan.md,
 * round 15): scan int32 806-808 -> 766-773 us (88.5 -> 92-93% of the
 * copy), int64 1541 -> 1500 (92.2 -> 94.7%); select int32 by flags 792 ->
 * 715, partition 1036 -> 985. With one or two tiles a block they lost
 * (select and partition at 2^16-2^22 0.82-1.0x CUB against 0.9-1.2x). */
#ifndef GP_WIDE_MIN_TILES_PER_BLOCK
#define GP_WIDE_MIN_TILES_PER_BLOCK 4
#endif
constexpr long long kWideMinTilesPerBlock = GP_WIDE_MIN_TILES_PER_BLOCK;
/* Look-back warps of the scan's wide tiles (K + 2 stages a block). Two,
 * with 24 KiB tiles so that 2 blocks still fit an SM, were 1-3% slower for
 * u8, i32 and i64 at 2^24-2^28 (H100, docs/perf/scan.md, round 36). */
#ifndef GP_SCAN_WIDE_LOOKBACK_WARPS
#define GP_SCAN_WIDE_LOOKBACK_WARPS 1
#endif
static_assert(GP_SCAN_WIDE_LOOKBACK_WARPS >= 1, "at least one look-back warp");
/* The scan's wide tile: 32 KiB (32 and 16 items a thread), 3 stages a
 * block, 2 blocks an SM (96 registers, no spills); 24 KiB with 3 blocks an
 * SM did as well but spilled 4-28 bytes in the 8-byte kernels at 72.
 * H200, 2^24-2^28, the other shapes of round 62 (docs/perf/scan.md), the
 * two knobs below included: 36 KiB tiles 0.1-1.4% faster for int32 and
 * int64 from 2^26 but 3-5% slower for u8 at 2^26 (not taken without an
 * H100 A/B); 24 KiB with 2 tiles landing, 24 KiB with 3 blocks, 16 KiB
 * with 3 landing or 4 blocks, and 64 KiB on 512 threads, 1 block an SM,
 * all as fast or slower (up to 50%). */
#ifndef GP_SCAN_WIDE_TILE_BYTES
#define GP_SCAN_WIDE_TILE_BYTES 32768
#endif
/* Wide tiles landing ahead of the one scanned: K + 1 + this many stages a
 * block. More in flight bought nothing on the H200 (round 62). */
#ifndef GP_SCAN_WIDE_LEAD
#define GP_SCAN_WIDE_LEAD 1
#endif
static_assert(GP_SCAN_WIDE_LEAD >= 1, "at least the next tile lands");
/* Blocks an SM the wide scan kernels are built for (__launch_bounds__
 * minimum; the registers follow). */
#ifndef GP_SCAN_WIDE_BLOCKS
#define GP_SCAN_WIDE_BLOCKS 2
#endif
/* 1: the wide scan writes each whole warp segment of its results back
 * over its stage and out by one bulk store (cp.async.bulk, shared to
 * global), not by 16-byte stores from registers; 0: the stores. With the
 * look-back taken out (a diagnostic build, wrong prefixes) the scan was
 * no faster on an H200 from 2^26: its miss there is its data path.
 * H200, us: int32 2^26 137.1 -> 135.1 and 138.3 -> 136.3, 2^28 540.4 ->
 * 533.5 and 546.0 -> 541.0, 2^29 1090 -> 1073; u8 2^28 137.9 -> 135.8;
 * int64 2^28 0.7-0.8% faster; an evict-first hint on the stores lost it
 * all (docs/perf/scan.md, round 63). Not yet measured on an H100. */
#ifndef GP_SCAN_BULK_STORES
#define GP_SCAN_BULK_STORES 1
#endif
__host__ __device__ constexpr int scan_wide_items(int in_bytes)
{
    return GP_SCAN_WIDE_TILE_BYTES / (kScanThreads * in_bytes);
}
/* 1: 1-byte sums and bitwise scans into 1-byte outputs keep their items
 * packed four to a word (cuda_scan_bytes.cuh) in the look-back-warp
 * kernel, and take its wide tiles; 0: a register a byte, narrow tiles, for
 * every scan (the two knobs below then pack nothing either). */
#ifndef GP_SCAN_PACKED_BYTES
#define GP_SCAN_PACKED_BYTES 1
#endif
/* 1: 1-byte min and max scans (u8 and i8 into themselves) also keep their
 * bytes packed, combined by the SIMD intrinsics (__vmaxu4 and the like),
 * and take the wide tiles; 0: a register a byte, narrow tiles. H200, us:
 * max u8 2^26 84.7 -> 56.3 (38 -> 58% of the copy), 2^28 319 -> 199,
 * min i8 2^26 95.8 -> 56.3; 2^22 u8 3-6% slower (docs/perf/scan.md,
 * round 48). */
#ifndef GP_SCAN_PACKED_MINMAX
#define GP_SCAN_PACKED_MINMAX 1
#endif
/* 1: 2-byte scans into 2-byte outputs (sums, bitwise, min and max) keep
 * their items packed two to a word as well, and take the wide tiles (on
 * narrow tiles only min and max pack: bytes::packed_kernel); 0: a register
 * an item, narrow tiles. H200, 2^26, us: sum i16 88.1 -> 75.2 (73 -> 86% of
 * the copy), max i16 100.1 -> 75.5, xor i16 92.5 -> 70.7 (docs/perf/scan.md,
 * round 48). */
#ifndef GP_SCAN_PACKED_HALVES
#define GP_SCAN_PACKED_HALVES 1
#endif
/* 1: packed 1-byte min and max combine in 16-bit lanes, a word's even
 * and odd bytes apart (max.u16x2 and the like, one instruction where
 * __vmaxu4 is about six; bytes::split_minmax); 0: __vmaxu4 and the like
 * on the packed words. H100, us: max u8 2^26 59.0 -> 53.1 (72.7 -> 80.9%
 * of the copy), 2^28 209.4 -> 193.7 (83.6 -> 90.5%), min i8 2^26 59.7 ->
 * 54.0; 2^22 3-5% faster (docs/perf/scan.md, round 49). */
#ifndef GP_SCAN_SPLIT_MINMAX
#define GP_SCAN_SPLIT_MINMAX 1
#endif
/* 1: packed 1-byte sums scan a word with dot products (dp4a against
 * masks of ones, plus a carry) and gather the bytes with permutes
 * (cuda_scan_bytes.cuh, sum_word); 0: two shifted lane-wise adds a word.
 * H100, scan sum u8, us: 2^22 9.7 -> 9.0, 2^26 53.4 -> 51.0 (86.5 -> 91.0%
 * of the copy), 2^28 189.6 -> 186.7 (94.0 -> 95.6%) (docs/perf/scan.md,
 * round 38). */
#ifndef GP_SCAN_BYTES_DP4A
#define GP_SCAN_BYTES_DP4A 1
#endif
/* 1: a look-back-warp kernel's thread 0 asks L2 for the first tile of
 * its likely ticket (blockIdx.x) before it takes the ticket, so the
 * ticket's round trip overlaps the tile's first DRAM latency; 0: not.
 * H100, us: scan u8 2^26 51.5-52.0 -> 49.9-50.9, select int32 2^24
 * 50.9-51.5 -> 49.5-50.5, 2^22 scans and selections 0.3-0.6 us less
 * (docs/perf/scan.md, round 39). */
#ifndef GP_PREFETCH_FIRST_TILE
#define GP_PREFETCH_FIRST_TILE 1
#endif
/* 1: a partition counted first (cuda_select.cu, count_before) by flags
 * of up to GP_COUNT_FIRST_BY_TICKET_MAX_ITEMS takes its tiles by ticket
 * as its stages free up, so its grid needs no co-residency and may start
 * while the count's runs (programmatic dependent launch,
 * cuda_grid_dependency.cuh); the others, and all with 0, take tiles k,
 * k + grid, ... on a cooperative launch after the count's. H100, us:
 * int32 2^23 41.3 -> 38.4, 2^24 68.2 -> 65.9, 2^26 230.3 -> 229.1, but
 * 2^28 872 -> 881; by comparison no gain anywhere, u8 2^24 40.0 -> 41.9
 * (docs/perf/scan.md, round 42). */
#ifndef GP_COUNT_FIRST_OVERLAP
#define GP_COUNT_FIRST_OVERLAP 1
#endif
#ifndef GP_COUNT_FIRST_BY_TICKET_MAX_ITEMS
#define GP_COUNT_FIRST_BY_TICKET_MAX_ITEMS (1ll << 26)
#endif
/* Uses a look-back-warp scan block stages at once when it starts (at most
 * its K + 2 stages; then one a use, as before). With every stage primed,
 * the grid's first requests were 25 MB (264 blocks x 3 x 32 KiB): the first
 * wave's tiles landed 3.6-11 us in, and its look-backs, whose statuses wait
 * on the slowest of those tiles, ended 13-15 us in, when no byte had been
 * written yet (GP_TIMELINE, docs/perf/scan.md round 47). Two: H100, three
 * interleaved rounds, us: scan u8 2^26 45.1-45.8 -> 43.6-43.7 (94.4 ->
 * 99.0% of the copy), 2^24 (narrow tiles) 17.0-17.2 -> 16.2-16.3, i32 2^24
 * 45.2-45.5 -> 43.9-44.3; 2^28 within 0.5%. One use primed measured
 * between every stage and two. */
#ifndef GP_SCAN_PRIME_USES
#define GP_SCAN_PRIME_USES 2
#endif
static_assert(GP_SCAN_PRIME_USES >= 1, "a block stages at least its first use");

/* A persistent scan_kernel stages its tiles in shared memory, this many
 * bytes of stages a block (cuda_stage.cuh: 2 to 4 tiles): int32 3 x 16 KiB,
 * so 4 blocks hold 192 KiB of an SM's 228 and two tiles a block are always
 * in flight. */
#ifndef GP_SCAN_STAGE_BYTES
#define GP_SCAN_STAGE_BYTES 49152
#endif

/* ---------------------------------------- select, partition, the filter */
/* cuda_select.cu. */

/* 256 threads x 16 items: a 4096-element tile (16 KiB of int32). A tile
 * is at most 16 KiB, so 8-byte items take 8 a thread: the look-back-warp
 * selection keeps 4 tiles a block in shared memory, 3 blocks an SM
 * (cuda_select_pipelined.cuh). The filter keeps up to kFilterRecordBytes
 * of records a block (below). Measured plateau with 256 x 16 on the H200:
 * select 1.55 TB/s, the filter 0.9 (before its chunks). */
#ifndef GP_SELECT_THREADS
#define GP_SELECT_THREADS 256
#endif
#ifndef GP_SELECT_ITEMS
#define GP_SELECT_ITEMS 16
#endif
constexpr int kSelectThreads = GP_SELECT_THREADS;
static_assert(kSelectThreads % 32 == 0 && kSelectThreads <= 1024, "whole warps");
constexpr int kSelectTileBytes = 16384;
__host__ __device__ constexpr int select_items(int item_bytes)
{
    return whole_vectors(GP_SELECT_ITEMS * item_bytes * kSelectThreads <= kSelectTileBytes
                             ? GP_SELECT_ITEMS
                             : kSelectTileBytes / (item_bytes * kSelectThreads),
                         item_bytes);
}
__host__ __device__ constexpr long long select_tile(int item_bytes) { return (long long)kSelectThreads * select_items(item_bytes); }
/* Wide selection tiles (kWideMinTilesPerBlock, above), one look-back warp
 * a block: 24 items a thread of 4-byte items (24 KiB; a stage with its
 * flags 30 KiB, so 2 blocks an SM by flags, 3 by comparison), 16 of 8-byte
 * items (32 KiB, 2 blocks an SM). 32 KiB of int32 by flags (40 KiB
 * stages) left one block an SM and lost 3-14% at 2^26-2^28. 1- and 2-byte
 * items take GP_SELECT_WIDE_SMALL_ITEMS (8 and 16 KiB tiles): at 16, their
 * narrow count, they have no wide kernel (select_pipelined_for). */
#ifndef GP_SELECT_WIDE_SMALL_ITEMS
#define GP_SELECT_WIDE_SMALL_ITEMS 32
#endif
__host__ __device__ constexpr int select_wide_items(int item_bytes)
{
    return whole_vectors(item_bytes == 4 ? 24 : item_bytes == 8 ? 16 : GP_SELECT_WIDE_SMALL_ITEMS, item_bytes);
}
__host__ __device__ constexpr long long select_wide_tile(int item_bytes)
{
    return (long long)kSelectThreads * select_wide_items(item_bytes);
}
/* Wider tiles still for 1-byte selections (and partitions counted first,
 * GP_PARTITION_WIDER), taken over the wide ones where the device's blocks
 * get kWideMinTilesPerBlock of them:
 * 64 items a thread, 16 KiB of u8; held packed (GP_SELECT_PACKED_BYTES),
 * 59 registers and 3 blocks an SM by comparison, 2 by flags (their
 * stages; held an item a register they took 95). H100, against the wide
 * tiles, 2 blocks an SM: select-if u8 2^26 62.7 -> 59.4 us, 2^28 219 ->
 * 201; by flags 74.7 -> 72.5 and 258 -> 246. Partitions by flags lost
 * 3-4% (docs/perf/scan.md, round 22). 0 where there is no wider kernel. */
#ifndef GP_SELECT_WIDER_BYTE_ITEMS
#define GP_SELECT_WIDER_BYTE_ITEMS 64
#endif
__host__ __device__ constexpr int select_wider_items(int item_bytes)
{
    return item_bytes == 1 && GP_SELECT_WIDER_BYTE_ITEMS > GP_SELECT_WIDE_SMALL_ITEMS ? GP_SELECT_WIDER_BYTE_ITEMS : 0;
}
__host__ __device__ constexpr long long select_wider_tile(int item_bytes)
{
    return (long long)kSelectThreads * select_wider_items(item_bytes);
}
/* 1: select_kernel_pipelined writes its runs 16 bytes a store (copy_run,
 * cuda_select_pipelined.cuh); 0: an item a store. Items of 4 and 8 bytes
 * gained 0.3-3% (docs/perf/scan.md, round 35), 1-byte ones 10-25% (round
 * 20). */
#ifndef GP_SELECT_VECTOR_RUNS
#define GP_SELECT_VECTOR_RUNS 1
#endif
/* select_kernel_pipelined compares staged items of up to this many bytes
 * a word at a time (swar_compare_masks, cuda_select_masks.cuh): 2, 1, or 0 for
 * none. 1: 2-byte rows were 3-4% faster an item at a time (docs/perf/scan.md,
 * round 23). */
#ifndef GP_SELECT_SWAR
#define GP_SELECT_SWAR 1
#endif
/* 1: the wider tier (1-byte selections, 64 items a thread) holds a
 * thread's rows as loaded, a 16-byte word a row, not an item a register
 * (held_rows, cuda_select_rows.cuh): 59 registers, not 95, so 3 blocks an SM
 * where shared memory allows (by comparison). H100, select-if u8 2^26
 * 57.5 -> 51.1 us, 2^28 195 -> 173 (docs/perf/scan.md, round 40). The
 * narrow and wide tiers keep an item a register: with fewer registers
 * more of their blocks fit, the 4-tiles-a-block rule then took narrower
 * tiles at 2^24, and u8 selections there lost 12-18%. */
#ifndef GP_SELECT_PACKED_BYTES
#define GP_SELECT_PACKED_BYTES 1
#endif
/* 1: a partition's packed rows are interleaved: word k of a lane's row r
 * holds the four items at r * 512 + 128 k + 4 lane, so that one store of
 * the compaction (a byte of every lane) lands within some 64 bytes of the
 * kept run and 64 of the rejected one. With a lane's 16 contiguous items
 * the lanes' runs lie some 8 bytes apart: a store spans 256 bytes, two
 * wavefronts or more. Nsight Compute, partition u8 at 2^26 on H200 (the
 * Bits kernel, wider tiles): 2.0 wavefronts a shared store, the L1 82.9%
 * busy, DRAM 38% (docs/perf/scan.md, round 52). */
#ifndef GP_SELECT_INTERLEAVED_BYTES
#define GP_SELECT_INTERLEAVED_BYTES 1
#endif
/* select_kernel_pipelined: look-back warps a block (wide tiles: one),
 * each tile's compacted run parked in shared memory while its look-back
 * runs. */
#ifndef GP_SELECT_LOOKBACK_WARPS
#define GP_SELECT_LOOKBACK_WARPS 2
#endif
static_assert(GP_SELECT_LOOKBACK_WARPS >= 1, "at least one look-back warp");
/* Look-back warps of the wider tier's kernels by flags (1-byte selections
 * and partitions into two buffers), whose K + 2 stages fit 2 blocks an SM
 * where their flags take slots of their own (GP_SELECT_FLAG_SLOTS; with
 * flags in 32 KiB stages they kept one). By comparison:
 * GP_SELECT_WIDER_CMP_LOOKBACK_WARPS, below. This knob set both until
 * round 94, and the history below is of both.
 * H100, 2 blocks an SM: select-if u8 2^26 59.2-59.5 -> 57.9-58.2 us, 2^28
 * 201-203 -> 195-196 (1.94x -> 2.00x CUB); 3 spilled (80 registers) and
 * lost 3-9%; by flags on 12 KiB tiles with two lost 4-7% (docs/perf/scan.md,
 * round 36). Packed, one look-back warp lets 4 blocks fit: 5% faster at
 * 2^28, 17% slower at 2^25, where the wide tiles then run (round 40). On
 * an H200, 1.5-2.6% faster from 2^25 up (round 59): not taken without an
 * H100 A/B. */
#ifndef GP_SELECT_WIDER_LOOKBACK_WARPS
#define GP_SELECT_WIDER_LOOKBACK_WARPS 2
#endif
static_assert(GP_SELECT_WIDER_LOOKBACK_WARPS >= 1, "at least one look-back warp");
/* Look-back warps of the wider tier's kernels by comparison (1-byte
 * selections and partitions into two buffers; 16 KiB stages, 3 blocks an
 * SM, packed). One, not two: H100, us, 2 rounds of 10 runs each: select-if
 * u8 2^26 41.6 -> 41.2, 2^27 73.8 -> 72.5, 2^28 138.3 -> 135.6 (94.9% ->
 * 96.5% of the copy); i8 2^28 164.1 -> 162.6; partition-copy-if u8 2^27
 * 122.6 -> 119.7, 2^28 235.3 -> 230.2; i8 2^28 238.3 -> 234.1. At
 * 2^22-2^25, 1.5% slower (select-if u8 2^22, 11.3 -> 11.4) to 2.1%
 * faster; one loss past them, partition-copy-if i8 2^26 67.4 -> 68.7
 * (1.9%). By flags one warp was 1.1-1.6% slower (select
 * u8 2^28 226.7 -> 229.2), so GP_SELECT_WIDER_LOOKBACK_WARPS keeps two
 * there (docs/perf/scan.md, rounds 93 and 94). */
#ifndef GP_SELECT_WIDER_CMP_LOOKBACK_WARPS
#define GP_SELECT_WIDER_CMP_LOOKBACK_WARPS 1
#endif
static_assert(GP_SELECT_WIDER_CMP_LOOKBACK_WARPS >= 1, "at least one look-back warp");
/* Blocks an SM the wider tier's packed selection kernel by comparison is
 * built for (the __launch_bounds__ minimum, which sets its registers: 3
 * blocks, 72; 4, 56, no spills). Partitions into two buffers keep 3: they
 * were no faster on 4 (partition-copy-if u8 2^27 119.6 -> 122.6 us). H100,
 * us, 2 rounds of 10 runs: select-if u8 2^27 72.2 -> 71.1, 2^28 135.1 ->
 * 130.0 (96.9% -> 100.4% of the copy); i8 2^28 161.9 -> 158.0; 2^22-2^26
 * within 1.7% either way with the cut grid below (without it 2^25 lost
 * 19%: 2048 tiles no longer gave 528 blocks 4, and the wide tier ran)
 * (docs/perf/scan.md, round 98). */
#ifndef GP_SELECT_WIDER_CMP_BLOCKS
#define GP_SELECT_WIDER_CMP_BLOCKS 4
#endif
/* Wider tiles on a cut grid: where the wider tier's tiles are too few to
 * give every resident block kWideMinTilesPerBlock of them, 1-byte
 * selections and partitions into two buffers still take them, on a grid of
 * tiles / kWideMinTilesPerBlock blocks, if that grid has at least this share
 * of the SMs (percent; 0: never, the wide tier runs, as before round 98).
 * H100, us: select-if u8 2^23 15.1 -> 13.6, 3 x 2^22 19.3 -> 16.2, 2^24
 * 19.1 -> 17.1, 3 x 2^23 24.8 -> 21.0; partition-copy-if u8 2^23 20.4 ->
 * 16.8, 2^24 27.0 -> 22.8; select u8 2^24 21.7 -> 20.8; partition-copy u8
 * 2^23 20.2 -> 17.1. A grid of half the SMs (2^22, 64 blocks) lost 7-18%;
 * at 96 blocks (3 x 2^21, 73%) 0-3% faster (docs/perf/scan.md, round 98). */
#ifndef GP_SELECT_WIDER_CUT_MIN_SM_PCT
#define GP_SELECT_WIDER_CUT_MIN_SM_PCT 60
#endif
/* 1: a selection's stage is refilled as soon as its run is written (a
 * barrier of the scan warps after it), not after the next use's ranks
 * (whose barrier orders it for free): two tiles a block land at once, not
 * one. H100, us: select-if u8 2^26 43.1 -> 41.6, 2^28 147.7 -> 138.5
 * (88.7% -> 94.6% of the copy); select u8 2^28 234.6 -> 229.4; select-if
 * int32 0.5-3% faster from 2^24; select int32 and int64, and the other
 * cases at 2^22-2^24, within about 1.5% either way (docs/perf/scan.md,
 * round 58). */
#ifndef GP_SELECT_EARLY_REFILL
#define GP_SELECT_EARLY_REFILL 1
#endif
/* 1: 1-byte selections by flags (the wider tier) land each tile's flags
 * in one of two slots of their own, not in its stage, so a use parked for
 * its look-back holds only its items: two look-back warps
 * (GP_SELECT_WIDER_LOOKBACK_WARPS) and 4 stages of 16 KiB fit 2 blocks an
 * SM, where stages of items and flags (32 KiB) left one look-back warp and
 * 3 stages. H200, us: select u8 2^26 51.9 -> 50.0, 2^28 183.7 -> 175.5
 * (85.8% -> 90.2% of the copy); three look-back warps (5 stages) read the
 * same. The narrow tier by flags with slots (int32: 3 blocks an SM, not 2)
 * was no faster and 3-4% slower at 2^22, so it keeps its flags in its
 * stages (docs/perf/scan.md, round 60). */
#ifndef GP_SELECT_FLAG_SLOTS
#define GP_SELECT_FLAG_SLOTS 1
#endif
/* A partition with at most K + 2 narrow tiles a resident block (one a
 * stage) skips the count tasks (cuda_select.cu, one_pass_partition;
 * docs/perf/scan.md, round 17). 0: never; 1: where the persistent grid
 * runs anyway (more tiles than resident blocks); 2: also in place of one
 * tile a block. H100, by flags: int32 at 2^20 13.7-14.5 -> 12.3-12.6 us
 * (2), int64 at 2^20 18.1-18.4 -> 16.8-16.9 (1 and 2). */
#ifndef GP_PARTITION_ONE_PASS
#define GP_PARTITION_ONE_PASS 2
#endif
/* A partition whose narrow tiles outnumber the resident blocks runs in one
 * pass on wide tiles (3 stages) instead, where those come one a block, or
 * where the narrow tiles cannot run in one pass and the wide ones can
 * (cuda_select.cu, choose_persistent; docs/perf/scan.md, rounds 31-32).
 * H100, us: partition-if u16 at 2^23 38.7 -> 28.4 (0.77x -> 1.06x CUB),
 * u8 30.5 -> 21.8; partition u8 at 2^23 28.1 -> 24.5; int64 at 2^20 by
 * flags 16.5 -> 15.6, by comparison 16.1 -> 15.2 (over CUB). Taken wherever
 * the wide tiles fit, they lost int32 by flags 9-10% at 2^21-2^22 and u16
 * 4-6% at 2^22, where narrow ones ran in one pass on more blocks. 0:
 * never. */
#ifndef GP_PARTITION_WIDE_ONE_PASS
#define GP_PARTITION_WIDE_ONE_PASS 1
#endif
/* Items of at least this many bytes take wide tiles in one pass wherever
 * those fit the stages: int64 at 2^21 (1024 narrow tiles in one pass on 396
 * blocks, 512 wide ones on 264) ran 2-4% faster on wide tiles in three
 * A/Bs (round 32: by flags 24.1-24.6 -> 23.5-23.8 us, by comparison
 * 23.8-24.0 -> 23.0-23.2). */
#ifndef GP_PARTITION_WIDE_ONE_PASS_MIN_ITEM_BYTES
#define GP_PARTITION_WIDE_ONE_PASS_MIN_ITEM_BYTES 8
#endif
/* A partition's count tasks count this many tiles each, under one status:
 * the look-back's pace (statuses per round trip, above) then covers G times
 * the elements. H200, 2^28 int32, G = 1: 1816 us, of which the count phase
 * of 65536 statuses took about 1 ms at ~64 statuses/us. G = 8: ~130 us at
 * that pace, under the flags' read time. 1 is the layout before groups. */
#ifndef GP_PARTITION_GROUP
#define GP_PARTITION_GROUP 8
#endif
constexpr int kPartitionGroup = GP_PARTITION_GROUP;
static_assert(kPartitionGroup >= 1 && kPartitionGroup <= 32, "a group's tiles are ranked by one warp");
/* Groups pay where the count phase's statuses are many; with few tiles a
 * group's serial count is the critical path instead. H100, int32 (4096 a
 * tile), scripts/scan-sweep.sh: G = 8 against G = 1 took 20.9 against
 * 12.6 us at 2^16, 54 against 38 us at 2^22 (1024 tiles), 100 against 120 us
 * at 2^24 (4096 tiles), 1395 against 1749 us at 2^28. So groups of
 * kPartitionGroup from this many tiles on, one tile a group below. */
#ifndef GP_PARTITION_GROUP_MIN_TILES
#define GP_PARTITION_GROUP_MIN_TILES 2048
#endif
constexpr long long kPartitionGroupMinTiles = GP_PARTITION_GROUP_MIN_TILES;
/* A persistent partition by flags of 4- or 8-byte items, at least this
 * many bytes of them (2-byte: this many items, _NARROW), is counted
 * first: flag_bits_kernel writes the total and a bit an item, then the
 * partition's kernel looks back as a selection's and stages the bits
 * instead of the flags (select_params::counted_first). Smaller ones run in
 * one pass (one_pass_partition), which this does not change. H100, bench
 * partition, us, counted first against the count phase inside
 * (docs/perf/scan.md, rounds 28, 32 and 44): int32 2^23 43.1 / 52.8, 2^24
 * 71.3 / 81.9, 2^28 912 / 944; flushed (round 44), int32 at 24 MiB
 * (6291456) 28.9-29.5 / 35.6-35.9 (1.09x / 0.92x CUB), int64 at 32 MiB
 * 32.8-33.5 / 33.4-34.5, and never slower at 16-48 MiB; u16 2^24 50.0 /
 * 51.0, 2^25 83.5 / 88.0, but at 24 MiB 38.2-38.6 / 37.0-37.8; u8 lost 1-5%
 * from 2^24 on wide tiles (1-byte items: GP_PARTITION_COUNT_FIRST_MIN_ITEMS_BYTE). */
#ifndef GP_PARTITION_COUNT_FIRST_MIN_BYTES
#define GP_PARTITION_COUNT_FIRST_MIN_BYTES (16ll << 20)
#endif
#ifndef GP_PARTITION_COUNT_FIRST_MIN_ITEMS_NARROW
#define GP_PARTITION_COUNT_FIRST_MIN_ITEMS_NARROW (1ll << 24)
#endif
/* A persistent partition by comparison of 4- or 8-byte items, at least
 * this many bytes of them (1- and 2-byte: this many items, _NARROW), is
 * counted first too, by gp_count_if's kernel (count_kernel): the
 * partition's kernel then reads the input a second time, as its count
 * phase would have, but no write waits on a count phase. So is one of 4-
 * or 8-byte items over half the L2 and within it, whose second read then
 * finds much of the input still there. H100 (L2 50 MiB), bench
 * partition-if, us, counted first against inside (docs/perf/scan.md,
 * rounds 29 and 44): int32 2^26 292 / 303, 2^28 1114 / 1182; int64 2^26
 * 555 / 566, 2^28 2178 / 2244; flushed (round 44), int32 at 24 / 32 / 40 /
 * 48 / 64 / 128 MiB 27.7 / 40.6 / 50.2 / 58.5 / 75.4 / 142.6 against 27.5 /
 * 43.7 / 53.3 / 59.5 / 72.4 / 143.7, int64 at 24 / 32 / 40 / 48 / 64 /
 * 128 / 256 MiB 26.5 / 39.2 / 48.1 / 58.0 / 74.7 / 141.6 / 276.0 against
 * 26.4 / 41.8 / 50.4 / 60.1 / 71.0 / 141.7 / 280.5; u8 2^22 15.8 / 15.8,
 * 2^24 43.8 / 50.7, 2^26 134 / 149, 2^28 473 / 541; u16 (round 30): 2^22
 * 25.3 / 18.8, 2^23 38.4 / 40.2, 2^24 60.1 / 63.4, 2^25 101.8 / 108.1. */
#ifndef GP_PARTITION_IF_COUNT_FIRST_MIN_BYTES
#define GP_PARTITION_IF_COUNT_FIRST_MIN_BYTES (256ll << 20)
#endif
#ifndef GP_PARTITION_IF_COUNT_FIRST_MIN_ITEMS_NARROW
#define GP_PARTITION_IF_COUNT_FIRST_MIN_ITEMS_NARROW (1ll << 23)
#endif
/* Without GP_PARTITION_PREFIXED (below), which takes every 1-byte partition
 * counted first with bits:
 * 1: partitions of 1-byte items counted first take the wider tiles where
 * selections would (64 items a thread, held packed); 0: wide at most. By
 * comparison they run the Bits kernels (GP_PARTITION_IF_BITS), so a wider
 * kernel that compares exists only where that is 0.
 * Those kernels have no count tasks, so only partitions counted first run
 * them. H100, bench partition-if, us, wider against wide (docs/perf/scan.md,
 * round 50): u8 2^25 61.8 -> 58.0, 2^26 113.3 -> 104.4, 2^28 420.2 ->
 * 378.2; i8 2^26 110.3 -> 98.5, 2^28 406.4 -> 354.1; 2^22-2^24 alike (wide
 * tiles there). */
#ifndef GP_PARTITION_WIDER
#define GP_PARTITION_WIDER 1
#endif
/* 1: a partition into two buffers (gp_partition_copy_if) of 1-byte items
 * takes the wider partition kernel that compares, where a selection would
 * take wider tiles; 0: wide at most. It needs no count, so the kernel
 * exists for it whatever GP_PARTITION_IF_BITS says. */
#ifndef GP_PARTITION_COPY_WIDER
#define GP_PARTITION_COPY_WIDER 1
#endif
/* 1: so does one by flags (gp_partition_copy_flagged), its flags in the
 * wider selection's slots (GP_SELECT_FLAG_SLOTS): no count, so no bits;
 * 0: wide at most. The kernel is built wherever GP_PARTITION_COPY_WIDER
 * is; GPUPRIM_PARTITION_COPY_WIDER=0 or 1 overrides this. H200, u8 about
 * half kept: 2^26 78.75 -> 66.75 us, 2^28 293.38 -> 237.68 (65.0% -> 79.4%
 * of the copy, 2.31x -> 2.86x CUB); 2^20-2^24 within 4% either way
 * (docs/perf/scan.md, rounds 89-90). */
#ifndef GP_PARTITION_COPY_WIDER_FLAGS
#define GP_PARTITION_COPY_WIDER_FLAGS 1
#endif
/* 1: a partition of 1-byte items by comparison, counted first, takes its
 * count and a bit an item from compare_bits_kernel and then runs the
 * kernels of a partition by flags (no comparison in the partition's
 * kernel; then partition_prefixed_kernel, GP_PARTITION_PREFIXED); 0:
 * gp_count_if's kernel counts, and the partition compares.
 * H100, bench partition-if, us, 1 against 0 (docs/perf/scan.md, round
 * 51): u8 2^24 36.9 -> 34.9, 2^25 58.3 -> 56.3, 2^26 104.8 -> 100.2, 2^28
 * 380.0 -> 366.9; i8 2^26 99.4 -> 93.2, 2^28 354.4 -> 342.8; 2^22-2^23
 * alike. Taking tiles by ticket after it (GP_COUNT_FIRST_OVERLAP) lost 4-7%
 * at 2^24 and gained 1% at 2^26 (H200), so it does not. */
#ifndef GP_PARTITION_IF_BITS
#define GP_PARTITION_IF_BITS 1
#endif
/* 1: a 1-byte partition counted first (flags, or a comparison through
 * GP_PARTITION_IF_BITS) has its bit kernel count ranges of consecutive
 * wider tiles and leave the count before each, and then runs
 * partition_prefixed_kernel (cuda_partition_prefixed.cuh): no look-back,
 * so no tile waits parked in shared memory for its offset, and the stages
 * that frees keep more tiles landing. 0: the Bits kernels with look-back
 * warps, on the tier their tiles take. H100, us, 0 against 1
 * (docs/perf/scan.md, round 55): partition u8 2^25 50.4 -> 44.6, 2^26
 * 89.3 -> 80.3, 2^28 343 -> 322; partition-if u8 2^25 51.4 -> 42.6, 2^26
 * 93.3 -> 80.7, 2^28 343 -> 324. At every size, not only where the wider
 * tier pays a look-back kernel, and over one pass (round 57): partition
 * u8 2^23 19.5 -> 17.5 (one pass before), 2^24 33.9 -> 25.9 (wide tiles);
 * partition-if u8 18.8 -> 17.0, 34.9 -> 24.6. */
#ifndef GP_PARTITION_PREFIXED
#define GP_PARTITION_PREFIXED 1
#endif
/* 1: partition_prefixed_kernel is launched to start as the bit kernel's
 * blocks leave (launch_after_prior), and waits for it before it reads
 * anything; 0: in stream order. H100, us, 0 against 1: partition u8 2^25
 * 47.6 -> 44.6, 2^26 83.9 -> 80.3, 2^28 326.0 -> 321.7. */
#ifndef GP_PARTITION_PREFIXED_OVERLAP
#define GP_PARTITION_PREFIXED_OVERLAP 1
#endif
/* partition_prefixed_kernel's stages a block (tiles landing while one is
 * ranked), beside one buffer for the compacted runs: 2 leaves room for 4
 * blocks an SM. 3 (3 blocks) was 3-5% slower at 2^25-2^26 in a first form
 * of the kernel, and 3-22% slower for every item size again at d0273da
 * (H200; docs/perf/scan.md, round 65). */
#ifndef GP_PARTITION_PREFIXED_STAGES
#define GP_PARTITION_PREFIXED_STAGES 2
#endif
/* 1: partitions by flags of 4- and 8-byte items counted first, not in
 * one pass and of at most GP_PARTITION_PREFIXED_WIDE_MAX_BYTES, run
 * partition_prefixed_kernel too, on narrow tiles (16 KiB) in ranges of
 * the 1-byte kernel's tiles, so without look-back; 0: the Bits kernels,
 * which look back. H200, bench partition, us, Bits kernels against
 * prefixed (docs/perf/scan.md, round 64): int32 2^23 31.6-31.7 / 25.2-25.4,
 * 2^24 49.3-49.6 / 44.4-44.9, 2^26 168.4-168.8 / 168.4-168.6, 2^28 636 /
 * 665-666; int64 2^23 46.0 / 41.4-42.1, 2^24 82.5-82.8 / 81.3-82.0, 2^26
 * 303-304 / 315, 2^28 1178 / 1235-1239. Large ones keep the Bits kernels
 * (why they win there is open: not bytes in flight, as 3 stages of the
 * prefixed kernel lost too, round 65; ranges far apart explain a third to
 * a half, and 4 or 16 times as many smaller ranges lost below 128 MiB,
 * round 66). */
#ifndef GP_PARTITION_PREFIXED_WIDE
#define GP_PARTITION_PREFIXED_WIDE 1
#endif
#ifndef GP_PARTITION_PREFIXED_WIDE_MAX_BYTES
#define GP_PARTITION_PREFIXED_WIDE_MAX_BYTES (128ll << 20)
#endif
/* 1: partitions by comparison of 4- and 8-byte items too, from
 * GP_PARTITION_COUNT_FIRST_MIN_BYTES to GP_PARTITION_PREFIXED_WIDE_MAX_BYTES
 * and not in one pass: compare_bits_kernel counts them and leaves bits (a
 * warp reads 32 words together), and partition_prefixed_kernel writes
 * them; 0: gp_count_if's kernel counts (where counted first at all) and
 * the look-back kernels compare again. H200, bench partition-if, us, 1
 * against 0 (docs/perf/scan.md, round 65): i32 2^23 35.8 -> 27.4, 2^24
 * 58.7 -> 56.5, 2^25 115.0 -> 110.8; i64 2^23 57.0 -> 54.9, 2^24 111.6 ->
 * 108.0, 2^22 34.3 -> 34.7. Past 128 MiB it lost 5-7% (i32 2^26 to 2^28,
 * i64 2^25 to 2^28). */
#ifndef GP_PARTITION_IF_PREFIXED_WIDE
#define GP_PARTITION_IF_PREFIXED_WIDE 1
#endif
/* Partitions by comparison into partition_prefixed_kernel read their
 * items twice: for 4- and 8-byte items compare_bits_kernel walks each
 * range from its end down, a block's step of this many bytes at a time
 * (whole block strides: reread_step_words), so that the words it reads
 * last, left in L2, are the first the prefixed kernel reads (0: each
 * range in order). The two walks mirror each other, so L2 serves the
 * reread for as much of it as it still holds. H200, bench partition-if,
 * us, round 66's form (each range's first words read last, in order) /
 * steps of 32, 64, 128 KiB, not capped at two strides (round 67's
 * second A/B, three rounds): i32 2^24 54.0-54.2 / 54.6-55.2 / 53.8-54.6
 * / 57.1-57.4, 2^25 109.6-111.2 / 108.8-109.4 / 108.7-109.3 /
 * 110.8-111.7; i64 2^24 107.8-108.4 / 105.2-106.1 / 105.6-106.5 /
 * 108.5-108.9. ncu (round 68): the prefixed kernel reads 26 MB less
 * from DRAM at int32 2^24 and 2^25. 1-byte items keep the order: in
 * round 68's A/Bs the walk down (16 KiB steps) read 3-4% slower at u8
 * 2^23 to 2^25, 1% faster at 2^26. Loading the words read last at L2's
 * evict-last priority cost 1-4% at int32 2^25 and int64 2^24 (round 69). */
#ifndef GP_PARTITION_IF_REREAD_STEP_BYTES
#define GP_PARTITION_IF_REREAD_STEP_BYTES (64 << 10)
#endif

/* A persistent partition by flags of 1-byte items, at least this many of
 * them, is counted first (flag_bits_kernel, then partition_prefixed_kernel;
 * without GP_PARTITION_PREFIXED the Bits kernels); 0: never. H100, bench
 * partition u8, us, counted first against one pass or the count tasks
 * inside (round 57, prefixed): 2^21 13.7 / 10.7, 2^22 14.9 / 15.2, 2^23
 * 17.5 / 19.5; with the Bits kernels (round 50): 2^23 19.3 / 19.5, 2^24
 * 33.5 / 35.0, 2^25 52.3 / 58.1, 2^26 92.4 / 107.1, 2^28 341.7 / 389.5 (i8
 * alike). */
#ifndef GP_PARTITION_COUNT_FIRST_MIN_ITEMS_BYTE
#define GP_PARTITION_COUNT_FIRST_MIN_ITEMS_BYTE (1ll << 23)
#endif

/* 1024 threads per SM (64 registers), 8-byte items too since they take 8
 * a thread (16 KiB tiles; with 16 they needed 768 threads, 80 registers).
 * A wider look-back holds M tags beside the tile: at M = 4, 1-byte
 * comparisons spilled 24 bytes at 64 and 8-byte items (16 a thread) 4-44
 * at 80 (ptxas), so 768 (80) and 512 (128) there. The filter's kernels
 * spill 4-8 bytes at 64 (ptxas, sm_90: filter_kernel<double>, <long>,
 * <int, descending>). */
__host__ __device__ constexpr int select_threads_per_sm(int item_bytes)
{
    return item_bytes == 8 ? (kLookbackTagsPerLane > 1 ? 512 : 1024)
                           : item_bytes == 1 && kLookbackTagsPerLane > 1 ? 768 : 1024;
}
__host__ __device__ constexpr int select_blocks_per_sm(int item_bytes)
{
    return select_threads_per_sm(item_bytes) / kSelectThreads > 0 ? select_threads_per_sm(item_bytes) / kSelectThreads : 1;
}
/* The filter holds keys and running maxima: 16 8-byte keys a thread
 * spilled 8 bytes at 80 registers (ptxas, filter_kernel<double>); 8 a
 * thread fit 64, as the selection's. */
__host__ __device__ constexpr int filter_blocks_per_sm(int item_bytes) { return select_blocks_per_sm(item_bytes); }
/* Chunks where the filter's records are dense (filter_kernel's sample:
 * 1 in kFilterDenseShare of the sampled keys is a record). H100, 2^28,
 * mostly ascending data (docs/perf/scan.md, round 10): chunks that fill
 * the record buffer without overflowing it were fastest, 8 tiles for i32,
 * i64 and f64 (~40% kept: 750, 1503, 1731 us against 989, 2070, 2349 with
 * one chunk a block) and 4 for f32 (up to 77% kept: 919 against 1120);
 * past the buffer, chunks of 6 to 12 tiles lost 20-60%. So the chunk is
 * what the buffer holds at the sample's densest rate, within these bounds.
 * Random data keeps one chunk a block (354 against 576 us in chunks of 4). */
constexpr unsigned kFilterDenseShare = 8;
constexpr unsigned kFilterDenseMinTiles = 2;
constexpr unsigned kFilterDenseMaxTiles = 8;
/* The filter's record buffer (dynamic shared memory): 54 KiB lets 4
 * blocks share an SM's 228 KiB, and holds 84% of a dense chunk's keys
 * (f32 mostly ascending data past 2^24 keeps up to 77%: ties at float
 * precision count as records). It also stages a tile's survivors. */
constexpr int kFilterRecordBytes = 54 << 10;
static_assert(kFilterRecordBytes >= kSelectTileBytes, "a tile's survivors fit");

/* 1: a histogram of several blocks that does not accumulate is cleared by
 * the block that arrives first, in the launch (cuda_histogram.cu,
 * clear_hist); 0: by a cudaMemsetAsync before it, one more operation on
 * the stream. H100, against 0 in the same build: f32 1024 bins 2^16 19.1
 * -> 17.0 us, 2^22 25.7 -> 23.2, 2^26 121.7 -> 119.5; u8 256 bins 2^16
 * 8.45 -> 8.22, 2^24 16.47 -> 16.9 (docs/perf/histogram.md). */
#ifndef GP_HIST_CLEAR_FIRST
#define GP_HIST_CLEAR_FIRST 1
#endif

} // namespace gp_cuda

#endif
