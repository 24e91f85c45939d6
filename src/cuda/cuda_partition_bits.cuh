/*
 * The bit kernels of a partition counted first (included by
 * cuda_select.cu, after cuda_select_kernel.cuh; the pipelined selection
 * and partition_prefixed_kernel stage their bits): flag_bits_kernel by flags,
 * compare_bits_kernel by comparison. Each writes the total kept and a bit
 * an item, and for partition_prefixed_kernel the kept items before each
 * of its ranges.
 */
#ifndef GP_CUDA_PARTITION_BITS_CUH
#define GP_CUDA_PARTITION_BITS_CUH

namespace gp_cuda {
namespace {

/*
 * A partition by flags, counted first (select_params::counted_first): counts
 * the nonzero flags into *count and leaves a bit an item in `bits` (bit j
 * of word w for item 32 w + j; the last word's bits past n are 0), so that
 * the partition's kernel stages an eighth of the flags' bytes and knows the
 * total from its start. The blocks' counts are combined as count_kernel's
 * are (finish_block_count), on the same ticket. flags 16-byte aligned.
 * compare_bits_kernel does the same for a partition of 1-byte items by
 * comparison (GP_PARTITION_IF_BITS), which then runs as one by flags.
 */
constexpr int kFlagBitsThreads = 256;
constexpr int kFlagBitsBlocksPerSm = 4; /* 4 x 256 threads x 64 bytes: 64 KiB of loads in flight an SM */

struct flag_bits_params {
    const uint8_t *flags;
    int64_t n;
    uint32_t *bits;
    unsigned long long *partials; /* a slot a block */
    unsigned *ticket;             /* 0 between launches */
    int64_t *count;
    /* Or NULL: the kept items before each range of range_tiles tiles of
     * kPrefixTileWords words (wider 1-byte tiles), for
     * partition_prefixed_kernel; then block b counts range b, and the
     * last one scans the ranges' counts. */
    unsigned long long *before;
    unsigned long long range_tiles;
};
constexpr int kPrefixTileWords = (int)(select_wider_tile(1) / 32);
static_assert(kPrefixTileWords == 0 || kPrefixTileWords % kFlagBitsThreads == 0,
              "a prefixed tile is whole words of every thread");

/* With p.before, by comparison of 4- or 8-byte items: the block walks
 * its range from the end down, this many words at a time, so that the
 * words left in L2 are the first that partition_prefixed_kernel reads
 * again (0: in order). GP_PARTITION_IF_REREAD_STEP_BYTES of items in
 * whole block strides, at least one: two for 4-byte items, one for
 * 8-byte. 1-byte items (bits_and_count_any) keep the order: the walk
 * down read 3-4% slower at 8 to 32 MiB of them (round 68, H200: 2^24
 * 24.1 us against 23.0), where the 60 MiB L2 may hold the whole input
 * either way (a guess; not counted). */
template <class T>
constexpr int64_t reread_step_words()
{
    constexpr int64_t stride_bytes = (int64_t)kFlagBitsThreads * 32 * sizeof(T);
    constexpr int64_t strides = GP_PARTITION_IF_REREAD_STEP_BYTES / stride_bytes;
    if (GP_PARTITION_IF_REREAD_STEP_BYTES <= 0) return 0;
    return (strides < 1 ? 1 : strides) * kFlagBitsThreads;
}
struct compare_bits_params {
    flag_bits_params b; /* b.flags: the items */
    unsigned long long lo_bits, hi_bits;
    int negate; /* as select_params' */
};

/* Whether item i is kept, for the last n % 32 items. */
__device__ __forceinline__ bool flag_kept(const flag_bits_params &p, int64_t i) { return p.flags[i] != 0; }
template <class T>
__device__ __forceinline__ bool compare_kept(const compare_bits_params &p, int64_t i)
{
    if constexpr (sizeof(T) == 1) {
        const uint4 one = make_uint4((uint32_t)p.b.flags[i], 0u, 0u, 0u);
        return swar_row_mask<T>(one, swar_range_of<T>(p.lo_bits, p.hi_bits, p.negate != 0)) & 1u;
    } else {
        const T x[1] = {reinterpret_cast<const T *>(p.b.flags)[i]};
        return compare_mask<T, 1>(x, tile::from_low_bits<T>(p.lo_bits),
                                  tile::from_low_bits<T>(p.hi_bits), p.negate != 0, 1) & 1u;
    }
}

/* The bits of the last, partial word (n % 32 items; bits past n are 0). */
template <class Kept>
__device__ __forceinline__ uint32_t partial_word_bits(const flag_bits_params &p, Kept kept)
{
    const int64_t first = p.n / 32 * 32;
    uint32_t m = 0;
    for (int j = 0; j < (int)(p.n % 32); j++) m |= (uint32_t)kept(first + j) << j;
    return m;
}

#ifndef GP_CUDA_EMULATE
/* Writes the bits of words w, w + stride, ... while two of them lie below
 * end, two a round (four 16-byte loads in flight), and returns their
 * count; w is left at the first word not written. */
template <class Word>
__device__ __forceinline__ unsigned long long write_word_pairs(const flag_bits_params &p, Word word, int64_t &w,
                                                               int64_t end, int64_t stride)
{
    unsigned long long c = 0;
    for (; w + stride < end; w += 2 * stride) {
        const uint32_t m0 = word(w), m1 = word(w + stride);
        p.bits[w] = m0;
        p.bits[w + stride] = m1;
        c += (unsigned)(__popc(m0) + __popc(m1));
    }
    return c;
}

/* Both kernels' body: word(w) gives the bits of items 32 w to 32 w + 31,
 * kept(i) one of the last n % 32. */
template <class Word, class Kept>
__device__ __forceinline__ void bits_and_count(const flag_bits_params &p, Word word, Kept kept)
{
    if (GP_COUNT_FIRST_OVERLAP) grid_dependency::let_dependents_start(); /* the partition's grid may start */
    const int64_t words = p.n / 32, stride = (int64_t)gridDim.x * kFlagBitsThreads;
    int64_t w = (int64_t)blockIdx.x * kFlagBitsThreads + threadIdx.x;
    unsigned long long c = write_word_pairs(p, word, w, words, stride);
    if (w < words) {
        const uint32_t m = word(w);
        p.bits[w] = m;
        c += (unsigned)__popc(m);
    }
    if (blockIdx.x == 0 && threadIdx.x == 0 && p.n % 32 != 0) { /* the partial tile reads these bits too */
        const uint32_t m = partial_word_bits(p, kept);
        p.bits[words] = m;
        c += (unsigned)__popc(m);
    }
    finish_block_count<kFlagBitsThreads>(c, p.partials, p.ticket, p.count, p.n < (1LL << 32));
}

/*
 * bits_and_count for partition_prefixed_kernel (p.before): block b takes
 * the range of range_tiles wider tiles from tile b * range_tiles, its
 * words with a stride of the block (`whole`, then a word a thread), from
 * the range's end down in steps of StepWords where it is not 0, and writes
 * the range's count to before[b]; the grid is one block a range. The
 * block that finishes last, after the others' counts (each fenced before
 * its ticket), scans them into the count before each range and writes
 * the total. By tile, with a block barrier a tile and a last block
 * scanning 16384 counts at 2^28 items, this kernel took 124 us against
 * 102 by stride (H100). Two or four blocks a range, each counting a
 * piece of it, were level at int64 2^22 and 3-8% slower from 2^24 (H200,
 * docs/perf/scan.md, round 69): L2 kept every piece's first words.
 */
template <int64_t StepWords, class Word, class Kept, class Whole>
__device__ __forceinline__ void bits_and_count_ranges(const flag_bits_params &p, Word word, Kept kept, Whole whole)
{
    constexpr int kWarps = kFlagBitsThreads / kWarp, kScanPerThread = 4;
    if (GP_COUNT_FIRST_OVERLAP) grid_dependency::let_dependents_start();
    const int64_t words = p.n / 32, all_words = (p.n + 31) / 32;
    const int64_t range_words = (int64_t)p.range_tiles * kPrefixTileWords;
    const int64_t from = (int64_t)blockIdx.x * range_words;
    const int64_t end = from + range_words < all_words ? from + range_words : all_words;
    unsigned long long c = 0;
    auto words_of = [&](int64_t first, int64_t last) { /* [first, last) */
        int64_t w = first + threadIdx.x;
        c += whole(w, last < words ? last : words); /* the whole words it can, w left at the first not written */
        for (; w < last; w += kFlagBitsThreads) {
            const uint32_t m = w < words ? word(w) : partial_word_bits(p, kept);
            p.bits[w] = m;
            c += (unsigned)__popc(m);
        }
    };
    if constexpr (StepWords > 0) /* whole steps down from the end, the last one partial */
        for (int64_t top = end; top > from; top -= StepWords)
            words_of(top - StepWords > from ? top - StepWords : from, top);
    else words_of(from, end);
    c = block_reduce<sum_op, kFlagBitsThreads>(c);
    __shared__ bool last;
    if (threadIdx.x == 0) {
        p.before[blockIdx.x] = c;
        __threadfence(); /* the range's count is visible before the ticket is */
        last = atomicAdd(p.ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads(); /* also orders block_reduce's shared slots for the scan */
    if (!last) return;
    __threadfence();
    /* Exclusive scan of before[0, grid), kScanPerThread counts a thread a
     * round: one round up to 1024 blocks. */
    __shared__ unsigned long long totals[2][kWarps]; /* by parity: one barrier a round */
    const int lane = threadIdx.x % kWarp;
    unsigned long long carry = 0;
    unsigned round = 0;
    for (int64_t base = 0; base < gridDim.x; base += (int64_t)kFlagBitsThreads * kScanPerThread, round++) {
        const int64_t at = base + (int64_t)threadIdx.x * kScanPerThread;
        unsigned long long v[kScanPerThread], own = 0;
#pragma unroll
        for (int e = 0; e < kScanPerThread; e++) {
            v[e] = at + e < gridDim.x ? __ldcg(p.before + at + e) : 0ull;
            own += v[e];
        }
        const unsigned long long inc = tile::warp_inclusive<tile::op_sum>(own, lane);
        unsigned long long warp_prefix, round_total;
        tile::block_combine<tile::op_sum, unsigned long long, kWarps>(tile::shfl_idx(inc, kWarp - 1),
                                                                      totals[round & 1], warp_prefix, round_total);
        unsigned long long run = carry + warp_prefix + inc - own;
#pragma unroll
        for (int e = 0; e < kScanPerThread; e++)
            if (at + e < gridDim.x) {
                p.before[at + e] = run;
                run += v[e];
            }
        carry += round_total;
    }
    if (threadIdx.x == 0) {
        *p.count = (int64_t)carry;
        *p.ticket = 0;
    }
}

/* Both bit kernels of 1-byte items: Ranges (p.before set), by ranges
 * (bits_and_count_ranges, each in order); else by stride. Kernels of their
 * own: the stride kernels keep their code and registers (36, 32; a first
 * form behind a runtime test took 48). */
template <bool Ranges, class Word, class Kept>
__device__ __forceinline__ void bits_and_count_any(const flag_bits_params &p, Word word, Kept kept)
{
    if constexpr (Ranges && kPrefixTileWords > 0)
        bits_and_count_ranges<0>(p, word, kept, [&p, word](int64_t &w, int64_t end) {
            return write_word_pairs(p, word, w, end, kFlagBitsThreads);
        });
    else bits_and_count(p, word, kept);
}

template <bool Ranges>
__global__ void __launch_bounds__(kFlagBitsThreads) flag_bits_kernel(const __grid_constant__ flag_bits_params p)
{
    const uint4 *f = reinterpret_cast<const uint4 *>(p.flags);
    bits_and_count_any<Ranges>(
        p, [f](int64_t w) { return nonzero_bits(load_stream<0>(f + 2 * w)) | nonzero_bits(load_stream<0>(f + 2 * w + 1)) << 16; },
        [&p](int64_t i) { return flag_kept(p, i); });
}

/* Wider items (GP_PARTITION_IF_PREFIXED_WIDE): word w's 32 items, 2 x
 * sizeof(T) 16-byte loads of one thread, compared as select_kernel
 * compares. Only for the few words past the last whole warp group. */
template <class T>
__device__ __forceinline__ uint32_t compare_word(const uint4 *x, int64_t w, T lo, T hi, bool negate)
{
    constexpr int kLoads = 2 * (int)sizeof(T), kPer = 16 / (int)sizeof(T);
    uint32_t m = 0;
#pragma unroll
    for (int k = 0; k < kLoads; k++) {
        const uint4 v = load_stream<0>(x + kLoads * w + k);
        T items[kPer];
        memcpy(items, &v, sizeof v);
        m |= compare_mask<T, kPer>(items, lo, hi, negate, kPer) << (kPer * k);
    }
    return m;
}

/* The words w0 to w0 + 31, one a lane (lane L's is w0 + L), read by the
 * warp together: load k of lane j is the group's 16 bytes k * 32 + j, so
 * each load is 512 contiguous bytes. A thread reading its own word's 128
 * or 256 contiguous bytes left 32 lines a load in flight, and the
 * partition by comparison counted that way lost to gp_count_if's count
 * from 2^24 int32 and at every size of int64 (docs/perf/scan.md, round
 * 65). Load k's kPer bits of lane j belong to word k * kPer + j / kSpan at
 * bit (j % kSpan) * kPer: each lane packs its loads' bits (32 of them) and
 * gathers its word's kSpan fields from the lanes that hold them. */
template <class T>
__device__ __forceinline__ uint32_t compare_words_warp(const uint4 *x, int64_t w0, int lane, T lo, T hi, bool negate)
{
    constexpr int kLoads = 2 * (int)sizeof(T), kPer = 16 / (int)sizeof(T), kSpan = kWarp / kPer;
    static_assert(kLoads * kPer == 32 && kSpan * kPer == kWarp, "a lane packs 32 bits; a word spans kSpan lanes");
    const uint4 *g = x + (int64_t)kLoads * w0 + lane;
    uint4 v[kLoads];
#pragma unroll
    for (int k = 0; k < kLoads; k++) v[k] = load_stream<0>(g + k * kWarp);
    uint32_t packed = 0;
#pragma unroll
    for (int k = 0; k < kLoads; k++) {
        T items[kPer];
        memcpy(items, &v[k], sizeof v[k]);
        packed |= compare_mask<T, kPer>(items, lo, hi, negate, kPer) << (kPer * k);
    }
    const int k = lane / kPer, from = (lane % kPer) * kSpan;
    uint32_t m = 0;
#pragma unroll
    for (int s = 0; s < kSpan; s++)
        m |= ((tile::shfl_idx(packed, from + s) >> (kPer * k)) & ((1u << kPer) - 1)) << (kPer * s);
    return m;
}

template <class T, bool Ranges>
__global__ void __launch_bounds__(kFlagBitsThreads) compare_bits_kernel(const __grid_constant__ compare_bits_params p)
{
    const uint4 *x = reinterpret_cast<const uint4 *>(p.b.flags);
    if constexpr (sizeof(T) > 1) {
        const T lo = tile::from_low_bits<T>(p.lo_bits), hi = tile::from_low_bits<T>(p.hi_bits);
        const bool negate = p.negate != 0;
        static_assert(Ranges && kPrefixTileWords > 0, "wider items take bits only for the prefixed kernel");
        const flag_bits_params &b = p.b;
        /* Whole warp groups while the warp's first word w - lane has 32 below end (uniform in the warp). */
        auto whole = [&b, x, lo, hi, negate](int64_t &w, int64_t end) {
            const int lane = (int)(threadIdx.x % kWarp);
            unsigned long long c = 0;
            for (; w - lane + kWarp <= end; w += kFlagBitsThreads) {
                const uint32_t m = compare_words_warp<T>(x, w - lane, lane, lo, hi, negate);
                b.bits[w] = m;
                c += (unsigned)__popc(m);
            }
            return c;
        };
        bits_and_count_ranges<reread_step_words<T>()>(
            b, [x, lo, hi, negate](int64_t w) { return compare_word<T>(x, w, lo, hi, negate); },
            [&p](int64_t i) { return compare_kept<T>(p, i); }, whole);
    } else {
        const swar_range c = swar_range_of<T>(p.lo_bits, p.hi_bits, p.negate != 0);
        with_swar_sides(c, [&](auto sides) {
            bits_and_count_any<Ranges>(
                p.b,
                [x, c](int64_t w) {
                    return swar_row_mask<T, decltype(sides)::value>(load_stream<0>(x + 2 * w), c) |
                           swar_row_mask<T, decltype(sides)::value>(load_stream<0>(x + 2 * w + 1), c) << 16;
                },
                [&p](int64_t i) { return compare_kept<T>(p, i); });
        });
    }
}
#else
/* The CPU emulation (tests/emu) checks the partition's kernel, not these:
 * one thread writes what they would, serially (grid 1, flag_bits_grid). */
template <class Kept>
void bits_and_count(const flag_bits_params &p, Kept kept)
{
    if (threadIdx.x != 0) return;
    int64_t c = 0;
    const int64_t range_items = 32 * kPrefixTileWords * (int64_t)p.range_tiles; /* 0 without p.before */
    for (int64_t i = 0; i < p.n; i++) {
        const bool k = kept(i);
        if (p.before && i % range_items == 0) p.before[i / range_items] = (unsigned long long)c;
        c += k;
        if (i % 32 == 0) p.bits[i / 32] = 0;
        p.bits[i / 32] |= (uint32_t)k << (i % 32);
    }
    *p.count = c;
}
template <bool Ranges>
void flag_bits_kernel(const flag_bits_params p)
{
    bits_and_count(p, [&p](int64_t i) { return flag_kept(p, i); });
}
template <class T, bool Ranges>
void compare_bits_kernel(const compare_bits_params p)
{
    bits_and_count(p.b, [&p](int64_t i) { return compare_kept<T>(p, i); });
}
#endif

} // namespace
} // namespace gp_cuda

#endif
