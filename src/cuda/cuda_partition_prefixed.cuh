/*
 * A partition by bits counted first, with every tile's offset known before
 * it starts (included by cuda_select.cu, after the pipelined selection):
 * 1-byte items on wider tiles (GP_PARTITION_PREFIXED), by flags or by
 * comparison; 4- and 8-byte items by flags on narrow tiles, kSub of them in
 * a wider 1-byte tile's items, the unit the bit kernel counts ranges in
 * (GP_PARTITION_PREFIXED_WIDE).
 *
 * Why. Counted first, the Bits kernel of cuda_select_pipelined.cuh (which
 * 1-byte partitions ran before this one, GP_PARTITION_PREFIXED) still
 * looks back for the kept items before each tile, and parks the tile's
 * compacted runs in its stage for K uses while that look-back runs. With
 * K + 2 stages, one tile a block is landing at any time: Nsight Compute
 * (H100, partition u8 at 2^26) found its scan warps waiting on a stage to
 * land more than on anything else, and its look-back warps spinning for
 * 12% of the instructions issued. Here the bit kernel has also left the
 * kept count before every range of tiles (flag_bits_params::before), so no tile
 * waits on another: a block ranks a tile, stages a later one into the
 * stage it just read, compacts into one run buffer and writes both runs at
 * once. Without look-back warps or parked runs, four blocks fit an SM, each
 * with GP_PARTITION_PREFIXED_STAGES tiles landing.
 *
 * Block b takes the b-th range of p.range_tiles consecutive units (b by
 * ticket), whose count before it the bit kernel left in p.before[b], and
 * adds each tile's count as it goes: no block waits on another, so the
 * grid needs no co-residency. The one partial tile loads from global
 * memory, its masks from the bits (bits past n are 0).
 */
#ifndef GP_CUDA_PARTITION_PREFIXED_CUH
#define GP_CUDA_PARTITION_PREFIXED_CUH

