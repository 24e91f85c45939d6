/*
 * Scans of 1- and 2-byte items kept packed, four or two to a 32-bit word
 * (included by cuda_scan_pipelined.cuh).
 *
 * Why. A 1-byte scan in the row layout widens every byte into a register of
 * its own: unpack on the load, combine, pack to park the tile-local scan,
 * unpack it again, combine the prefix, pack to store. At 2^28 u8 that was
 * ~15 instructions a byte and 66-71% of the copy, with half the SM's issue
 * slots busy. For sums (mod 2^8 or 2^16: the output is the item's size),
 * the bitwise ops, min and max the lanes of a word combine in place: an
 * in-word scan is one or two shifted combines, a row of 16 bytes four
 * words chained by their top lane, and the prefix one broadcast lane
 * combined into every word. The tile then costs registers a quarter (a
 * half) as large, so it can be wider.
 *
 * A packed row is the 16-byte vector a lane holds in tile::rows<In, Items>:
 * word k holds elements kL..kL+L-1 (L lanes a word), the first in its low
 * bits.
 */
#ifndef GP_CUDA_SCAN_BYTES_CUH
#define GP_CUDA_SCAN_BYTES_CUH

#include <limits>

#include "cuda_tile.cuh"

namespace gp_cuda {
namespace bytes {

/* The lanes of a word for items of type In: their bits, a lane of ones
 * (the multiplier that broadcasts one lane), and every lane's top bit. */
template <class In> struct width {
    static_assert(sizeof(In) == 1 || sizeof(In) == 2, "lanes of 1 or 2 bytes");
    static constexpr int kBits = 8 * (int)sizeof(In);
    static constexpr uint32_t kLane = sizeof(In) == 1 ? 0xffu : 0xffffu;
    static constexpr uint32_t kOnes = sizeof(In) == 1 ? 0x01010101u : 0x00010001u;
    static constexpr uint32_t kTops = sizeof(In) == 1 ? 0x80808080u : 0x80008000u;
};

/* Lanes of type In combined lane by lane. The sum adds each lane's bits
 * below its top, which cannot carry out of it, then sets each top bit to
 * the sum of the two top bits and the carry into it (a ^ b ^ carry); sums
 * and the bitwise ops are the same for either signedness, min and max are
 * not (the SIMD intrinsics of each). kIdentity: one lane's identity. */
template <class Op, class In, class = void> struct lanes;
template <class In> struct lanes<tile::op_sum, In> {
    static constexpr uint32_t kIdentity = 0;
    __device__ static __forceinline__ uint32_t combine(uint32_t a, uint32_t b)
    {
        constexpr uint32_t t = width<In>::kTops;
        return ((a & ~t) + (b & ~t)) ^ ((a ^ b) & t);
    }
};
template <class In> struct lanes<tile::op_xor, In> {
    static constexpr uint32_t kIdentity = 0;
    __device__ static __forceinline__ uint32_t combine(uint32_t a, uint32_t b) { return a ^ b; }
};
template <class In> struct lanes<tile::op_or, In> {
    static constexpr uint32_t kIdentity = 0;
    __device__ static __forceinline__ uint32_t combine(uint32_t a, uint32_t b) { return a | b; }
};
template <class In> struct lanes<tile::op_and, In> {
    static constexpr uint32_t kIdentity = width<In>::kLane;
    __device__ static __forceinline__ uint32_t combine(uint32_t a, uint32_t b) { return a & b; }
};
#if GP_SCAN_PACKED_MINMAX
/* Min and max of 1- and 2-byte integers: the SIMD intrinsic of the lane's
 * size and signedness, and the type's lowest (max) or highest (min) value
 * as the identity. */
template <class In, bool Max>
struct minmax_lanes {
    using lim = std::numeric_limits<In>;
    static constexpr uint32_t kIdentity = static_cast<std::make_unsigned_t<In>>(Max ? lim::lowest() : lim::max());
    __device__ static __forceinline__ uint32_t combine(uint32_t a, uint32_t b)
    {
        constexpr bool s = std::is_signed_v<In>;
        if constexpr (sizeof(In) == 1 && Max) return s ? __vmaxs4(a, b) : __vmaxu4(a, b);
        else if constexpr (sizeof(In) == 1) return s ? __vmins4(a, b) : __vminu4(a, b);
        else if constexpr (Max) return s ? __vmaxs2(a, b) : __vmaxu2(a, b);
        else return s ? __vmins2(a, b) : __vminu2(a, b);
    }
};
template <class In>
using small_integer = std::enable_if_t<std::is_integral_v<In> && sizeof(In) <= 2>;
template <class In> struct lanes<tile::op_max, In, small_integer<In>> : minmax_lanes<In, true> {};
template <class In> struct lanes<tile::op_min, In, small_integer<In>> : minmax_lanes<In, false> {};
#endif

template <class Op, class In, class = void> struct packs : std::false_type {};
template <class Op, class In>
struct packs<Op, In, std::void_t<decltype(lanes<Op, In>::kIdentity)>> : std::true_type {};

/* Whether a scan runs packed: inputs and outputs of 1 byte (2 with
 * GP_SCAN_PACKED_HALVES), an op above. */
template <class In, class S, class Op>
constexpr bool packed_scan =
    std::conjunction_v<std::bool_constant<GP_SCAN_PACKED_BYTES && sizeof(In) == sizeof(S) &&
                                          (sizeof(In) == 1 || (sizeof(In) == 2 && GP_SCAN_PACKED_HALVES))>,
                       packs<Op, In>>; /* wider items never look at their lanes */

/* Whether the kernel of a tier (narrow or wide tiles) runs packed. On
 * narrow tiles 2-byte sums ran 6-8% slower packed at 2^22-2^24, min and
 * max as fast or faster (docs/perf/scan.md, round 48): there only min and
 * max pack, and the bitwise ops stay as they were. */
template <class In, class S, class Op, bool Wide>
constexpr bool packed_kernel = packed_scan<In, S, Op> && (sizeof(In) == 1 || Wide || std::is_same_v<Op, tile::op_min> ||
                                                          std::is_same_v<Op, tile::op_max>);

/* One lane's value in every lane of a word. */
template <class In>
__device__ __forceinline__ uint32_t splat(uint32_t lane)
{
    return (lane & width<In>::kLane) * width<In>::kOnes;
}

/* The word's top lane, as the low bits of a word. */
template <class In>
__device__ __forceinline__ uint32_t top(uint32_t w)
{
    return w >> (32 - width<In>::kBits);
}

/* The word's lanes scanned in place (lane j = lanes 0..j combined). */
template <class Op, class In>
__device__ __forceinline__ uint32_t scan_word(uint32_t w)
{
    using W = lanes<Op, In>;
    constexpr uint32_t ids = W::kIdentity * width<In>::kOnes;
#pragma unroll
    for (int s = width<In>::kBits; s < 32; s *= 2) w = W::combine(w, w << s | (ids & ((1u << s) - 1)));
    return w;
}

/*
 * 1-byte min and max through 16-bit lanes. sm_90 takes the min or max of
 * two 16-bit lanes in one instruction (max.u16x2: __vmaxu2 and the like)
 * but has none for four bytes: __vmaxu4 is some six instructions, and a
 * packed max scan spent about 30 of them a word, its time 1.5 times the
 * sum's. Split, a word's even bytes (0, 2) and its odd ones (1, 3) each
 * widen into a word of two 16-bit lanes (a byte permute each; i8
 * sign-extended, so the signed 16-bit op orders them), combine there, and
 * merge back by one permute. In-word steps need no identity: min and max
 * are idempotent, so a lane that has nothing before it combines with
 * itself.
 */
template <class Op, class In>
constexpr bool split_minmax = GP_SCAN_SPLIT_MINMAX && GP_SCAN_PACKED_MINMAX && sizeof(In) == 1 &&
                              (std::is_same_v<Op, tile::op_min> || std::is_same_v<Op, tile::op_max>);

/* prmt with its selector's sign bit honoured (bit 3 of a nibble: the
 * selected byte's sign in every bit), which __byte_perm leaves out. */
template <uint32_t Sel>
__device__ __forceinline__ uint32_t permute(uint32_t x, uint32_t y)
{
#ifdef GP_CUDA_EMULATE
    const unsigned long long both = (unsigned long long)y << 32 | x;
    uint32_t r = 0;
    for (int i = 0; i < 4; i++) {
        const uint32_t sel = Sel >> 4 * i & 0xfu, b = (uint32_t)(both >> 8 * (sel & 7u)) & 0xffu;
        r |= (sel & 8u ? (b & 0x80u ? 0xffu : 0u) : b) << 8 * i;
    }
    return r;
#else
    uint32_t r;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "n"(Sel));
    return r;
#endif
}

template <class Op, class In>
struct split_lanes {
    static constexpr bool kSigned = std::is_signed<In>::value;
    using Half = std::conditional_t<kSigned, int16_t, uint16_t>;
    /* Selectors: bytes 0 and 2 into the low bytes of 16-bit lanes, bytes
     * 1 and 3 likewise, byte 0 into both lanes; the high byte of a lane
     * zero (selector 4: y's byte 0, y = 0) or the sign (8 + the byte). */
    static constexpr uint32_t kEven = kSigned ? 0xa280u : 0x4240u, kOdd = kSigned ? 0xb391u : 0x4341u,
                              kLow = kSigned ? 0x8080u : 0x4040u;
    __device__ static __forceinline__ uint32_t combine(uint32_t a, uint32_t b) { return lanes<Op, Half>::combine(a, b); }
    /* Even and odd lanes back into a word of bytes: e0 o0 e2 o2. */
    __device__ static __forceinline__ uint32_t merge(uint32_t even, uint32_t odd)
    {
        return __byte_perm(even, odd, 0x6240);
    }
};

template <class Op, class In>
__device__ __forceinline__ uint32_t scan_row_split(uint4 &v)
{
    using S = split_lanes<Op, In>;
    uint32_t w[4] = {v.x, v.y, v.z, v.w}, carry = 0;
#pragma unroll
    for (int k = 0; k < 4; k++) {
        uint32_t even = permute<S::kEven>(w[k], 0), odd = permute<S::kOdd>(w[k], 0);
        odd = S::combine(odd, even);                                /* bytes 0-1, 2-3 */
        even = S::combine(even, __byte_perm(odd, even, 0x1054));    /* byte 0; bytes 0-2 */
        odd = S::combine(odd, __byte_perm(odd, 0, 0x1010));         /* bytes 0-1, 0-3 */
        if (k > 0) even = S::combine(even, carry), odd = S::combine(odd, carry);
        carry = __byte_perm(odd, 0, 0x3232); /* the word's last lane in both lanes */
        w[k] = S::merge(even, odd);
    }
    v = make_uint4(w[0], w[1], w[2], w[3]);
    return top<In>(v.w);
}

template <class Op, class In>
__device__ __forceinline__ void apply_row_split(uint32_t before, uint4 &v)
{
    using S = split_lanes<Op, In>;
    const uint32_t q = permute<S::kLow>(before, 0);
    uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int k = 0; k < 4; k++)
        w[k] = S::merge(S::combine(permute<S::kEven>(w[k], 0), q), S::combine(permute<S::kOdd>(w[k], 0), q));
    v = make_uint4(w[0], w[1], w[2], w[3]);
}

