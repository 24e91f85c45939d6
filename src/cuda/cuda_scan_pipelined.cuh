/*
 * The persistent scan with look-back warps (included by cuda_scan.cu, after
 * scan_params and scan_kernel).
 *
 * Why. Measured on the H100 at 2^28 int32 (docs/perf/scan.md, round 3): a
 * look-back takes ~13,500 cycles under full memory traffic (2.8 windows and
 * 3.3 waits for predecessors, each an L2 round trip of ~1.2 us), and the
 * staged scan_kernel holds its tile for all of it: 4 tiles of 16 KiB per SM
 * in flight, 9.2 us each, is 2.1 TB/s, however the tile is loaded. The scan
 * itself, look-back removed, ran at 2.8 TB/s. So here a tile waits for its
 * prefix parked in shared memory, with K look-backs in flight per block:
 *
 *   scan warps (kScanThreads)              look-back warp k (of K)
 *   use u: stage -> local scan             uses u = k mod K:
 *     total(u) -> shared, publish its        wait total(u); look back,
 *       aggregate, arrive  ------------->    publish the inclusive prefix;
 *     park the local scan in its stage       prefix(u) -> shared, arrive
 *     finish use u - K: wait prefix,  <---
 *       add, store
 *   refill the stage of use u - 1 - K (every scan warp finished it before
 *   this use's barrier) with use u - 1 - K + kStages
 *
 * Parking writes the tile-local scan over the tile's own input (each thread
 * its own 16-byte vectors), so outputs must be the inputs' size. For
 * wrapping integer ops the parked value is the local scan in the output's
 * width: prefix op (local mod 2^k) = (prefix op local) mod 2^k for sums,
 * products and bitwise ops alike.
 *
 * The default for the scans it covers (GPUPRIM_LOOKBACK_WARPS=0: the
 * staged scan_kernel). H100, int32 inclusive sum: 2457 GB/s at 2^28 and
 * 2495 at 2^30 (82% of the copy, 1.01x CUB), against 2087 and 2070 for
 * the staged kernel. Racecheck once reported hazards between the look-back
 * warp's write of prefix_of and the scan warps' earlier read of the slot,
 * ordered only through the scan warps' named barrier and then one thread's
 * arrival on `totalled`, a chain it does not follow: every scan thread now
 * arrives itself.
 *
 * The aggregate goes out as soon as the total is known (GP_EARLY_AGGREGATE):
 * published by the look-back warp, it waited for that warp's previous
 * look-back, and every later tile's look-back waited with it (round 14 of
 * docs/perf/scan.md: 82% -> 88% of the copy). Two threads now write the
 * tile's status, the aggregate first: thread 0's store comes before its
 * arrival on `totalled` (release), the look-back warp's after its wait
 * (acquire), so the inclusive one is the later write of the word.
 *
 * Wide tiles: 4- and 8-byte inputs of at least kWideMinTilesPerBlock 32
 * KiB tiles a block run with one look-back warp (cuda_tuning.h; round 15
 * of docs/perf/scan.md: 88 -> 92-93% of the copy for int32 at 2^28), and
 * so do 1- and 2-byte scans kept packed (cuda_scan_bytes.cuh).
 *
 * Wide tiles leave by bulk stores (GP_SCAN_BULK_STORES): a warp writes its
 * segment's results back over its parked scan, and one lane hands the
 * segment to the copy engine; the stage is refilled only once every such
 * store has read it (stores_read before the barrier that precedes the
 * refill). H200: 0.7-2% faster from 2^26 (docs/perf/scan.md, round 63).
 *
 * Progress, as scan_kernel's persistent grid: every block is resident and
 * takes its tiles in order. The smallest unpublished tile m: its block's
 * scan warps reach it (they wait only for copies and for prefixes of
 * smaller, published tiles), and its look-back warp reaches it (its
 * earlier uses are smaller tiles), then finds every predecessor published.
 */