namespace gp_cuda {
namespace {

/* The ranges of the bit kernel are counted in 1-byte wider tiles
 * (kPrefixUnit items); 4- and 8-byte items take narrow tiles (16 KiB),
 * kSub of them a unit. */
constexpr int64_t kPrefixUnit = select_wider_tile(1);

template <class T>
struct prefixed_shape {
    static constexpr int kStages = GP_PARTITION_PREFIXED_STAGES;
    static constexpr int kItems = sizeof(T) == 1 ? select_wider_items(1) : select_items(sizeof(T));
    static constexpr int64_t kTile = (int64_t)kSelectThreads * kItems;
    static constexpr int64_t kSub = kTile > 0 ? kPrefixUnit / kTile : 0; /* tiles a unit */
    static constexpr unsigned kItemBytes = (unsigned)(kTile * sizeof(T)), kBitBytes = (unsigned)(kTile / 8);
    static constexpr unsigned kStageBytes = kItemBytes + kBitBytes;
    /* The run buffer: a tile, and up to 15 bytes before each run, which
     * starts at its destination's offset in a 16-byte vector. */
    static constexpr unsigned kRunBytes = kItemBytes + 32;
    /* The stages, then the run buffer (dynamic). */
    static constexpr size_t kSharedBytes = (size_t)kStages * kStageBytes + kRunBytes;
    static constexpr long long kFit = blocks_in_shared((long long)kSharedBytes);
    static constexpr int kBlocks = kFit < 4 ? (int)kFit : 4;
    static_assert(kItems > 0 && kStages >= 1 && kBlocks >= 1, "a tile, a stage, a block an SM");
    static_assert(kSub >= 1 && kSub * kTile == kPrefixUnit, "whole tiles a unit");
    static_assert(kStageBytes % 16 == 0, "every stage and the run buffer 16-byte aligned");
};

/*
 * Writes len bytes from byte `from` of the run buffer to dst, where from and
 * dst lie at the same offset in a 16-byte vector: the bytes before dst's
 * first 16-byte boundary and after its last one a store each, the rest a
 * 16-byte load and store, with no shifts (copy_run's skew is 0 here by
 * construction, and its run-time selects of words are some 18 of its 26
 * instructions a vector).
 */
__device__ __forceinline__ void copy_aligned_run(uint8_t *dst, const uint8_t *runs, unsigned from, unsigned len)
{
    unsigned vectors;
    const unsigned head = copy_run_ends(dst, runs, from, len, vectors);
    const uint4 *src = reinterpret_cast<const uint4 *>(runs + from + head);
    uint4 *to = reinterpret_cast<uint4 *>(dst + head);
    /* A thread has some 2 vectors a run: unrolled, the loop only grew the kernel. */
#pragma unroll 1
    for (unsigned k = threadIdx.x; k < vectors; k += kSelectThreads) __stcs(to + k, src[k]);
}

/* T moves bits only (uint8_t, uint32_t, uint64_t for every dtype of its
 * size): the masks come from the bit kernel. */
template <class T>
__global__ void __launch_bounds__(kSelectThreads, prefixed_shape<T>::kBlocks)
    partition_prefixed_kernel(const __grid_constant__ select_params p)
{
    using shape = prefixed_shape<T>;
    constexpr int Items = shape::kItems, kStages = shape::kStages;
    constexpr int64_t kTile = shape::kTile;
    constexpr unsigned kSize = (unsigned)sizeof(T);
    using L = rows<T, Items>;
    constexpr bool kPacked = kSize == 1; /* 1-byte rows held as loaded, interleaved */
    __shared__ uint64_t full[kStages];
    __shared__ unsigned warp_counts[2][kSelectWarps]; /* by use parity: no barrier between a read and the next write */
    GP_DYNAMIC_SHARED(smem);
    uint8_t *const runs = smem + kStages * shape::kStageBytes;
    const int warp = threadIdx.x / kWarp;
    auto whole = [&p](unsigned long long tile) { return ((int64_t)tile + 1) * kTile <= p.n; };
    __shared__ unsigned ticket_words[2];
    /* The block's range (p.grid blocks), by ticket as the look-back
     * kernels take theirs: the CPU emulation knows blocks only so. No
     * status is written, and no block waits on another. p.range_tiles
     * counts units, kSub tiles each. */
    const lookback::ticket t = lookback::take_ticket(p.arena, p.grid, 0, ticket_words);
    const unsigned long long first = (unsigned long long)t.index * p.range_tiles * shape::kSub;
    const unsigned long long span = p.range_tiles * shape::kSub;
    const unsigned long long end = first + span < p.tiles ? first + span : p.tiles;
    auto tile_of = [&](unsigned use) { return first + use; };
    /* Thread 0: use v's tile into stage v % kStages, or, where it is
     * partial or past the end, a bare arrival: every use completes one
     * phase. */
    auto stage_use = [&](unsigned v) {
        const unsigned long long tile = tile_of(v);
        const int s = (int)(v % kStages);
        if (tile < end && whole(tile)) {
            uint8_t *at = smem + s * shape::kStageBytes;
            stage::expect_bytes(&full[s], shape::kStageBytes);
            stage::copy(at, static_cast<const T *>(p.in) + (int64_t)tile * kTile, shape::kItemBytes, &full[s]);
            stage::copy(at + shape::kItemBytes, p.bits + (int64_t)tile * (kTile / 32), shape::kBitBytes, &full[s]);
        } else {
            stage::arrive(&full[s]);
        }
    };
    if (threadIdx.x == 0) {
        for (int s = 0; s < kStages; s++) stage::barrier_init(&full[s]);
        stage::fence_init();
    }
    __syncthreads();
    /* Launched to overlap the bit kernel's end (GP_PARTITION_PREFIXED_OVERLAP):
     * its bits, counts and total are read only past here. */
    grid_dependency::wait_for_prior();
    if (threadIdx.x == 0)
        for (unsigned v = 0; v < (unsigned)kStages; v++) stage_use(v);
    const unsigned long long total = (unsigned long long)*p.count; /* the bit kernel's, launched before */
    unsigned long long before = p.before[t.index];                   /* kept before the tile */
    uint8_t *out = static_cast<uint8_t *>(p.out);

    for (unsigned use = 0;; use++) {
        const unsigned long long tile = tile_of(use);
        if (tile >= end) break;
        const int s = (int)(use % kStages);
        const uint8_t *stage_bytes = smem + s * shape::kStageBytes;
        const int64_t tile_base = (int64_t)tile * kTile, seg_base = tile_base + (int64_t)warp * L::kWarpItems;
        held_rows<T, Items, kPacked, kPacked && GP_SELECT_INTERLEAVED_BYTES != 0> h;
        unsigned mask[L::R];
        if (whole(tile)) {
            stage::wait(&full[s], (use / kStages) & 1u);
            h.load_shared(reinterpret_cast<const T *>(stage_bytes) + warp * L::kWarpItems);
            h.masks_from_bits(reinterpret_cast<const uint32_t *>(stage_bytes + shape::kItemBytes) + warp * Items, mask);
        } else {
            h.template load_global<true, true>(p, seg_base, p.n - seg_base, mask);
        }
        typename decltype(h)::ranks ranks;
        const unsigned warp_count = h.rank(mask, ranks);
        unsigned warp_before, kept;
        tile::block_combine<tile::op_sum, unsigned, kSelectWarps>(warp_count, warp_counts[use & 1], warp_before,
                                                                  kept, sync_select_warps{});
        /* Past that barrier every thread has read stage s, and has written
         * out the runs of the use before: the stage takes use + kStages,
         * the run buffer this use's runs. */
        if (threadIdx.x == 0) stage_use(use + kStages);
        /* Each run starts in the buffer at its destination's offset in a
         * 16-byte vector, so that both copy out without shifts (offsets in
         * bytes: whole items, as 16 is a multiple of the item's size). */
        uint8_t *const kept_to = out + before * kSize;
        uint8_t *const rejected_to = out + (total + ((unsigned long long)tile_base - before)) * kSize;
        const unsigned kept_bytes = kept * kSize;
        const unsigned kept_at = (unsigned)(uintptr_t)kept_to % 16u;
        const unsigned rejected_at =
            kept_at + kept_bytes + ((unsigned)(uintptr_t)rejected_to - (kept_at + kept_bytes)) % 16u;
        /* compact's last argument is where the rejected run starts, in items past its stage argument. */
        h.template compact<true>(reinterpret_cast<T *>(runs + kept_at), mask, warp_before, ranks,
                                 (rejected_at - kept_at) / kSize);
        sync_select_warps{}();
        const int64_t left = p.n - tile_base;
        const unsigned valid = left > kTile ? (unsigned)kTile : (unsigned)left;
        copy_aligned_run(kept_to, runs, kept_at, kept_bytes);
        copy_aligned_run(rejected_to, runs, rejected_at, (valid - kept) * kSize);
        before += kept;
    }
}

} // namespace
} // namespace gp_cuda

#endif
