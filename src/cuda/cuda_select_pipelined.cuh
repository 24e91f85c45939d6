/*
 * The persistent selection with look-back warps (included by
 * cuda_select.cu, after cuda_select_kernel.cuh): cuda_scan_pipelined.cuh's
 * structure with counts for values.
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
 *     (barrier: the stage is read)            wait kept(u); look back,
 *     compact the kept items into it          publish the count with it;
 *     kept(u) -> shared, publish it           before(u) -> shared, arrive
 *       as the aggregate, arrive  ------>
 *     finish use u - K: wait before, <----
 *       write the run
 *     (barrier: the run is written)
 *     refill its stage with use u + 2
 *   (the aggregate from the scan warps: GP_EARLY_AGGREGATE, as in
 *   cuda_scan_pipelined.cuh; select 843 -> 793-797 us at 2^28 int32)
 *   (GP_SELECT_EARLY_REFILL; by ticket, or without it, the stage of use
 *   u - 1 - K, which every scan warp finished before this use's barrier,
 *   is refilled here with use u + 1: one tile lands a block, not two)
 *
 * A stage is the tile's items, then (by flags) its flags, both copied by
 * the bulk copy engine on one barrier; 1-byte selections by flags (the
 * wider tier) land the flags in two slots of their own instead, each on a
 * barrier of its own, the next use's once a use is ranked. The compacted
 * run written at use u is read, by other scan threads, at use u + K: the
 * scan warps' barriers of the uses between (K >= 1) order the two, and one
 * more barrier before the last K finishes.
 *
 * Partition (the kernel's Partition argument, a kernel of its own: with a
 * runtime flag the partition's branches and shared state cost the
 * selections 9% at 2^28 int32 on H100): the count tasks of select_kernel run
 * first, as count uses (count_uses, then publish_group on a look-back
 * warp); the write uses then take their count-before from value slot 0 of
 * their tile and the total from the last group's status, with no
 * look-back, and write the kept run and the rejected run. Counted first
 * (select_params::counted_first: large partitions), a kernel launched
 * before this one has written the total to *count (by flags, and by
 * comparison of 1-byte items, a bit an item to p.bits); every use then
 * looks back as a selection's does, writes both runs K uses later, and
 * (the Bits kernels) stages the bits instead of the flags, an eighth of
 * the bytes. The one partial tile takes its masks from the bits too. A
 * partition into two buffers (select_params::rejected) runs as one counted
 * first whose total is 0: its rejected runs start at the second buffer's
 * first item, and its last tile writes *count, as a selection's does.
 *
 * Progress: as scan_kernel_pipelined (every block resident, tiles in order).
 * A count use waits only on earlier groups, and write uses only on count
 * uses, which every block finishes before its writes. Counted first, the
 * blocks take their tiles by ticket instead, K + 1 at once and then one
 * as each stage frees up: a block holds only tiles above those it has
 * finished, so the lowest unfinished tile is always its block's next, and
 * every tile below it is done. No block waits on one that has not
 * started, and the grid is launched plainly, to start while the count's
 * grid still runs (cuda_grid_dependency.cuh).
 */
#ifndef GP_CUDA_SELECT_PIPELINED_CUH
#define GP_CUDA_SELECT_PIPELINED_CUH

