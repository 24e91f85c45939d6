/*
 * The persistent selection with look-back warps (included by
 * cuda_select.cu, after select_kernel): cuda_scan_pipelined.cuh's structure
 * with counts for values.
 *
 * Why. select_kernel holds a tile, loaded in registers, through its whole
 * look-back: the same bound as the scan's (docs/perf/scan.md, round 3),
 * 1.2 ms at 2^28 int32 by flags against a copy floor of 0.63 ms. Here the
 * scan warps rank a tile's kept items and compact them into the tile's own
 * stage, and a look-back warp finds the number kept before the tile while
 * they go on; K uses later they write the run where it says.
 *
 *   scan warps (kSelectThreads)             look-back warp k (of K)
 *   use u: stage -> masks, ranks            uses u = k mod K:
 *     (barrier: the stage is read)            wait kept(u); publish, look
 *     compact the kept items into it          back, publish; before(u) ->
 *     kept(u) -> shared, arrive  -------->    shared, arrive
 *     finish use u - K: wait before, <----
 *       write the run
 *   refill the stage of use u - 1 - K (every scan warp finished it before
 *   this use's barrier) with use u - 1 - K + kStages
 *
 * A stage is the tile's items, then (by flags) its flags, both copied by
 * the bulk copy engine on one barrier. The compacted run written at use u
 * is read, by other scan threads, at use u + K: the scan warps' barriers of
 * the uses between (K >= 1) order the two, and one more barrier before the
 * last K finishes.
 *
 * Progress: as scan_kernel_pipelined (every block resident, tiles in order).
 */
#ifndef GP_CUDA_SELECT_PIPELINED_CUH
#define GP_CUDA_SELECT_PIPELINED_CUH

