/*
 * Selection, partition and the running-max filter on CUDA, each one launch
 * with decoupled look-back over counts (cuda_lookback.cuh).
 *
 * Select. A tile loads its items and flags (or evaluates the comparison),
 * ranks the kept items in registers (one warp scan of per-row counts packed
 * into one integer), publishes its count, looks back for the number kept
 * before it, stages the kept items in shared memory in order and writes
 * them out as one contiguous, coalesced run. Bytes: the input, the flags
 * (1 byte per element) and the kept items, each once.
 *
 * Partition. The rejected items go after all the selected ones, in input
 * order, so their place depends on the total selected, which no tile knows
 * until the last one has counted. One launch runs two kinds of task: the
 * first tickets count, one group of G tiles each (G = kPartitionGroup from
 * kPartitionGroupMinTiles tiles on, else 1; the group
 * publishes its count and, through the look-back, its inclusive count, and
 * leaves each of its tiles the count before it), the next T tickets write
 * (tile j waits for the inclusive counts of the last group, the total, and
 * of its own group, then writes its selected run and its rejected run).
 * Write tasks only wait on count tasks, which hold earlier tickets and wait
 * on nothing later, so the wait cannot deadlock; and they do not look back,
 * so only the count phase is paced by the look-back, over T / G statuses.
 * Bytes: the flags twice (10 n for 4-byte items against the 9 n minimum);
 * partition_if evaluates the comparison twice, so it reads the input twice
 * (12 n against 8 n). From 2^23 items of 4 or 8 bytes (2^24 of 2) a
 * partition by flags is counted first instead: flag_bits_kernel reads the
 * flags, writes the total and a bit an item, and the one launch after it
 * looks back as a selection's, with the total known, staging the bits
 * instead of the flags (9.25 n; select_params::counted_first). Its count
 * phase no longer holds every write back. So is one of 1-byte items from
 * 2^24 (3.25 n against 4 n). A large partition_if is counted first too,
 * by gp_count_if's kernel: still 12 n, but no write waits on a count
 * phase. Partitions of 1-byte items counted first take the selections'
 * wider tiles where those pay (GP_PARTITION_WIDER); by comparison they
 * are counted by compare_bits_kernel, which leaves bits as
 * flag_bits_kernel does, and run as partitions by flags (GP_PARTITION_IF_BITS).
 * Where every tile of a resident grid has a stage of its own, a partition
 * runs in one pass instead and reads everything once (one_pass_partition,
 * below). The alternatives cost as much or more: rejected items staged in
 * scratch and copied afterwards add 2 x the rejected bytes and a barrier;
 * written backwards (CUB's order) then reversed, the same. At half kept,
 * 12 n is the least a stable partition_if moves: it is 67% of what a copy
 * of the 8 n it must read and write would take. Into two buffers
 * (gp_partition_copy_*, select_params::rejected) a tile's rejected run goes
 * to (items before the tile) - (kept before it), which the look-back gives:
 * no total, every item read once, as a selection.
 *
 * The running-max filter: its kernels are in cuda_filter.cuh and
 * cuda_filter_cluster.cuh, its host side below.
 *
 * Included, in this order: the kernels' parameters and kept masks
 * (cuda_select_masks.cuh), a thread's rows and their compaction
 * (cuda_select_rows.cuh), the select/partition kernel
 * (cuda_select_kernel.cuh), the bit kernels (cuda_partition_bits.cuh),
 * the pipelined selection, the prefixed partition and the filter. Then
 * here: the host side and the entry points.
 */
#include <stdio.h>

#include <cmath>
#include <limits>
#include <type_traits>

#include "cuda_backend.h"
#ifndef GP_CUDA_EMULATE
#include "cuda_block_count.cuh" /* the bit kernels' end (cuda_partition_bits.cuh) */
#endif
#include "cuda_common.cuh"
#include "cuda_grid_dependency.cuh"
#include "cuda_histogram.cuh" /* count: a partition by comparison counted first */
#include "cuda_lookback.cuh"
#include "cuda_stage.cuh"
#include "cuda_tile.cuh"
#include "cuda_timeline.cuh" /* compiled out but in a GP_TIMELINE build */
#include "cuda_tuning.h"

namespace gp_cuda {

constexpr int kSelectWarps = kSelectThreads / kWarp;

} // namespace gp_cuda

#include "cuda_select_masks.cuh"
#include "cuda_select_rows.cuh"
#include "cuda_select_kernel.cuh"

#include "cuda_partition_bits.cuh"
#include "cuda_select_pipelined.cuh"
#include "cuda_partition_prefixed.cuh"

#include "cuda_filter.cuh"
#include "cuda_filter_cluster.cuh"

