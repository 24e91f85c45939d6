/*
 * The small filter: inputs of 2 to 16 tiles as one thread-block cluster,
 * a tile a block (included by cuda_select.cu, after filter_kernel).
 *
 * Why. Past one tile the chunked filter_kernel takes a ticket and runs two
 * look-backs (the maximum before the chunk, then the survivors before it),
 * each a few L2 round trips: on the H100 2^14 int32 (4 tiles) took 9.7 us
 * against 5.7 for one tile (docs/perf/scan.md, round 12). In a cluster every
 * block is running and knows its rank, so the two prefixes travel between
 * the blocks' shared memory instead (cuda_cluster.cuh):
 *
 *   block r: its tile's records (keys >= every earlier key of the tile)
 *   and maximum                                      (record_tile::run)
 *   send the maximum to ranks r+1 ...; M = the maximum of ranks 0 .. r-1
 *   kept = its records >= M, a suffix of the record list (records never
 *   decrease), so a record's rank among the kept is its rank minus the
 *   records below M
 *   send kept to ranks r+1 ...; before = the kept of ranks 0 .. r-1
 *   write the kept records at out[before ...]; the last rank writes the
 *   count
 */
#ifndef GP_CUDA_FILTER_CLUSTER_CUH
#define GP_CUDA_FILTER_CLUSTER_CUH

#ifndef GP_CUDA_EMULATE
#include "cuda_cluster.cuh"
#endif

namespace gp_cuda {
namespace {

template <class T, bool Desc>
__global__ void __launch_bounds__(kSelectThreads, 1) filter_kernel_cluster(const __grid_constant__ filter_params p)
{
#ifndef GP_CUDA_EMULATE /* no clusters in the CPU emulation: its host side never launches this */
    constexpr int Items = select_items(sizeof(T));
    using Max = tile::op_max_skip_nan;
    using Tile = record_tile<T, Desc, Items>;
    using L = typename Tile::L;
    using MaxSlot = cluster::slot_t<T>;
    __shared__ T warp_maxima[2][kSelectWarps];
    __shared__ unsigned warp_counts[2][kSelectWarps], warp_kept[kSelectWarps];
    __shared__ uint64_t max_bar, kept_bar;
    __shared__ MaxSlot max_inbox[kClusterMaxBlocks];
    __shared__ uint32_t kept_inbox[kClusterMaxBlocks];

    const unsigned rank = blockIdx.x, blocks = gridDim.x; /* the grid is one cluster */
    const int lane = threadIdx.x % kWarp;
    if (threadIdx.x == 0) {
        cluster::inbox_open(&max_bar, rank * (unsigned)sizeof(MaxSlot));
        cluster::inbox_open(&kept_bar, rank * (unsigned)sizeof(uint32_t));
    }
    cluster::arrive();

    T tile_max = tile::lowest<T>();
    Tile tl;
    tl.run(p, rank, tile_max, 0, warp_maxima, warp_counts, false);

    /* The maximum before the tile. */
    cluster::wait();
    cluster::send_later(max_inbox, &max_bar, rank, blocks, tile_max);
    T before_max = tile::lowest<T>();
    if (rank > 0) before_max = cluster::fold_earlier<Max, T>(max_inbox, &max_bar, rank, lane);

    /* The kept records: those >= before_max, the last `kept` of tl.count. */
    unsigned own = 0;
#pragma unroll
    for (int r = 0; r < L::R; r++)
#pragma unroll
        for (int e = 0; e < L::V; e++) own += (tl.mask[r] >> e & 1u) && !(tl.x[r][e] < before_max);
    unsigned warp_prefix, kept;
    tile::block_combine<tile::op_sum, unsigned, kSelectWarps>(tile::warp_all<tile::op_sum>(own), warp_kept,
                                                              warp_prefix, kept);
    (void)warp_prefix;
    const unsigned below = tl.count - kept;

    /* The survivors before the tile. */
    cluster::send_later(kept_inbox, &kept_bar, rank, blocks, kept);
    unsigned before = 0;
    if (rank > 0) before = cluster::fold_earlier<tile::op_sum, unsigned>(kept_inbox, &kept_bar, rank, lane);
    if (rank == blocks - 1 && threadIdx.x == 0) *p.count = (int64_t)(before + kept);

    T *out = static_cast<T *>(p.out) + before;
#pragma unroll
    for (int r = 0; r < L::R; r++) {
        unsigned rec = tl.warp_before + tl.row_base[r]; /* this row's first record's rank in the tile */
#pragma unroll
        for (int e = 0; e < L::V; e++)
            if (tl.mask[r] >> e & 1u) {
                if (rec >= below) out[rec - below] = to_key<T, Desc>(tl.x[r][e]); /* the key's inverse is itself */
                rec++;
            }
    }
#else
    (void)p; /* the emulated host side launches the chunked filter_kernel only */
#endif
}

} // namespace
} // namespace gp_cuda

#endif
