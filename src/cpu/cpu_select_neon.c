/*
 * NEON selections (cpu_select_simd.h) for 64-bit Arm CPUs: Grace hosts,
 * Graviton, Apple's. A 16-byte vector (16 items of 1 byte, 8 of 2, 4 of 4
 * or 2 of 8) is compared, or its flags tested, into lanes of all ones or
 * zeros, then into a bit mask (each lane ANDed with its own bit, the lanes
 * summed across). NEON has no compress: a table lookup (tbl) by an entry
 * indexed by the mask moves the kept bytes to the front, eight 1-byte items
 * at a time and a whole vector of wider ones. Nor a masked store: every
 * vector is stored whole into a buffer on the stack that leaves by a memcpy
 * of exactly what it holds, so nothing is stored in the caller's output
 * past the items kept. The items short of a whole vector at the end go
 * through a scalar loop, so nothing is read outside the caller's range.
 */
#include "cpu_select_simd.h"

#if GP_CPU_SIMD_NEON
#include <arm_neon.h>
#include <pthread.h>

/* For each mask of a vector's lanes, the byte indices that gather the
 * lanes it sets to the front, in order (the rest 0: those bytes land in
 * the buffer past what it holds). 1-byte items: 8 lanes of one half. */
static uint8_t gather_b[256][8];
static uint8_t gather_w[256][16];
static uint8_t gather_d[16][16];
static uint8_t gather_q[4][16];
static pthread_once_t gather_once = PTHREAD_ONCE_INIT;

/* table[m] for lanes of `size` bytes, `lanes` of them. */
static void fill_gather(uint8_t *table, int row_bytes, int lanes, int size)
{
    for (int m = 0; m < 1 << lanes; m++)
        for (int j = 0, k = 0; j < lanes; j++)
            if (m >> j & 1) {
                for (int b = 0; b < size; b++) table[m * row_bytes + k * size + b] = (uint8_t)(j * size + b);
                k++;
            }
}

static void fill_tables(void)
{
    fill_gather(&gather_b[0][0], 8, 8, 1);
    fill_gather(&gather_w[0][0], 16, 8, 2);
    fill_gather(&gather_d[0][0], 16, 4, 4);
    fill_gather(&gather_q[0][0], 16, 2, 8);
}

void gp_cpu_neon_init(void) { pthread_once(&gather_once, fill_tables); }

#define LANES_B 16
#define LANES_W 8
#define LANES_D 4
#define LANES_Q 2
#define FULL_B 0xffffu
#define FULL_W 0xffu
#define FULL_D 0xfu
#define FULL_Q 0x3u

