/*
 * Tile building blocks for the look-back primitives (cuda_scan.cu,
 * cuda_select.cu): type helpers, the scan operations, warp shuffles of any
 * element type, and the "row" layout a tile is loaded in.
 *
 * Row layout. A block of kThreads threads owns a tile of kThreads x Items
 * elements; warp w owns the contiguous segment [w * 32 * Items, +32 * Items)
 * of it. With V = 16 / sizeof(element) elements per 16-byte vector, the
 * segment is R = Items / V rows of 32 vectors: lane l holds vector l of each
 * row. So every warp load is 512 contiguous bytes (fully coalesced, 16 bytes
 * a thread), and element order within a warp is row, lane, then position in
 * the vector: a scan runs along the vector in a thread, across lanes with
 * shuffles, then across rows with a running carry. No shared memory.
 */
#ifndef GP_CUDA_TILE_CUH
#define GP_CUDA_TILE_CUH

#include <math.h>
#include <stdint.h>
#include <string.h>
#include <type_traits>

#include "cuda_common.cuh" /* gp_cuda::kWarp */
#include "gp_float_order.h"

namespace gp_cuda {
namespace tile {

constexpr unsigned kFullMask = 0xffffffffu;

/* ------------------------------------------------------------- type tools */

template <class To, class From>
__host__ __device__ __forceinline__ To bits_as(From x)
{
    static_assert(sizeof(To) == sizeof(From), "bits_as needs equal sizes");
    To r;
    memcpy(&r, &x, sizeof r);
    return r;
}

/* The unsigned integer of a size. */
template <int Bytes>
struct uint_of;
template <> struct uint_of<1> { using type = uint8_t; };
template <> struct uint_of<2> { using type = uint16_t; };
template <> struct uint_of<4> { using type = uint32_t; };
template <> struct uint_of<8> { using type = uint64_t; };
template <class T>
using ubits_t = typename uint_of<sizeof(T)>::type;

/* A T held in the low bytes of 64 bits: a scan's init and a comparison's
 * bounds (one parameter layout for every dtype), a look-back slot. */
template <class T>
__host__ __device__ __forceinline__ T from_low_bits(unsigned long long bits)
{
    return bits_as<T>((ubits_t<T>)bits);
}

template <class T>
__host__ __device__ constexpr T highest()
{
    if constexpr (std::is_floating_point_v<T>) return T(INFINITY);
    else if constexpr (std::is_signed_v<T>) return T(~(uint64_t(1) << (8 * sizeof(T) - 1)));
    else return T(~T(0));
}

template <class T>
__host__ __device__ constexpr T lowest()
{
    if constexpr (std::is_floating_point_v<T>) return T(-INFINITY);
    else if constexpr (std::is_signed_v<T>) return T(uint64_t(1) << (8 * sizeof(T) - 1));
    else return T(0);
}

/* -------------------------------------------------------------------- ops */

/* Scan operations: apply(a, b) with a the earlier operand, and an exact
 * identity (identity() op x == x bit for bit). For float sums that is -0.0:
 * +0.0 would turn a leading -0.0 into +0.0. Float min/max let a NaN win and
 * order the zeros, -0 < +0 (gp_float_order.h); of two NaNs the later wins,
 * as in the CPU backend's scan. */
struct op_sum {
    template <class A> __device__ static A identity()
    {
        if constexpr (std::is_floating_point_v<A>) return A(-0.0);
        else return A(0);
    }
    template <class A> __device__ static A apply(A a, A b) { return a + b; }
};
struct op_prod {
    template <class A> __device__ static A identity() { return A(1); }
    template <class A> __device__ static A apply(A a, A b) { return a * b; }
};
struct op_min {
    template <class A> __device__ static A identity() { return highest<A>(); }
    template <class A> __device__ static A apply(A a, A b)
    {
        if constexpr (std::is_floating_point_v<A>) return GP_FMIN_TAKES(b, a) ? b : a;
        else return b < a ? b : a;
    }
};
struct op_max {
    template <class A> __device__ static A identity() { return lowest<A>(); }
    template <class A> __device__ static A apply(A a, A b)
    {
        if constexpr (std::is_floating_point_v<A>) return GP_FMAX_TAKES(b, a) ? b : a;
        else return b > a ? b : a;
    }
};
struct op_and {
    template <class A> __device__ static A identity() { return A(~A(0)); }
    template <class A> __device__ static A apply(A a, A b) { return a & b; }
};
struct op_or {
    template <class A> __device__ static A identity() { return A(0); }
    template <class A> __device__ static A apply(A a, A b) { return a | b; }
};
struct op_xor {
    template <class A> __device__ static A identity() { return A(0); }
    template <class A> __device__ static A apply(A a, A b) { return a ^ b; }
};
/* The running maximum of the filter: NaN never wins (b > a is false for a
 * NaN b, and a starts at lowest() and only ever takes non-NaN values).
 * f32: fmaxf, one instruction. f64 has none: fmax's care for a NaN a,
 * which never comes, cost dense chunks 17% against a compare and select
 * (docs/perf/scan.md, round 10). */
struct op_max_skip_nan {
    template <class A> __device__ static A identity() { return lowest<A>(); }
    template <class A> __device__ static A apply(A a, A b)
    {
        if constexpr (std::is_same_v<A, float>) return fmaxf(a, b);
        else return b > a ? b : a;
    }
};

/* -------------------------------------------------------------- shuffles */

/* Shuffles of any 1- to 8-byte type, moved as 32- or 64-bit integers. */
template <class T>
__device__ __forceinline__ T shfl_idx(T v, int src)
{
    if constexpr (sizeof(T) == 8) return bits_as<T>(__shfl_sync(kFullMask, bits_as<unsigned long long>(v), src));
    else if constexpr (sizeof(T) == 4) return bits_as<T>(__shfl_sync(kFullMask, bits_as<unsigned>(v), src));
    else return bits_as<T>((ubits_t<T>)__shfl_sync(kFullMask, (unsigned)bits_as<ubits_t<T>>(v), src));
}

template <class T>
__device__ __forceinline__ T shfl_up(T v, int delta)
{
    if constexpr (sizeof(T) == 8) return bits_as<T>(__shfl_up_sync(kFullMask, bits_as<unsigned long long>(v), delta));
    else if constexpr (sizeof(T) == 4) return bits_as<T>(__shfl_up_sync(kFullMask, bits_as<unsigned>(v), delta));
    else return bits_as<T>((ubits_t<T>)__shfl_up_sync(kFullMask, (unsigned)bits_as<ubits_t<T>>(v), delta));
}

/* Inclusive scan of one value per lane; every lane of the warp calls it. */
template <class Op, class A>
__device__ __forceinline__ A warp_inclusive(A v, int lane)
{
#pragma unroll
    for (int d = 1; d < kWarp; d *= 2) {
        A up = shfl_up(v, d);
        if (lane >= d) v = Op::apply(up, v);
    }
    return v;
}

/* Combine across the warp; every lane gets the total. Op must be commutative
 * (all ours are; float sums then depend on the tree, as documented). */
template <class Op, class A>
__device__ __forceinline__ A warp_all(A v)
{
#pragma unroll
    for (int d = kWarp / 2; d > 0; d /= 2) v = Op::apply(v, shfl_idx(v, (int)(threadIdx.x % kWarp) ^ d));
    return v;
}

/* ------------------------------------------------------------- row layout */

template <class T, int Items>
struct rows {
    static constexpr int V = 16 / (int)sizeof(T); /* elements per 16-byte vector */
    static constexpr int R = Items / V;           /* rows per warp */
    static_assert(Items % V == 0, "Items must be whole vectors");
    static constexpr int kWarpItems = kWarp * Items;

