/*
 * The small scan: inputs of 2 to 16 blocks' worth (2^16 int32) as one
 * thread-block cluster (included by cuda_scan.cu, after scan_params and
 * finish_rows).
 *
 * Why. Up to 2^16 elements a scan's time is latency, not bandwidth: one
 * tile a block, each block takes a ticket (an L2 round trip), publishes its
 * total, looks back (one or two more) and publishes again. In a cluster
 * every block is running at once and knows its rank, so none of that is
 * needed: block r sends its total straight into the shared memory of every
 * later block (cuda_cluster.cuh) and waits for the r totals before it. The
 * reduction's cluster finish saved ~1 us the same way (docs/perf/reduce.md).
 *
 *   load the block's tile, scan it in registers, total
 *   cluster wait (every inbox set up); send total to ranks r+1 ...
 *   wait for ranks 0 .. r-1; prefix = start op their totals (each warp)
 *   store prefix op the local scan
 */
#ifndef GP_CUDA_SCAN_CLUSTER_CUH
#define GP_CUDA_SCAN_CLUSTER_CUH

#ifndef GP_CUDA_EMULATE
#include "cuda_cluster.cuh"
#endif

namespace gp_cuda {
namespace {

template <class In, class Conv, class A, class S, class Op>
__global__ void __launch_bounds__(kScanThreads, 1) scan_kernel_cluster(const __grid_constant__ scan_params p)
{
#ifndef GP_CUDA_EMULATE /* no clusters in the CPU emulation: its host side never launches this */
    constexpr int Items = scan_cluster_items(sizeof(In), sizeof(A));
    using L = tile::rows<In, Items>;
    using Slot = cluster::slot_t<A>;
    constexpr int64_t kTile = (int64_t)kScanThreads * Items;
    __shared__ A warp_totals[kScanWarps];
    __shared__ uint64_t inbox_bar;
    __shared__ Slot inbox[kClusterMaxBlocks];

    const unsigned rank = blockIdx.x; /* the grid is one cluster */
    const int warp = threadIdx.x / kWarp, lane = threadIdx.x % kWarp;
    const int64_t seg_base = (int64_t)rank * kTile + (int64_t)warp * L::kWarpItems;
    const int64_t valid = p.n - seg_base; /* <= 0 for warps past the end */
    A x[L::R][L::V];
    tile::load_rows<In, Conv, A, Items>(static_cast<const In *>(p.in) + seg_base, valid, p.aligned,
                                        Op::template identity<A>(), x);
    if (threadIdx.x == 0) cluster::inbox_open(&inbox_bar, rank * (unsigned)sizeof(Slot));
    cluster::arrive();

    A lane_prefix[L::R];
    const A warp_total = tile::warp_scan_rows<Op>(x, lane_prefix);
    A warp_prefix, tile_total;
    tile::block_combine<Op, A, kScanWarps>(warp_total, warp_totals, warp_prefix, tile_total);

    cluster::wait();
    cluster::send_later(inbox, &inbox_bar, rank, gridDim.x, tile_total);
    A prefix = p.exclusive ? tile::from_low_bits<A>(p.init_bits) : Op::template identity<A>();
    if (rank > 0) prefix = Op::apply(prefix, cluster::fold_earlier<Op, A>(inbox, &inbox_bar, rank, lane));
    finish_rows<Op>(Op::apply(prefix, warp_prefix), lane_prefix, p.exclusive, x);
    tile::store_rows<In, A, S, Items>(static_cast<S *>(p.out) + seg_base, valid, p.aligned, x);
#else
    (void)p;
#endif
}

} // namespace
} // namespace gp_cuda

#endif
