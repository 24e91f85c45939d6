/* Elements and ops of the serial references (cpu_reference.c,
 * cpu_reference_scan.c). Integers are held as the low bits of a uint64_t
 * in out_t's width, so that sum and product wrap as out_t does; floats
 * combine in out_t's precision. */
#ifndef GP_CPU_REFERENCE_OPS_H
#define GP_CPU_REFERENCE_OPS_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "gp_internal.h"

/* The low `bits` bits of v as a signed integer. */
static inline int64_t ref_sign_extend(uint64_t v, unsigned bits)
{
    if (bits == 64) return (int64_t)v;
    uint64_t sign = 1ull << (bits - 1);
    return (int64_t)((v ^ sign) - sign);
}

/* Element i of p, an integer array of dtype t, zero- or sign-extended. */
static inline uint64_t ref_get_unsigned(const void *p, gp_dtype t, int64_t i)
{
    switch (gp_dtype_size(t)) {
    case 1: return ((const uint8_t *)p)[i];
    case 2: return ((const uint16_t *)p)[i];
    case 4: return ((const uint32_t *)p)[i];
    default: return ((const uint64_t *)p)[i];
    }
}

static inline int64_t ref_get_signed(const void *p, gp_dtype t, int64_t i)
{
    return ref_sign_extend(ref_get_unsigned(p, t, i), 8u * (unsigned)gp_dtype_size(t));
}

/* The identity of op in out_t's width, as low bits of a uint64_t. */
static inline uint64_t ref_int_identity(gp_op op, gp_dtype out_t)
{
    unsigned bits = 8u * (unsigned)gp_dtype_size(out_t);
    uint64_t ones = bits == 64 ? ~0ull : (1ull << bits) - 1;
    bool is_signed = gp_dtype_kind(out_t) == GP_KIND_SIGNED;
    switch (op) {
    case GP_OP_PROD: return 1;
    case GP_OP_AND: return ones;
    case GP_OP_MIN: return is_signed ? ones >> 1 : ones;    /* largest value */
    case GP_OP_MAX: return is_signed ? (ones >> 1) + 1 : 0; /* smallest value */
    default: return 0;
    }
}

/* acc op v, both `bits` wide (mask: those bits), truncated after the step. */
static inline uint64_t ref_int_combine(gp_op op, uint64_t acc, uint64_t v, unsigned bits, uint64_t mask,
                                       bool is_signed)
{
    switch (op) {
    case GP_OP_SUM: return (acc + v) & mask;
    case GP_OP_PROD: return (acc * v) & mask;
    case GP_OP_AND: return acc & v;
    case GP_OP_OR: return acc | v;
    case GP_OP_XOR: return acc ^ v;
    case GP_OP_MIN: return (is_signed ? ref_sign_extend(v, bits) < ref_sign_extend(acc, bits) : v < acc) ? v : acc;
    case GP_OP_MAX: return (is_signed ? ref_sign_extend(v, bits) > ref_sign_extend(acc, bits) : v > acc) ? v : acc;
    }
    return acc;
}

/* The identity of a float op (exact in float and in double). */
static inline double ref_float_identity(gp_op op)
{
    return op == GP_OP_SUM ? 0.0 : op == GP_OP_PROD ? 1.0 : op == GP_OP_MIN ? INFINITY : -INFINITY;
}

/* a < b in the order IEEE 754-2019's minimum and maximum use: -0 < +0. */
static inline bool ref_fless(double a, double b) { return a < b || (a == 0 && b == 0 && signbit(a) && !signbit(b)); }

/* acc op v in float or in double: MIN and MAX let a NaN win and stay, and
 * order the zeros as ref_fless does. */
#define GP_REF_FLOAT_COMBINE_(NAME, T)                                                          \
    static inline T NAME(gp_op op, T acc, T v)                                                   \
    {                                                                                            \
        switch (op) {                                                                            \
        case GP_OP_SUM: return acc + v;                                                          \
        case GP_OP_PROD: return acc * v;                                                         \
        case GP_OP_MIN: return isnan(acc) ? acc : isnan(v) ? v : ref_fless(v, acc) ? v : acc;    \
        case GP_OP_MAX: return isnan(acc) ? acc : isnan(v) ? v : ref_fless(acc, v) ? v : acc;    \
        default: return acc;                                                                     \
        }                                                                                        \
    }
GP_REF_FLOAT_COMBINE_(ref_combine_f32, float)
GP_REF_FLOAT_COMBINE_(ref_combine_f64, double)
#undef GP_REF_FLOAT_COMBINE_

#endif