    /* Index within the warp's segment of row r, lane l, element e. */
    __device__ static __forceinline__ int index(int r, int lane, int e) { return r * kWarp * V + lane * V + e; }
};

/* One 16-byte vector as V elements of T. */
template <class T>
union vec16 {
    uint4 u;
    T e[16 / sizeof(T)];
};

/* Loads of data read exactly once: streaming (evict-first), through the
 * coherent path, since in place the same kernel writes these addresses
 * (after reading them) and ld.global.nc would not be allowed. */
__device__ __forceinline__ uint4 load16(const void *p) { return __ldcs(static_cast<const uint4 *>(p)); }
__device__ __forceinline__ void store16(void *p, uint4 v) { __stcs(static_cast<uint4 *>(p), v); }

/*
 * Loads a warp's segment of Items per thread into x[R][V] as Out (converted
 * with static_cast through Conv, which sign- or zero-extends). `seg` is the
 * segment's first element, `valid` how many elements of the segment exist
 * (>= kWarpItems: all); missing elements become `fill`. Vector loads when
 * the segment is whole and `aligned` (seg 16-byte aligned).
 */
template <class T, class Conv, class Out, int Items>
__device__ __forceinline__ void load_rows(const T *seg, int64_t valid, bool aligned, Out fill,
                                          Out (&x)[rows<T, Items>::R][rows<T, Items>::V])
{
    using L = rows<T, Items>;
    const int lane = threadIdx.x % kWarp;
    if (aligned && valid >= L::kWarpItems) {
        uint4 raw[L::R];
#pragma unroll
        for (int r = 0; r < L::R; r++) raw[r] = load16(seg + L::index(r, lane, 0));
#pragma unroll
        for (int r = 0; r < L::R; r++) {
            vec16<T> v;
            v.u = raw[r];
#pragma unroll
            for (int e = 0; e < L::V; e++) x[r][e] = static_cast<Out>(static_cast<Conv>(v.e[e]));
        }
    } else {
#pragma unroll
        for (int r = 0; r < L::R; r++)
#pragma unroll
            for (int e = 0; e < L::V; e++) {
                const int i = L::index(r, lane, e);
                x[r][e] = i < valid ? static_cast<Out>(static_cast<Conv>(seg[i])) : fill;
            }
    }
}

/* load_rows for a whole segment staged in shared memory (cuda_stage.cuh):
 * the same layout, 16-byte reads, a warp's 512 contiguous bytes each row
 * (no bank conflicts). */
template <class T, class Conv, class Out, int Items>
__device__ __forceinline__ void load_rows_shared(const T *seg, Out (&x)[rows<T, Items>::R][rows<T, Items>::V])
{
    using L = rows<T, Items>;
    const int lane = threadIdx.x % kWarp;
#pragma unroll
    for (int r = 0; r < L::R; r++) {
        vec16<T> v;
        v.u = *reinterpret_cast<const uint4 *>(seg + L::index(r, lane, 0));
#pragma unroll
        for (int e = 0; e < L::V; e++) x[r][e] = static_cast<Out>(static_cast<Conv>(v.e[e]));
    }
}

/* Stores y[R][V], converted to S, in the row layout of a segment whose
 * input elements are In: out has one S per input element. Vector stores
 * when the segment is whole and `aligned` (seg 16-byte aligned). */
template <class In, class A, class S, int Items>
__device__ __forceinline__ void store_rows(S *seg, int64_t valid, bool aligned,
                                           const A (&y)[rows<In, Items>::R][rows<In, Items>::V])
{
    using L = rows<In, Items>;
    const int lane = threadIdx.x % kWarp;
    if (aligned && valid >= L::kWarpItems) {
        constexpr int kPerVec = 16 / (int)sizeof(S);
        static_assert(L::V % kPerVec == 0, "a row's outputs are whole vectors");
#pragma unroll
        for (int r = 0; r < L::R; r++)
#pragma unroll
            for (int q = 0; q < L::V / kPerVec; q++) {
                vec16<S> v;
#pragma unroll
                for (int e = 0; e < kPerVec; e++) v.e[e] = static_cast<S>(y[r][q * kPerVec + e]);
                store16(seg + L::index(r, lane, q * kPerVec), v.u);
            }
    } else {
#pragma unroll
        for (int r = 0; r < L::R; r++)
#pragma unroll
            for (int e = 0; e < L::V; e++) {
                const int i = L::index(r, lane, e);
                if (i < valid) seg[i] = static_cast<S>(y[r][e]);
            }
    }
}

/*
 * One row of a warp's segment across its lanes: `own` is the lane's value
 * for the row, `carry` the combination of the rows before. lane_prefix
 * becomes carry op the lanes before this one; returns carry op the row.
 */
template <class Op, class A>
__device__ __forceinline__ A chain_row(A own, A carry, A &lane_prefix)
{
    const int lane = threadIdx.x % kWarp;
    const A inc = warp_inclusive<Op>(own, lane);
    const A before = shfl_up(inc, 1);
    const A row_total = shfl_idx(inc, kWarp - 1);
    lane_prefix = lane == 0 ? carry : Op::apply(carry, before);
    return Op::apply(carry, row_total);
}

/*
 * Scans a warp's rows in place: afterwards x[r][e] is the combination of
 * the thread's own elements x[r][0..e] (a thread-local inclusive scan), and
 * lane_prefix[r] the combination of every element of the segment before
 * the thread's vector in row r (the identity for row 0, lane 0). Returns the
 * segment's total on every lane.
 */
template <class Op, class A, int R, int V>
__device__ __forceinline__ A warp_scan_rows(A (&x)[R][V], A (&lane_prefix)[R])
{
    A carry = Op::template identity<A>();
#pragma unroll
    for (int r = 0; r < R; r++) {
#pragma unroll
        for (int e = 1; e < V; e++) x[r][e] = Op::apply(x[r][e - 1], x[r][e]);
        carry = chain_row<Op>(x[r][V - 1], carry, lane_prefix[r]);
    }
    return carry;
}

/*
 * Like warp_scan_rows, but leaves x as it is: each thread's row totals are
 * combined across lanes and rows only. lane_prefix[r] is the combination of
 * every element of the segment before the thread's vector in row r.
 * Returns the segment's total on every lane.
 */
template <class Op, class A, int R, int V>
__device__ __forceinline__ A warp_row_prefixes(const A (&x)[R][V], A (&lane_prefix)[R])
{
    A carry = Op::template identity<A>();
#pragma unroll
    for (int r = 0; r < R; r++) {
        /* From the identity, not x[r][0]: op_max_skip_nan only skips a NaN
         * that arrives as its second operand. */
        A own = Op::template identity<A>();
#pragma unroll
        for (int e = 0; e < V; e++) own = Op::apply(own, x[r][e]);
        carry = chain_row<Op>(own, carry, lane_prefix[r]);
    }
    return carry;
}

/*
 * Block level: every warp's total in, each warp's exclusive prefix and the
 * block total out (on every thread). `totals` is shared memory for
 * Warps values; one barrier inside (`sync`, __syncthreads unless given). The caller must not rewrite
 * `totals` before every thread has passed this call (a second call needs a
 * __syncthreads in between).
 */
struct sync_block {
    __device__ void operator()() const { __syncthreads(); }
};

template <class Op, class A, int Warps, class Sync = sync_block>
__device__ __forceinline__ void block_combine(A warp_total, A *totals, A &warp_prefix, A &block_total, Sync sync = {})
{
    const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
    if (lane == 0) totals[warp] = warp_total;
    sync();
    A acc = Op::template identity<A>();
    warp_prefix = acc;
#pragma unroll
    for (int w = 0; w < Warps; w++) {
        if (w == warp) warp_prefix = acc;
        acc = Op::apply(acc, totals[w]);
    }
    block_total = acc;
}

/* ----------------------------------------------------- counts in a warp */

/*
 * Per-row counts of kept elements (each <= V per lane, <= 32 V per row
 * across the warp) packed into one integer, a field of kBits per row, so a
 * single warp scan ranks every row at once.
 */
template <int R, int V>
struct packed_counts {
    static constexpr int kBits = V == 16 ? 10 : V == 8 ? 9 : V == 4 ? 8 : 7; /* holds 32 V */
    using P = std::conditional_t<R * kBits <= 32, unsigned, unsigned long long>;
    static_assert(R * kBits <= 64, "too many rows per thread to pack their counts into 64 bits");
    static constexpr P kField = (P(1) << kBits) - 1;

