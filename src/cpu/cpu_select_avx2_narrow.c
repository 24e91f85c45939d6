/*
 * AVX2 selections of 1- and 2-byte items (cpu_select_simd.h), beside
 * cpu_select_avx2.c's of 4 and 8 bytes, for x86-64 CPUs without AVX-512's
 * compress. A 16-byte vector (16 items of 1 byte or 8 of 2) is compared, or
 * its flags tested, into a bit mask; a byte shuffle (pshufb) by a table
 * entry moves the kept items of each 8-item group to its front. AVX2 has no
 * masked store finer than 4 bytes, so every group is stored whole into a
 * buffer on the stack, and the buffer leaves by a memcpy of exactly what it
 * holds: nothing is stored in the caller's output past the items kept. The
 * items short of a whole vector at the end go through a scalar loop, so
 * nothing is read outside the caller's range.
 */
#include "cpu_select_simd.h"
#include "cpu_select_avx2.h"

#if GP_CPU_SIMD_X86
#include <immintrin.h>
#include <string.h>

/* 16 items of 1 byte, mask m (16 bits): each 8-item group's kept items. */
GP_AVX2 static inline void put_B(gp_simd_buf *o, __m128i v, unsigned m)
{
    const unsigned lo = m & 0xffu, hi = m >> 8;
    const __m128i at_lo = _mm_loadl_epi64((const __m128i *)gp_avx2_lanes[lo]);
    const __m128i at_hi = _mm_add_epi8(_mm_loadl_epi64((const __m128i *)gp_avx2_lanes[hi]), _mm_set1_epi8(8));
    _mm_storel_epi64((__m128i *)(o->b + o->held), _mm_shuffle_epi8(v, at_lo));
    o->held += __builtin_popcount(lo);
    _mm_storel_epi64((__m128i *)(o->b + o->held), _mm_shuffle_epi8(v, at_hi));
    o->held += __builtin_popcount(hi);
    if (o->held >= GP_SIMD_BUF) gp_simd_flush(o);
}

/* 8 items of 2 bytes, mask m (8 bits). */
GP_AVX2 static inline void put_W(gp_simd_buf *o, __m128i v, unsigned m)
{
    const __m128i at = _mm_loadu_si128((const __m128i *)gp_avx2_pairs[m]);
    _mm_storeu_si128((__m128i *)(o->b + o->held), _mm_shuffle_epi8(v, at));
    o->held += 2 * __builtin_popcount(m);
    if (o->held >= GP_SIMD_BUF) gp_simd_flush(o);
}

#define LANES_B 16
#define LANES_W 8
#define FULL_B 0xffffu
#define FULL_W 0xffu

/* The loop of every function here (cpu_select_simd.h): 16-byte vectors, MASK
 * the items selected (of v and i), KEEP(i) one of the last items. */
#define LOAD_128(p) _mm_loadu_si128((const __m128i *)(p))
#define GP_NARROW_STEPS(G, MASK, KEEP) \
    GP_SIMD_BUFFERED_STEPS(__m128i, LOAD_128, LANES_##G, FULL_##G, put_##G, MASK, KEEP)

/* ------------------------------------------------------------ by flags */

/* The set flags of 16 or 8 items at f, as bits. */
GP_AVX2 static inline unsigned flags_B(const uint8_t *f)
{
    const __m128i z = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)f), _mm_setzero_si128());
    return ~(unsigned)_mm_movemask_epi8(z) & FULL_B;
}
GP_AVX2 static inline unsigned flags_W(const uint8_t *f)
{
    const __m128i z = _mm_cmpeq_epi8(_mm_loadl_epi64((const __m128i *)f), _mm_setzero_si128());
    return ~(unsigned)_mm_movemask_epi8(z) & FULL_W;
}