namespace gp_cuda {
namespace {

constexpr int kSelectLookbackWarps = GP_SELECT_LOOKBACK_WARPS;
constexpr int kSelectPipeStages = kSelectLookbackWarps + 2; /* K parked, one ranked, one landing */
constexpr int kSelectPipeThreads = kSelectThreads + kSelectLookbackWarps * kWarp;

/* Which selections take it: tiles of at most 16 KiB (cuda_tuning.h), so
 * stages of at most 20 KiB. */
template <class T>
constexpr bool pipelined_select = select_tile(sizeof(T)) * (long long)sizeof(T) <= 16384;

template <class T, bool ByFlags>
__host__ __device__ constexpr unsigned select_stage_bytes()
{
    return (unsigned)(select_tile(sizeof(T)) * ((long long)sizeof(T) + (ByFlags ? 1 : 0)));
}

/* Blocks an SM holds with every stage in shared memory (227 KiB an SM,
 * a little kept for the static part), at most 3 (72 registers). */
template <class T, bool ByFlags>
__host__ __device__ constexpr int pipelined_select_blocks()
{
    constexpr long long per_block = (long long)kSelectPipeStages * select_stage_bytes<T, ByFlags>();
    return (227 * 1024 - 2048) / per_block >= 3 ? 3 : (227 * 1024 - 2048) / per_block < 1 ? 1 : (int)((227 * 1024 - 2048) / per_block);
}

struct sync_select_warps {
    __device__ void operator()() const { stage::sync_threads<kSelectThreads>(); }
};

template <class T, bool ByFlags>
__global__ void __launch_bounds__(kSelectPipeThreads, pipelined_select_blocks<T, ByFlags>())
    select_kernel_pipelined(const __grid_constant__ select_params p)
{
    constexpr int Items = select_items(sizeof(T));
    constexpr int64_t kTile = select_tile(sizeof(T));
    using L = rows<T, Items>;
    constexpr int kStages = kSelectPipeStages;
    constexpr int K = kSelectLookbackWarps;
    constexpr unsigned kItemBytes = (unsigned)(kTile * sizeof(T));
    constexpr unsigned kStageBytes = select_stage_bytes<T, ByFlags>();
    __shared__ unsigned ticket_words[2];
    __shared__ unsigned warp_counts[2][kSelectWarps]; /* by use parity: no barrier between a read and the next write */
    __shared__ unsigned kept_of[kStages];
    __shared__ unsigned long long before_of[kStages];
    /* Per stage: the copies landed; kept_of holds the tile's count (every
     * scan thread arrives); before_of the count before it (one lane). */
    __shared__ uint64_t full[kStages], counted[kStages], placed[kStages];
    GP_DYNAMIC_SHARED(stages); /* kStages x kStageBytes */

    auto items_of = [&](int s) { return reinterpret_cast<T *>(stages + s * kStageBytes); };
    auto tile_of = [&](unsigned use) { return (unsigned long long)p.grid * use; }; /* + t.index */
    auto whole = [&p](unsigned long long tile) { return ((int64_t)tile + 1) * kTile <= p.n; };
    auto fetch = [&](unsigned long long tile, int s) {
        stage::expect_bytes(&full[s], kStageBytes);
        stage::copy(items_of(s), static_cast<const T *>(p.in) + (int64_t)tile * kTile, kItemBytes, &full[s]);
        if constexpr (ByFlags)
            stage::copy(stages + s * kStageBytes + kItemBytes, p.flags + (int64_t)tile * kTile, (unsigned)kTile,
                        &full[s]);
    };
    if (threadIdx.x == 0) {
        for (int s = 0; s < kStages; s++) {
            stage::barrier_init(&full[s]);
            stage::barrier_init(&counted[s], kSelectThreads);
            stage::barrier_init(&placed[s]);
        }
        stage::fence_init();
    }
    const lookback::ticket t = lookback::take_ticket(p.arena, p.grid, p.tiles, ticket_words); /* a barrier inside */
    const int warp = threadIdx.x / kWarp, lane = threadIdx.x % kWarp;

    if (warp >= kSelectWarps) { /* -------------------------- a look-back warp */
        const lookback::arena &ar = p.arena;
        for (unsigned use = warp - kSelectWarps;; use += K) {
            const unsigned long long tile = t.index + tile_of(use);
            if (tile >= p.tiles) break;
            const int s = (int)(use % kStages);
            stage::wait(&counted[s], (use / kStages) & 1u);
            const unsigned kept = kept_of[s];
            unsigned long long before = 0;
            if (tile != 0) {
                if (lane == 0) lookback::publish_payload(ar, tile, t.epoch, lookback::kAggregate, kept);
                auto read = [](unsigned long long, unsigned long long tag, bool) { return lookback::tag_payload(tag); };
                before = lookback::look_back<tile::op_sum, unsigned long long, lookback::kAggregate,
                                             lookback::kInclusive, true>(ar, tile, t.epoch, read);
            }
            if (lane == 0) {
                lookback::publish_payload(ar, tile, t.epoch, lookback::kInclusive, before + kept);
                if (tile == p.tiles - 1) *p.count = (int64_t)(before + kept);
                before_of[s] = before;
                stage::arrive(&placed[s]);
            }
        }
        return;
    }

    /* ------------------------------------------------------- the scan warps */
    if (threadIdx.x == 0)
        for (int s = 0; s < kStages; s++) {
            const unsigned long long tile = t.index + tile_of(s);
            if (tile < p.tiles && whole(tile)) fetch(tile, s);
        }
    /* Writes use u's compacted run at the count before its tile. Its
     * count is read here again: the look-back lane read kept_of[s] before
     * its arrival, and thread 0 rewrites it only after this use's wait. */
    auto finish = [&](unsigned u) {
        const int s = (int)(u % kStages);
        stage::wait(&placed[s], (u / kStages) & 1u);
        const unsigned long long before = before_of[s];
        const int kept = (int)kept_of[s];
        const T *run = items_of(s);
        T *out = static_cast<T *>(p.out) + before;
        for (int i = threadIdx.x; i < kept; i += kSelectThreads) out[i] = run[i];
    };

    unsigned use = 0;
    for (;; use++) {
        const unsigned long long tile = t.index + tile_of(use);
        if (tile >= p.tiles) break;
        const int s = (int)(use % kStages);
        const int64_t seg_base = (int64_t)tile * kTile + (int64_t)warp * L::kWarpItems;
        const int64_t valid = p.n - seg_base;
        T x[L::R][L::V];
        unsigned mask[L::R];
        if (whole(tile)) {
            stage::wait(&full[s], (use / kStages) & 1u);
            tile::load_rows_shared<T, T, T, Items>(items_of(s) + warp * L::kWarpItems, x);
            if constexpr (ByFlags) {
                const uint8_t *f = stages + s * kStageBytes + kItemBytes + warp * L::kWarpItems;
#pragma unroll
                for (int r = 0; r < L::R; r++) mask[r] = flag_mask<L::V, true>(f + L::index(r, lane, 0), true, L::V);
            } else {
                kept_masks<T, false, Items>(p, seg_base, L::kWarpItems, x, mask);
            }
        } else {
            tile::load_rows<T, T, T, Items>(static_cast<const T *>(p.in) + seg_base, valid, p.aligned, T(0), x);
            kept_masks<T, ByFlags, Items>(p, seg_base, valid, x, mask);
        }
        unsigned row_base[L::R];
        const unsigned warp_count = tile::warp_rank_rows<L::R, L::V>(mask, row_base);
        unsigned warp_before, kept;
        tile::block_combine<tile::op_sum, unsigned, kSelectWarps>(warp_count, warp_counts[use & 1], warp_before,
                                                                  kept, sync_select_warps{});
        /* Every scan thread has read stage s: compact the kept items into it. */
        T *run = items_of(s);
#pragma unroll
        for (int r = 0; r < L::R; r++) {
            unsigned rank = warp_before + row_base[r];
#pragma unroll
            for (int e = 0; e < L::V; e++)
                if (mask[r] >> e & 1u) run[rank++] = x[r][e];
        }
        /* Every scan thread arrives, so its reads of kept_of and before_of
         * for use - kStages happen before their next writes by the
         * barrier alone (racecheck follows that; cuda_scan_pipelined.cuh). */
        if (threadIdx.x == 0) kept_of[s] = kept;
        stage::arrive(&counted[s]);
        if (threadIdx.x == 0 && use >= K + 1) {
            /* Every scan warp finished use - 1 - K before this use's barrier. */
            const unsigned next = use - 1 - K + kStages;
            const unsigned long long ahead = t.index + tile_of(next);
            if (ahead < p.tiles && whole(ahead)) fetch(ahead, (int)(next % kStages));
        }
        if (use >= K) finish(use - K);
    }
    sync_select_warps{}(); /* the last runs were compacted by other threads */
    for (unsigned u = use > K ? use - K : 0; u < use; u++) finish(u);
}

} // namespace
} // namespace gp_cuda

#endif
