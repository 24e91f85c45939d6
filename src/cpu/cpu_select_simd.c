/*
 * The choice of a SIMD path (cpu_select_simd.h), and the AVX-512
 * selections; the AVX2 ones are cpu_select_avx2.c, NEON's
 * cpu_select_neon.c. One 64-byte vector a step: 64 items of 1 byte, 32 of
 * 2, 16 of 4 or 8 of 8. The last, partial vector is read with a masked
 * load (masked-off lanes do not fault), so no step reads or writes outside
 * the caller's ranges. The functions are compiled for these instructions
 * alone (the target attribute) and called only after the CPU has been
 * asked for them, so the library still runs everywhere.
 */
#include "cpu_select_simd.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* The paths, the AVX2 one with either way of storing (cpu_select_avx2.c). */
enum { PATH_SCALAR, PATH_AVX2_MASKED, PATH_AVX2_BUFFERED, PATH_AVX512, PATH_NEON };

#if GP_CPU_SIMD_X86
#include <immintrin.h>

/* The best path this CPU has, within what GPUPRIM_CPU_SIMD allows. */
static int best_path(const char *hook)
{
    if (hook && strcmp(hook, "0") == 0) return PATH_SCALAR;
    __builtin_cpu_init();
    if (!(hook && strncmp(hook, "avx2", 4) == 0) && __builtin_cpu_supports("avx512f") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512vbmi2") && __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt"))
        return PATH_AVX512;
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("popcnt")) return PATH_SCALAR;
    gp_cpu_avx2_init();
    if (hook && strcmp(hook, "avx2-masked") == 0) return PATH_AVX2_MASKED;
    if (hook && strcmp(hook, "avx2-buffered") == 0) return PATH_AVX2_BUFFERED;
    /* vpmaskmovd to memory is microcoded on AMD before Zen 4 (42 uops, one every 12 cycles): on a Zen 3 the
     * buffer ran 1.1-2.0x faster (docs/perf/scan.md, round 89) */
    return __builtin_cpu_is("amd") ? PATH_AVX2_BUFFERED : PATH_AVX2_MASKED;
}
#elif GP_CPU_SIMD_NEON
/* NEON is part of every 64-bit Arm CPU (Armv8-A): only the hook turns it off. */
static int best_path(const char *hook)
{
    if (hook && strcmp(hook, "0") == 0) return PATH_SCALAR;
    gp_cpu_neon_init();
    return PATH_NEON;
}
#endif

static _Atomic int simd_path = -1; /* -1: not asked yet */

/* Asked once a process; the release store publishes the AVX2 path's tables. */
static int select_path(void)
{
    int s = atomic_load_explicit(&simd_path, memory_order_acquire);
    if (s < 0) {
#if GP_CPU_SIMD_X86 || GP_CPU_SIMD_NEON
        s = best_path(getenv("GPUPRIM_CPU_SIMD"));
#else
        s = PATH_SCALAR;
#endif
        atomic_store_explicit(&simd_path, s, memory_order_release);
    }
    return s;
}

bool gp_cpu_simd_covers(size_t size)
{
    const int s = select_path();
    return s != PATH_SCALAR && (size == 1 || size == 2 || size == 4 || size == 8);
}

const char *gp_cpu_select_path(void)
{
    static const char *const names[] = {"scalar", "avx2 (masked stores)", "avx2 (buffered stores)", "avx512",
                                        "neon"};
    return names[select_path()];
}

#if GP_CPU_SIMD_X86

#define GP_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi2,bmi,bmi2,popcnt")))

/* Per item size (B, W, D, Q: 1, 2, 4, 8 bytes): lanes a vector, the item
 * type, a masked load, the compress and the masked store. */
#define LANES_B 64
#define LANES_W 32
#define LANES_D 16
#define LANES_Q 8
#define ITEM_B uint8_t
#define ITEM_W uint16_t
#define ITEM_D uint32_t
#define ITEM_Q uint64_t
#define LOAD_B(m, p) _mm512_maskz_loadu_epi8((__mmask64)(m), p)
#define LOAD_W(m, p) _mm512_maskz_loadu_epi16((__mmask32)(m), p)
#define LOAD_D(m, p) _mm512_maskz_loadu_epi32((__mmask16)(m), p)
#define LOAD_Q(m, p) _mm512_maskz_loadu_epi64((__mmask8)(m), p)
#define COMPRESS_B(m, v) _mm512_maskz_compress_epi8((__mmask64)(m), v)
#define COMPRESS_W(m, v) _mm512_maskz_compress_epi16((__mmask32)(m), v)
#define COMPRESS_D(m, v) _mm512_maskz_compress_epi32((__mmask16)(m), v)
#define COMPRESS_Q(m, v) _mm512_maskz_compress_epi64((__mmask8)(m), v)
#define STORE_B(p, m, v) _mm512_mask_storeu_epi8(p, (__mmask64)(m), v)
#define STORE_W(p, m, v) _mm512_mask_storeu_epi16(p, (__mmask32)(m), v)
#define STORE_D(p, m, v) _mm512_mask_storeu_epi32(p, (__mmask16)(m), v)
#define STORE_Q(p, m, v) _mm512_mask_storeu_epi64(p, (__mmask8)(m), v)
/* The flags of one vector's items, nonzero bytes as set bits. */
#define FLAGS_B(m, f) _mm512_test_epi8_mask(_mm512_maskz_loadu_epi8((__mmask64)(m), f), _mm512_set1_epi8(-1))
#define FLAGS_W(m, f) _mm256_test_epi8_mask(_mm256_maskz_loadu_epi8((__mmask32)(m), f), _mm256_set1_epi8(-1))
#define FLAGS_D(m, f) _mm_test_epi8_mask(_mm_maskz_loadu_epi8((__mmask16)(m), f), _mm_set1_epi8(-1))
#define FLAGS_Q(m, f) _mm_test_epi8_mask(_mm_maskz_loadu_epi8((__mmask16)(m), f), _mm_set1_epi8(-1))