#define GP_NARROW_DEF_SPLIT(G, T, FLAGS)                                                                    \
    GP_AVX2 static int64_t split_##G(const void *xv, const uint8_t *f, int64_t n, void *selv, void *rejv)     \
    {                                                                                                       \
        const T *x = (const T *)xv;                                                                         \
        T *sel = (T *)selv, *rej = (T *)rejv;                                                               \
        int64_t i = 0, k = 0;                                                                               \
        GP_NARROW_STEPS(G, FLAGS(f + i), f[i] != 0)                                                         \
        return k;                                                                                           \
    }
GP_NARROW_DEF_SPLIT(B, uint8_t, flags_B)
GP_NARROW_DEF_SPLIT(W, uint16_t, flags_W)

int64_t gp_cpu_avx2_narrow_split(size_t size, const void *x, const uint8_t *f, int64_t n, void *sel, void *rej)
{
    return size == 1 ? split_B(x, f, n, sel, rej) : split_W(x, f, n, sel, rej);
}

/* ------------------------------------------------------- by comparison */

/* Lane masks of a against b, signed, by gt and eq (INT_* in
 * cpu_select_avx2.h make the rest); unsigned items have had their sign
 * bits flipped first (BIAS). 2-byte lanes' masks are packed to a bit a
 * lane (packs keeps 0 and -1). */
#define GT_B(a, b) (unsigned)_mm_movemask_epi8(_mm_cmpgt_epi8(a, b))
#define EQ_B(a, b) (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(a, b))
#define PACK_W(c) ((unsigned)_mm_movemask_epi8(_mm_packs_epi16(c, _mm_setzero_si128())) & FULL_W)
#define GT_W(a, b) PACK_W(_mm_cmpgt_epi16(a, b))
#define EQ_W(a, b) PACK_W(_mm_cmpeq_epi16(a, b))
#define BIAS_SINT_B(v) (v)
#define BIAS_SINT_W(v) (v)
#define BIAS_UINT_B(v) _mm_xor_si128(v, _mm_set1_epi8((char)0x80))
#define BIAS_UINT_W(v) _mm_xor_si128(v, _mm_set1_epi16((short)0x8000))
#define SPLAT_B(p) _mm_set1_epi8((char)gp_simd_value_bits(p, 1))
#define SPLAT_W(p) _mm_set1_epi16((short)gp_simd_value_bits(p, 2))

/* One comparison's loop: OP the comparison's name, OPR its C operator. */
#define GP_NARROW_CMP_STEPS(G, K, OP, OPR) GP_NARROW_STEPS(G, INT_##OP(G, BIAS_##K##_##G(v), val), x[i] OPR value)

#define GP_NARROW_DEF_IF(NAME, T, G, K)                                                                     \
    GP_AVX2 static int64_t NAME##_split_if(const void *xv, int64_t n, gp_cmp cmp, const void *vp, void *selv, \
                                           void *rejv)                                                      \
    {                                                                                                       \
        GP_SIMD_IF_ARGS(T)                                                                                  \
        const __m128i val = BIAS_##K##_##G(SPLAT_##G(vp));                                                  \
        GP_SIMD_CMP_SWITCH(cmp, GP_NARROW_CMP_STEPS, G, K)                                                  \
        return k;                                                                                           \
    }
GP_NARROW_DEF_IF(i8, int8_t, B, SINT)
GP_NARROW_DEF_IF(u8, uint8_t, B, UINT)
GP_NARROW_DEF_IF(i16, int16_t, W, SINT)
GP_NARROW_DEF_IF(u16, uint16_t, W, UINT)

int64_t gp_cpu_avx2_narrow_split_if(gp_dtype t, const void *x, int64_t n, gp_cmp cmp, const void *value, void *sel,
                                    void *rej)
{
    switch (t) {
    case GP_DTYPE_I8: return i8_split_if(x, n, cmp, value, sel, rej);
    case GP_DTYPE_U8: return u8_split_if(x, n, cmp, value, sel, rej);
    case GP_DTYPE_I16: return i16_split_if(x, n, cmp, value, sel, rej);
    case GP_DTYPE_U16: return u16_split_if(x, n, cmp, value, sel, rej);
    default: return 0; /* gp_cpu_simd_covers() keeps other dtypes off this path */
    }
}

#endif
