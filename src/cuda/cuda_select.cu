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
 * Top to bottom: flags and predicates, the select/partition kernel, then
 * included: the bit kernels (cuda_partition_bits.cuh), the pipelined
 * selection, the prefixed partition and the filter; the host side and
 * the entry points.
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

namespace {

using tile::rows;

/* ------------------------------------------------------ flags and predicates */

/* A V-byte load: streaming from global memory, plain from shared (a staged
 * tile's flags, cuda_select_pipelined.cuh). */
template <class W, bool Shared>
__device__ __forceinline__ W load_flags(const uint8_t *f)
{
    if constexpr (Shared) return *reinterpret_cast<const W *>(f);
    else return __ldcs(reinterpret_cast<const W *>(f));
}

/* The top bit of each byte that is not zero: that of ((b & 0x7f) + 0x7f) | b. */
__device__ __forceinline__ unsigned nonzero_top_bits(unsigned w)
{
    return (((w & 0x7f7f7f7fu) + 0x7f7f7f7fu) | w) & 0x80808080u;
}
/* How many of the bytes are not zero. */
__device__ __forceinline__ unsigned nonzero_bytes(unsigned w) { return (unsigned)__popc(nonzero_top_bits(w)); }
__device__ __forceinline__ unsigned nonzero_bytes(uint2 v) { return nonzero_bytes(v.x) + nonzero_bytes(v.y); }
__device__ __forceinline__ unsigned nonzero_bytes(uint4 v)
{
    return nonzero_bytes(v.x) + nonzero_bytes(v.y) + nonzero_bytes(v.z) + nonzero_bytes(v.w);
}
/* Bit e set when flag byte e of a 4-, 8- or 16-byte word is not zero: the
 * top bits of nonzero_top_bits, moved to bits 0-3 by one multiply. */
__device__ __forceinline__ unsigned nonzero_bits(unsigned w) { return (nonzero_top_bits(w) * 0x00204081u) >> 28; }
__device__ __forceinline__ unsigned nonzero_bits(uint4 v)
{
    return nonzero_bits(v.x) | nonzero_bits(v.y) << 4 | nonzero_bits(v.z) << 8 | nonzero_bits(v.w) << 12;
}

/* Bit e set when flag byte e of a V-byte run is not zero. */
template <int V, bool Shared = false>
__device__ __forceinline__ unsigned flag_mask(const uint8_t *f, bool vector, int valid_from_here)
{
    unsigned m = 0;
    if (vector && valid_from_here >= V) {
        unsigned w[4] = {0, 0, 0, 0};
        if constexpr (V == 16) {
            const uint4 v = load_flags<uint4, Shared>(f);
            w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w;
        } else if constexpr (V == 8) {
            const uint2 v = load_flags<uint2, Shared>(f);
            w[0] = v.x, w[1] = v.y;
        } else if constexpr (V == 4) {
            w[0] = load_flags<unsigned, Shared>(f);
        } else {
            w[0] = load_flags<unsigned short, Shared>(f);
        }
        /* A word's four flags at once (nonzero_bits). */
#pragma unroll
        for (int k = 0; k < (V + 3) / 4; k++) m |= nonzero_bits(w[k]) << (4 * k);
    } else {
#pragma unroll
        for (int e = 0; e < V; e++)
            if (e < valid_from_here && f[e]) m |= 1u << e;
    }
    return m;
}

/* Which elements a comparison keeps: those in [lo, hi], or (negate) those
 * not in it. The host turns each comparison into that range (range_of,
 * below), so an element costs two compares and no branch; a switch on the
 * comparison per element compiled to an indirect jump each, and u8
 * select-if ran slower than u8 select by flags, which reads twice the
 * bytes (docs/perf/scan.md, round 20). A NaN is in no range: kept only
 * under NE, as IEEE compares. */
template <class T, int V>
__device__ __forceinline__ unsigned compare_mask(const T (&x)[V], T lo, T hi, bool negate, int valid_from_here)
{
    unsigned m = 0;
#pragma unroll
    for (int e = 0; e < V; e++) {
        const bool in = (x[e] >= lo) & (x[e] <= hi);
        if (in != negate && e < valid_from_here) m |= 1u << e;
    }
    return m;
}

/* ------------------------------------------------------- select, partition */

struct select_params {
    const void *in;
    const uint8_t *flags; /* NULL: compare with value */
    void *out;
    int64_t *count;
    int64_t n;
    unsigned tiles;   /* T: tiles (select: one status each; partition: write tasks) */
    unsigned group;   /* partition: tiles a count task counts, 1 or kPartitionGroup */
    unsigned groups;  /* partition: count tasks of `group` tiles, a status each; 0: none (one_pass_partition) */
    unsigned tickets; /* launch size: T (select) or groups + T (partition), 1 for one tile */
    unsigned grid;    /* select_kernel_pipelined: blocks, each taking tiles k, k + grid, ... (resident) or by ticket */
    unsigned long long lo_bits, hi_bits; /* by comparison: keep x in [lo, hi] (compare_mask) */
    int negate;                          /* or, for NE, x not in it */
    int aligned; /* in 16-byte aligned, flags V-byte aligned */
    lookback::arena arena;
    /* A partition counted first (below): the total is already in *count,
     * and the tiles look back as a selection's. By flags (and by comparison
     * of 1-byte items), also the bits flag_bits_kernel (compare_bits_kernel)
     * left (bit i of the tile's words for item i), which the Bits kernels
     * stage instead of the flags; NULL: none. Last, so
     * that the other fields keep their places and the other kernels their
     * code. */
    uint32_t *bits;
    int counted_first;
    int by_ticket; /* counted first: tiles by ticket (cuda_select_pipelined.cuh) */
    /* partition_prefixed_kernel: the kept items before each range of
     * range_tiles wider tiles, left by the bit kernel
     * (flag_bits_params::before). */
    unsigned long long *before;
    unsigned long long range_tiles;
    /* A partition into two buffers (gp_partition_copy_*): the rejected
     * items go here, from its start, and the tiles look back as a
     * selection's, the total never needed (counted_first set, with nothing
     * counted first: *count is the last tile's to write); NULL: a
     * partition into out. */
    void *rejected;
};

/* mask[r]: which elements of the thread's vector in row r are kept (by the
 * flags, or by comparing x), for a warp segment at seg_base with `valid`
 * elements (none past them). */
template <class T, bool ByFlags, int Items>
__device__ __forceinline__ void kept_masks(const select_params &p, int64_t seg_base, int64_t valid,
                                           const T (&x)[rows<T, Items>::R][rows<T, Items>::V],
                                           unsigned (&mask)[rows<T, Items>::R])
{
    using L = rows<T, Items>;
    const int lane = threadIdx.x % kWarp;
#pragma unroll
    for (int r = 0; r < L::R; r++) {
        const int at = L::index(r, lane, 0);
        const int64_t left = valid - at;
        const int left_here = left < 0 ? 0 : left > L::V ? L::V : (int)left;
        if constexpr (ByFlags) mask[r] = flag_mask<L::V>(p.flags + seg_base + at, p.aligned, left_here);
        else
            mask[r] = compare_mask<T, L::V>(x[r], tile::from_low_bits<T>(p.lo_bits),
                                            tile::from_low_bits<T>(p.hi_bits), p.negate != 0, left_here);
    }
}

/*
 * Compacts a thread's rows into its tile's stage (room for a whole tile):
 * kept items at their ranks, and (Partition) the rejected ones after the
 * tile's `kept`, each in input order. Through two running pointers: a
 * store and an add an item. Indexed as stage[rank] the address was rebuilt
 * from the stage, the rank and (for the rejected) the position at every
 * item, six or seven instructions (SASS of the u8 select-if kernel). In a
 * partial tile the positions past the input are never kept, so as
 * "rejected" they land after every real item, inside the stage, where
 * nothing reads them: no check of each item's position is needed.
 */
template <class T, bool Partition, int Items, class Held>
__device__ __forceinline__ void compact_rows(T *stage, const Held &h, const unsigned (&mask)[rows<T, Items>::R],
                                             unsigned warp_before, const unsigned (&row_base)[rows<T, Items>::R],
                                             unsigned kept)
{
    using L = rows<T, Items>;
    const int warp = threadIdx.x / kWarp, lane = threadIdx.x % kWarp;
#pragma unroll
    for (int r = 0; r < L::R; r++) {
        const unsigned rank = warp_before + row_base[r];
        const int pos = warp * L::kWarpItems + L::index(r, lane, 0);
        T *to_kept = stage + rank;
        T *to_rejected = stage + kept + ((unsigned)pos - rank); /* rank <= pos */
#pragma unroll
        for (int e = 0; e < L::V; e++) {
            if (mask[r] >> e & 1u) *to_kept++ = h.item(r, e);
            else if (Partition) *to_rejected++ = h.item(r, e);
        }
    }
}

/*
 * 1- and 2-byte items compared a 32-bit word at a time (SWAR), for staged
 * rows whose every item exists. Unpacked, an item cost six instructions
 * (extract it, two compares, the xor for NE, a select and an add into the
 * mask); a word of four u8 costs about twelve. Lanes of B bytes, H their
 * top bits; a signed lane is biased by H, which orders it as unsigned.
 */
template <int B>
struct swar_lanes {
    /* GP_SELECT_SWAR names an item size: anything past 2 would take 4- or
     * 8-byte items for 2-byte lanes here and compare them wrongly. */
    static_assert(B == 1 || B == 2, "word-at-a-time compares take 1- or 2-byte items (GP_SELECT_SWAR at most 2)");
    static constexpr uint32_t H = B == 1 ? 0x80808080u : 0x80008000u;
    static constexpr uint32_t kSplat = B == 1 ? 0x01010101u : 0x00010001u;
    static constexpr uint32_t kLaneMask = B == 1 ? 0xffu : 0xffffu;