/* The first min(r, lanes) lanes (bzhi of 64 or more keeps all 64). */
#define LANE_MASK(G, r) _bzhi_u64(~0ull, (unsigned)((r) < LANES_##G ? (r) : LANES_##G))

/*
 * The loop every function here is: for each vector, `lanes` its items in
 * range, `v` its items, MASK the items selected (an expression of v and i;
 * only bits within lanes count). Where sel is not NULL their compress is
 * stored at sel + k and, where rej is not NULL either, the compress of the
 * others at rej plus the number rejected so far (i - k). Leaves the number
 * selected in k.
 */
#define GP_SIMD_STEPS(G, MASK)                                                 \
    for (int64_t i = 0; i < n; i += LANES_##G) {                               \
        const uint64_t lanes = LANE_MASK(G, n - i);                            \
        const __m512i v = LOAD_##G(lanes, x + i);                              \
        const uint64_t m = (MASK) & lanes;                                     \
        const int c = __builtin_popcountll(m);                                 \
        if (sel) {                                                             \
            STORE_##G(sel + k, _bzhi_u64(~0ull, (unsigned)c), COMPRESS_##G(m, v)); \
            if (rej)                                                           \
                STORE_##G(rej + (i - k), _bzhi_u64(~0ull, (unsigned)(__builtin_popcountll(lanes) - c)), \
                          COMPRESS_##G(m ^ lanes, v));                         \
        }                                                                      \
        k += c;                                                                \
    }

/* ------------------------------------------------------------ by flags */

