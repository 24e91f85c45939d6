/*
 * The select and partition kernel, a tile a block (included by
 * cuda_select.cu, after cuda_select_rows.cuh): a partition's count tasks
 * (count_group) and the tiles that write. cuda_select.cu's head comment
 * says how they share one launch.
 */
#ifndef GP_CUDA_SELECT_KERNEL_CUH
#define GP_CUDA_SELECT_KERNEL_CUH

namespace gp_cuda {
namespace {

using tile::rows;

/* A partition group's per-warp counts: [warp][tile of the group]. */
typedef unsigned group_counts[kSelectWarps][kPartitionGroup];

/*
 * Every warp of the scan (the first kSelectThreads threads): counts the
 * kept items of group g's G tiles (flags or comparisons; no item is moved)
 * into counts[warp][i], lane 0 writing. Tiles past the last have no valid
 * elements: they count 0.
 */
template <class T, bool ByFlags, int G, int Items>
__device__ __forceinline__ void count_group_tiles(const select_params &p, unsigned long long g, group_counts &counts)
{
    constexpr int64_t kTile = (int64_t)kSelectThreads * Items;
    using L = rows<T, Items>;
    const int warp = threadIdx.x / kWarp, lane = threadIdx.x % kWarp;
    if constexpr (ByFlags) {
        /* Counting needs no row layout: each lane takes Items contiguous
         * flag bytes of its warp's segment, one 8- or 16-byte load, and
         * kFlagBatch tiles' loads are in flight at once. The row layout's
         * 4-byte loads, two tiles at a time, left the count phase
         * latency-bound: partitions ran 0.78x CUB at 2^28 int32, now 1.05x
         * (docs/perf/scan.md, round 11). */
        constexpr int kFlagBatch = G % 4 == 0 ? 4 : G % 2 == 0 ? 2 : 1;
        using W = std::conditional_t<Items % 16 == 0, uint4, std::conditional_t<Items % 8 == 0, uint2, unsigned>>;
        constexpr int kWords = Items / (int)sizeof(W);
        static_assert(Items % 4 == 0, "a lane's flags are whole 4-, 8- or 16-byte loads");
        const uint8_t *base = p.flags + (int64_t)g * G * kTile + (int64_t)warp * L::kWarpItems + lane * Items;
        if ((uintptr_t)p.flags % 16 == 0 && ((int64_t)g * G + G) * kTile <= p.n) {
#pragma unroll
            for (int b = 0; b < G; b += kFlagBatch) {
                W v[kFlagBatch][kWords];
#pragma unroll
                for (int i = 0; i < kFlagBatch; i++)
#pragma unroll
                    for (int w = 0; w < kWords; w++)
                        v[i][w] = load_flags<W, false>(base + (int64_t)(b + i) * kTile + w * (int)sizeof(W));
#pragma unroll
                for (int i = 0; i < kFlagBatch; i++) {
                    unsigned own = 0;
#pragma unroll
                    for (int w = 0; w < kWords; w++) own += nonzero_bytes(v[i][w]);
                    const unsigned in_warp = tile::warp_all<tile::op_sum>(own);
                    if (lane == 0) counts[warp][b + i] = in_warp;
                }
            }
            return;
        }
    }
    /* Two tiles' loads in flight at a time: all G spilled under the register cap. */
#pragma unroll 2
    for (int i = 0; i < G; i++) {
        const int64_t seg_base = (int64_t)(g * G + i) * kTile + (int64_t)warp * L::kWarpItems;
        const int64_t valid = p.n - seg_base;
        T x[L::R][L::V];
        if constexpr (!ByFlags)
            tile::load_rows<T, T, T, Items>(static_cast<const T *>(p.in) + seg_base, valid, p.aligned, T(0), x);
        unsigned mask[L::R];
        kept_masks<T, ByFlags, Items>(p, seg_base, valid, x, mask);
        unsigned own = 0;
#pragma unroll
        for (int r = 0; r < L::R; r++) own += __popc(mask[r]);
        const unsigned in_warp = tile::warp_all<tile::op_sum>(own);
        if (lane == 0) counts[warp][i] = in_warp;
    }
}

/*
 * One warp, once counts holds group g's: publishes the group's count
 * through the look-back, leaves in value slot 0 of each of its tiles the
 * number kept before that tile (for the tile's write), and publishes the
 * group's inclusive count (the last group's is the total, also written to
 * *p.count).
 */
template <int G>
__device__ __forceinline__ void publish_group(const select_params &p, unsigned long long g, unsigned epoch,
                                              const group_counts &counts)
{
    const int lane = threadIdx.x % kWarp;
    const unsigned long long first = g * G;
    /* Lane i < G: tile first + i's count; then the group's. */
    unsigned mine = 0;
    if (lane < G) {
#pragma unroll
        for (int w = 0; w < kSelectWarps; w++) mine += counts[w][lane];
    }
    const unsigned inc = tile::warp_inclusive<tile::op_sum>(mine, lane);
    const unsigned group_kept = tile::shfl_idx(inc, kWarp - 1);
    const lookback::arena &ar = p.arena;
    unsigned long long before = 0;
    if (g != 0) {
        if (lane == 0) lookback::publish_payload(ar, g, epoch, lookback::kAggregate, group_kept);
        auto read = [](unsigned long long, unsigned long long tag, bool) { return lookback::tag_payload(tag); };
        before = lookback::look_back<tile::op_sum, unsigned long long, lookback::kAggregate, lookback::kInclusive, true>(
            ar, g, epoch, read);
    }
    /* Lane 0 writes every tile's count-before, then releases the group's
     * status: its own stores in program order, so the release covers them. */
#pragma unroll
    for (int i = 0; i < G; i++) {
        const unsigned within = tile::shfl_idx(inc - mine, i); /* kept in the group before tile first + i */
        if (lane == 0 && first + i < p.tiles) lookback::put_value(ar, first + i, 0, before + within);
    }
    if (lane == 0) {
        lookback::publish(ar, g, epoch, lookback::kInclusive, before + group_kept);
        if (g == p.groups - 1) *p.count = (int64_t)(before + group_kept);
    }
}

/*
 * A partition's count task (block-wide) for group t.index. One status per
 * group, not per tile: the look-back advances a bounded number of statuses
 * per round trip (cuda_tuning.h), and a count task moves few bytes, so
 * per-tile statuses made the count phase the partition's bottleneck.
 */
template <class T, bool ByFlags, int G>
__device__ __forceinline__ void count_group(const select_params &p, lookback::ticket t)
{
    __shared__ group_counts counts;
    count_group_tiles<T, ByFlags, G, select_items(sizeof(T))>(p, t.index, counts);
    __syncthreads();
    if (threadIdx.x / kWarp == 0) publish_group<G>(p, t.index, t.epoch, counts);
}

/*
 * T is the element type for comparisons, or the unsigned type of the
 * element's size for flags (ByFlags), which only move bytes. Partition:
 * count tasks, then write tasks that also place the rejected items.
 */
template <class T, bool ByFlags, bool Partition>
__global__ void __launch_bounds__(kSelectThreads, select_blocks_per_sm(sizeof(T)))
    select_kernel(const __grid_constant__ select_params p)
{
    constexpr int Items = select_items(sizeof(T));
    constexpr int64_t kTile = select_tile(sizeof(T));
    using L = rows<T, Items>;
    __shared__ unsigned ticket_words[2];
    __shared__ unsigned warp_counts[kSelectWarps];
    __shared__ unsigned long long shared_words[2];
    __shared__ T stage[kTile];

    const lookback::arena &ar = p.arena;
    const bool multi = p.tickets > 1;
    /* A partition into two buffers ranks and looks back as a selection. */
    const bool split = Partition && p.rejected != nullptr;
    const bool part_multi = Partition && multi && !split; /* count tasks, then write tasks */
    lookback::ticket t = {0, 0};
    if (multi) t = lookback::take_ticket(ar, p.tickets, part_multi ? p.groups : p.tiles, ticket_words);
    /* Partition: tickets [0, groups) count, the next T write. Select: each does both. */
    if (part_multi && t.index < p.groups) {
        /* Both layouts compiled with constant trip counts (a run-time
         * count measured 12% slower at 2^28); the grid takes one. */
        if (p.group == 1) count_group<T, ByFlags, 1>(p, t);
        else count_group<T, ByFlags, kPartitionGroup>(p, t);
        return;
    }
    const unsigned tile_id = part_multi ? t.index - p.groups : t.index;

    const int warp = threadIdx.x / kWarp, lane = threadIdx.x % kWarp;
    const int64_t tile_base = (int64_t)tile_id * kTile;
    const int64_t seg_base = tile_base + (int64_t)warp * L::kWarpItems;
    const int64_t valid = p.n - seg_base;

    /* Items and the kept masks. */
    held_rows<T, Items> h;
    unsigned mask[L::R];
    h.template load_global<ByFlags>(p, seg_base, valid, mask);
    unsigned row_base[L::R];
    const unsigned warp_count = tile::warp_rank_rows<L::R, L::V>(mask, row_base);
    unsigned warp_before, kept;
    tile::block_combine<tile::op_sum, unsigned, kSelectWarps>(warp_count, warp_counts, warp_before, kept);

    /* The number kept before this tile (and, for partition, in all; a
     * split's rejected run starts at 0, not after the selected ones). */
    unsigned long long before = 0, total = split ? 0 : kept;
    if (multi && (!Partition || split)) {
        if (tile_id == 0) {
            if (threadIdx.x == 0) lookback::publish_payload(ar, 0, t.epoch, lookback::kInclusive, kept);
        } else if (warp == 0) {
            if (lane == 0) lookback::publish_payload(ar, tile_id, t.epoch, lookback::kAggregate, kept);
            auto read = [](unsigned long long, unsigned long long tag, bool) { return lookback::tag_payload(tag); };
            const unsigned long long b =
                lookback::look_back<tile::op_sum, unsigned long long, lookback::kAggregate, lookback::kInclusive, true>(
                    ar, tile_id, t.epoch, read);
            if (lane == 0) {
                lookback::publish_payload(ar, tile_id, t.epoch, lookback::kInclusive, b + kept);
                shared_words[0] = b;
            }
        }
        __syncthreads();
        if (tile_id != 0) before = shared_words[0];
        if (tile_id == p.tiles - 1 && threadIdx.x == 0) *p.count = (int64_t)(before + kept);
    } else if (multi) {
        /* A partition write task: the count tasks hold earlier tickets. The
         * last group's inclusive count is the total; the tile's own group,
         * once inclusive, has left the count before the tile in its value
         * slot (written before the release, read after the acquire). */
        if (threadIdx.x == 0) {
            shared_words[0] = lookback::wait_for(ar, p.groups - 1, t.epoch, lookback::kInclusive);
            lookback::wait_for(ar, tile_id / p.group, t.epoch, lookback::kInclusive);
            shared_words[1] = lookback::get_value(ar, tile_id, 0);
        }
        __syncthreads();
        total = shared_words[0];
        before = shared_words[1];
    } else if (threadIdx.x == 0) {
        *p.count = kept; /* one tile */
    }

    /* Stage the tile in output order: kept items first, then (partition)
     * the rejected ones, each in input order. */
    const int64_t tile_valid64 = p.n - tile_base;
    const int tile_valid = tile_valid64 > kTile ? (int)kTile : (int)tile_valid64;
    if (kept == 0 && !Partition) return;
    compact_rows<T, Partition, Items>(stage, h, mask, warp_before, row_base, kept);
    __syncthreads();
    T *out = static_cast<T *>(p.out), *rejected_out = split ? static_cast<T *>(p.rejected) : out;
    const int limit = Partition ? tile_valid : (int)kept;
    const int64_t rejected_base = (int64_t)total + (tile_base - (int64_t)before);
    for (int i = threadIdx.x; i < limit; i += kSelectThreads) {
        if ((unsigned)i < kept) out[before + (unsigned)i] = stage[i];
        else rejected_out[rejected_base + (i - (int)kept)] = stage[i];
    }
}

} // namespace
} // namespace gp_cuda

#endif /* GP_CUDA_SELECT_KERNEL_CUH */
