/*
 * CPU reduction: each OpenMP thread reduces one contiguous chunk; partials
 * are combined in thread order. Inside a chunk, GP_CPU_LANES independent
 * accumulators let the compiler vectorise without reassociating floats
 * (no -ffast-math), and blocks of GP_CPU_BLOCK elements are reduced first
 * and then combined, which keeps float sums accurate (error grows with
 * block/lanes + n/block, not n).
 *
 * Accumulators: 8- and 16-bit integers are combined in 32 bits and 32-bit
 * ones in 32 bits; a wider output dtype is combined in its 64-bit type (or
 * f64). Truncating a wrapping sum or product to the output width at the end
 * gives exactly the output's own wrapping result (arithmetic mod 2^k).
 */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <string.h>

#include "cpu_backend.h"

/* Tuning, 2-core development machine (2026-11-22): 2^27 int32 sum. */
enum {
    GP_CPU_LANES = 16,          /* 64 bytes of int32: one cache line per step */
    GP_CPU_BLOCK = 4096,        /* elements per inner block (float accuracy) */
    GP_CPU_PAR_MIN = 1 << 15,   /* below this, threads cost more than they save */
    GP_CPU_MAX_THREADS = 256
};

#define GP_C_SUM(a, b) ((a) + (b))
#define GP_C_PROD(a, b) ((a) * (b))
#define GP_C_AND(a, b) ((a) & (b))
#define GP_C_OR(a, b) ((a) | (b))
#define GP_C_XOR(a, b) ((a) ^ (b))
#define GP_C_MIN(a, b) ((b) < (a) ? (b) : (a))
#define GP_C_MAX(a, b) ((b) > (a) ? (b) : (a))
#define GP_C_FMIN GP_CPU_FMIN
#define GP_C_FMAX GP_CPU_FMAX

/* Lanes over one block: GP_CPU_LANES accumulators the compiler vectorises. */
#define GP_CPU_DEF_BLOCK(NAME, TIN, TACC, OP)                                            \
    static TACC NAME##_block(const TIN *restrict x, int64_t n, TACC id)                  \
    {                                                                                    \
        TACC lane[GP_CPU_LANES];                                                         \
        for (int l = 0; l < GP_CPU_LANES; l++) lane[l] = id;                             \
        int64_t i = 0;                                                                   \
        for (; i + GP_CPU_LANES <= n; i += GP_CPU_LANES)                                 \
            for (int l = 0; l < GP_CPU_LANES; l++) lane[l] = OP(lane[l], (TACC)x[i + l]); \
        for (; i < n; i++) lane[0] = OP(lane[0], (TACC)x[i]);                            \
        TACC r = lane[0];                                                                \
        for (int l = 1; l < GP_CPU_LANES; l++) r = OP(r, lane[l]);                       \
        return r;                                                                        \
    }

/* Blocks in order within a thread's chunk, chunks in thread order. `id` is
 * the accumulator's identity. */
#define GP_CPU_DEF_DRIVER(NAME, TIN, TACC, OP)                                           \
    static TACC NAME##_chunk(const TIN *x, int64_t n, TACC id)                           \
    {                                                                                    \
        TACC r = id;                                                                     \
        for (int64_t i = 0; i < n; i += GP_CPU_BLOCK) {                                  \
            /* once: OP names its operands more than once */                             \
            const TACC b = NAME##_block(x + i, n - i < GP_CPU_BLOCK ? n - i : GP_CPU_BLOCK, id); \
            r = OP(r, b);                                                                \
        }                                                                                \
        return r;                                                                        \
    }                                                                                    \
    static TACC NAME(const TIN *x, int64_t n, TACC id)                                   \
    {                                                                                    \
        if (n < GP_CPU_PAR_MIN || omp_get_max_threads() == 1) return NAME##_chunk(x, n, id); \
        TACC part[GP_CPU_MAX_THREADS];                                                   \
        int used = 1;                                                                    \
        int want = omp_get_max_threads();                                                \
        if (want > GP_CPU_MAX_THREADS) want = GP_CPU_MAX_THREADS;                        \
        _Pragma("omp parallel num_threads(want)")                                        \
        {                                                                                \
            int t = omp_get_thread_num(), nt = omp_get_num_threads();                    \
            int64_t lo = n / nt * t + (t < n % nt ? t : n % nt);                         \
            int64_t len = n / nt + (t < n % nt ? 1 : 0);                                 \
            part[t] = NAME##_chunk(x + lo, len, id);                                     \
            if (t == 0) used = nt;                                                       \
        }                                                                                \
        TACC r = part[0];                                                                \
        for (int t = 1; t < used; t++) r = OP(r, part[t]);                               \
        return r;                                                                        \
    }