namespace gp_cuda {
namespace {

/* ---------------------------------------------------------------- host side */

/* X(dtype suffix, C type) */
#define GP_SELECT_DTYPES(X) \
    X(I8, int8_t)           \
    X(U8, uint8_t)          \
    X(I16, int16_t)         \
    X(U16, uint16_t)        \
    X(I32, int32_t)         \
    X(U32, uint32_t)        \
    X(I64, int64_t)         \
    X(U64, uint64_t)        \
    X(F32, float)           \
    X(F64, double)

/* Calls pick(T(), std::bool_constant<ByFlags>()) with the kernel type of
 * dtype t: by flags the unsigned type of its size (flags only move
 * bytes), else the element type. `none` for a dtype no kernel takes. */
template <class R, class Pick>
R for_select_type(gp_dtype t, bool by_flags, R none, Pick &&pick)
{
    if (by_flags) {
        switch (gp_dtype_size(t)) {
        case 1: return pick(uint8_t(), std::true_type());
        case 2: return pick(uint16_t(), std::true_type());
        case 4: return pick(uint32_t(), std::true_type());
        default: return pick(uint64_t(), std::true_type());
        }
    }
    switch (t) {
#define GP_SELECT_TYPE_CASE(E, C) \
    case GP_DTYPE_##E: return pick(C(), std::false_type());
        GP_SELECT_DTYPES(GP_SELECT_TYPE_CASE)
#undef GP_SELECT_TYPE_CASE
    }
    return none;
}

/* Selections and partitions each take their own instantiation of both
 * selection kernels: with the partition's branches and shared state behind
 * a runtime flag, select and select-if at 2^28 int32 ran 7-9% slower on
 * H100 (docs/perf/scan.md, round 7), and 0.5-1.1 us slower from 2^12 to
 * 2^20 (round 8). */
const void *select_kernel_for(gp_dtype t, bool by_flags, bool partition)
{
    return for_select_type<const void *>(t, by_flags, NULL, [&](auto x, auto flags) {
        using T = decltype(x);
        constexpr bool F = decltype(flags)::value;
        return partition ? (const void *)select_kernel<T, F, true> : (const void *)select_kernel<T, F, false>;
    });
}

/* select_kernel_pipelined on a tier's tiles: fn is NULL where a wide tier
 * would repeat the one below it. A partition counted first stages bits by
 * flags (the Bits kernels); wider tiles take partitions only counted first
 * (GP_PARTITION_WIDER): those kernels have no count tasks. A split
 * (partition_copy) needs no count: with `split`, the wider partition
 * kernel by comparison, or by flags the one with flags, not bits
 * (GP_PARTITION_COPY_WIDER; whether a split asks: copy_takes_wider). */
lookback::persistent_kernel select_pipelined_for(gp_dtype t, bool by_flags, bool partition, select_tier tier,
                                                 bool counted_first, bool split = false)
{
    using lookback::persistent_kernel;
    return for_select_type<persistent_kernel>(t, by_flags, {NULL, 0, 0, 0}, [&](auto x, auto flags) {
        using T = decltype(x);
        constexpr bool F = decltype(flags)::value;
        /* 1-byte partitions counted first with bits (F) run
         * partition_prefixed_kernel (prefixed_takes), not a Bits kernel. */
        constexpr bool kBits = !(sizeof(T) == 1 && GP_PARTITION_PREFIXED && F);
        /* The kernel and its own shape. */
        auto from = [](auto tier_c, auto part_c, auto bits_c) -> persistent_kernel {
            constexpr int W = decltype(tier_c)::value;
            constexpr bool P = decltype(part_c)::value, B = decltype(bits_c)::value;
            using shape = select_pipe_shape<T, F, W, B>;
            return {(const void *)select_kernel_pipelined<T, F, P, W, B>, (unsigned)shape::kThreads,
                    shape::kSharedBytes, (long long)shape::kTile};
        };
        auto of = [&](auto tier_c, auto part_c) -> persistent_kernel {
            if constexpr (decltype(part_c)::value && F)
                if (counted_first) {
                    if constexpr (kBits) return from(tier_c, part_c, std::true_type{});
                    else return persistent_kernel{NULL, 0, 0, 0};
                }
            return from(tier_c, part_c, std::false_type{});
        };
        auto of_call = [&](auto tier_c) { /* the selection's or the partition's */
            return partition ? of(tier_c, std::true_type{}) : of(tier_c, std::false_type{});
        };
        if (tier == kNarrow) return of_call(std::integral_constant<int, kNarrow>{});
        if (tier == kWide) {
            if constexpr (select_wide_items(sizeof(T)) != select_items(sizeof(T)))
                return of_call(std::integral_constant<int, kWide>{});
        } else if constexpr (select_wider_items(sizeof(T)) != 0) {
            constexpr std::integral_constant<int, kWider> wider{};
            if (!partition) return from(wider, std::false_type{}, std::false_type{});
            if constexpr (GP_PARTITION_COPY_WIDER)
                if (split) return from(wider, std::true_type{}, std::false_type{});
            /* By comparison with bits (GP_PARTITION_IF_BITS), the caller
             * asks for the kernels by flags. */
            if constexpr ((F || !GP_PARTITION_IF_BITS) && kBits)
                if (GP_PARTITION_WIDER && counted_first)
                    return from(wider, std::true_type{}, std::integral_constant<bool, F>{});
        }
        return persistent_kernel{NULL, 0, 0, 0};
    });
}

const void *filter_kernel_for(gp_dtype t, bool desc, bool cluster = false)
{
    return for_select_type<const void *>(t, false, NULL, [&](auto x, auto) {
        using T = decltype(x);
        if (cluster)
            return desc ? (const void *)filter_kernel_cluster<T, true> : (const void *)filter_kernel_cluster<T, false>;
        return desc ? (const void *)filter_kernel<T, true> : (const void *)filter_kernel<T, false>;
    });
}

unsigned long long tile_count(gp_dtype t, int64_t n) { return lookback::tiles_of(select_tile((int)gp_dtype_size(t)), n); }

/* Whether items of t counted first with bits take their tiles' offsets
 * from the bit kernel and run partition_prefixed_kernel: 1-byte ones on
 * wider tiles (GP_PARTITION_PREFIXED), 4- and 8-byte ones on narrow tiles
 * (GP_PARTITION_PREFIXED_WIDE). Its ranges count the 1-byte wider tiles. */
bool prefixed_for(gp_dtype t)
{
    const size_t sz = gp_dtype_size(t);
    if (kPrefixUnit <= 0) return false;
    return sz == 1 ? GP_PARTITION_PREFIXED != 0 : (sz == 4 || sz == 8) && GP_PARTITION_PREFIXED_WIDE != 0;
}
/* prefixed_for, and n within the 4- and 8-byte items' limit
 * (GP_PARTITION_PREFIXED_WIDE_MAX_BYTES: past it the Bits kernels win). */
bool prefixed_fits(gp_dtype t, int64_t n)
{
    const long long sz = (long long)gp_dtype_size(t);
    return prefixed_for(t) && (sz == 1 || n <= GP_PARTITION_PREFIXED_WIDE_MAX_BYTES / sz);
}
/* Whether a partition of n items of t by comparison counted first takes
 * bits from compare_bits_kernel (and then runs as one by flags, or
 * prefixed) rather than a count from gp_count_if's kernel: 1-byte items
 * (GP_PARTITION_IF_BITS), and 4- and 8-byte ones in the prefixed kernel's
 * range of sizes (GP_PARTITION_IF_PREFIXED_WIDE). */
bool compare_bits_for(gp_dtype t, int64_t n)
{
    const long long sz = (long long)gp_dtype_size(t);
    if (sz == 1) return GP_PARTITION_IF_BITS != 0;
    return GP_PARTITION_IF_PREFIXED_WIDE && prefixed_fits(t, n);
}
/* Whether a persistent partition of n items of t is counted first: by
 * flags, flag_bits_kernel, then select_kernel_pipelined with the total and
 * the bits (GP_PARTITION_COUNT_FIRST_MIN_BYTES; 1-byte items:
 * _MIN_ITEMS_BYTE, then partition_prefixed_kernel); by comparison,
 * gp_count_if's kernel (or compare_bits_kernel where compare_bits_for
 * says, then as by flags), then select_kernel_pipelined with the total
 * (GP_PARTITION_IF_COUNT_FIRST_MIN_BYTES, or over half the L2 and within
 * it). And the workspace that takes after the arena, the larger of
 * the two where both apply: with bits, n rounded up to 128 items, a bit
 * each, then a partial count a block of flag_bits_kernel's grid; otherwise
 * count_kernel's partials. */
bool partition_counts_first(const gp_ctx *ctx, gp_dtype t, int64_t n, bool by_flags)
{
    const context_state *st = state(ctx);
    if (st->partition_count_first >= 0) return st->partition_count_first == 1;
    const long long sz = (long long)gp_dtype_size(t);
    if (!by_flags) {
        if (sz <= 2) return n >= GP_PARTITION_IF_COUNT_FIRST_MIN_ITEMS_NARROW;
        if (compare_bits_for(t, n) && n >= GP_PARTITION_COUNT_FIRST_MIN_BYTES / sz) return true;
        const long long l2_items = st->l2_bytes / sz; /* sizes in items: n * sz may overflow */
        return (n <= l2_items && 2 * n > l2_items) || n >= GP_PARTITION_IF_COUNT_FIRST_MIN_BYTES / sz;
    }
    if (sz == 1) return GP_PARTITION_COUNT_FIRST_MIN_ITEMS_BYTE > 0 && n >= GP_PARTITION_COUNT_FIRST_MIN_ITEMS_BYTE;
    return n >= (sz == 2 ? GP_PARTITION_COUNT_FIRST_MIN_ITEMS_NARROW : GP_PARTITION_COUNT_FIRST_MIN_BYTES / sz);
}
unsigned flag_bits_grid(const gp_ctx *ctx, int64_t n)
{
#ifdef GP_CUDA_EMULATE
    return 1;
#endif
    const long long want = (n / 32 + 2 * kFlagBitsThreads - 1) / (2 * kFlagBitsThreads);
    const long long cap = (long long)state(ctx)->sm_count * kFlagBitsBlocksPerSm;
    return (unsigned)(want < 1 ? 1 : want < cap ? want : cap);
}
/* flag_bits_kernel's bits: n rounded up to 128 items, a bit each; its
 * partial counts follow them. */
size_t flag_bits_bytes(int64_t n) { return (size_t)((n + 127) / 128) * 16; }
/* Its ranges' counts, after the bits and the partials: room for one a
 * wider tile (partition_prefixed takes at most that many ranges). */
size_t prefixed_bytes(gp_dtype t, int64_t n)
{
    return prefixed_for(t) ? (size_t)lookback::tiles_of(kPrefixUnit, n) * 8 : 0;
}
/* The bit kernel's workspace, in bytes from its start: the bits, then a
 * partial count a block (partials), then, for partition_prefixed_kernel,
 * a count a range (before), up to end. */
struct bit_workspace {
    size_t partials, before, end;
};
bit_workspace bit_workspace_of(const gp_ctx *ctx, gp_dtype t, int64_t n)
{
    bit_workspace w;
    w.partials = flag_bits_bytes(n);
    w.before = w.partials + (size_t)flag_bits_grid(ctx, n) * sizeof(unsigned long long);
    w.end = w.before + prefixed_bytes(t, n);
    return w;
}
/* Whether a partition counted first runs partition_prefixed_kernel: every
 * 1-byte one with bits (by flags, or by comparison through
 * compare_bits_kernel), whatever tier or one pass its tiles would take
 * (GP_PARTITION_PREFIXED); 4- and 8-byte ones with bits too, up to a size
 * (prefixed_fits) and where they do not run in one pass (select;
 * GP_PARTITION_PREFIXED_WIDE, GP_PARTITION_IF_PREFIXED_WIDE). */
bool prefixed_takes(const gp_select_args *a)
{
    return prefixed_fits(a->t, a->n) && (a->flags != NULL || compare_bits_for(a->t, a->n));
}
size_t counted_first_bytes(const gp_ctx *ctx, gp_dtype t, int64_t n)
{
    size_t bytes = 0;
    if (partition_counts_first(ctx, t, n, true) || (compare_bits_for(t, n) && partition_counts_first(ctx, t, n, false)))
        bytes = bit_workspace_of(ctx, t, n).end;
    if (partition_counts_first(ctx, t, n, false) && !compare_bits_for(t, n)) {
        gp_count_args c;
        memset(&c, 0, sizeof c);
        c.t = t, c.n = n;
        const size_t partials = count_workspace(ctx, &c);
        if (partials > bytes) bytes = partials;
    }
    return bytes;
}

/* Whether a partition counted first takes its tiles by ticket, its grid
 * overlapping the count's (GP_COUNT_FIRST_OVERLAP): where that measured
 * faster. */
bool count_first_by_ticket(const gp_ctx *ctx, const gp_select_args *a)
{
    if (!GP_COUNT_FIRST_OVERLAP) return false;
    const int hook = state(ctx)->count_first_by_ticket;
    if (hook >= 0) return hook == 1;
    return a->flags != NULL && a->n <= GP_COUNT_FIRST_BY_TICKET_MAX_ITEMS;
}

/* compare_bits_kernel for t's items, by ranges or by stride (the wider
 * items only by ranges: they take bits only for the prefixed kernel). */
const void *compare_bits_fn(gp_dtype t, bool ranges)
{
    auto of = [ranges](auto x) -> const void * {
        using T = decltype(x);
        return ranges ? (const void *)compare_bits_kernel<T, true> : (const void *)compare_bits_kernel<T, false>;
    };
    auto wide = [ranges](auto x) -> const void * {
        if constexpr (GP_PARTITION_IF_PREFIXED_WIDE && kPrefixTileWords > 0)
            return ranges ? (const void *)compare_bits_kernel<decltype(x), true> : NULL;
        else return NULL;
    };
    switch (t) {
    case GP_DTYPE_I8: return of(int8_t{});
    case GP_DTYPE_U8: return of(uint8_t{});
    case GP_DTYPE_I32: return wide(int32_t{});
    case GP_DTYPE_U32: return wide(uint32_t{});
    case GP_DTYPE_F32: return wide(float{});
    case GP_DTYPE_I64: return wide(int64_t{});
    case GP_DTYPE_U64: return wide(uint64_t{});
    case GP_DTYPE_F64: return wide(double{});
    default: return NULL;
    }
}

/* A partition counted first (partition_counts_first): the total goes to
 * *a->count in a launch before the partition's, whose tiles then look back
 * as a selection's do. By flags, flag_bits_kernel also leaves the bits the
 * Bits kernels stage; so does compare_bits_kernel by comparison where
 * compare_bits_for says (1-byte items; 4- and 8-byte ones for the prefixed
 * kernel); otherwise gp_count_if's kernel counts. `after` is the workspace
 * after the arena (counted_first_bytes of it). */
gp_status count_before(gp_ctx *ctx, const gp_select_args *a, uint8_t *after, select_params &p)
{
    if (a->flags || compare_bits_for(a->t, a->n)) {
        compare_bits_params c;
        flag_bits_params &f = c.b;
        f.flags = a->flags ? a->flags : static_cast<const uint8_t *>(a->in);
        f.n = a->n;
        f.bits = reinterpret_cast<uint32_t *>(after);
        f.partials = reinterpret_cast<unsigned long long *>(after + bit_workspace_of(ctx, a->t, a->n).partials);
        f.ticket = state(ctx)->reduce_counter;
        f.count = a->count;
        f.before = p.before;
        f.range_tiles = p.range_tiles;
        c.lo_bits = p.lo_bits, c.hi_bits = p.hi_bits, c.negate = p.negate;
#ifdef GP_CUDA_EMULATE
        const unsigned grid = flag_bits_grid(ctx, a->n); /* one block: the serial stand-in */
#else
        const unsigned grid = p.before ? p.grid : flag_bits_grid(ctx, a->n); /* prefixed: a block a range */
#endif
        if (a->flags) {
            void *fargs[] = {&f};
            const void *fn = f.before ? (const void *)flag_bits_kernel<true> : (const void *)flag_bits_kernel<false>;
            GP_CUDA_LAUNCH(ctx, fn, "flag_bits_kernel", grid, (unsigned)kFlagBitsThreads, fargs);
        } else {
            void *cargs[] = {&c};
            const void *fn = compare_bits_fn(a->t, f.before != NULL);
            if (!fn) return gp_set_error(ctx, GP_STATUS_INTERNAL, "gp_partition: no bit kernel for %s", gp_dtype_name(a->t));
#ifdef GPUPRIM_DEBUG_LAUNCH
            char what[96];
            snprintf(what, sizeof what, "compare_bits_kernel<%s> (n = %lld, %s)", gp_dtype_name(a->t), (long long)a->n,
                     f.before ? "ranges" : "stride");
#else
            const char *what = "compare_bits_kernel";
#endif
            GP_CUDA_LAUNCH(ctx, fn, what, grid, (unsigned)kFlagBitsThreads, cargs);
        }
        p.bits = f.bits;
    } else {
        gp_count_args c;
        memset(&c, 0, sizeof c);
        c.in = a->in, c.t = a->t, c.n = a->n, c.cmp = a->cmp, c.count = a->count;
        memcpy(c.value, a->value, sizeof c.value);
        const gp_status s = count(ctx, &c, after);
        if (s != GP_STATUS_OK) return s;
    }
    p.groups = 0;
    p.counted_first = 1;
    p.by_ticket = count_first_by_ticket(ctx, a);
    return GP_STATUS_OK;
}

/*
 * Whether a partition skips the count tasks: where no block of a resident
 * grid gets more tiles than it has stages (K + 2, K look-back warps: 4 on
 * narrow tiles, 3 on wide ones), every block stages and ranks all its
 * tiles and publishes their counts before its first write waits for the
 * total, the last tile's inclusive count. A tile's look-back then finds
 * the count before it as a selection's does, and the flags are read once
 * (GP_PARTITION_ONE_PASS, GP_PARTITION_WIDE_ONE_PASS; cuda_tuning.h).
 */
bool one_pass_partition(unsigned long long tiles, unsigned resident, unsigned stages)
{
    if (!GP_PARTITION_ONE_PASS || resident == 0) return false;
    if (tiles > (unsigned long long)resident * stages) return false;
    return tiles > resident || GP_PARTITION_ONE_PASS >= 2;
}

/* The persistent kernel a selection or partition takes, its tiles and
 * resident blocks (0: none), and whether a partition runs in one pass. */
struct persistent_choice {
    lookback::persistent_kernel run;
    unsigned long long tiles;
    unsigned resident;
    bool one_pass;
};

/* Whether a 1-byte partition into two buffers asks for wider tiles: by
 * comparison always, by flags where GP_PARTITION_COPY_WIDER_FLAGS says,
 * unless the hook (GPUPRIM_PARTITION_COPY_WIDER) says 0 or 1. Where
 * GP_PARTITION_COPY_WIDER is 0 there is no kernel to get. */
bool copy_takes_wider(const gp_ctx *ctx, bool by_flags)
{
    const int hook = state(ctx)->partition_copy_wider;
    if (hook >= 0) return hook == 1;
    return by_flags ? GP_PARTITION_COPY_WIDER_FLAGS != 0 : true;
}

/* The grid for `tiles` wider tiles that are too few for the `resident`
 * blocks to get kWideMinTilesPerBlock each: that many a block, where the
 * grid still covers GP_SELECT_WIDER_CUT_MIN_SM_PCT of the SMs (the hook,
 * GPUPRIM_WIDER_CUT: wherever it has a block, or never); else 0. Fewer,
 * larger tiles beat the wide tier's full grid there (docs/perf/scan.md,
 * round 98). */
unsigned wider_cut_grid(const gp_ctx *ctx, unsigned long long tiles, unsigned resident)
{
    const unsigned long long cut = tiles / (unsigned long long)kWideMinTilesPerBlock;
    const int hook = state(ctx)->wider_cut;
    if (hook == 0 || cut == 0 || cut >= resident) return 0;
    if (hook < 0 && cut * 100 < (unsigned long long)state(ctx)->sm_count * GP_SELECT_WIDER_CUT_MIN_SM_PCT) return 0;
    return (unsigned)cut;
}

/* Wider where it pays, else wide where that pays, else narrow; a
 * partition runs in one pass on narrow tiles where it can, and where its
 * narrow tiles outnumber the blocks, on wide ones where those come one a
 * block, where only they can, or for 8-byte items wherever they fit
 * (GP_PARTITION_WIDE_ONE_PASS, _MIN_ITEM_BYTES). Where wider tiles do not
 * pay on every resident block, selections and splits take them on a cut
 * grid before any other tier (wider_cut_grid). counted_first: a partition
 * counted first (by flags, the Bits kernels). */
persistent_choice choose_persistent(gp_ctx *ctx, const gp_select_args *a, bool counted_first)
{
    using lookback::persistent_kernel;
    /* Counted first with bits, a partition by comparison runs the Bits kernels. */
    const bool by_flags = a->flags != NULL || (a->partition && counted_first && compare_bits_for(a->t, a->n));
    const bool split = a->partition && a->rejected != NULL;
    const bool split_wider = split && copy_takes_wider(ctx, a->flags != NULL);
    const persistent_kernel narrow = select_pipelined_for(a->t, by_flags, a->partition, kNarrow, counted_first),
                            wide = select_pipelined_for(a->t, by_flags, a->partition, kWide, counted_first),
                            wider =
                                select_pipelined_for(a->t, by_flags, a->partition, kWider, counted_first, split_wider);
    auto resident_of = [ctx](const persistent_kernel &k) {
        return k.fn ? resident_blocks(ctx, k.fn, k.threads, k.smem) : 0u;
    };
    const persistent_kernel &wide_or_wider = lookback::narrow_or_wide(ctx, wide, wider, a->n);
    const bool wider_pays = &wide_or_wider == &wider;
    persistent_choice c;
    c.one_pass = false;
    if (!wider_pays && wider.fn && (!a->partition || split)) {
        const unsigned long long wider_tiles = lookback::tiles_of(wider.tile, a->n);
        const unsigned cut = wider_cut_grid(ctx, wider_tiles, resident_of(wider));
        if (cut) {
#ifdef GP_CUDA_EMULATE
            gp_emu::note_wider_cut(split);
#endif
            c.run = wider, c.tiles = wider_tiles, c.resident = cut;
            return c;
        }
    }
    c.run = wider_pays ? wider : lookback::narrow_or_wide(ctx, narrow, wide, a->n);
    c.tiles = lookback::tiles_of(c.run.tile, a->n);
    c.resident = resident_of(c.run);
    if (!a->partition || split || c.run.fn != narrow.fn) return c; /* a split never needs one pass */
    constexpr unsigned kNarrowStages = select_pipe_shape<uint8_t, false, kNarrow>::kStages,
                       kWideStages = select_pipe_shape<uint8_t, false, kWide>::kStages;
    c.one_pass = one_pass_partition(c.tiles, c.resident, kNarrowStages);
    const int hook = state(ctx)->partition_wide_one_pass; /* 1: wherever the wide tiles fit */
    const bool allowed = hook >= 0 ? hook == 1 : GP_PARTITION_WIDE_ONE_PASS != 0;
    if (wide.fn && allowed && c.tiles > c.resident) {
        const unsigned long long wide_tiles = lookback::tiles_of(wide.tile, a->n);
        const unsigned wide_resident = resident_of(wide);
        const bool pays = hook == 1 || wide_tiles <= wide_resident || !c.one_pass ||
                          gp_dtype_size(a->t) >= GP_PARTITION_WIDE_ONE_PASS_MIN_ITEM_BYTES;
        if (pays && one_pass_partition(wide_tiles, wide_resident, kWideStages)) {
            c.run = wide, c.tiles = wide_tiles, c.resident = wide_resident;
            c.one_pass = true;
        }
    }
    return c;
}

/*
 * A comparison with v as the range compare_mask keeps: LT [lowest, below
 * v], LE [lowest, v], GT [above v, highest], GE [v, highest], EQ [v, v],
 * NE not [v, v]. Floats: lowest and highest are the infinities, below and
 * above the neighbouring floats (below +-0 is the negative denormal
 * closest to zero, so -0 < +0 stays false); a NaN v gives a NaN bound,
 * which keeps nothing (NE: everything). Where nothing is below (or above)
 * v the range is empty: [highest, lowest].
 */
template <class T>
void range_of(gp_cmp cmp, T v, T &lo, T &hi, bool &negate)
{
    using lim = std::numeric_limits<T>;
    const T lowest = lim::has_infinity ? -lim::infinity() : lim::lowest();
    const T highest = lim::has_infinity ? lim::infinity() : lim::max();
    negate = cmp == GP_CMP_NE;
    lo = lowest, hi = highest;
    switch (cmp) {
    case GP_CMP_LT:
        if (v == lowest) lo = highest, hi = lowest;
        else if constexpr (lim::is_integer) hi = (T)(v - 1);
        else hi = std::nextafter(v, lowest);
        break;
    case GP_CMP_LE: hi = v; break;
    case GP_CMP_GT:
        if (v == highest) lo = highest, hi = lowest;
        else if constexpr (lim::is_integer) lo = (T)(v + 1);
        else lo = std::nextafter(v, highest);
        break;
    case GP_CMP_GE: lo = v; break;
    default: lo = hi = v; break; /* EQ, NE */
    }
}

void set_range(select_params &p, gp_dtype t, gp_cmp cmp, const void *value)
{
    for_select_type<int>(t, false, 0, [&](auto x, auto) {
        using T = decltype(x);
        T v, lo, hi;
        bool negate;
        memcpy(&v, value, sizeof v);
        range_of<T>(cmp, v, lo, hi, negate);
        memcpy(&p.lo_bits, &lo, sizeof lo);
        memcpy(&p.hi_bits, &hi, sizeof hi);
        p.negate = negate;
        return 0;
    });
}

/* Tiles, a partition's count groups, and the tickets of one tile a block. */
void set_tiles(select_params &p, bool partition, unsigned long long tiles)
{
    p.tiles = (unsigned)tiles;
    p.group = (long long)tiles >= kPartitionGroupMinTiles ? (unsigned)kPartitionGroup : 1u;
    p.groups = (unsigned)((tiles + p.group - 1) / p.group);
    p.tickets = tiles == 1 ? 1u : partition ? p.groups + (unsigned)tiles : (unsigned)tiles;
}

static_assert((unsigned long long)kSelectMaxElements == lookback::kMaxCount,
              "the core refuses what the look-back cannot count (cuda_backend.h)");

/* Shared checks: element alignment and the look-back's limits. */
gp_status check_limits(gp_ctx *ctx, const char *name, const void *in, const void *out, gp_dtype t, int64_t n)
{
    const size_t sz = gp_dtype_size(t);
    if ((uintptr_t)in % sz != 0 || (uintptr_t)out % sz != 0)
        return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT, "%s: in (%p) or out (%p) is not aligned to %zu bytes",
                            name, in, out, sz);
    if ((unsigned long long)n > lookback::kMaxCount)
        return gp_set_error(ctx, GP_STATUS_INVALID_SIZE, "%s: n = %lld is past the CUDA backend's 2^38 - 1 elements",
                            name, (long long)n);
    return GP_STATUS_OK;
}

gp_status write_zero_count(gp_ctx *ctx, int64_t *count)
{
    device_scope scope;
    GP_CUDA_ENTER_DEVICE(ctx, scope);
    GP_CUDA_TRY(ctx, cudaMemsetAsync(count, 0, sizeof *count, static_cast<cudaStream_t>(ctx->stream)));
    return GP_STATUS_OK;
}

/* A partition counted first with its tiles' offsets (prefixed_for): the
 * bit kernel, then partition_prefixed_kernel<T> on as many blocks as the
 * device holds at once (fewer suit as well: no block waits on another),
 * a range of whole units (kPrefixUnit items) a block. */
template <class T>
gp_status partition_prefixed_as(gp_ctx *ctx, const gp_select_args *a, uint8_t *after, select_params &p)
{
    using shape = prefixed_shape<T>;
    const unsigned long long units = lookback::tiles_of(kPrefixUnit, a->n);
    set_tiles(p, true, lookback::tiles_of(shape::kTile, a->n));
    /* Ranges of consecutive units, one a block of each kernel: as many as
     * the device holds blocks of the partition (fewer where the test hook
     * caps them), else as the bit kernel would take. */
    const void *fn = (const void *)partition_prefixed_kernel<T>;
    unsigned long long ranges = resident_blocks(ctx, fn, (unsigned)kSelectThreads, shape::kSharedBytes);
    if (ranges == 0) ranges = flag_bits_grid(ctx, a->n);
    if (ranges > units) ranges = units;
    p.range_tiles = (units + ranges - 1) / ranges;
    p.grid = (unsigned)((units + p.range_tiles - 1) / p.range_tiles);
    p.before = reinterpret_cast<unsigned long long *>(after + bit_workspace_of(ctx, a->t, a->n).before);
    gp_status s = count_before(ctx, a, after, p);
    if (s != GP_STATUS_OK) return s;
    void *args[] = {&p};
#if GP_PARTITION_PREFIXED_OVERLAP
    return launch_after_prior(ctx, fn, "partition_prefixed_kernel", p.grid, (unsigned)kSelectThreads,
                              shape::kSharedBytes, args, __FILE__, __LINE__);
#else
    GP_CUDA_LAUNCH_SMEM(ctx, fn, "partition_prefixed_kernel", p.grid, (unsigned)kSelectThreads, shape::kSharedBytes,
                        args);
    return GP_STATUS_OK;
#endif
}
/* The kernel moves bits only: one a size of item. */
gp_status partition_prefixed(gp_ctx *ctx, const gp_select_args *a, uint8_t *after, select_params &p)
{
    switch (gp_dtype_size(a->t)) {
    case 1: return partition_prefixed_as<uint8_t>(ctx, a, after, p);
    case 4: return partition_prefixed_as<uint32_t>(ctx, a, after, p);
    case 8: return partition_prefixed_as<uint64_t>(ctx, a, after, p);
    default: return gp_set_error(ctx, GP_STATUS_INTERNAL, "gp_partition: no prefixed kernel for %s", gp_dtype_name(a->t));
    }
}

} // namespace