/* Lanes of all ones or zeros as a bit mask, lane j as bit j. */
static inline unsigned mask_b(uint8x16_t c)
{
    static const uint8_t bit[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
    const uint8x16_t b = vandq_u8(c, vld1q_u8(bit));
    return (unsigned)vaddv_u8(vget_low_u8(b)) | (unsigned)vaddv_u8(vget_high_u8(b)) << 8;
}
static inline unsigned mask_w(uint16x8_t c)
{
    static const uint16_t bit[8] = {1, 2, 4, 8, 16, 32, 64, 128};
    return vaddvq_u16(vandq_u16(c, vld1q_u16(bit)));
}
static inline unsigned mask_d(uint32x4_t c)
{
    static const uint32_t bit[4] = {1, 2, 4, 8};
    return vaddvq_u32(vandq_u32(c, vld1q_u32(bit)));
}
static inline unsigned mask_q(uint64x2_t c)
{
    static const uint64_t bit[2] = {1, 2};
    return (unsigned)vaddvq_u64(vandq_u64(c, vld1q_u64(bit)));
}
#define MASK_B mask_b
#define MASK_W mask_w
#define MASK_D mask_d
#define MASK_Q mask_q

/* The kept items of v (mask m) to the buffer: each 8-byte half of 1-byte
 * items by its own entry; wider items as one vector. */
static inline void put_B(gp_simd_buf *o, uint8x16_t v, unsigned m)
{
    const unsigned lo = m & 0xffu, hi = m >> 8;
    vst1_u8(o->b + o->held, vtbl1_u8(vget_low_u8(v), vld1_u8(gather_b[lo])));
    o->held += __builtin_popcount(lo);
    vst1_u8(o->b + o->held, vtbl1_u8(vget_high_u8(v), vld1_u8(gather_b[hi])));
    o->held += __builtin_popcount(hi);
    if (o->held >= GP_SIMD_BUF) gp_simd_flush(o);
}
static inline void put_wide(gp_simd_buf *o, uint8x16_t v, const uint8_t *gather, int bytes)
{
    vst1q_u8(o->b + o->held, vqtbl1q_u8(v, vld1q_u8(gather)));
    o->held += bytes;
    if (o->held >= GP_SIMD_BUF) gp_simd_flush(o);
}
#define put_W(o, v, m) put_wide(o, v, gather_w[m], 2 * __builtin_popcount(m))
#define put_D(o, v, m) put_wide(o, v, gather_d[m], 4 * __builtin_popcount(m))
#define put_Q(o, v, m) put_wide(o, v, gather_q[m], 8 * __builtin_popcount(m))

/* The loop of every function here (cpu_select_simd.h): 16-byte vectors v,
 * MASK the items selected (of v and i), KEEP(i) one of the last items. */
#define LOAD_BYTES(p) vld1q_u8((const uint8_t *)(p))
#define GP_NEON_STEPS(G, MASK, KEEP) \
    GP_SIMD_BUFFERED_STEPS(uint8x16_t, LOAD_BYTES, LANES_##G, FULL_##G, put_##G, MASK, KEEP)

/* ------------------------------------------------------------ by flags */

/* The set flags of the vector's items at f (16, 8, 4 or 2 bytes) as bits. */
static inline unsigned flags_B(const uint8_t *f)
{
    const uint8x16_t v = vld1q_u8(f);
    return mask_b(vtstq_u8(v, v));
}
/* 8, 4 or 2 flags: read into a zeroed word, so the bytes past them test 0. */
static inline unsigned flags_few(const uint8_t *f, size_t count)
{
    static const uint8_t bit[8] = {1, 2, 4, 8, 16, 32, 64, 128};
    uint64_t w = 0;
    memcpy(&w, f, count);
    const uint8x8_t v = vcreate_u8(w);
    return vaddv_u8(vand_u8(vtst_u8(v, v), vld1_u8(bit)));
}
#define flags_W(f) flags_few(f, 8)
#define flags_D(f) flags_few(f, 4)
#define flags_Q(f) flags_few(f, 2)

#define GP_NEON_DEF_SPLIT(G, T)                                                                             \
    static int64_t split_##G(const void *xv, const uint8_t *f, int64_t n, void *selv, void *rejv)             \
    {                                                                                                       \
        const T *x = (const T *)xv;                                                                         \
        T *sel = (T *)selv, *rej = (T *)rejv;                                                               \
        int64_t i = 0, k = 0;                                                                               \
        GP_NEON_STEPS(G, flags_##G(f + i), f[i] != 0)                                                       \
        return k;                                                                                           \
    }
GP_NEON_DEF_SPLIT(B, uint8_t)
GP_NEON_DEF_SPLIT(W, uint16_t)
GP_NEON_DEF_SPLIT(D, uint32_t)
GP_NEON_DEF_SPLIT(Q, uint64_t)

int64_t gp_cpu_simd_split(size_t size, const void *x, const uint8_t *f, int64_t n, void *sel, void *rej)
{
    switch (size) {
    case 1: return split_B(x, f, n, sel, rej);
    case 2: return split_W(x, f, n, sel, rej);
    case 4: return split_D(x, f, n, sel, rej);
    default: return split_Q(x, f, n, sel, rej);
    }
}

/* ------------------------------------------------------- by comparison */

/* The vector type of lanes of the dtype (S: NEON's suffix), and a vector
 * of bytes as those lanes. */
#define VEC_u8 uint8x16_t
#define VEC_s8 int8x16_t
#define VEC_u16 uint16x8_t
#define VEC_s16 int16x8_t
#define VEC_u32 uint32x4_t
#define VEC_s32 int32x4_t
#define VEC_f32 float32x4_t
#define VEC_u64 uint64x2_t
#define VEC_s64 int64x2_t
#define VEC_f64 float64x2_t
#define AS_u8(b) (b)
#define AS_s8(b) vreinterpretq_s8_u8(b)
#define AS_u16(b) vreinterpretq_u16_u8(b)
#define AS_s16(b) vreinterpretq_s16_u8(b)
#define AS_u32(b) vreinterpretq_u32_u8(b)
#define AS_s32(b) vreinterpretq_s32_u8(b)
#define AS_f32(b) vreinterpretq_f32_u8(b)
#define AS_u64(b) vreinterpretq_u64_u8(b)
#define AS_s64(b) vreinterpretq_s64_u8(b)
#define AS_f64(b) vreinterpretq_f64_u8(b)

/* Lane masks of a against b. NEON compares signed, unsigned and float
 * lanes each by their own instructions; floats by the ordered predicates,
 * so a NaN fails all but `ne`, the complement of `eq`, as in C. */
#define CMP_LT(G, S, a, b) MASK_##G(vcltq_##S(a, b))
#define CMP_LE(G, S, a, b) MASK_##G(vcleq_##S(a, b))
#define CMP_GT(G, S, a, b) MASK_##G(vcgtq_##S(a, b))
#define CMP_GE(G, S, a, b) MASK_##G(vcgeq_##S(a, b))
#define CMP_EQ(G, S, a, b) MASK_##G(vceqq_##S(a, b))
#define CMP_NE(G, S, a, b) (FULL_##G ^ MASK_##G(vceqq_##S(a, b)))

/* One comparison's loop: OP the comparison's name, OPR its C operator. */
#define GP_NEON_CMP_STEPS(G, S, OP, OPR) GP_NEON_STEPS(G, CMP_##OP(G, S, AS_##S(v), val), x[i] OPR value)

#define GP_NEON_DEF_IF(NAME, T, G, S)                                                                       \
    static int64_t NAME##_split_if(const void *xv, int64_t n, gp_cmp cmp, const void *vp, void *selv,         \
                                   void *rejv)                                                              \
    {                                                                                                       \
        GP_SIMD_IF_ARGS(T)                                                                                  \
        const VEC_##S val = vdupq_n_##S(value);                                                             \
        GP_SIMD_CMP_SWITCH(cmp, GP_NEON_CMP_STEPS, G, S)                                                    \
        return k;                                                                                           \
    }
/* X(name, C type, item size group, NEON suffix, dtype) */
#define GP_NEON_DTYPES(X)                  \
    X(i8, int8_t, B, s8, GP_DTYPE_I8)      \
    X(u8, uint8_t, B, u8, GP_DTYPE_U8)     \
    X(i16, int16_t, W, s16, GP_DTYPE_I16)  \
    X(u16, uint16_t, W, u16, GP_DTYPE_U16) \
    X(i32, int32_t, D, s32, GP_DTYPE_I32)  \
    X(u32, uint32_t, D, u32, GP_DTYPE_U32) \
    X(f32, float, D, f32, GP_DTYPE_F32)    \
    X(i64, int64_t, Q, s64, GP_DTYPE_I64)  \
    X(u64, uint64_t, Q, u64, GP_DTYPE_U64) \
    X(f64, double, Q, f64, GP_DTYPE_F64)

#define GP_NEON_DEF_IF_X(NAME, T, G, S, E) GP_NEON_DEF_IF(NAME, T, G, S)
GP_NEON_DTYPES(GP_NEON_DEF_IF_X)

int64_t gp_cpu_simd_split_if(gp_dtype t, const void *x, int64_t n, gp_cmp cmp, const void *value, void *sel,
                             void *rej)
{
    switch (t) {
#define GP_NEON_CASE(NAME, T, G, S, E) \
    case E: return NAME##_split_if(x, n, cmp, value, sel, rej);
        GP_NEON_DTYPES(GP_NEON_CASE)
#undef GP_NEON_CASE
    default: return 0; /* cpu_select.c asks only for these dtypes */
    }
}

#endif