#ifndef GP_CUDA_SCAN_PIPELINED_CUH
#define GP_CUDA_SCAN_PIPELINED_CUH

#include "cuda_scan_bytes.cuh"
#include "cuda_timeline.cuh"

namespace gp_cuda {
namespace {

/* A pipelined scan's shape: K look-back warps, K + 1 + kLead stages (K
 * parked, one scanned, kLead landing; kLead is 1 but for a measurement
 * build, GP_SCAN_WIDE_LEAD) of one tile each. Narrow: scan_kernel's tiles
 * (at most 16 KiB), GP_SCAN_LOOKBACK_WARPS, 3 blocks an SM. Wide (4- and
 * 8-byte inputs and packed 1-byte scans, cuda_tuning.h): 32 KiB tiles, one
 * look-back warp, 2 blocks an SM. */
template <class In, class A, bool Wide>
struct pipe_shape {
    static constexpr int kItems = Wide ? scan_wide_items(sizeof(In)) : scan_items(sizeof(In), sizeof(A));
    static constexpr int64_t kTile = (int64_t)kScanThreads * kItems;
    static constexpr unsigned kTileBytes = (unsigned)kTile * sizeof(In);
    static constexpr int K = Wide ? GP_SCAN_WIDE_LOOKBACK_WARPS : GP_SCAN_LOOKBACK_WARPS;
    static constexpr unsigned kLead = Wide ? GP_SCAN_WIDE_LEAD : 1; /* uses landing ahead of the one scanned */
    static constexpr int kStages = K + 1 + (int)kLead;
    /* Uses staged at once at the start (cuda_tuning.h), at least kLead:
     * stage::refill stages use u + kLead at use u. */
    static constexpr unsigned kPrimeWanted = GP_SCAN_PRIME_USES > kLead ? GP_SCAN_PRIME_USES : kLead;
    static constexpr unsigned kPrimed = kPrimeWanted < (unsigned)kStages ? kPrimeWanted : kStages;
    static constexpr int kThreads = kScanThreads + K * kWarp;
    static constexpr size_t kSharedBytes = (size_t)kStages * kTileBytes; /* dynamic */
    /* The 1-byte min and max (32 one-byte accumulators a thread) spilled 8
     * bytes at 3 blocks (64 registers): 2. Packed (cuda_scan_bytes.cuh) they
     * take 54 registers, and 3 blocks ran as 2 (docs/perf/scan.md round 48).
     * Wide: 96 registers. */
    static constexpr int kBlocks = Wide ? GP_SCAN_WIDE_BLOCKS : sizeof(In) == 1 && sizeof(A) == 1 ? 2 : 3;
};
/* Which scans take it: outputs the inputs' size, narrow tiles of at most
 * 16 KiB; wide tiles for 4- and 8-byte inputs and packed 1-byte scans (a
 * thread's 128 bytes are 32 registers packed, 128 unpacked). */
template <class In, class A, class S>
constexpr bool pipelined_scan = sizeof(S) == sizeof(In) && pipe_shape<In, A, false>::kTileBytes <= 16384;
template <class In, class A, class S, class Op>
constexpr bool wide_scan = pipelined_scan<In, A, S> && (sizeof(In) >= 4 || bytes::packed_scan<In, S, Op>);

struct sync_scan_warps {
    __device__ void operator()() const { stage::sync_threads<kScanThreads>(); }
};

/* Stores a tile-local result over the thread's own vectors of a staged segment. */
template <class In, class A, class S, int Items>
__device__ __forceinline__ void park_rows(In *seg, const A (&y)[tile::rows<In, Items>::R][tile::rows<In, Items>::V])
{
    using L = tile::rows<In, Items>;
    const int lane = threadIdx.x % kWarp;
#pragma unroll
    for (int r = 0; r < L::R; r++) {
        tile::vec16<S> v;
#pragma unroll
        for (int e = 0; e < L::V; e++) v.e[e] = static_cast<S>(y[r][e]);
        *reinterpret_cast<uint4 *>(seg + L::index(r, lane, 0)) = v.u;
    }
}

template <class In, class A, class S, int Items>
__device__ __forceinline__ void unpark_rows(const In *seg, A (&y)[tile::rows<In, Items>::R][tile::rows<In, Items>::V])
{
    using L = tile::rows<In, Items>;
    const int lane = threadIdx.x % kWarp;
#pragma unroll
    for (int r = 0; r < L::R; r++) {
        tile::vec16<S> v;
        v.u = *reinterpret_cast<const uint4 *>(seg + L::index(r, lane, 0));
#pragma unroll
        for (int e = 0; e < L::V; e++) y[r][e] = static_cast<A>(v.e[e]);
    }
}

template <class In, class Conv, class A, class S, class Op, bool Wide>
__global__ void __launch_bounds__(pipe_shape<In, A, Wide>::kThreads, pipe_shape<In, A, Wide>::kBlocks)
    scan_kernel_pipelined(const __grid_constant__ scan_params p)
{
    using shape = pipe_shape<In, A, Wide>;
    constexpr int Items = shape::kItems;
    using L = tile::rows<In, Items>;
    static_assert(pipelined_scan<In, A, S>, "parks the local scan over the input");
    static_assert(shape::kStages == shape::K + 1 + (int)shape::kLead, "stage::refill stages use u + kLead at use u");
    constexpr int64_t kTile = shape::kTile;
    constexpr unsigned kTileBytes = shape::kTileBytes;
    constexpr int kStages = shape::kStages;
    constexpr int kLookbackWarps = shape::K;
    constexpr unsigned kPrimed = shape::kPrimed;
    constexpr bool kPacked = bytes::packed_kernel<In, S, Op, Wide>;
    constexpr bool kBulkStores = Wide && GP_SCAN_BULK_STORES;
    __shared__ unsigned ticket_words[2];
    __shared__ A warp_totals[2][kScanWarps]; /* by use parity: no barrier between a read and the next write */
    __shared__ A total_of[kStages], prefix_of[kStages];
    /* Per stage: the copy landed; total_of holds the tile's total (every scan
     * thread arrives); prefix_of its prefix (one look-back lane arrives). */
    __shared__ uint64_t full[kStages], totalled[kStages], prefixed[kStages];
    GP_DYNAMIC_SHARED(stages); /* kStages x kTileBytes */

    const In *in = static_cast<const In *>(p.in);
    if (threadIdx.x == 0) GP_TL_BLOCK(entry);
    auto tile_of = [&](unsigned use) { return (unsigned long long)p.grid * use; }; /* + t.index */
    auto whole = [&p](unsigned long long tile) { return ((int64_t)tile + 1) * kTile <= p.n; };
    if (threadIdx.x == 0) {
        for (int s = 0; s < kStages; s++) {
            stage::barrier_init(&full[s]);
            stage::barrier_init(&totalled[s], kScanThreads);
            stage::barrier_init(&prefixed[s]);
        }
        stage::fence_init();
    }
    /* The ticket is an L2 round trip before the first stage is fetched:
     * meanwhile L2 fetches the tile this block would take with tickets in
     * block order (whichever block takes it finds it there). */
    if (GP_PREFETCH_FIRST_TILE && threadIdx.x == 0 && whole(stage::launch_index()))
        stage::prefetch_l2(in + (int64_t)stage::launch_index() * kTile, kTileBytes);
    const lookback::ticket t = lookback::take_ticket(p.arena, p.grid, p.tiles, ticket_words); /* a barrier inside */
    if (threadIdx.x == 0) GP_TL_BLOCK(ticketed);
    /* Use v's tile, copied where it is whole (only whole tiles wait). */
    auto stage_use = [&](unsigned v) {
        const unsigned long long tile = t.index + tile_of(v);
        const int s = (int)(v % kStages);
        GP_TL_TILE(fetch, tile);
        if (whole(tile)) /* implies tile < p.tiles */
            stage::fetch(stages + s * kTileBytes, in + (int64_t)tile * kTile, kTileBytes, &full[s]);
    };
    const int warp = threadIdx.x / kWarp, lane = threadIdx.x % kWarp;
    const A start = p.exclusive ? tile::from_low_bits<A>(p.init_bits) : Op::template identity<A>();

    if (warp >= kScanWarps) { /* ---------------------------- a look-back warp */
        const lookback::arena &ar = p.arena;
        for (unsigned use = warp - kScanWarps;; use += kLookbackWarps) {
            const unsigned long long tile = t.index + tile_of(use);
            if (tile >= p.tiles) break;
            const int s = (int)(use % kStages);
            stage::wait(&totalled[s], (use / kStages) & 1u);
            const A total = total_of[s];
            A prefix = start;
            if (tile != 0) {
                if (!GP_EARLY_AGGREGATE && lane == 0) publish_value(ar, tile, t.epoch, lookback::kAggregate, total);
                prefix = prefix_before<Op, A>(ar, tile, t.epoch);
            }
            if (lane == 0) {
                publish_value(ar, tile, t.epoch, lookback::kInclusive, Op::apply(prefix, total));
                GP_TL_TILE(prefix, tile);
                prefix_of[s] = prefix;
                stage::arrive(&prefixed[s]);
            }
        }
        return;
    }

    /* ------------------------------------------------------- the scan warps */
    if (threadIdx.x == 0) stage::prime(kPrimed, stage_use);
    /* Adds use u's prefix to its parked local scan and stores it. */
    auto finish = [&](unsigned u) {
        const int s = (int)(u % kStages);
        stage::wait(&prefixed[s], (u / kStages) & 1u);
        if (threadIdx.x == 0) GP_TL_TILE(finish_start, t.index + tile_of(u));
        const A prefix = prefix_of[s];
        const int64_t seg_base = (int64_t)(t.index + tile_of(u)) * kTile + (int64_t)warp * L::kWarpItems;
        In *seg = reinterpret_cast<In *>(stages + s * kTileBytes) + warp * L::kWarpItems;
        S *out = static_cast<S *>(p.out) + seg_base;
        /* A whole, aligned warp segment goes out from the stage by one bulk
         * store: its results are written back over the parked scan first. */
        const bool whole_aligned = p.aligned && p.n - seg_base >= L::kWarpItems;
        const bool bulk = kBulkStores && whole_aligned;
        auto store_segment = [&] {
            stage::store_fence();
            __syncwarp();
            if (lane == 0) stage::store(out, seg, (unsigned)(L::kWarpItems * sizeof(S)));
        };
        if constexpr (kPacked) {
            uint4 v[L::R];
#pragma unroll
            for (int r = 0; r < L::R; r++) {
                v[r] = *reinterpret_cast<const uint4 *>(seg + L::index(r, lane, 0));
                bytes::apply_row<Op, In>(static_cast<uint32_t>(prefix), v[r]);
            }
            if (bulk) {
#pragma unroll
                for (int r = 0; r < L::R; r++) *reinterpret_cast<uint4 *>(seg + L::index(r, lane, 0)) = v[r];
                store_segment();
            } else if (whole_aligned) {
#pragma unroll
                for (int r = 0; r < L::R; r++) tile::store16(out + L::index(r, lane, 0), v[r]);
            } else {
                bytes::store_rows_partial(reinterpret_cast<In *>(out), p.n - seg_base, v);
            }
        } else {
            A y[L::R][L::V];
            unpark_rows<In, A, S, Items>(seg, y);
#pragma unroll
            for (int r = 0; r < L::R; r++)
#pragma unroll
                for (int e = 0; e < L::V; e++) y[r][e] = Op::apply(prefix, y[r][e]);
            if (bulk) {
                park_rows<In, A, S, Items>(seg, y);
                store_segment();
            } else {
                tile::store_rows<In, A, S, Items>(out, p.n - seg_base, p.aligned, y);
            }
        }
        if (threadIdx.x == 0) GP_TL_TILE(finish_end, t.index + tile_of(u));
    };

    unsigned use = 0;
    for (;; use++) {
        const unsigned long long tile = t.index + tile_of(use);
        if (tile >= p.tiles) break;
        const int s = (int)(use % kStages);
        const int64_t seg_base = (int64_t)tile * kTile + (int64_t)warp * L::kWarpItems;
        In *seg = reinterpret_cast<In *>(stages + s * kTileBytes) + warp * L::kWarpItems;
        /* The items: unpacked, or (kPacked) as the rows' 16-byte vectors. */
        std::conditional_t<kPacked, uint4[L::R], A[L::R][L::V]> x;
        if (whole(tile)) {
            stage::wait(&full[s], (use / kStages) & 1u);
            if (threadIdx.x == 0) GP_TL_TILE(full, tile);
            if constexpr (kPacked) {
#pragma unroll
                for (int r = 0; r < L::R; r++) x[r] = *reinterpret_cast<const uint4 *>(seg + L::index(r, lane, 0));
            } else {
                tile::load_rows_shared<In, Conv, A, Items>(seg, x);
            }
        } else if constexpr (kPacked) {
            bytes::load_rows_partial<Op, In>(in + seg_base, p.n - seg_base, x);
        } else {
            tile::load_rows<In, Conv, A, Items>(in + seg_base, p.n - seg_base, p.aligned, Op::template identity<A>(),
                                                x);
        }
        A lane_prefix[L::R];
        A warp_total;
        if constexpr (kPacked) warp_total = bytes::warp_scan_rows<Op, In>(x, lane_prefix);
        else warp_total = tile::warp_scan_rows<Op>(x, lane_prefix);
        A warp_prefix, tile_total;
        /* The barrier in block_combine comes before thread 0 refills the
         * stage last finished: its bulk stores must have read it. */
        if (kBulkStores && lane == 0) stage::stores_read();
        tile::block_combine<Op, A, kScanWarps>(warp_total, warp_totals[use & 1], warp_prefix, tile_total,
                                               sync_scan_warps{});
        /* Every scan thread arrives, not one for all: its reads of this
         * stage's prefix_of (use - kStages) then happen before the look-back
         * warp's next write there by the barrier alone, which
         * compute-sanitizer racecheck can follow. */
        if (threadIdx.x == 0) {
            GP_TL_TILE(total, tile);
            total_of[s] = tile_total;
            if (GP_EARLY_AGGREGATE && tile != 0) publish_value(p.arena, tile, t.epoch, lookback::kAggregate, tile_total);
        }
        stage::arrive(&totalled[s]);
        /* Every scan warp finished use - 1 - K before this barrier. */
        if (threadIdx.x == 0) stage::refill<shape::kLead>(use, kPrimed, stage_use);
        /* The tile-local scan, parked over its input. */
        if constexpr (kPacked) {
            bytes::finish_rows<Op, In>(warp_prefix, lane_prefix, p.exclusive, x);
#pragma unroll
            for (int r = 0; r < L::R; r++) *reinterpret_cast<uint4 *>(seg + L::index(r, lane, 0)) = x[r];
        } else {
            finish_rows<Op>(warp_prefix, lane_prefix, p.exclusive, x);
            park_rows<In, A, S, Items>(seg, x);
        }
        if (use >= kLookbackWarps) finish(use - kLookbackWarps);
    }
    for (unsigned u = use > kLookbackWarps ? use - kLookbackWarps : 0; u < use; u++) finish(u);
    if (kBulkStores && lane == 0) stage::stores_done(); /* the stages outlive no store */
    if (threadIdx.x == 0) GP_TL_BLOCK(exit_);
}

} // namespace
} // namespace gp_cuda

#endif