/* ---------------------------------------------------------------- entry points */

/* The arena, for select_kernel's tiles (the pipelined kernels' are at
 * least as large), then, where a partition would be counted first, what
 * its count kernel needs (counted_first_bytes), 16-byte aligned (after the
 * arena, whose size is a multiple of 32). On the context's own scratch the
 * statuses live in the pool (lookback::prepare): no arena there. */
size_t select_workspace(const gp_ctx *ctx, gp_dtype t, int64_t n, bool pooled)
{
    const unsigned long long tiles = tile_count(t, n);
    if (tiles <= 1) return 0;
    return (pooled ? 0 : lookback::arena_bytes(tiles)) + counted_first_bytes(ctx, t, n);
}

/* The filter counts nothing first and keeps its statuses in the pool: on
 * the context's own scratch it needs nothing. A caller's workspace is held
 * to the public answer, gp_select_workspace_size, so one that is short for
 * a selection is short for the filter too. */
size_t filter_workspace(const gp_ctx *ctx, gp_dtype t, int64_t n, bool pooled)
{
    return pooled ? 0 : select_workspace(ctx, t, n, false);
}

gp_status select(gp_ctx *ctx, const gp_select_args *a, void *ws)
{
    const char *name = a->partition ? "gp_partition" : "gp_select";
    gp_status s = check_limits(ctx, name, a->in, a->out, a->t, a->n);
    if (s == GP_STATUS_OK && a->rejected) s = check_limits(ctx, name, a->in, a->rejected, a->t, a->n);
    if (s != GP_STATUS_OK) return s;
    /* A partition into two buffers (split) places its rejected items
     * without the total: no count first, no one pass, no prefixed kernel;
     * the partition kernels look back as for a selection (select_params::
     * rejected). */
    const bool split = a->partition && a->rejected != NULL;
    const bool grouped = a->partition && !split; /* a one-buffer partition's tickets include count groups */
    if (a->n == 0) return write_zero_count(ctx, a->count);
    const bool by_flags = a->flags != NULL;
    const void *fn = select_kernel_for(a->t, by_flags, a->partition);
    if (!fn) return gp_set_error(ctx, GP_STATUS_INTERNAL, "%s: no CUDA kernel for %s", name, gp_dtype_name(a->t));
    const unsigned long long tiles = tile_count(a->t, a->n);

    select_params p;
    memset(&p, 0, sizeof p);
    p.in = a->in;
    p.flags = a->flags;
    p.out = a->out;
    p.rejected = split ? a->rejected : NULL;
    p.count = a->count;
    p.n = a->n;
    set_tiles(p, grouped, tiles);
    if (!by_flags) set_range(p, a->t, a->cmp, a->value);
    const unsigned vec = 16 / (unsigned)gp_dtype_size(a->t);
    p.aligned = (uintptr_t)a->in % 16 == 0 && (!by_flags || (uintptr_t)a->flags % vec == 0);

    device_scope scope;
    GP_CUDA_ENTER_DEVICE(ctx, scope);
    if (tiles > 1) {
        s = lookback::prepare(ctx, ws, tiles, &p.arena);
        if (s != GP_STATUS_OK) return s;
    }
#ifdef GPUPRIM_DEBUG_LAUNCH
    char what[160];
    snprintf(what, sizeof what, "select_kernel<%s, %s> (%s, n = %lld, %llu tiles)", gp_dtype_name(a->t),
             by_flags ? "flags" : gp_cmp_name(a->cmp), split ? "partition_copy" : a->partition ? "partition" : "select",
             (long long)a->n, tiles);
#else
    const char *what = split ? "select_kernel (partition_copy)" : a->partition ? "select_kernel (partition)"
                                                                                : "select_kernel";
#endif
    void *args[] = {&p};
    /* A selection or partition of more tiles than the device holds
     * blocks, its items (and flags) 16-byte aligned: a persistent grid with
     * look-back warps, on wide tiles where every block gets several (the
     * arena prepared above holds statuses for either). */
    if (tiles > 1 && state(ctx)->lookback_warps && (uintptr_t)a->in % 16 == 0 &&
        (!by_flags || (uintptr_t)a->flags % 16 == 0)) {
        /* A partition by flags counted first (partition_counts_first) has
         * kernels of its own: the code for the bits in the others cost
         * int32 partitions 3-5% at 2^22-2^24 (docs/perf/scan.md, round 27).
         * One by comparison counted first runs the kernel it would run
         * anyway, with the total known. */
        /* On the context's own scratch (no arena in it) `after` is ws, and
         * NULL where the count needs no bytes (one block's count); a
         * caller's workspace is never NULL here (its arena alone is not). */
        uint8_t *after = static_cast<uint8_t *>(ws) + (ctx->have_user_ws ? lookback::arena_bytes(tiles) : 0);
        bool count_first = grouped && (uintptr_t)after % 16 == 0 && partition_counts_first(ctx, a->t, a->n, by_flags);
        /* No tile of the prefixed kernel waits on another: from 2^23 1-byte
         * items it beats one pass as well (GP_PARTITION_PREFIXED); wider
         * ones take it where they would not run in one pass. */
        const bool prefixed = count_first && prefixed_takes(a);
        if (prefixed && gp_dtype_size(a->t) == 1) return partition_prefixed(ctx, a, after, p);
        /* One pass reads everything once: no count before it. Judged on the
         * kernel one pass would run: the Bits kernels' smaller stages fit
         * more blocks, so more tiles would pass as one pass on them. */
        persistent_choice c = choose_persistent(ctx, a, false);
        if (prefixed && !c.one_pass) return partition_prefixed(ctx, a, after, p);
        if (count_first) {
            if (c.one_pass) count_first = false;
            else c = choose_persistent(ctx, a, true);
        }
        if (c.resident > 0 && (c.tiles > c.resident || c.one_pass)) {
            set_tiles(p, grouped, c.tiles);
            p.grid = c.tiles < c.resident ? (unsigned)c.tiles : c.resident;
            p.tickets = p.grid;
            if (c.one_pass) p.groups = 0;
            if (split) { /* as counted first, with nothing to wait for */
                p.groups = 0;
                p.counted_first = 1;
            }
            if (count_first) {
                s = count_before(ctx, a, after, p);
                if (s != GP_STATUS_OK) return s;
            }
            /* Counted first (count_before), the grid may take its tiles by
             * ticket: it needs no co-residency and may start while the count
             * runs. */
            if (p.by_ticket)
                return launch_after_prior(ctx, c.run.fn, what, p.grid, c.run.threads, c.run.smem, args, __FILE__,
                                          __LINE__);
            bool too_large = false;
#if GP_TIMELINE
            timeline::clear(static_cast<cudaStream_t>(ctx->stream));
#endif
            s = launch_resident(ctx, c.run.fn, what, p.grid, c.run.threads, c.run.smem, args, &too_large, __FILE__,
                                __LINE__);
#if GP_TIMELINE
            if (s == GP_STATUS_OK && !too_large)
                timeline::dump(static_cast<cudaStream_t>(ctx->stream), p.grid, p.tiles);
#endif
            if (s != GP_STATUS_OK || !too_large) return s;
            set_tiles(p, grouped, tiles); /* the device is busy: one tile a block, counted again */
            p.grid = 0;
            p.bits = NULL;
            p.counted_first = 0;
            p.by_ticket = 0;
        }
    }
    GP_CUDA_LAUNCH(ctx, fn, what, p.tickets, (unsigned)kSelectThreads, args);
    return GP_STATUS_OK;
}