    __device__ static __forceinline__ P pack(const unsigned (&mask)[R])
    {
        P p = 0;
#pragma unroll
        for (int r = 0; r < R; r++) p |= (P)__popc(mask[r]) << (r * kBits);
        return p;
    }
    __device__ static __forceinline__ unsigned field(P p, int r) { return (unsigned)(p >> (r * kBits) & kField); }
};

/*
 * Ranks kept elements within a warp's segment, in element order. mask[r]
 * has bit e set when element e of the thread's vector in row r is kept.
 * row_base[r] gets the number kept in the segment before the thread's
 * vector in row r; returns the segment's total on every lane.
 */
template <int R, int V>
__device__ __forceinline__ unsigned warp_rank_rows(const unsigned (&mask)[R], unsigned (&row_base)[R])
{
    using PC = packed_counts<R, V>;
    using P = typename PC::P;
    const int lane = threadIdx.x % kWarp;
    const P own = PC::pack(mask);
    const P inc = warp_inclusive<op_sum>(own, lane);
    const P before = inc - own; /* fields never borrow: each is >= its own part */
    const P totals = shfl_idx(inc, kWarp - 1);
    unsigned carry = 0;
#pragma unroll
    for (int r = 0; r < R; r++) {
        row_base[r] = carry + PC::field(before, r);
        carry += PC::field(totals, r);
    }
    return carry;
}

} // namespace tile
} // namespace gp_cuda

#endif
