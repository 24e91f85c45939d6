/*
 * AVX2 selections of 4- and 8-byte items (cpu_select_simd.h; those of 1
 * and 2 bytes are cpu_select_avx2_narrow.c's), for x86-64
 * CPUs without AVX-512's compress. A 32-byte vector (8 items of 4 bytes or
 * 4 of 8) is compared, or its flags tested, into a bit mask; a table turns
 * the mask into the permutation that moves the items it keeps to the
 * front. On Intel CPUs a masked store (vpmaskmovd) writes as many words
 * as are kept. On AMD CPUs before Zen 4, most of those this path is for,
 * that store is microcoded (42 uops, one every 12 cycles, by uops.info's
 * tables), so there the whole vector is stored into a small buffer on the
 * stack, and the buffer leaves by a memcpy of exactly what it holds. On an
 * Intel core that ran at 0.6-1.2x the masked stores' speed; on an AMD Zen 3
 * at 1.1-2.0x, where the masked stores fell behind the scalar loops for
 * 8-byte items (docs/perf/scan.md, rounds 77 and 89). Either
 * way nothing is stored in the caller's output past the items kept. (pdep
 * and pext would make the permutation without a table, but they too are
 * microcoded on AMD before Zen 3.) The items short of a whole vector at
 * the end go through a scalar loop, so nothing is read outside the
 * caller's range.
 */
#include "cpu_select_simd.h"
#include "cpu_select_avx2.h"

#if GP_CPU_SIMD_X86
#include <immintrin.h>
#include <pthread.h>
#include <string.h>

uint8_t gp_avx2_lanes[256][8]; /* cpu_select_avx2.h */
uint8_t gp_avx2_pairs[256][16];
/* perm_q[m]: for a 4-bit mask of 8-byte lanes, the two 4-byte halves of
 * each lane it sets (gp_avx2_lanes serves 4-byte lanes). */
static uint8_t perm_q[16][8];
static pthread_once_t perm_once = PTHREAD_ONCE_INIT;

static void fill_perms(void)
{
    for (int m = 0; m < 256; m++)
        for (int j = 0, k = 0; j < 8; j++)
            if (m >> j & 1) {
                gp_avx2_lanes[m][k] = (uint8_t)j;
                gp_avx2_pairs[m][2 * k] = (uint8_t)(2 * j);
                gp_avx2_pairs[m][2 * k + 1] = (uint8_t)(2 * j + 1);
                k++;
            }
    for (int m = 0; m < 16; m++)
        for (int j = 0, k = 0; j < 4; j++)
            if (m >> j & 1) {
                perm_q[m][k++] = (uint8_t)(2 * j);
                perm_q[m][k++] = (uint8_t)(2 * j + 1);
            }
}

void gp_cpu_avx2_init(void) { pthread_once(&perm_once, fill_perms); }

/* The first `words` 4-byte words of v permuted by perm (8 indices). */
GP_AVX2 static inline __m256i packed(__m256i v, const uint8_t *perm)
{
    return _mm256_permutevar8x32_epi32(v, _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)perm)));
}