gp_status filter(gp_ctx *ctx, const gp_filter_args *a, void *ws)
{
    gp_status s = check_limits(ctx, "gp_filter_running_max", a->in, a->out, a->t, a->n);
    if (s != GP_STATUS_OK) return s;
    if (a->n == 0) return write_zero_count(ctx, a->count);
    const void *fn = filter_kernel_for(a->t, a->descending);
    if (!fn)
        return gp_set_error(ctx, GP_STATUS_INTERNAL, "gp_filter_running_max: no CUDA kernel for %s",
                            gp_dtype_name(a->t));
    const unsigned long long tiles = tile_count(a->t, a->n);
    /* One chunk a block, as many blocks as the device holds at once (the
     * test hook caps them, so small inputs take chunks of several tiles). */
    const context_state *st = state(ctx);
    unsigned long long blocks = (unsigned long long)(st->sm_count > 0 ? st->sm_count : 1) *
                                (unsigned long long)filter_blocks_per_sm((int)gp_dtype_size(a->t));
    if (st->max_resident > 0 && st->max_resident < blocks) blocks = st->max_resident;
    const unsigned long long chunk_tiles = (tiles + blocks - 1) / blocks;

    filter_params p;
    memset(&p, 0, sizeof p);
    p.in = a->in;
    p.out = a->out;
    p.count = a->count;
    p.n = a->n;
    p.tiles = (unsigned)tiles;
    p.chunk_tiles = (unsigned)chunk_tiles;
    p.chunks = (unsigned)((tiles + chunk_tiles - 1) / chunk_tiles);
    if (chunk_tiles > (unsigned long long)kFilterDenseMinTiles)
        p.dense_max_tiles = (unsigned)(chunk_tiles < kFilterDenseMaxTiles ? chunk_tiles : kFilterDenseMaxTiles);
    p.aligned = (uintptr_t)a->in % 16 == 0;

    device_scope scope;
    GP_CUDA_ENTER_DEVICE(ctx, scope);
    void *args[] = {&p};
    /* 2 to 16 tiles: one cluster, a tile a block, no arena (cuda_filter_cluster.cuh). */
    const void *small = tiles > 1 ? filter_kernel_for(a->t, a->descending, true) : NULL;
    if (small && tiles <= small_cluster_blocks(ctx, small, (unsigned)kSelectThreads))
        return launch_cluster(ctx, small, "filter_kernel_cluster", (unsigned)tiles, (unsigned)tiles,
                              (unsigned)kSelectThreads, args, __FILE__, __LINE__);
    if (p.chunks > 1 || p.dense_max_tiles) { /* one block may take several dense chunks */
        const unsigned long long most =
            p.dense_max_tiles ? (tiles + kFilterDenseMinTiles - 1) / kFilterDenseMinTiles : p.chunks;
        s = lookback::prepare(ctx, ws, most, &p.arena);
        if (s != GP_STATUS_OK) return s;
    }
#ifdef GPUPRIM_DEBUG_LAUNCH
    char what[160];
    snprintf(what, sizeof what, "filter_kernel<%s, %s> (n = %lld, %llu tiles, %u chunks)", gp_dtype_name(a->t),
             a->descending ? "descending" : "ascending", (long long)a->n, tiles, p.chunks);
#else
    const char *what = "filter_kernel";
#endif
    GP_CUDA_LAUNCH_SMEM(ctx, fn, what, p.chunks, (unsigned)kSelectThreads, (size_t)kFilterRecordBytes, args);
    return GP_STATUS_OK;
}

} // namespace gp_cuda
