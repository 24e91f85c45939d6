/* Serial reference: the definition of each primitive, as plain as possible. */
#include "cpu_reference.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "gp_internal.h"

static int64_t load_signed(const void *in, gp_dtype t, int64_t i)
{
    switch (t) {
    case GP_DTYPE_I8: return ((const int8_t *)in)[i];
    case GP_DTYPE_I16: return ((const int16_t *)in)[i];
    case GP_DTYPE_I32: return ((const int32_t *)in)[i];
    default: return ((const int64_t *)in)[i];
    }
}

static uint64_t load_unsigned(const void *in, gp_dtype t, int64_t i)
{
    switch (t) {
    case GP_DTYPE_U8: return ((const uint8_t *)in)[i];
    case GP_DTYPE_U16: return ((const uint16_t *)in)[i];
    case GP_DTYPE_U32: return ((const uint32_t *)in)[i];
    default: return ((const uint64_t *)in)[i];
    }
}

/* Integers: combine in out_t's width; sum and product wrap (mod 2^bits),
 * done in uint64_t and truncated to the width after every step. */
static uint64_t int_identity(gp_op op, gp_dtype out_t)
{
    unsigned bits = 8u * (unsigned)gp_dtype_size(out_t);
    uint64_t ones = bits == 64 ? ~0ull : (1ull << bits) - 1;
    bool is_signed = gp_dtype_kind(out_t) == GP_KIND_SIGNED;
    switch (op) {
    case GP_OP_PROD: return 1;
    case GP_OP_AND: return ones;
    case GP_OP_MIN: return is_signed ? ones >> 1 : ones;           /* largest value */
    case GP_OP_MAX: return is_signed ? (ones >> 1) + 1 : 0;        /* smallest value */
    default: return 0;
    }
}

static int64_t sign_extend(uint64_t v, unsigned bits)
{
    if (bits == 64) return (int64_t)v;
    uint64_t sign = 1ull << (bits - 1);
    return (int64_t)((v ^ sign) - sign);
}

static void ref_reduce_int(const void *in, gp_dtype in_t, int64_t n, gp_op op, void *out, gp_dtype out_t)
{
    unsigned bits = 8u * (unsigned)gp_dtype_size(out_t);
    uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
    bool is_signed = gp_dtype_kind(out_t) == GP_KIND_SIGNED;
    uint64_t acc = int_identity(op, out_t); /* low `bits` bits hold the value */
    for (int64_t i = 0; i < n; i++) {
        uint64_t v = (is_signed ? (uint64_t)load_signed(in, in_t, i) : load_unsigned(in, in_t, i)) & mask;
        switch (op) {
        case GP_OP_SUM: acc = (acc + v) & mask; break;
        case GP_OP_PROD: acc = (acc * v) & mask; break;
        case GP_OP_AND: acc &= v; break;
        case GP_OP_OR: acc |= v; break;
        case GP_OP_XOR: acc ^= v; break;
        case GP_OP_MIN:
            if (is_signed ? sign_extend(v, bits) < sign_extend(acc, bits) : v < acc) acc = v;
            break;
        case GP_OP_MAX:
            if (is_signed ? sign_extend(v, bits) > sign_extend(acc, bits) : v > acc) acc = v;
            break;
        }
    }
    memcpy(out, &acc, gp_dtype_size(out_t)); /* little-endian: the low bytes */
}

/* Floats: combine in out_t; MIN and MAX let a NaN win and stay. */
#define GP_REF_FLOAT(T)                                                                \
    do {                                                                               \
        T acc = op == GP_OP_SUM ? (T)0 : op == GP_OP_PROD ? (T)1                       \
              : op == GP_OP_MIN ? (T)INFINITY : (T)-INFINITY;                          \
        for (int64_t i = 0; i < n; i++) {                                              \
            T v = in_t == GP_DTYPE_F32 ? (T)((const float *)in)[i] : (T)((const double *)in)[i]; \
            switch (op) {                                                              \
            case GP_OP_SUM: acc = acc + v; break;                                      \
            case GP_OP_PROD: acc = acc * v; break;                                     \
            case GP_OP_MIN: acc = isnan(acc) ? acc : isnan(v) ? v : v < acc ? v : acc; break; \
            case GP_OP_MAX: acc = isnan(acc) ? acc : isnan(v) ? v : v > acc ? v : acc; break; \
            default: break;                                                            \
            }                                                                          \
        }                                                                              \
        memcpy(out, &acc, sizeof acc);                                                 \
    } while (0)

void gp_ref_reduce(const void *in, gp_dtype in_t, int64_t n, gp_op op, void *out, gp_dtype out_t)
{
    if (gp_dtype_kind(out_t) != GP_KIND_FLOAT)
        ref_reduce_int(in, in_t, n, op, out, out_t);
    else if (out_t == GP_DTYPE_F32)
        GP_REF_FLOAT(float);
    else
        GP_REF_FLOAT(double);
}