namespace gp_cuda {
namespace {

/* A run's bytes before dst's first 16-byte boundary and after its last one,
 * a store each; returns how many come before (head), and in `vectors` how
 * many whole 16-byte vectors of dst lie between. */
__device__ __forceinline__ unsigned copy_run_ends(uint8_t *dst, const uint8_t *stage, unsigned from, unsigned len,
                                                  unsigned &vectors)
{
    const unsigned i = threadIdx.x;
    const unsigned head = min((unsigned)(0u - (unsigned)(uintptr_t)dst) % 16u, len);
    vectors = (len - head) / 16;
    const unsigned tail = head + 16 * vectors;
    if (i < head) dst[i] = stage[from + i];
    if (i < len - tail) dst[tail + i] = stage[from + tail + i];
    return head;
}

/*
 * Writes len bytes of a compacted run, from byte `from` of a stage (16-byte
 * aligned shared memory) to dst, with every thread of the scan warps: the
 * bytes before dst's first 16-byte boundary and after its last one a store
 * each, the rest 16 aligned bytes a store. A 1-byte run written an item a
 * store costs some seven instructions a byte (a load, a store, addresses,
 * the loop). The source of an aligned store is off by the same amount in
 * every thread, so each thread reads the two aligned vectors it spans and
 * shifts; reads never pass the vector that holds the run's last byte.
 */
__device__ __forceinline__ void copy_run(uint8_t *dst, const uint8_t *stage, unsigned from, unsigned len)
{
    const unsigned i = threadIdx.x;
    unsigned vectors;
    const unsigned head = copy_run_ends(dst, stage, from, len, vectors);
    const unsigned skew = (from + head) % 16, q = skew / 4, shift = 8 * (skew % 4);
    const uint4 *src = reinterpret_cast<const uint4 *>(stage + (from + head - skew));
    for (unsigned k = i; k < vectors; k += kSelectThreads) {
        const uint4 a = src[k], b = skew ? src[k + 1] : make_uint4(0, 0, 0, 0);
        const uint32_t w[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
        uint32_t s[5];
#pragma unroll
        for (int j = 0; j < 5; j++) s[j] = q == 0 ? w[j] : q == 1 ? w[j + 1] : q == 2 ? w[j + 2] : w[j + 3];
        const uint4 v = make_uint4(__funnelshift_r(s[0], s[1], shift), __funnelshift_r(s[1], s[2], shift),
                                   __funnelshift_r(s[2], s[3], shift), __funnelshift_r(s[3], s[4], shift));
        __stcs(reinterpret_cast<uint4 *>(dst + head + 16 * k), v);
    }
}

/* A pipelined selection's shape: K look-back warps, K + 2 stages (K
 * parked, one ranked, one landing), each a tile's items and, by flags, its
 * flags (wider: two flag slots beside the stages). By tier: narrow,
 * select_kernel's tiles (at most 16 KiB) and GP_SELECT_LOOKBACK_WARPS;
 * wide (cuda_tuning.h), one look-back warp; wider, where their stages
 * still let an SM hold the blocks its registers allow,
 * GP_SELECT_WIDER_CMP_LOOKBACK_WARPS by comparison and
 * GP_SELECT_WIDER_LOOKBACK_WARPS by flags (2 blocks an SM, with the flag
 * slots), else one. */
enum select_tier { kNarrow, kWide, kWider };

/* Blocks of `block_bytes` of dynamic shared memory an SM holds: 227 KiB an
 * SM, a little kept for the static part. */
constexpr long long blocks_in_shared(long long block_bytes) { return (227 * 1024 - 2048) / block_bytes; }

template <class T, bool ByFlags, int Tier, bool Bits = false>
struct select_pipe_shape {
    static constexpr int kItems = Tier == kNarrow ? select_items(sizeof(T))
                                  : Tier == kWide ? select_wide_items(sizeof(T))
                                                  : select_wider_items(sizeof(T));
    static constexpr int64_t kTile = (int64_t)kSelectThreads * kItems;
    /* The wider tier by flags (1-byte selections): a tile's flags land in
     * one of kFlagSlots slots of their own, not in its stage. They are
     * read only to rank it, so a use parked for its look-back holds its
     * items alone, and K + 2 = 4 stages fit 2 blocks an SM where flags in
     * the stages left K = 1 (GP_SELECT_FLAG_SLOTS). */
    static constexpr int kFlagSlots = Tier == kWider && ByFlags && !Bits && GP_SELECT_FLAG_SLOTS ? 2 : 0;
    static constexpr unsigned kFlagSlotBytes = kFlagSlots ? (unsigned)kTile : 0u;
    /* The Bits kernels (a partition by flags counted first) stage a bit an
     * item, not a flag: 4-byte items' stages of 24.75 KiB (wide) and 16.5
     * (narrow), not 30 and 20, let 3 blocks share an SM, not 2. H100, bench
     * partition int32, us: 2^23 35.8 -> 34.9, 2^24 61.8 -> 59.7, 2^26 224.3
     * -> 222.6, 2^28 alike (docs/perf/scan.md, round 46). */
    static constexpr unsigned kStageBytes =
        (unsigned)(kTile * (long long)sizeof(T) + (Bits ? kTile / 8 : ByFlags && !kFlagSlots ? kTile : 0));
    /* The wider tier's 1-byte rows held as loaded (held_rows, cuda_select_rows.cuh). */
    static constexpr bool kPacked = Tier == kWider && sizeof(T) == 1 && GP_SELECT_PACKED_BYTES && GP_SELECT_SWAR >= 1;
    /* Blocks an SM holds with every stage in shared memory
     * (blocks_in_shared), at most 3 (72 registers); 2 for rows of more
     * than 32 items (96), unless held packed (64). */
    static constexpr int kMaxBlocks = kItems > 32 && !kPacked ? 2 : 3;
    static constexpr long long fit(int stages)
    {
        return blocks_in_shared((long long)stages * kStageBytes + (long long)kFlagSlots * kFlagSlotBytes);
    }
    static constexpr int kWiderK = ByFlags ? GP_SELECT_WIDER_LOOKBACK_WARPS : GP_SELECT_WIDER_CMP_LOOKBACK_WARPS;
    static constexpr bool kWiderFits = Tier == kWider && fit(kWiderK + 2) >= kMaxBlocks;
    static constexpr int K = Tier == kNarrow ? GP_SELECT_LOOKBACK_WARPS : kWiderFits || kFlagSlots ? kWiderK : 1;
    static constexpr int kStages = K + 2;
    static constexpr int kThreads = kSelectThreads + K * kWarp;
    static constexpr size_t kSharedBytes = (size_t)kStages * kStageBytes + (size_t)kFlagSlots * kFlagSlotBytes;
    static constexpr long long kFit = fit(kStages);
    static constexpr int kBlocks = kFit >= kMaxBlocks ? kMaxBlocks : kFit < 1 ? 1 : (int)kFit;
    /* A selection's (not a partition's) blocks an SM: the packed kernel by
     * comparison may take more (GP_SELECT_WIDER_CMP_BLOCKS) where its
     * stages fit. */
    static constexpr int kSelectBlocks = kPacked && !ByFlags && kFit >= GP_SELECT_WIDER_CMP_BLOCKS
                                             ? GP_SELECT_WIDER_CMP_BLOCKS
                                             : kBlocks;
};

struct sync_select_warps {
    __device__ void operator()() const { stage::sync_threads<kSelectThreads>(); }
};

/*
 * A partition's count uses (scan warps): group g = t.index + grid i counts
 * its G tiles into counts[i % kStages] and hands them to look-back warp
 * i % K (publish_group). Waits for a slot's previous use to be read first.
 */
template <class T, bool ByFlags, int G, int Items, int kStages>
__device__ __forceinline__ void count_uses(const select_params &p, lookback::ticket t,
                                           group_counts (&counts)[kStages], uint64_t *counted, uint64_t *placed)
{
    for (unsigned i = 0;; i++) {
        const unsigned long long g = t.index + (unsigned long long)p.grid * i;
        if (g >= p.groups) break;
        const int s = (int)(i % kStages);
        if (i >= (unsigned)kStages) stage::wait(&placed[s], ((i - kStages) / kStages) & 1u);
        count_group_tiles<T, ByFlags, G, Items>(p, g, counts[s]);
        stage::arrive(&counted[s]);
    }
}

template <class T, bool ByFlags, bool Partition, int Tier, bool Bits = false>
__global__ void __launch_bounds__(select_pipe_shape<T, ByFlags, Tier, Bits>::kThreads,
                                  Partition ? select_pipe_shape<T, ByFlags, Tier, Bits>::kBlocks
                                            : select_pipe_shape<T, ByFlags, Tier, Bits>::kSelectBlocks)
    select_kernel_pipelined(const __grid_constant__ select_params p)
{
    static_assert(!Bits || (ByFlags && Partition), "bits stand for a partition's flags, counted first");
    /* The Bits kernels and partitions on wider tiles run only counted
     * first (select_pipelined_for): they have no count uses. A wider one
     * by flags without bits runs only as a split (nothing counted), whose
     * tiles go by stride, as its flag slots need (fetch_flags). */
    constexpr bool kCountedFirst = Partition && (Bits || Tier == kWider);
    using shape = select_pipe_shape<T, ByFlags, Tier, Bits>;
    constexpr int Items = shape::kItems;
    constexpr int64_t kTile = shape::kTile;
    using L = rows<T, Items>;
    constexpr int kStages = shape::kStages;
    constexpr int K = shape::K;
    static_assert(kStages == K + 2, "stage::refill stages the use after the current one");
    constexpr unsigned kItemBytes = (unsigned)(kTile * sizeof(T));
    constexpr unsigned kStageBytes = shape::kStageBytes;
    constexpr int kFlagSlots = shape::kFlagSlots;
    constexpr unsigned kSlotModulus = kFlagSlots ? (unsigned)kFlagSlots : 1u; /* compiled where there are none */
    /* Packed rows interleaved for partitions only: their two runs a store
     * gain (H200, partition-if u8 2^28 343 -> 303 us, partition u8 305 ->
     * 297), but selections, whose one run a store already spans fewer
     * wavefronts, issue the layout's extra instructions for nothing (select-if
     * u8 2^28 165 -> 186 us). docs/perf/scan.md, round 52. */
    constexpr bool kInterleaved = Partition && shape::kPacked && GP_SELECT_INTERLEAVED_BYTES;
    __shared__ unsigned ticket_words[2];
    __shared__ unsigned warp_counts[2][kSelectWarps]; /* by use parity: no barrier between a read and the next write */
    __shared__ unsigned kept_of[kStages];
    __shared__ unsigned long long before_of[kStages], total_of[kStages];
    /* Per stage: the copies landed; kept_of holds the tile's count (every
     * scan thread arrives); before_of the count before it (one lane).
     * A partition's count uses have barriers of their own. */
    __shared__ uint64_t full[kStages], counted[kStages], placed[kStages], counted_c[kStages], placed_c[kStages];
    __shared__ uint64_t flags_full[kSlotModulus]; /* use v's flags landed in slot v % kFlagSlots */
    /* A partition's count uses. Kernels always counted first have none:
     * one slot is declared and never used (three, 768 bytes, would leave
     * the Bits kernels' int32 wide blocks at 2 an SM). */
    __shared__ group_counts counts[kCountedFirst ? 1 : kStages];
    /* By ticket, use u's tile, at u % kRing (thread 0 sets it as it stages
     * the use; past the last tile, p.tiles or more). Two rounds of stages: the
     * K uses after a block's last, which only its look-back warps read,
     * take their slots while the K before it are still being written. */
    constexpr int kRing = 2 * kStages;
    __shared__ unsigned long long tile_at[kRing];
    GP_DYNAMIC_SHARED(stages); /* kStages x kStageBytes */

    /* Select, a one-pass partition and one counted first: statuses by
     * tile. Other partitions: by count group, then the write uses wait on
     * the groups (select_kernel, cuda_select_kernel.cuh). Counted first, the Bits
     * kernels stage bits for every whole tile, not flags (with_bits). */
    const bool counted_first = kCountedFirst || (Partition && p.counted_first);
    /* A partition into two buffers: as one counted first, with nothing
     * counted (select_params::rejected). */
    const bool split = Partition && p.rejected != nullptr;
    const bool one_pass = Partition && p.groups == 0 && !counted_first,
               by_groups = Partition && !kCountedFirst && p.groups != 0;
    constexpr bool with_bits = Bits; /* stages sized for bits: never flags */
    /* Counted first, tiles go by ticket as stages free up, not k, k + grid,
     * ...: a block waits only on tiles that running blocks hold, so the
     * grid needs no co-residency and is launched plainly, overlapping the
     * count's (count_first_by_ticket; cuda_grid_dependency.cuh). */
    const bool by_ticket = counted_first && p.by_ticket;
    constexpr unsigned kBitBytes = (unsigned)(kTile / 8);
    auto items_of = [&](int s) { return reinterpret_cast<T *>(stages + s * kStageBytes); };
    auto tile_of = [&](unsigned use) { return (unsigned long long)p.grid * use; }; /* + t.index */
    auto whole = [&p](unsigned long long tile) { return ((int64_t)tile + 1) * kTile <= p.n; };
    /* A tile's parts, each f(source, bytes, offset in its stage): its
     * items, then its flags or its bits. */
    auto for_parts = [&](unsigned long long tile, auto &&f) {
        f(static_cast<const T *>(p.in) + (int64_t)tile * kTile, kItemBytes, 0u);
        if (with_bits) f(p.bits + (int64_t)tile * (kTile / 32), kBitBytes, kItemBytes);
        else if (ByFlags && !kFlagSlots) f(p.flags + (int64_t)tile * kTile, (unsigned)kTile, kItemBytes);
    };
    auto fetch = [&](unsigned long long tile, int s) {
        GP_TL_TILE(fetch, tile);
        const unsigned extra = !ByFlags || kFlagSlots ? 0u : with_bits ? kBitBytes : (unsigned)kTile;
        stage::expect_bytes(&full[s], kItemBytes + extra);
        for_parts(tile, [&](const void *src, unsigned bytes, unsigned at) {
            stage::copy(stages + s * kStageBytes + at, src, bytes, &full[s]);
        });
    };
    /* Use v's flags slot, after the stages. */
    auto flags_of = [&](unsigned v) {
        return stages + kStages * kStageBytes + (v % kSlotModulus) * shape::kFlagSlotBytes;
    };
    if (threadIdx.x == 0) {
        GP_TL_BLOCK(entry);
        for (int s = 0; s < kStages; s++) {
            stage::barrier_init(&full[s]);
            stage::barrier_init(&counted[s], kSelectThreads);
            stage::barrier_init(&placed[s]);
            if constexpr (Partition) {
                stage::barrier_init(&counted_c[s], kSelectThreads);
                stage::barrier_init(&placed_c[s]);
            }
        }
        for (int f = 0; f < kFlagSlots; f++) stage::barrier_init(&flags_full[f]);
        stage::fence_init();
    }
    /* As the scan's: L2 fetches the first tile of this block's likely
     * ticket while the ticket is taken (not where count uses come first). */
    if (GP_PREFETCH_FIRST_TILE && threadIdx.x == 0 && !by_groups && whole(stage::launch_index())) {
        for_parts(stage::launch_index(), [](const void *src, unsigned bytes, unsigned) { stage::prefetch_l2(src, bytes); });
        if (kFlagSlots) stage::prefetch_l2(p.flags + (int64_t)stage::launch_index() * kTile, (unsigned)kTile);
    }
    /* Counted first, what the count's grid wrote (the total, the bits) is
     * read only past here (a plain launch: no wait). Waiting only where
     * they are read, so that the first tiles are staged and ranked while
     * the count runs, made partitions by comparison 20-30% slower
     * (docs/perf/scan.md, round 42). */
    if (by_ticket) grid_dependency::wait_for_prior();
    const lookback::ticket t = by_ticket ? lookback::take_ticket(p.arena, 0, p.tiles, ticket_words, K + 1)
                                         : lookback::take_ticket(p.arena, p.grid, by_groups ? p.groups : p.tiles,
                                                                 ticket_words); /* a barrier inside */
    if (threadIdx.x == 0) GP_TL_BLOCK(ticketed);
    /* Use u's tile: by stride, or as thread 0 staged it. */
    auto tile_of_use = [&](unsigned u) { return by_ticket ? tile_at[u % kRing] : t.index + tile_of(u); };
    const int warp = threadIdx.x / kWarp, lane = threadIdx.x % kWarp;
    const unsigned count_use_total =
        Partition ? (t.index < p.groups ? (p.groups - 1 - t.index) / p.grid + 1 : 0u) : 0u;

    if (warp >= kSelectWarps) { /* -------------------------- a look-back warp */
        const lookback::arena &ar = p.arena;
        if constexpr (Partition && !kCountedFirst)
            for (unsigned i = warp - kSelectWarps; i < count_use_total; i += K) {
                const int s = (int)(i % kStages);
                stage::wait(&counted_c[s], (i / kStages) & 1u);
                const unsigned long long g = t.index + tile_of(i);
                if (p.group == 1) publish_group<1>(p, g, t.epoch, counts[s]);
                else publish_group<kPartitionGroup>(p, g, t.epoch, counts[s]);
                __syncwarp(); /* every lane has read the slot */
                if (lane == 0) stage::arrive(&placed_c[s]);
            }
        unsigned long long total = 0;
        if (by_groups && lane == 0) total = lookback::wait_for(ar, p.groups - 1, t.epoch, lookback::kInclusive);
        /* The count kernel's, launched before; a split's rejected runs start at 0. */
        if (counted_first && lane == 0) total = split ? 0ull : (unsigned long long)*p.count;
        unsigned use = warp - kSelectWarps;
        for (;; use += K) {
            /* The end is checked twice. By stride it is known before the
             * wait and must be taken there: nothing arrives on counted[]
             * past a block's last use by stride, so the wait would hang,
             * and with it a one-pass partition's finish(), which waits on
             * this warp. By ticket it is known only after the wait, when
             * thread 0's draw has filled tile_at. */
            if (!by_ticket && t.index + tile_of(use) >= p.tiles) break;
            const int s = (int)(use % kStages);
            stage::wait(&counted[s], (use / kStages) & 1u); /* by ticket, also past the last use */
            const unsigned long long tile = tile_of_use(use);
            if (tile >= p.tiles) break;
            if (by_groups) {
                if (lane == 0) {
                    lookback::wait_for(ar, tile / p.group, t.epoch, lookback::kInclusive);
                    before_of[s] = lookback::get_value(ar, tile, 0);
                    total_of[s] = total;
                    stage::arrive(&placed[s]);
                }
                continue;
            }
            const unsigned kept = kept_of[s];
            unsigned long long before = 0;
            if (tile != 0) {
                if (!GP_EARLY_AGGREGATE && lane == 0)
                    lookback::publish_payload(ar, tile, t.epoch, lookback::kAggregate, kept);
                auto read = [](unsigned long long, unsigned long long tag, bool) { return lookback::tag_payload(tag); };
                before = lookback::look_back<tile::op_sum, unsigned long long, lookback::kAggregate,
                                             lookback::kInclusive, true>(ar, tile, t.epoch, read);
            }
            if (lane == 0) {
                GP_TL_TILE(prefix, tile);
                lookback::publish_payload(ar, tile, t.epoch, lookback::kInclusive, before + kept);
                if (tile == p.tiles - 1 && (!counted_first || split)) *p.count = (int64_t)(before + kept);
                before_of[s] = before;
                if (counted_first) total_of[s] = total;
                if (!Partition || counted_first) stage::arrive(&placed[s]);
            }
        }
        /* A one-pass partition: every use of this warp has published its
         * count; the last tile's inclusive count is the total, which the
         * rejected runs need. */
        if (one_pass && lane == 0) {
            total = lookback::wait_for(ar, p.tiles - 1, t.epoch, lookback::kInclusive);
            for (unsigned u = warp - kSelectWarps; u < use; u += K) {
                total_of[u % kStages] = total;
                stage::arrive(&placed[u % kStages]);
            }
        }
        return;
    }

    /* ------------------------------------------------------- the scan warps */
    /* Thread 0 stages use v in stage v % kStages: its tile's copies where
     * the tile is whole, else a bare arrival, so that every use completes
     * one phase and its readers find its tile in tile_at. It stages the
     * first K + 1 uses at once, then use K + 1 at use K and, at use u, use
     * u + 2 once the run of use u - K is written (early_refill), or use
     * u + 1 (stage::prime, stage::refill). K + 1, not all K + 2 stages:
     * the grid's first copies are the first wave's tiles, which every
     * look-back waits on, and they land sooner with fewer bytes asked for
     * beside them (H100: select int32 2^22 15.8 -> 14.8 us, 2^24 43.5-43.9
     * -> 42.1-42.3; docs/perf/scan.md, round 47, which the scan's
     * GP_SCAN_PRIME_USES comes from).
     *
     * By ticket, the first K + 1 uses take the tiles of the block's first
     * ticket (consecutive), and each later one a ticket drawn a use ahead
     * (`drawn`, by the scan warps after they rank a use: draw_tile_if), so
     * the draw's round trip overlaps a use. There K + 1 is also needed: a
     * block ranks its first K + 1 uses, and publishes their counts, before
     * it waits on any look-back. With K + 2 consecutive tiles, the last
     * one's count waited on the first one's look-back, which waited on the
     * previous block's last one: a chain through the grid, 1.3-2.2 ms a
     * call on H100 (docs/perf/scan.md, round 42). */
    const unsigned primed = (unsigned)K + 1;
    /* Where a use's stage is refilled: at its finish (early), or after the
     * next use's barrier. Early, a block's next two tiles land at once:
     * refilled late, the next copy was asked for only after a use was
     * ranked, and the scan warps waited out its landing every use (H100:
     * select-if u8 2^28 148 -> 138.5 us, docs/perf/scan.md, round 58). By
     * ticket the next tile is drawn after that barrier, so there it stays
     * late; a one-pass partition finishes no use inside the loop. */
    const bool early_refill = GP_SELECT_EARLY_REFILL && !by_ticket && !one_pass;
    unsigned long long drawn = 0;
    bool drawing = false, draw_next = false; /* thread 0: a draw is due after this use / is in `drawn` */
    auto plan_draw = [&](bool more) {        /* thread 0: one more tile, or none from now on */
        drawing = draw_next = more;
        if (!more) lookback::stop_drawing(p.arena, p.grid, t.epoch);
    };
    /* Thread 0: use v's flags into its slot, where its tile is whole (the
     * partial tile, the last, reads its flags from global memory). Uses 0
     * to kFlagSlots - 1 with their stages; use v + kFlagSlots once use v is
     * ranked: every scan thread has read the slot before that barrier.
     * Tiles by stride only: the kernels with flag slots (by flags, not
     * bits) never take tiles by ticket. */
    auto fetch_flags = [&](unsigned v, unsigned long long tile) {
        if (!kFlagSlots || !whole(tile)) return;
        uint64_t *bar = &flags_full[v % kSlotModulus];
        stage::expect_bytes(bar, (unsigned)kTile);
        stage::copy(flags_of(v), p.flags + (int64_t)tile * kTile, (unsigned)kTile, bar);
    };
    auto stage_use = [&](unsigned v) {
        unsigned long long tile;
        if (!by_ticket) {
            tile = t.index + tile_of(v);
        } else if (v < primed) {
            tile = (unsigned long long)t.index + v;
        } else if (drawing) {
            tile = (unsigned)drawn;
            plan_draw(tile + 1 < p.tiles);
        } else {
            tile = p.tiles;
        }
        if (by_ticket) {
            tile_at[v % kRing] = tile;
            if (tile >= p.tiles) /* the end: the look-back warps' next uses find none too */
                for (int j = 1; j < K; j++) tile_at[(v + j) % kRing] = p.tiles;
        }
        if (whole(tile)) fetch(tile, (int)(v % kStages)); /* whole implies tile < p.tiles */
        else stage::arrive(&full[v % kStages]);
        if constexpr (kFlagSlots > 0)
            if (v < (unsigned)kFlagSlots) fetch_flags(v, tile);
    };
    if (threadIdx.x == 0) {
        stage::prime(primed, stage_use);
        if (by_ticket) plan_draw((unsigned long long)t.index + primed < p.tiles);
    }
    if constexpr (Partition && !kCountedFirst) {
        if (p.group == 1) count_uses<T, ByFlags, 1, Items>(p, t, counts, counted_c, placed_c);
        else count_uses<T, ByFlags, kPartitionGroup, Items>(p, t, counts, counted_c, placed_c);
    }
    /* A partition's use u: where its tile starts, and how many of its
     * items exist. */
    auto tile_extent = [&](unsigned u, int64_t &tile_base) {
        tile_base = (int64_t)tile_of_use(u) * kTile;
        const int64_t left = p.n - tile_base;
        return left > kTile ? (int)kTile : (int)left;
    };
    /* Writes use u's compacted run at the count before its tile (and a
     * partition's rejected run after every selected item). Its count is
     * read here again: the look-back lane read kept_of[s] before its
     * arrival, and thread 0 rewrites it only after this use's wait. */
    auto finish = [&](unsigned u) {
        const int s = (int)(u % kStages);
        stage::wait(&placed[s], (u / kStages) & 1u);
        if (threadIdx.x == 0) GP_TL_TILE(finish_start, tile_of_use(u));
        const unsigned long long before = before_of[s];
        const int kept = (int)kept_of[s];
        if constexpr (GP_SELECT_VECTOR_RUNS) {
            uint8_t *bytes_out = static_cast<uint8_t *>(p.out);
            const uint8_t *stage_bytes = stages + s * kStageBytes;
            copy_run(bytes_out + before * sizeof(T), stage_bytes, 0, (unsigned)kept * sizeof(T));
            if constexpr (Partition) {
                int64_t tile_base;
                const int valid = tile_extent(u, tile_base);
                const int64_t rejected_at = (int64_t)total_of[s] + (tile_base - (int64_t)before);
                uint8_t *rejected_out = split ? static_cast<uint8_t *>(p.rejected) : bytes_out;
                copy_run(rejected_out + rejected_at * (int64_t)sizeof(T), stage_bytes, (unsigned)kept * sizeof(T),
                         (unsigned)(valid - kept) * sizeof(T));
            }
            if (threadIdx.x == 0) GP_TL_TILE(finish_end, tile_of_use(u));
            return;
        }
        const T *run = items_of(s);
        T *out = static_cast<T *>(p.out);
        if constexpr (!Partition) {
            for (int i = threadIdx.x; i < kept; i += kSelectThreads) out[before + i] = run[i];
        } else {
            int64_t tile_base;
            const int valid = tile_extent(u, tile_base);
            const int64_t rejected_base = (int64_t)total_of[s] + (tile_base - (int64_t)before) - kept;
            T *rejected_out = split ? static_cast<T *>(p.rejected) : out;
            for (int i = threadIdx.x; i < valid; i += kSelectThreads) {
                if (i < kept) out[(int64_t)before + i] = run[i];
                else rejected_out[rejected_base + i] = run[i];
            }
        }
        if (threadIdx.x == 0) GP_TL_TILE(finish_end, tile_of_use(u));
    };

    unsigned use = 0;
    for (;; use++) {
        const int s = (int)(use % kStages);
        /* By stride, a use's tile is known before its copies land, and
         * only a whole one waits for them. */
        if (by_ticket) stage::wait(&full[s], (use / kStages) & 1u);
        const unsigned long long tile = tile_of_use(use);
        if (tile >= p.tiles) break;
        const int64_t seg_base = (int64_t)tile * kTile + (int64_t)warp * L::kWarpItems;
        const int64_t valid = p.n - seg_base;
        held_rows<T, Items, shape::kPacked, kInterleaved> h;
        unsigned mask[L::R];
        if (whole(tile)) {
            if (!by_ticket) stage::wait(&full[s], (use / kStages) & 1u);
            if (threadIdx.x == 0) GP_TL_TILE(full, tile);
            h.load_shared(items_of(s) + warp * L::kWarpItems);
            if (with_bits) {
                h.masks_from_bits(
                    reinterpret_cast<const uint32_t *>(stages + s * kStageBytes + kItemBytes) + warp * Items, mask);
            } else if constexpr (ByFlags && kFlagSlots) {
                stage::wait(&flags_full[use % kSlotModulus], (use / kSlotModulus) & 1u);
                h.masks_from_flags(flags_of(use) + warp * L::kWarpItems, mask);
            } else if constexpr (ByFlags) {
                h.masks_from_flags(stages + s * kStageBytes + kItemBytes + warp * L::kWarpItems, mask);
            } else if constexpr (shape::kPacked) {
                const swar_range c = swar_range_of<T>(p);
                with_swar_sides(c, [&](auto sides) {
#pragma unroll
                    for (int r = 0; r < L::R; r++) mask[r] = swar_row_mask<T, decltype(sides)::value>(h.w[r], c);
                });
            } else if constexpr (sizeof(T) <= GP_SELECT_SWAR) {
                swar_compare_masks<T, Items>(p, items_of(s) + warp * L::kWarpItems, mask);
            } else {
                kept_masks<T, false, Items>(p, seg_base, L::kWarpItems, h.x, mask);
            }
        } else {
            h.template load_global<ByFlags, with_bits>(p, seg_base, valid, mask);
        }
        typename decltype(h)::ranks ranks;
        const unsigned warp_count = h.rank(mask, ranks);
        unsigned warp_before, kept;
        tile::block_combine<tile::op_sum, unsigned, kSelectWarps>(warp_count, warp_counts[use & 1], warp_before,
                                                                  kept, sync_select_warps{});
        if (kFlagSlots && threadIdx.x == 0) fetch_flags(use + kFlagSlots, tile_of_use(use + kFlagSlots));
        /* Every scan thread has read stage s: compact the kept items into
         * it, and (partition) the rejected ones after them, in order. */
        h.template compact<Partition>(items_of(s), mask, warp_before, ranks, kept);
        /* Every scan thread arrives, so its reads of kept_of and before_of
         * for use - kStages happen before their next writes by the
         * barrier alone (racecheck follows that; cuda_scan_pipelined.cuh). */
        if (threadIdx.x == 0) {
            GP_TL_TILE(total, tile);
            kept_of[s] = kept;
            if (!by_groups && GP_EARLY_AGGREGATE && tile != 0)
                lookback::publish_payload(p.arena, tile, t.epoch, lookback::kAggregate, kept);
        }
        stage::arrive(&counted[s]);
        /* Every scan warp finished use - 1 - K, the last use of stage
         * (use + 1) % kStages, before this use's barrier. Refilled early,
         * that happened after its finish already, but for use K + 1, whose
         * stage no use had. */
        if (threadIdx.x == 0 && (!early_refill || use + 1 == primed)) stage::refill(use, primed, stage_use);
        if (by_ticket) { /* every scan thread: no branch for the draw to hide in (draw_tile_if) */
            lookback::draw_tile_if(p.arena, draw_next, drawn);
            draw_next = false;
        }
        /* A one-pass partition writes only after every use is ranked: the
         * total waits for the counts of all its tiles, and it has no more
         * tiles than stages (cuda_select.cu, one_pass_partition). */
        if (use >= K && !one_pass) {
            finish(use - K);
            if (early_refill) { /* its stage is free once every scan thread has copied its runs out */
                sync_select_warps{}();
                if (threadIdx.x == 0) stage_use(use + 2);
            }
        }
    }
    sync_select_warps{}(); /* the last runs were compacted by other threads */
    for (unsigned u = one_pass ? 0 : use > K ? use - K : 0; u < use; u++) finish(u);
    /* By ticket, the look-back warps learn of the end by waiting on the K
     * uses past the last, whose tiles are none. Their stages' previous
     * uses are finished, so each of those waits saw its phase. */
    if (by_ticket)
        for (int j = 0; j < K; j++) stage::arrive(&counted[(use + j) % kStages]);
    if (threadIdx.x == 0) GP_TL_BLOCK(exit_);
}

} // namespace
} // namespace gp_cuda

#endif
