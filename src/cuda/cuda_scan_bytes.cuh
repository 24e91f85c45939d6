/*
 * Scans of 1-byte items kept packed, four to a 32-bit word (included by
 * cuda_scan_pipelined.cuh).
 *
 * Why. A 1-byte scan in the row layout widens every byte into a register of
 * its own: unpack on the load, combine, pack to park the tile-local scan,
 * unpack it again, combine the prefix, pack to store. At 2^28 u8 that was
 * ~15 instructions a byte and 66-71% of the copy, with half the SM's issue
 * slots busy. For sums (mod 256: the output is one byte), the bitwise ops,
 * min and max the bytes of a word combine in place: an in-word scan is two shifted
 * combines, a row of 16 bytes four words chained by their top byte, and the
 * prefix one broadcast byte combined into every word. The tile then costs
 * registers a quarter as large, so it can be four times as wide.
 *
 * A packed row is the 16-byte vector a lane holds in tile::rows<uint8_t,
 * Items>: word k holds elements 4k..4k+3, element 4k in its low byte.
 */
#ifndef GP_CUDA_SCAN_BYTES_CUH
#define GP_CUDA_SCAN_BYTES_CUH

#include "cuda_tile.cuh"

namespace gp_cuda {
namespace bytes {

/* Four bytes of type In (uint8_t or int8_t) combined lane by lane. The
 * sum adds the low seven bits of each byte, which cannot carry out of it,
 * then sets each top bit to the sum of the two top bits and the carry into
 * it (a ^ b ^ carry); sums and the bitwise ops are the same for either
 * signedness, min and max are not (the SIMD intrinsics of each). */
template <class Op, class In> struct lanes;
template <class In> struct lanes<tile::op_sum, In> {
    static constexpr uint32_t kIdentityByte = 0;
    __device__ static __forceinline__ uint32_t combine(uint32_t a, uint32_t b)
    {
        return ((a & 0x7f7f7f7fu) + (b & 0x7f7f7f7fu)) ^ ((a ^ b) & 0x80808080u);
    }
};
template <class In> struct lanes<tile::op_xor, In> {
    static constexpr uint32_t kIdentityByte = 0;
    __device__ static __forceinline__ uint32_t combine(uint32_t a, uint32_t b) { return a ^ b; }
};
template <class In> struct lanes<tile::op_or, In> {
    static constexpr uint32_t kIdentityByte = 0;
    __device__ static __forceinline__ uint32_t combine(uint32_t a, uint32_t b) { return a | b; }
};
template <class In> struct lanes<tile::op_and, In> {
    static constexpr uint32_t kIdentityByte = 0xff;
    __device__ static __forceinline__ uint32_t combine(uint32_t a, uint32_t b) { return a & b; }
};
#if GP_SCAN_PACKED_MINMAX
template <> struct lanes<tile::op_max, uint8_t> {
    static constexpr uint32_t kIdentityByte = 0;
    __device__ static __forceinline__ uint32_t combine(uint32_t a, uint32_t b) { return __vmaxu4(a, b); }
};
template <> struct lanes<tile::op_min, uint8_t> {
    static constexpr uint32_t kIdentityByte = 0xff;
    __device__ static __forceinline__ uint32_t combine(uint32_t a, uint32_t b) { return __vminu4(a, b); }
};
template <> struct lanes<tile::op_max, int8_t> {
    static constexpr uint32_t kIdentityByte = 0x80; /* -128 */
    __device__ static __forceinline__ uint32_t combine(uint32_t a, uint32_t b) { return __vmaxs4(a, b); }
};
template <> struct lanes<tile::op_min, int8_t> {
    static constexpr uint32_t kIdentityByte = 0x7f;
    __device__ static __forceinline__ uint32_t combine(uint32_t a, uint32_t b) { return __vmins4(a, b); }
};
#endif

template <class Op, class In, class = void> struct packs : std::false_type {};
template <class Op, class In>
struct packs<Op, In, std::void_t<decltype(lanes<Op, In>::kIdentityByte)>> : std::true_type {};

/* Whether a scan runs packed: 1-byte inputs and outputs, an op above. */
template <class In, class S, class Op>
constexpr bool packed_scan = GP_SCAN_PACKED_BYTES && sizeof(In) == 1 && sizeof(S) == 1 && packs<Op, In>::value;

__device__ __forceinline__ uint32_t splat(uint32_t byte) { return (byte & 0xffu) * 0x01010101u; }

/* The word's bytes scanned in place (byte j = bytes 0..j combined). */
template <class Op, class In>
__device__ __forceinline__ uint32_t scan_word(uint32_t w)
{
    using W = lanes<Op, In>;
    constexpr uint32_t id = W::kIdentityByte;
    w = W::combine(w, w << 8 | id);
    return W::combine(w, w << 16 | id * 0x0101u);
}

/* A row scanned in place; returns its last byte, the row's total. */
template <class Op, class In>
__device__ __forceinline__ uint32_t scan_row(uint4 &v)
{
    using W = lanes<Op, In>;
    v.x = scan_word<Op, In>(v.x);
    v.y = W::combine(splat(v.x >> 24), scan_word<Op, In>(v.y));
    v.z = W::combine(splat(v.y >> 24), scan_word<Op, In>(v.z));
    v.w = W::combine(splat(v.z >> 24), scan_word<Op, In>(v.w));
    return v.w >> 24;
}

/* Every byte of the row combined after `before` (its low byte). */
template <class Op, class In>
__device__ __forceinline__ void apply_row(uint32_t before, uint4 &v)
{
    using W = lanes<Op, In>;
    const uint32_t q = splat(before);
    v.x = W::combine(q, v.x);
    v.y = W::combine(q, v.y);
    v.z = W::combine(q, v.z);
    v.w = W::combine(q, v.w);
}

/* An inclusive row scan made exclusive: every byte moves up one place and
 * the first becomes the identity. */
template <class Op, class In>
__device__ __forceinline__ void shift_row(uint4 &v)
{
    v.w = v.w << 8 | v.z >> 24;
    v.z = v.z << 8 | v.y >> 24;
    v.y = v.y << 8 | v.x >> 24;
    v.x = v.x << 8 | lanes<Op, In>::kIdentityByte;
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
template <class Op>
constexpr bool dot_sums = GP_SCAN_BYTES_DP4A && std::is_same_v<Op, tile::op_sum>;

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
        if constexpr (dot_sums<Op>) {
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
        if constexpr (dot_sums<Op>) {
            if (exclusive) sum_row<true>(before, v[r]);
            else sum_row<false>(before, v[r]);
        } else {
            if (exclusive) shift_row<Op, In>(v[r]);
            apply_row<Op, In>(before, v[r]);
        }
    }
}

/* A segment's rows from global memory where only `valid` of its elements
 * exist (a tile's last), the rest the identity; and stored back. Bytes one
 * at a time, in the row layout: rare, so short code over fast code (128
 * widened bytes a thread spilled). */
template <class Op, class In, int R>
__device__ __forceinline__ void load_rows_partial(const uint8_t *seg, int64_t valid, uint4 (&v)[R])
{
    const int lane = threadIdx.x % kWarp;
#pragma unroll
    for (int r = 0; r < R; r++) {
        tile::vec16<uint8_t> b;
#pragma unroll
        for (int e = 0; e < 16; e++) {
            const int i = tile::rows<uint8_t, 16 * R>::index(r, lane, e);
            b.e[e] = i < valid ? seg[i] : (uint8_t)lanes<Op, In>::kIdentityByte;
        }
        v[r] = b.u;
    }
}
template <int R>
__device__ __forceinline__ void store_rows_partial(uint8_t *seg, int64_t valid, const uint4 (&v)[R])
{
    const int lane = threadIdx.x % kWarp;
#pragma unroll
    for (int r = 0; r < R; r++) {
        tile::vec16<uint8_t> b;
        b.u = v[r];
#pragma unroll
        for (int e = 0; e < 16; e++) {
            const int i = tile::rows<uint8_t, 16 * R>::index(r, lane, e);
            if (i < valid) seg[i] = b.e[e];
        }
    }
}

} // namespace bytes
} // namespace gp_cuda

#endif
