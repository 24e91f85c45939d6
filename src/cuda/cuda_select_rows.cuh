/*
 * A thread's rows of a tile, from loading to compaction (included by
 * cuda_select.cu, after cuda_select_masks.cuh): held an item a register or,
 * for 1-byte items, packed as loaded (held_rows), and compacted into the
 * tile's stage, kept items first (compact_rows). select_kernel and the
 * pipelined selection (cuda_select_pipelined.cuh) both take them.
 */
#ifndef GP_CUDA_SELECT_ROWS_CUH
#define GP_CUDA_SELECT_ROWS_CUH

namespace gp_cuda {
namespace {

using tile::rows;

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

} // namespace
} // namespace gp_cuda

#endif /* GP_CUDA_SELECT_ROWS_CUH */