#define GP_CPU_DEF_REDUCE(NAME, TIN, TACC, OP) \
    GP_CPU_DEF_BLOCK(NAME, TIN, TACC, OP)      \
    GP_CPU_DEF_DRIVER(NAME, TIN, TACC, OP)

/*
 * Integer inputs: X(name, input type, same-width unsigned acc, same-width
 * ordered acc, wide unsigned acc, wide ordered acc). Wrapping ops use the
 * unsigned accumulator (no signed overflow), MIN and MAX the ordered one.
 */
#define GP_CPU_INT_TYPES(X)                                               \
    X(i8, int8_t, uint32_t, int32_t, uint64_t, int64_t)                   \
    X(u8, uint8_t, uint32_t, uint32_t, uint64_t, uint64_t)                \
    X(i16, int16_t, uint32_t, int32_t, uint64_t, int64_t)                 \
    X(u16, uint16_t, uint32_t, uint32_t, uint64_t, uint64_t)              \
    X(i32, int32_t, uint32_t, int32_t, uint64_t, int64_t)                 \
    X(u32, uint32_t, uint32_t, uint32_t, uint64_t, uint64_t)              \
    X(i64, int64_t, uint64_t, int64_t, uint64_t, int64_t)                 \
    X(u64, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t)

#define GP_CPU_INT_OPS(NAME, TIN, UACC, OACC, W)            \
    GP_CPU_DEF_REDUCE(NAME##_sum_##W, TIN, UACC, GP_C_SUM)   \
    GP_CPU_DEF_REDUCE(NAME##_prod_##W, TIN, UACC, GP_C_PROD) \
    GP_CPU_DEF_REDUCE(NAME##_and_##W, TIN, UACC, GP_C_AND)   \
    GP_CPU_DEF_REDUCE(NAME##_or_##W, TIN, UACC, GP_C_OR)     \
    GP_CPU_DEF_REDUCE(NAME##_xor_##W, TIN, UACC, GP_C_XOR)   \
    GP_CPU_DEF_REDUCE(NAME##_min_##W, TIN, OACC, GP_C_MIN)   \
    GP_CPU_DEF_REDUCE(NAME##_max_##W, TIN, OACC, GP_C_MAX)

#define GP_CPU_DEF_INT(NAME, TIN, US, OS, UW, OW) \
    GP_CPU_INT_OPS(NAME, TIN, US, OS, same)       \
    GP_CPU_INT_OPS(NAME, TIN, UW, OW, wide)
GP_CPU_INT_TYPES(GP_CPU_DEF_INT)

#define GP_CPU_FLOAT_SUMS(NAME, TIN, ACC, W)                 \
    GP_CPU_DEF_REDUCE(NAME##_sum_##W, TIN, ACC, GP_C_SUM)    \
    GP_CPU_DEF_REDUCE(NAME##_prod_##W, TIN, ACC, GP_C_PROD)
GP_CPU_FLOAT_SUMS(f32, float, float, same)
GP_CPU_FLOAT_SUMS(f32, float, double, wide)
GP_CPU_FLOAT_SUMS(f64, double, double, same)

/*
 * Float MIN and MAX. The result is one of the inputs (no rounding), so f32
 * into f64 is the f32 result widened and the order of combination is free.
 * MINPS returns its second operand on a tie, so the block takes both
 * orders and ORs them (ANDs for MAXPS): equal values agree bit for bit but
 * for the zeros, where -0 | +0 is -0 and -0 & +0 is +0.
 * Compilers do not vectorise the NaN-propagating select without
 * -ffast-math (7 GB/s instead of 33 on 2^27 f32 here), so with SSE2 the
 * block runs MINPS/MAXPS over 4 vectors in flight and an unordered-compare
 * mask remembers whether any NaN went by.
 */
#ifdef __SSE2__
#include <emmintrin.h>

#define GP_CPU_DEF_SSE_BLOCK(NAME, T, OP, VEC, SFX, MINMAX)                                   \
    static T NAME##_block(const T *restrict x, int64_t n, T id)                               \
    {                                                                                         \
        enum { PER = 16 / sizeof(T) };                                                        \
        VEC m0 = _mm_set1_##SFX(id), m1 = m0, m2 = m0, m3 = m0;                               \
        VEC bad = _mm_setzero_##SFX();                                                        \
        int64_t i = 0;                                                                        \
        for (; i + 4 * PER <= n; i += 4 * PER) {                                              \
            VEC v0 = _mm_loadu_##SFX(x + i), v1 = _mm_loadu_##SFX(x + i + PER);               \
            VEC v2 = _mm_loadu_##SFX(x + i + 2 * PER), v3 = _mm_loadu_##SFX(x + i + 3 * PER); \
            m0 = MINMAX(m0, v0), m1 = MINMAX(m1, v1);                                         \
            m2 = MINMAX(m2, v2), m3 = MINMAX(m3, v3);                                         \
            bad = _mm_or_##SFX(bad, _mm_or_##SFX(_mm_cmpunord_##SFX(v0, v1),                  \
                                                 _mm_cmpunord_##SFX(v2, v3)));                \
        }                                                                                     \
        T lane[4 * PER];                                                                      \
        _mm_storeu_##SFX(lane, m0), _mm_storeu_##SFX(lane + PER, m1);                         \
        _mm_storeu_##SFX(lane + 2 * PER, m2), _mm_storeu_##SFX(lane + 3 * PER, m3);           \
        T r = id;                                                                             \
        for (int l = 0; l < 4 * PER; l++) r = OP(r, lane[l]);                                 \
        for (; i < n; i++) r = OP(r, x[i]);                                                   \
        return _mm_movemask_##SFX(bad) ? (T)NAN : r;                                          \
    }
#define GP_SSE_MIN_PS(a, b) _mm_or_ps(_mm_min_ps(a, b), _mm_min_ps(b, a))
#define GP_SSE_MAX_PS(a, b) _mm_and_ps(_mm_max_ps(a, b), _mm_max_ps(b, a))
#define GP_SSE_MIN_PD(a, b) _mm_or_pd(_mm_min_pd(a, b), _mm_min_pd(b, a))
#define GP_SSE_MAX_PD(a, b) _mm_and_pd(_mm_max_pd(a, b), _mm_max_pd(b, a))
GP_CPU_DEF_SSE_BLOCK(f32_min, float, GP_C_FMIN, __m128, ps, GP_SSE_MIN_PS)
GP_CPU_DEF_SSE_BLOCK(f32_max, float, GP_C_FMAX, __m128, ps, GP_SSE_MAX_PS)
GP_CPU_DEF_SSE_BLOCK(f64_min, double, GP_C_FMIN, __m128d, pd, GP_SSE_MIN_PD)
GP_CPU_DEF_SSE_BLOCK(f64_max, double, GP_C_FMAX, __m128d, pd, GP_SSE_MAX_PD)
#else
GP_CPU_DEF_BLOCK(f32_min, float, float, GP_C_FMIN)
GP_CPU_DEF_BLOCK(f32_max, float, float, GP_C_FMAX)
GP_CPU_DEF_BLOCK(f64_min, double, double, GP_C_FMIN)
GP_CPU_DEF_BLOCK(f64_max, double, double, GP_C_FMAX)
#endif
GP_CPU_DEF_DRIVER(f32_min, float, float, GP_C_FMIN)
GP_CPU_DEF_DRIVER(f32_max, float, float, GP_C_FMAX)
GP_CPU_DEF_DRIVER(f64_min, double, double, GP_C_FMIN)
GP_CPU_DEF_DRIVER(f64_max, double, double, GP_C_FMAX)

/* ------------------------------------------------------------ identities */

/* Identity of `op` in an accumulator of `bits` bits (0 for SUM, OR, XOR). */
static uint64_t int_identity(gp_op op, bool is_signed, unsigned bits)
{
    uint64_t ones = bits == 64 ? ~0ull : (1ull << bits) - 1;
    switch (op) {
    case GP_OP_PROD: return 1;
    case GP_OP_AND: return ones;
    case GP_OP_MIN: return is_signed ? ones >> 1 : ones;
    case GP_OP_MAX: return is_signed ? ~(ones >> 1) : 0; /* sign-extended minimum */
    default: return 0;
    }
}

/* Stores the low bytes of an integer result in out_t (little-endian). */
static void store_int(uint64_t v, void *out, gp_dtype out_t) { memcpy(out, &v, gp_dtype_size(out_t)); }

static void store_float(double v, void *out, gp_dtype out_t)
{
    if (out_t == GP_DTYPE_F32) {
        float f = (float)v;
        memcpy(out, &f, sizeof f);
    } else {
        memcpy(out, &v, sizeof v);
    }
}

/* ------------------------------------------------------------- dispatch */

#define GP_CPU_CASE_INT_OP(NAME, TIN, UACC, OACC, W, BITS, SIGNED)                            \
    switch (op) {                                                                               \
    case GP_OP_SUM: r = (uint64_t)NAME##_sum_##W(x, n, (UACC)0); break;                        \
    case GP_OP_PROD: r = (uint64_t)NAME##_prod_##W(x, n, (UACC)1); break;                      \
    case GP_OP_AND: r = (uint64_t)NAME##_and_##W(x, n, (UACC)int_identity(op, false, BITS)); break; \
    case GP_OP_OR: r = (uint64_t)NAME##_or_##W(x, n, (UACC)0); break;                          \
    case GP_OP_XOR: r = (uint64_t)NAME##_xor_##W(x, n, (UACC)0); break;                        \
    case GP_OP_MIN: r = (uint64_t)NAME##_min_##W(x, n, (OACC)int_identity(op, SIGNED, BITS)); break; \
    case GP_OP_MAX: r = (uint64_t)NAME##_max_##W(x, n, (OACC)int_identity(op, SIGNED, BITS)); break; \
    }

#define GP_CPU_CASE_INT(NAME, TIN, US, OS, UW, OW)                                          \
    case GP_DTYPE_##NAME##_: {                                                                \
        const TIN *x = (const TIN *)a->in;                                                    \
        bool sgn = gp_dtype_kind(a->in_t) == GP_KIND_SIGNED;                                  \
        if (wide) {                                                                           \
            GP_CPU_CASE_INT_OP(NAME, TIN, UW, OW, wide, 64, sgn)                              \
        } else {                                                                              \
            GP_CPU_CASE_INT_OP(NAME, TIN, US, OS, same, 8 * sizeof(US), sgn)                  \
        }                                                                                     \
        store_int(r, a->out, a->out_t);                                                       \
        return GP_STATUS_OK;                                                                  \
    }

/* Upper-case enum suffixes for the X list's lower-case names. */
#define GP_DTYPE_i8_ GP_DTYPE_I8
#define GP_DTYPE_u8_ GP_DTYPE_U8
#define GP_DTYPE_i16_ GP_DTYPE_I16
#define GP_DTYPE_u16_ GP_DTYPE_U16
#define GP_DTYPE_i32_ GP_DTYPE_I32
#define GP_DTYPE_u32_ GP_DTYPE_U32
#define GP_DTYPE_i64_ GP_DTYPE_I64
#define GP_DTYPE_u64_ GP_DTYPE_U64

#define GP_CPU_FLOAT_SWITCH(NAME, TIN, ACC, W)                               \
    switch (op) {                                                         \
    case GP_OP_SUM: r = NAME##_sum_##W(x, n, (ACC)0); break;              \
    case GP_OP_PROD: r = NAME##_prod_##W(x, n, (ACC)1); break;            \
    case GP_OP_MIN: r = NAME##_min(x, n, (TIN)INFINITY); break;    \
    case GP_OP_MAX: r = NAME##_max(x, n, (TIN)-INFINITY); break;   \
    default: return GP_STATUS_INTERNAL;                                   \
    }

static gp_status reduce_int(const gp_reduce_args *a, gp_op op, int64_t n, bool wide)
{
    uint64_t r = 0;
    switch (a->in_t) {
        GP_CPU_INT_TYPES(GP_CPU_CASE_INT)
    default: break;
    }
    return GP_STATUS_INTERNAL;
}

static gp_status reduce_float(const gp_reduce_args *a, gp_op op, int64_t n)
{
    double r;
    if (a->in_t == GP_DTYPE_F64) {
        const double *x = (const double *)a->in;
        GP_CPU_FLOAT_SWITCH(f64, double, double, same)
    } else if (a->out_t == GP_DTYPE_F64) {
        const float *x = (const float *)a->in;
        GP_CPU_FLOAT_SWITCH(f32, float, double, wide)
    } else {
        const float *x = (const float *)a->in;
        GP_CPU_FLOAT_SWITCH(f32, float, float, same)
    }
    store_float(r, a->out, a->out_t);
    return GP_STATUS_OK;
}

void gp_cpu_reduce_identity(gp_op op, void *out, gp_dtype out_t)
{
    if (gp_dtype_kind(out_t) == GP_KIND_FLOAT) {
        double v = op == GP_OP_SUM ? 0.0 : op == GP_OP_PROD ? 1.0 : op == GP_OP_MIN ? INFINITY : -INFINITY;
        store_float(v, out, out_t);
    } else {
        store_int(int_identity(op, gp_dtype_kind(out_t) == GP_KIND_SIGNED, 8u * (unsigned)gp_dtype_size(out_t)),
                  out, out_t);
    }
}

gp_status gp_cpu_reduce(gp_ctx *ctx, const gp_reduce_args *a, void *ws)
{
    (void)ctx;
    (void)ws;
    if (a->n == 0) {
        gp_cpu_reduce_identity(a->op, a->out, a->out_t);
        return GP_STATUS_OK;
    }
    if (gp_dtype_kind(a->in_t) == GP_KIND_FLOAT) return reduce_float(a, a->op, a->n);
    return reduce_int(a, a->op, a->n, gp_dtype_size(a->out_t) > gp_dtype_size(a->in_t));
}