/* A row scanned in place; returns its last lane, the row's total. */
template <class Op, class In>
__device__ __forceinline__ uint32_t scan_row(uint4 &v)
{
    if constexpr (split_minmax<Op, In>) return scan_row_split<Op, In>(v);
    using W = lanes<Op, In>;
    v.x = scan_word<Op, In>(v.x);
    v.y = W::combine(splat<In>(top<In>(v.x)), scan_word<Op, In>(v.y));
    v.z = W::combine(splat<In>(top<In>(v.y)), scan_word<Op, In>(v.z));
    v.w = W::combine(splat<In>(top<In>(v.z)), scan_word<Op, In>(v.w));
    return top<In>(v.w);
}

/* Every lane of the row combined after `before` (its low lane). */
template <class Op, class In>
__device__ __forceinline__ void apply_row(uint32_t before, uint4 &v)
{
    if constexpr (split_minmax<Op, In>) return apply_row_split<Op, In>(before, v);
    using W = lanes<Op, In>;
    const uint32_t q = splat<In>(before);
    v.x = W::combine(q, v.x);
    v.y = W::combine(q, v.y);
    v.z = W::combine(q, v.z);
    v.w = W::combine(q, v.w);
}

/* An inclusive row scan made exclusive: every lane moves up one place and
 * the first becomes the identity. */