#define GP_SIMD_DEF_SPLIT(G)                                                                              \
    GP_AVX512 static int64_t split_##G(const void *xv, const uint8_t *f, int64_t n, void *selv, void *rejv) \
    {                                                                                                     \
        const ITEM_##G *x = (const ITEM_##G *)xv;                                                         \
        ITEM_##G *sel = (ITEM_##G *)selv, *rej = (ITEM_##G *)rejv;                                        \
        int64_t k = 0;                                                                                    \
        GP_SIMD_STEPS(G, (uint64_t)FLAGS_##G(lanes, f + i))                                               \
        return k;                                                                                         \
    }
GP_SIMD_DEF_SPLIT(B)
GP_SIMD_DEF_SPLIT(W)
GP_SIMD_DEF_SPLIT(D)
GP_SIMD_DEF_SPLIT(Q)

static int64_t avx512_split(size_t size, const void *x, const uint8_t *f, int64_t n, void *sel, void *rej)
{
    switch (size) {
    case 1: return split_B(x, f, n, sel, rej);
    case 2: return split_W(x, f, n, sel, rej);
    case 4: return split_D(x, f, n, sel, rej);
    default: return split_Q(x, f, n, sel, rej);
    }
}

/* ------------------------------------------------------- by comparison */

/* The comparison of a vector with the value broadcast, as a mask. Integers
 * compare signed (epi) or unsigned (epu); floats ordered, so a NaN passes
 * only `ne`, as in C. */
#define CMP_i8(a, b, I) _mm512_cmp_epi8_mask(a, b, I)
#define CMP_u8(a, b, I) _mm512_cmp_epu8_mask(a, b, I)
#define CMP_i16(a, b, I) _mm512_cmp_epi16_mask(a, b, I)
#define CMP_u16(a, b, I) _mm512_cmp_epu16_mask(a, b, I)
#define CMP_i32(a, b, I) _mm512_cmp_epi32_mask(a, b, I)
#define CMP_u32(a, b, I) _mm512_cmp_epu32_mask(a, b, I)
#define CMP_i64(a, b, I) _mm512_cmp_epi64_mask(a, b, I)
#define CMP_u64(a, b, I) _mm512_cmp_epu64_mask(a, b, I)
#define CMP_f32(a, b, I) _mm512_cmp_ps_mask(_mm512_castsi512_ps(a), _mm512_castsi512_ps(b), I)
#define CMP_f64(a, b, I) _mm512_cmp_pd_mask(_mm512_castsi512_pd(a), _mm512_castsi512_pd(b), I)
#define INT_LT _MM_CMPINT_LT
#define INT_LE _MM_CMPINT_LE
#define INT_GT _MM_CMPINT_NLE
#define INT_GE _MM_CMPINT_NLT
#define INT_EQ _MM_CMPINT_EQ
#define INT_NE _MM_CMPINT_NE
#define FLT_LT _CMP_LT_OQ
#define FLT_LE _CMP_LE_OQ
#define FLT_GT _CMP_GT_OQ
#define FLT_GE _CMP_GE_OQ
#define FLT_EQ _CMP_EQ_OQ
#define FLT_NE _CMP_NEQ_UQ

/* The value in every lane. */
#define SPLAT_B(p) _mm512_set1_epi8((char)gp_simd_value_bits(p, 1))
#define SPLAT_W(p) _mm512_set1_epi16((short)gp_simd_value_bits(p, 2))
#define SPLAT_D(p) _mm512_set1_epi32((int)gp_simd_value_bits(p, 4))
#define SPLAT_Q(p) _mm512_set1_epi64((long long)gp_simd_value_bits(p, 8))

/* One comparison's loop (each its own: the compare's immediate must be a
 * constant); OPR, the C operator, is the AVX2 and NEON tails'. */
#define GP_AVX512_CMP_STEPS(NAME, G, K, OP, OPR) GP_SIMD_STEPS(G, (uint64_t)CMP_##NAME(v, val, K##_##OP))

#define GP_SIMD_DEF_IF(NAME, G, K)                                                                          \
    GP_AVX512 static int64_t NAME##_split_if(const void *xv, int64_t n, gp_cmp cmp, const void *value, void *selv, \
                                             void *rejv)                                                    \
    {                                                                                                       \
        const ITEM_##G *x = (const ITEM_##G *)xv;                                                           \
        ITEM_##G *sel = (ITEM_##G *)selv, *rej = (ITEM_##G *)rejv;                                          \
        const __m512i val = SPLAT_##G(value);                                                               \
        int64_t k = 0;                                                                                      \
        GP_SIMD_CMP_SWITCH(cmp, GP_AVX512_CMP_STEPS, NAME, G, K)                                            \
        return k;                                                                                           \
    }
/* X(name, item size group, comparison kind, dtype) */
#define GP_SIMD_DTYPES(X)          \
    X(i8, B, INT, GP_DTYPE_I8)     \
    X(u8, B, INT, GP_DTYPE_U8)     \
    X(i16, W, INT, GP_DTYPE_I16)   \
    X(u16, W, INT, GP_DTYPE_U16)   \
    X(i32, D, INT, GP_DTYPE_I32)   \
    X(u32, D, INT, GP_DTYPE_U32)   \
    X(i64, Q, INT, GP_DTYPE_I64)   \
    X(u64, Q, INT, GP_DTYPE_U64)   \
    X(f32, D, FLT, GP_DTYPE_F32)   \
    X(f64, Q, FLT, GP_DTYPE_F64)

#define GP_SIMD_DEF_IF_X(NAME, G, K, E) GP_SIMD_DEF_IF(NAME, G, K)
GP_SIMD_DTYPES(GP_SIMD_DEF_IF_X)

static int64_t avx512_split_if(gp_dtype t, const void *x, int64_t n, gp_cmp cmp, const void *value, void *sel,
                               void *rej)
{
    switch (t) {
#define GP_SIMD_CASE(NAME, G, K, E) \
    case E: return NAME##_split_if(x, n, cmp, value, sel, rej);
        GP_SIMD_DTYPES(GP_SIMD_CASE)
#undef GP_SIMD_CASE
    default: return 0; /* cpu_select.c asks only for these dtypes */
    }
}

int64_t gp_cpu_simd_split_if(gp_dtype t, const void *x, int64_t n, gp_cmp cmp, const void *value, void *sel,
                             void *rej)
{
    const int s = select_path();
    if (s == PATH_AVX512) return avx512_split_if(t, x, n, cmp, value, sel, rej);
    return gp_cpu_avx2_split_if(t, x, n, cmp, value, sel, rej, s == PATH_AVX2_MASKED);
}

int64_t gp_cpu_simd_split(size_t size, const void *x, const uint8_t *f, int64_t n, void *sel, void *rej)
{
    const int s = select_path();
    if (s == PATH_AVX512) return avx512_split(size, x, f, n, sel, rej);
    return gp_cpu_avx2_split(size, x, f, n, sel, rej, s == PATH_AVX2_MASKED);
}

#endif