/* Masked stores: the first `words` words of p straight to out. */
GP_AVX2 static inline void store_first(void *out, __m256i p, int words)
{
    const __m256i first = _mm256_cmpgt_epi32(_mm256_set1_epi32(words), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    _mm256_maskstore_epi32((int *)out, first, p);
}

GP_AVX2 static inline void put_buffered(gp_simd_buf *b, __m256i p, int words)
{
    _mm256_storeu_si256((__m256i *)(b->b + b->held), p);
    b->held += 4 * words;
    if (b->held >= GP_SIMD_BUF) gp_simd_flush(b);
}

#define LANES_D 8
#define LANES_Q 4
#define FULL_D 0xffu
#define FULL_Q 0xfu
#define PERM_D(m) gp_avx2_lanes[m]
#define PERM_Q(m) perm_q[m]
#define WORDS_D(c) (c)
#define WORDS_Q(c) (2 * (c))

/* The flags of the vector's items from f (8 or 4 bytes), nonzero as set bits. */
GP_AVX2 static inline unsigned flags_d(const uint8_t *f)
{
    const __m128i z = _mm_cmpeq_epi8(_mm_loadl_epi64((const __m128i *)f), _mm_setzero_si128());
    return ~(unsigned)_mm_movemask_epi8(z) & FULL_D;
}
GP_AVX2 static inline unsigned flags_q(const uint8_t *f)
{
    int32_t w;
    memcpy(&w, f, sizeof w);
    const __m128i z = _mm_cmpeq_epi8(_mm_cvtsi32_si128(w), _mm_setzero_si128());
    return ~(unsigned)_mm_movemask_epi8(z) & FULL_Q;
}

/* The buffered route's store (cpu_select_simd.h's loop): the items of v
 * that mask m keeps. */
GP_AVX2 static inline void put_D(gp_simd_buf *b, __m256i v, unsigned m)
{
    put_buffered(b, packed(v, PERM_D(m)), WORDS_D(__builtin_popcount(m)));
}
GP_AVX2 static inline void put_Q(gp_simd_buf *b, __m256i v, unsigned m)
{
    put_buffered(b, packed(v, PERM_Q(m)), WORDS_Q(__builtin_popcount(m)));
}

/*
 * The loop of every function here: whole vectors, MASK the items selected
 * (of v and i); their permutation stored for sel at sel + k and, where rej
 * is not NULL too, the others' for rej at rej + (i - k), by masked stores
 * there (route MASKED) or through buffers emptied after the last whole
 * vector (BUFFERED, cpu_select_simd.h's loop). Then the last items one by
 * one, KEEP(i) testing one. sel NULL: count only. Each route is a function
 * of its own: in one function with a test between them, the masked route
 * ran 1.2-1.5x slower.
 */
#define GP_AVX2_STEPS_MASKED(G, MASK, KEEP)                                    \
    for (; i + LANES_##G <= n; i += LANES_##G) {                               \
        const __m256i v = _mm256_loadu_si256((const __m256i *)(x + i));        \
        const unsigned m = (MASK);                                             \
        const int c = __builtin_popcount(m);                                   \
        if (sel) {                                                             \
            store_first(sel + k, packed(v, PERM_##G(m)), WORDS_##G(c));        \
            if (rej)                                                           \
                store_first(rej + (i - k), packed(v, PERM_##G(m ^ FULL_##G)),  \
                            WORDS_##G(LANES_##G - c));                         \
        }                                                                      \
        k += c;                                                                \
    }                                                                          \
    GP_SIMD_TAIL(KEEP)
#define LOAD_256(p) _mm256_loadu_si256((const __m256i *)(p))
#define GP_AVX2_STEPS_BUFFERED(G, MASK, KEEP) \
    GP_SIMD_BUFFERED_STEPS(__m256i, LOAD_256, LANES_##G, FULL_##G, put_##G, MASK, KEEP)
#define GP_AVX2_STEPS(R, G, MASK, KEEP) GP_AVX2_STEPS_##R(G, MASK, KEEP)

/* ------------------------------------------------------------ by flags */

#define GP_AVX2_DEF_SPLIT(R, G, T, FLAGS)                                                                   \
    GP_AVX2 static int64_t split_##G##_##R(const void *xv, const uint8_t *f, int64_t n, void *selv, void *rejv) \
    {                                                                                                       \
        const T *x = (const T *)xv;                                                                         \
        T *sel = (T *)selv, *rej = (T *)rejv;                                                               \
        int64_t i = 0, k = 0;                                                                               \
        GP_AVX2_STEPS(R, G, FLAGS(f + i), f[i] != 0)                                                        \
        return k;                                                                                           \
    }
#define GP_AVX2_DEF_SPLITS(R) GP_AVX2_DEF_SPLIT(R, D, uint32_t, flags_d) GP_AVX2_DEF_SPLIT(R, Q, uint64_t, flags_q)
GP_AVX2_DEF_SPLITS(MASKED)
GP_AVX2_DEF_SPLITS(BUFFERED)

int64_t gp_cpu_avx2_split(size_t size, const void *x, const uint8_t *f, int64_t n, void *sel, void *rej,
                          bool masked)
{
    if (size <= 2) return gp_cpu_avx2_narrow_split(size, x, f, n, sel, rej);
    if (masked) return size == 4 ? split_D_MASKED(x, f, n, sel, rej) : split_Q_MASKED(x, f, n, sel, rej);
    return size == 4 ? split_D_BUFFERED(x, f, n, sel, rej) : split_Q_BUFFERED(x, f, n, sel, rej);
}

/* ------------------------------------------------------- by comparison */

/* Lane masks of a against b. Integers compare signed, by gt and eq (lt,
 * le, ge and ne are their swaps and complements); unsigned ones have had
 * their sign bits flipped first (BIAS). Floats by the ordered predicates,
 * so a NaN passes only `ne`, as in C. */
#define GT_D(a, b) _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(a, b)))
#define EQ_D(a, b) _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(a, b)))
#define GT_Q(a, b) _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(a, b)))
#define EQ_Q(a, b) _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(a, b)))
#define FCMP_D(a, b, P) _mm256_movemask_ps(_mm256_cmp_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), P))
#define FCMP_Q(a, b, P) _mm256_movemask_pd(_mm256_cmp_pd(_mm256_castsi256_pd(a), _mm256_castsi256_pd(b), P))
#define BIAS_SINT_D(v) (v)
#define BIAS_SINT_Q(v) (v)
#define BIAS_FLT_D(v) (v)
#define BIAS_FLT_Q(v) (v)
#define BIAS_UINT_D(v) _mm256_xor_si256(v, _mm256_set1_epi32(INT32_MIN))
#define BIAS_UINT_Q(v) _mm256_xor_si256(v, _mm256_set1_epi64x(INT64_MIN))
#define SPLAT_D(p) _mm256_set1_epi32((int32_t)gp_simd_value_bits(p, 4))
#define SPLAT_Q(p) _mm256_set1_epi64x((long long)gp_simd_value_bits(p, 8))

#define FLT_LT(G, a, b) (unsigned)FCMP_##G(a, b, _CMP_LT_OQ)
#define FLT_LE(G, a, b) (unsigned)FCMP_##G(a, b, _CMP_LE_OQ)
#define FLT_GT(G, a, b) (unsigned)FCMP_##G(a, b, _CMP_GT_OQ)
#define FLT_GE(G, a, b) (unsigned)FCMP_##G(a, b, _CMP_GE_OQ)
#define FLT_EQ(G, a, b) (unsigned)FCMP_##G(a, b, _CMP_EQ_OQ)
#define FLT_NE(G, a, b) (unsigned)FCMP_##G(a, b, _CMP_NEQ_UQ)
#define CMPK_SINT INT
#define CMPK_UINT INT
#define CMPK_FLT FLT
#define CMP_PASTE(K, OP) K##_##OP
#define CMP_OF(K, OP) CMP_PASTE(K, OP)

/* One comparison's loop: OP the comparison's name, OPR its C operator. */
#define GP_AVX2_CMP_STEPS(R, G, K, OP, OPR) \
    GP_AVX2_STEPS(R, G, CMP_OF(CMPK_##K, OP)(G, BIAS_##K##_##G(v), val), x[i] OPR value)

#define GP_AVX2_DEF_IF(R, NAME, T, G, K)                                                                    \
    GP_AVX2 static int64_t NAME##_split_if_##R(const void *xv, int64_t n, gp_cmp cmp, const void *vp,          \
                                               void *selv, void *rejv)                                      \
    {                                                                                                       \
        GP_SIMD_IF_ARGS(T)                                                                                  \
        const __m256i val = BIAS_##K##_##G(SPLAT_##G(vp));                                                  \
        GP_SIMD_CMP_SWITCH(cmp, GP_AVX2_CMP_STEPS, R, G, K)                                                 \
        return k;                                                                                           \
    }
/* X(name, C type, item size group, comparison kind, dtype): the dtypes of 4 and 8 bytes. */
#define GP_AVX2_DTYPES(X)                     \
    X(i32, int32_t, D, SINT, GP_DTYPE_I32)    \
    X(u32, uint32_t, D, UINT, GP_DTYPE_U32)   \
    X(f32, float, D, FLT, GP_DTYPE_F32)       \
    X(i64, int64_t, Q, SINT, GP_DTYPE_I64)    \
    X(u64, uint64_t, Q, UINT, GP_DTYPE_U64)   \
    X(f64, double, Q, FLT, GP_DTYPE_F64)

#define GP_AVX2_DEF_IF_X(NAME, T, G, K, E) GP_AVX2_DEF_IF(MASKED, NAME, T, G, K) GP_AVX2_DEF_IF(BUFFERED, NAME, T, G, K)
GP_AVX2_DTYPES(GP_AVX2_DEF_IF_X)

int64_t gp_cpu_avx2_split_if(gp_dtype t, const void *x, int64_t n, gp_cmp cmp, const void *value, void *sel,
                             void *rej, bool masked)
{
    switch (t) {
#define GP_AVX2_CASE(NAME, T, G, K, E)                                                    \
    case E:                                                                               \
        return masked ? NAME##_split_if_MASKED(x, n, cmp, value, sel, rej)                \
                      : NAME##_split_if_BUFFERED(x, n, cmp, value, sel, rej);
        GP_AVX2_DTYPES(GP_AVX2_CASE)
#undef GP_AVX2_CASE
    default: return gp_cpu_avx2_narrow_split_if(t, x, n, cmp, value, sel, rej); /* 1- and 2-byte items */
    }
}

#endif