template <class Op, class In>
__device__ __forceinline__ void shift_row(uint4 &v)
{
    constexpr int b = width<In>::kBits;
    v.w = v.w << b | v.z >> (32 - b);
    v.z = v.z << b | v.y >> (32 - b);
    v.y = v.y << b | v.x >> (32 - b);
    v.x = v.x << b | lanes<Op, In>::kIdentity;
}

/*
 * Sums by dot products. dp4a(w, m, c) adds to c the bytes of w that mask m
 * selects (m's bytes 0 or 1), so against the masks of the bytes up to each
 * one it gives all four running sums of a word from a carry at once, four
 * independent instructions, and three byte permutes gather their low
 * bytes: 7 instructions a word, where the lane-wise adds take some 14
 * before the carry is added, and the carry (the sum of every byte before
 * the row) comes in without a pass of its own. So a packed sum first takes
 * only its rows' totals and scans each row once, when its carry is known.
 */
template <class Op, class In>
constexpr bool dot_sums = GP_SCAN_BYTES_DP4A && sizeof(In) == 1 && std::is_same_v<Op, tile::op_sum>;

/* Word w's bytes summed in order after `carry` (its low byte counts):
 * inclusive, each byte with those before it; exclusive, those before it
 * only. carry becomes carry plus the word's four bytes. */
