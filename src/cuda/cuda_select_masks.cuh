/*
 * Which items a selection's tile keeps (included by cuda_select.cu, first):
 * the kernels' parameters (select_params); the kept masks from flag bytes,
 * from a comparison turned into a range, a word at a time for 1- and 2-byte
 * items (SWAR), and from the bits a partition counted first left.
 */
#ifndef GP_CUDA_SELECT_MASKS_CUH
#define GP_CUDA_SELECT_MASKS_CUH

namespace gp_cuda {
namespace {

using tile::rows;

/* --------------------------------------------------- the kernels' parameters */

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
    /* A partition counted first (count_before, cuda_select.cu): the total is already in *count,
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
 * cuda_select.cu), so an element costs two compares and no branch; a
 * switch on the comparison per element compiled to an indirect jump each,
 * and u8 select-if ran slower than u8 select by flags, which reads twice
 * the bytes (docs/perf/scan.md, round 20). A NaN is in no range: kept only
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

/* ---------------------------------------------------------------- kept masks */

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

} // namespace
} // namespace gp_cuda

#endif /* GP_CUDA_SELECT_MASKS_CUH */