    /* Each lane's top bit: a >= b, as unsigned. (a | H) - (b & ~H) compares
     * the low bits without borrowing across lanes; the top bits decide
     * where they differ. */
    __device__ static __forceinline__ uint32_t ge(uint32_t a, uint32_t b)
    {
        const uint32_t low_ge = (a | H) - (b & ~H);
        return ((a & ~b) | (~(a ^ b) & low_ge)) & H;
    }
    /* Lane j's top bit to bit j. B = 1: bits 7, 15, 23, 31 times 2^21, 2^14,
     * 2^7, 1 land on 28-31, and no other product reaches them or carries. */
    __device__ static __forceinline__ uint32_t movemask(uint32_t top)
    {
        return B == 1 ? (top * 0x00204081u) >> 28 : (top * 0x00008001u) >> 30;
    }
};

/* A comparison's range as swar_row_mask takes it: lo and hi in every lane,
 * biased; flip, the top bits (NE) or 0; sides, which ends need a test:
 * kLowEnd where lo is above the lowest value, kHighEnd where hi is below
 * the highest. LT, LE, GT and GE need one (with_swar_sides). */
enum { kLowEnd = 1, kHighEnd = 2 };
struct swar_range {
    uint32_t lo, hi, flip;
    int sides;
};
template <class T>
__device__ __forceinline__ swar_range swar_range_of(unsigned long long lo_bits, unsigned long long hi_bits,
                                                    bool negate)
{
    using W = swar_lanes<(int)sizeof(T)>;
    const uint32_t bias = std::is_signed<T>::value ? W::H : 0u;
    const uint32_t lo = ((uint32_t)lo_bits & W::kLaneMask) * W::kSplat ^ bias,
                   hi = ((uint32_t)hi_bits & W::kLaneMask) * W::kSplat ^ bias;
    return {lo, hi, negate ? W::H : 0u, (lo != 0u ? kLowEnd : 0) | (hi != ~0u ? kHighEnd : 0)};
}
template <class T>
__device__ __forceinline__ swar_range swar_range_of(const select_params &p)
{
    return swar_range_of<T>(p.lo_bits, p.hi_bits, p.negate != 0);
}

/* Bit e: whether item e of a 16-byte row of 1- or 2-byte items is kept.
 * Sides: the ends tested, every end of c.sides among them; an end left
 * out is one that every item passes. */
template <class T, int Sides = kLowEnd | kHighEnd>
__device__ __forceinline__ unsigned swar_row_mask(uint4 v, swar_range c)
{
    using W = swar_lanes<(int)sizeof(T)>;
    constexpr int kPerWord = 4 / (int)sizeof(T);
    const uint32_t bias = std::is_signed<T>::value ? W::H : 0u;
    const uint32_t w[4] = {v.x, v.y, v.z, v.w};
    unsigned m = 0;
#pragma unroll
    for (int k = 0; k < 4; k++) {
        const uint32_t x = w[k] ^ bias;
        const uint32_t above_lo = Sides & kLowEnd ? W::ge(x, c.lo) : W::H;
        const uint32_t below_hi = Sides & kHighEnd ? W::ge(c.hi, x) : W::H;
        m |= W::movemask((above_lo & below_hi) ^ c.flip) << (k * kPerWord);
    }
    return m;
}

/* Calls f(std::integral_constant<int, Sides>) with the fewest ends c needs
 * tested: a uniform branch a call, where the loops inside f then test one
 * end an item, not two (LT, LE, GT, GE; a range of every value takes
 * one). */
template <class F>
__device__ __forceinline__ void with_swar_sides(const swar_range &c, F &&f)
{
    if (c.sides == kLowEnd) f(std::integral_constant<int, kLowEnd>{});
    else if (c.sides == kHighEnd) f(std::integral_constant<int, kHighEnd>{});
    else if (c.sides == 0) f(std::integral_constant<int, kLowEnd>{}); /* lo is the lowest: passes */
    else f(std::integral_constant<int, kLowEnd | kHighEnd>{});
}

/* The kept masks of a staged warp segment whose items all exist. */
template <class T, int Items>
__device__ __forceinline__ void swar_compare_masks(const select_params &p, const T *seg,
                                                   unsigned (&mask)[rows<T, Items>::R])
{
    using L = rows<T, Items>;
    const int lane = threadIdx.x % kWarp;
    const swar_range c = swar_range_of<T>(p);
    with_swar_sides(c, [&](auto sides) {
#pragma unroll
        for (int r = 0; r < L::R; r++) {
            const uint4 row = *reinterpret_cast<const uint4 *>(seg + L::index(r, lane, 0));
            mask[r] = swar_row_mask<T, decltype(sides)::value>(row, c);
        }
    });
}

/* Bits at..at + left - 1 of a partition's bits (bit i of word i / 32 for
 * item i), at a multiple of left's row width: they share a word. */
__device__ __forceinline__ unsigned bits_mask(const uint32_t *bits, int64_t at, int left)
{
    return left <= 0 ? 0u : bits[at / 32] >> (at % 32) & (left >= 32 ? ~0u : (1u << left) - 1u);
}

/*
 * A thread's rows from loading to compaction: an item a register, x[R][V];
 * or (Packed, 1-byte items) as loaded, a 16-byte word a row, each item
 * taken out where it is stored. 64 u8 items a thread held one a register
 * took 95 registers and left 2 blocks an SM, 20 warps, with the issue
 * slots idle half the time (Nsight Compute, select-if u8 at 2^26); as
 * words they take 16 (docs/perf/scan.md, round 40). Both kinds give the
 * pipelined kernel the same calls: masks from staged bits or flags, the
 * ranks in the warp (rank) and the compaction (compact). Interleaved
 * applies to packed rows only (below).
 */
template <class T, int Items, bool Packed = false, bool Interleaved = false>
struct held_rows {
    using L = rows<T, Items>;
    T x[L::R][L::V];
    struct ranks {
        unsigned row_base[L::R];
    };
    __device__ __forceinline__ T item(int r, int e) const { return x[r][e]; }
    __device__ __forceinline__ void load_shared(const T *seg) { tile::load_rows_shared<T, T, T, Items>(seg, x); }
    /* The warp segment's staged bits (its first word) or flags. */
    __device__ __forceinline__ void masks_from_bits(const uint32_t *b, unsigned (&mask)[L::R]) const
    {
        const int lane = threadIdx.x % kWarp;
#pragma unroll
        for (int r = 0; r < L::R; r++) {
            const int i = L::index(r, lane, 0);
            mask[r] = b[i / 32] >> (i % 32) & ((1u << L::V) - 1u);
        }
    }
    __device__ __forceinline__ void masks_from_flags(const uint8_t *f, unsigned (&mask)[L::R]) const
    {
        const int lane = threadIdx.x % kWarp;
#pragma unroll
        for (int r = 0; r < L::R; r++) mask[r] = flag_mask<L::V, true>(f + L::index(r, lane, 0), true, L::V);
    }
    /* Loads from global memory, `valid` of the segment's items existing,
     * and gives their kept masks (FromBits: from p.bits). */
    template <bool ByFlags, bool FromBits = false>
    __device__ __forceinline__ void load_global(const select_params &p, int64_t seg_base, int64_t valid,
                                                unsigned (&mask)[L::R])
    {
        tile::load_rows<T, T, T, Items>(static_cast<const T *>(p.in) + seg_base, valid, p.aligned, T(0), x);
        if constexpr (FromBits) {
            const int lane = threadIdx.x % kWarp;
#pragma unroll
            for (int r = 0; r < L::R; r++) {
                const int at = L::index(r, lane, 0);
                const int64_t left = valid - at;
                mask[r] = bits_mask(p.bits, seg_base + at, left > L::V ? L::V : (int)left);
            }
        } else {
            kept_masks<T, ByFlags, Items>(p, seg_base, valid, x, mask);
        }
    }
    /* The number kept in the warp's segment; rk, each row's before this
     * thread's items in it. */
    __device__ __forceinline__ unsigned rank(const unsigned (&mask)[L::R], ranks &rk) const
    {
        return tile::warp_rank_rows<L::R, L::V>(mask, rk.row_base);
    }
    template <bool Partition>
    __device__ __forceinline__ void compact(T *stage, const unsigned (&mask)[L::R], unsigned warp_before,
                                            const ranks &rk, unsigned kept) const
    {
        compact_rows<T, Partition, Items>(stage, *this, mask, warp_before, rk.row_base, kept);
    }
};

/*
 * 1-byte items held packed: a row is four 4-byte words, mask[r] bit 4k + b
 * for byte b of word k. Interleaved (GP_SELECT_INTERLEAVED_BYTES), word k
 * of row r holds items r * 512 + 128 k + 4 lane: the 32 lanes' words of
 * one (r, k) are 128 contiguous bytes, ranked in the warp as one run (a
 * field of 8 bits: at most 128 kept), so a store of the compaction puts a
 * byte of every lane within the run's kept and rejected bytes, some 64
 * each. Else a lane holds 16 contiguous items, ranked as rows<T, Items>.
 */
template <class T, int Items, bool Interleaved>
struct held_rows<T, Items, true, Interleaved> {
    static_assert(sizeof(T) == 1, "rows are held packed for 1-byte items only");
    using L = rows<T, Items>;
    static constexpr bool kInterleaved = Interleaved;
    static constexpr int kWordStride = kInterleaved ? 4 * kWarp : 4; /* items from word k to k + 1 */
    static constexpr int kLaneStride = kInterleaved ? 4 : 16;        /* from lane l to l + 1 */
    uint4 w[L::R];
    struct ranks {
        /* Interleaved: run (r, k)'s count before this lane in byte k of
         * before[r], the warp's in byte k of total[r]. Else as rows. */
        unsigned before[L::R], total[L::R];
    };
    /* Where word k of row r starts in the warp's segment. */
    __device__ static __forceinline__ int index(int r, int lane, int k)
    {
        return r * kWarp * 16 + k * kWordStride + lane * kLaneStride;
    }
    __device__ static __forceinline__ uint32_t word(const uint4 &v, int k)
    {
        return k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : v.w;
    }
    __device__ __forceinline__ T item(int r, int e) const { return (T)(word(w[r], e / 4) >> (8 * (e % 4))); }
    __device__ __forceinline__ void load_shared(const T *seg)
    {
        const int lane = threadIdx.x % kWarp;
#pragma unroll
        for (int r = 0; r < L::R; r++) {
            if constexpr (kInterleaved) {
                const uint32_t *at = reinterpret_cast<const uint32_t *>(seg + index(r, lane, 0));
                w[r] = make_uint4(at[0], at[kWarp], at[2 * kWarp], at[3 * kWarp]);
            } else {
                w[r] = *reinterpret_cast<const uint4 *>(seg + index(r, lane, 0));
            }
        }
    }
    /* mask[r] from nibble(i): the kept bits of the four items from i. */
    template <class Nibble>
    __device__ static __forceinline__ void masks_by_word(unsigned (&mask)[L::R], Nibble nibble)
    {
        const int lane = threadIdx.x % kWarp;
#pragma unroll
        for (int r = 0; r < L::R; r++) {
            unsigned m = 0;
#pragma unroll
            for (int k = 0; k < 4; k++) m |= nibble(index(r, lane, k)) << (4 * k);
            mask[r] = m;
        }
    }
    __device__ __forceinline__ void masks_from_bits(const uint32_t *b, unsigned (&mask)[L::R]) const
    {
        masks_by_word(mask, [b](int i) { return b[i / 32] >> (i % 32) & 0xfu; });
    }
    __device__ __forceinline__ void masks_from_flags(const uint8_t *f, unsigned (&mask)[L::R]) const
    {
        masks_by_word(mask, [f](int i) { return flag_mask<4, true>(f + i, true, 4); });
    }
    /* The one partial tile, a word at a time (64 items unpacked at once
     * would set the kernel's register count); missing items read as 0 and
     * are never kept. */
    template <bool ByFlags, bool FromBits = false>
    __device__ __forceinline__ void load_global(const select_params &p, int64_t seg_base, int64_t valid,
                                                unsigned (&mask)[L::R])
    {
        const int lane = threadIdx.x % kWarp;
        const T *seg = static_cast<const T *>(p.in) + seg_base;
#pragma unroll
        for (int r = 0; r < L::R; r++) {
            uint32_t v[4];
            unsigned m = 0;
#pragma unroll
            for (int k = 0; k < 4; k++) {
                const int at = index(r, lane, k);
                const int64_t left = valid - at;
                const int left_here = left < 0 ? 0 : left > 4 ? 4 : (int)left;
                if (p.aligned && left_here == 4) {
                    v[k] = *reinterpret_cast<const uint32_t *>(seg + at);
                } else {
                    v[k] = 0;
#pragma unroll
                    for (int b = 0; b < 4; b++)
                        if (b < left_here) v[k] |= (uint32_t)(uint8_t)seg[at + b] << (8 * b);
                }
                unsigned mk;
                if constexpr (FromBits) mk = bits_mask(p.bits, seg_base + at, left_here);
                else if constexpr (ByFlags) mk = flag_mask<4>(p.flags + seg_base + at, p.aligned, left_here);
                else mk = swar_row_mask<T>(make_uint4(v[k], 0, 0, 0), swar_range_of<T>(p)) & ((1u << left_here) - 1u);
                m |= mk << (4 * k);
            }
            w[r] = make_uint4(v[0], v[1], v[2], v[3]);
            mask[r] = m;
        }
    }
    __device__ __forceinline__ unsigned rank(const unsigned (&mask)[L::R], ranks &rk) const
    {
        if constexpr (!kInterleaved) return tile::warp_rank_rows<L::R, L::V>(mask, rk.before);
        const int lane = threadIdx.x % kWarp;
        unsigned count = 0;
#pragma unroll
        for (int r = 0; r < L::R; r++) {
            unsigned own = 0;
#pragma unroll
            for (int k = 0; k < 4; k++) own |= (unsigned)__popc(mask[r] >> (4 * k) & 0xfu) << (8 * k);
            const unsigned inc = tile::warp_inclusive<tile::op_sum>(own, lane); /* bytes never carry: <= 128 */
            rk.before[r] = inc - own;
            rk.total[r] = tile::shfl_idx(inc, kWarp - 1);
            const unsigned pairs = (rk.total[r] & 0x00ff00ffu) + (rk.total[r] >> 8 & 0x00ff00ffu);
            count += (pairs & 0xffffu) + (pairs >> 16); /* the sum of its bytes */
        }
        return count;
    }
    template <bool Partition>
    __device__ __forceinline__ void compact(T *stage, const unsigned (&mask)[L::R], unsigned warp_before,
                                            const ranks &rk, unsigned kept) const
    {
        if constexpr (!kInterleaved) {
            compact_rows<T, Partition, Items>(stage, *this, mask, warp_before, rk.before, kept);
            return;
        }
        const int warp = threadIdx.x / kWarp, lane = threadIdx.x % kWarp;
        unsigned carry = warp_before; /* kept in the tile before run (r, k) */
#pragma unroll
        for (int r = 0; r < L::R; r++) {
#pragma unroll
            for (int k = 0; k < 4; k++) {
                const unsigned rank = carry + (rk.before[r] >> (8 * k) & 0xffu);
                carry += rk.total[r] >> (8 * k) & 0xffu;
                const int pos = warp * L::kWarpItems + index(r, lane, k);
                T *to_kept = stage + rank;
                T *to_rejected = stage + kept + ((unsigned)pos - rank); /* rank <= pos */
                const uint32_t v = word(w[r], k);
#pragma unroll
                for (int b = 0; b < 4; b++) {
                    if (mask[r] >> (4 * k + b) & 1u) *to_kept++ = (T)(v >> (8 * b));
                    else if (Partition) *to_rejected++ = (T)(v >> (8 * b));
                }
            }
        }
    }
};

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

/* Wider where it pays, else wide where that pays, else narrow; a
 * partition runs in one pass on narrow tiles where it can, and where its
 * narrow tiles outnumber the blocks, on wide ones where those come one a
 * block, where only they can, or for 8-byte items wherever they fit
 * (GP_PARTITION_WIDE_ONE_PASS, _MIN_ITEM_BYTES). counted_first: a
 * partition counted first (by flags, the Bits kernels). */
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
    persistent_choice c;
    c.run = &wide_or_wider == &wider ? wider : lookback::narrow_or_wide(ctx, narrow, wide, a->n);
    c.tiles = lookback::tiles_of(c.run.tile, a->n);
    c.resident = resident_of(c.run);
    c.one_pass = false;
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
 * arena, whose size is a multiple of 32). */
size_t select_workspace(const gp_ctx *ctx, gp_dtype t, int64_t n)
{
    const unsigned long long tiles = tile_count(t, n);
    return tiles > 1 ? lookback::arena_bytes(tiles) + counted_first_bytes(ctx, t, n) : 0;
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
        uint8_t *after = static_cast<uint8_t *>(ws) + (ws ? lookback::arena_bytes(tiles) : 0);
        bool count_first = grouped && ws && (uintptr_t)after % 16 == 0 &&
                           partition_counts_first(ctx, a->t, a->n, by_flags);
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