template <bool Exclusive>
__device__ __forceinline__ uint32_t sum_word(uint32_t w, uint32_t &carry)
{
    const uint32_t c = carry;
    const uint32_t s1 = __dp4a(w, 0x00000001u, c), s2 = __dp4a(w, 0x00000101u, c), s3 = __dp4a(w, 0x00010101u, c);
    carry = __dp4a(w, 0x01010101u, c);
    /* Selector 0x0040: byte 0 of the first word, then byte 0 of the second;
     * 0x5410: the low halves of both. */
    const uint32_t lo = Exclusive ? __byte_perm(c, s1, 0x0040) : __byte_perm(s1, s2, 0x0040);
    const uint32_t hi = Exclusive ? __byte_perm(s2, s3, 0x0040) : __byte_perm(s3, carry, 0x0040);
    return __byte_perm(lo, hi, 0x5410);
}

template <bool Exclusive>
__device__ __forceinline__ void sum_row(uint32_t carry, uint4 &v)
{
    v.x = sum_word<Exclusive>(v.x, carry);
    v.y = sum_word<Exclusive>(v.y, carry);
    v.z = sum_word<Exclusive>(v.z, carry);
    v.w = sum_word<Exclusive>(v.w, carry);
}

/* tile::warp_scan_rows for packed rows: v[r] becomes the thread-local
 * inclusive scan (dot_sums: stays as loaded, for finish_rows), lane_prefix[r]
 * the combination of the segment before the thread's row r. Returns the
 * segment's total on every lane. */
template <class Op, class In, class A, int R>
__device__ __forceinline__ A warp_scan_rows(uint4 (&v)[R], A (&lane_prefix)[R])
{
    A carry = Op::template identity<A>();
#pragma unroll
    for (int r = 0; r < R; r++) {
        uint32_t own;
        if constexpr (dot_sums<Op, In>) {
            own = __dp4a(v[r].x, 0x01010101u, 0u) + __dp4a(v[r].y, 0x01010101u, 0u);
            own = __dp4a(v[r].z, 0x01010101u, own);
            own = __dp4a(v[r].w, 0x01010101u, own);
        } else {
            own = static_cast<uint32_t>(static_cast<In>(scan_row<Op, In>(v[r]))); /* an int8_t's sign */
        }
        carry = tile::chain_row<Op>(static_cast<A>(own), carry, lane_prefix[r]);
    }
    return carry;
}

/* tile::finish_rows for packed rows. */
template <class Op, class In, class A, int R>
__device__ __forceinline__ void finish_rows(A base, const A (&lane_prefix)[R], bool exclusive, uint4 (&v)[R])
{
#pragma unroll
    for (int r = 0; r < R; r++) {
        const uint32_t before = static_cast<uint32_t>(Op::apply(base, lane_prefix[r]));
        if constexpr (dot_sums<Op, In>) {
            if (exclusive) sum_row<true>(before, v[r]);
            else sum_row<false>(before, v[r]);
        } else {
            if (exclusive) shift_row<Op, In>(v[r]);
            apply_row<Op, In>(before, v[r]);
        }
    }
}

/* A segment's rows from global memory where only `valid` of its elements
 * exist (a tile's last), the rest the identity; and stored back. Items one
 * at a time, in the row layout: rare, so short code over fast code (128
 * widened bytes a thread spilled). */
template <class Op, class In, int R>
__device__ __forceinline__ void load_rows_partial(const In *seg, int64_t valid, uint4 (&v)[R])
{
    using L = tile::rows<In, 16 / (int)sizeof(In) * R>;
    const int lane = threadIdx.x % kWarp;
#pragma unroll
    for (int r = 0; r < R; r++) {
        tile::vec16<In> b;
#pragma unroll
        for (int e = 0; e < L::V; e++) {
            const int i = L::index(r, lane, e);
            b.e[e] = i < valid ? seg[i] : (In)lanes<Op, In>::kIdentity;
        }
        v[r] = b.u;
    }
}
template <class In, int R>
__device__ __forceinline__ void store_rows_partial(In *seg, int64_t valid, const uint4 (&v)[R])
{
    using L = tile::rows<In, 16 / (int)sizeof(In) * R>;
    const int lane = threadIdx.x % kWarp;
#pragma unroll
    for (int r = 0; r < R; r++) {
        tile::vec16<In> b;
        b.u = v[r];
#pragma unroll
        for (int e = 0; e < L::V; e++) {
            const int i = L::index(r, lane, e);
            if (i < valid) seg[i] = b.e[e];
        }
    }
}

} // namespace bytes
} // namespace gp_cuda

#endif
