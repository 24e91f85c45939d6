/* What the cpu benches' serial loops share (bench_reduce_cpu.c,
 * bench_scan_cpu.c): the dtypes they cover, the lookup of a loop by dtype
 * and op, and the inputs' values. */
#ifndef GP_BENCH_SERIAL_H
#define GP_BENCH_SERIAL_H

#include "bench_rng.h"
#include "gpuprim.h"

#include <stdint.h>
#include <string.h>

/* X(dtype, C type, accumulator). Integer sums and products run in an
 * unsigned accumulator so that they wrap as gpuprim defines them instead of
 * overflowing (undefined for signed types; u16 * u16 promotes to int). */
#define GPB_INT_TYPES(X)       \
    X(I8, int8_t, uint32_t)    \
    X(U8, uint8_t, uint32_t)   \
    X(I16, int16_t, uint32_t)  \
    X(U16, uint16_t, uint32_t) \
    X(I32, int32_t, uint32_t)  \
    X(U32, uint32_t, uint32_t) \
    X(I64, int64_t, uint64_t)  \
    X(U64, uint64_t, uint64_t)
#define GPB_ALL_TYPES(X) GPB_INT_TYPES(X) X(F32, float, float) X(F64, double, double)

/* Returns from the enclosing function the loop named OP_D (sum_I32,
 * xor_U8, ...) for the variables `t` (a gp_dtype) and `op` (a gp_op) in
 * scope, or NULL where the op is not defined on the dtype: sum, prod, min
 * and max on every dtype, and, or and xor on integers. */
#define GPB_SERIAL_ARITH_CASE(D, T, A)        \
    case GP_DTYPE_##D:                        \
        switch (op) {                         \
        case GP_OP_SUM: return sum_##D;       \
        case GP_OP_PROD: return prod_##D;     \
        case GP_OP_MIN: return min_##D;       \
        case GP_OP_MAX: return max_##D;       \
        default: break;                       \
        }                                     \
        break;
#define GPB_SERIAL_BITWISE_CASE(D, T, A)      \
    case GP_DTYPE_##D:                        \
        switch (op) {                         \
        case GP_OP_AND: return and_##D;       \
        case GP_OP_OR: return or_##D;         \
        case GP_OP_XOR: return xor_##D;       \
        default: break;                       \
        }                                     \
        break;
#define GPB_RETURN_SERIAL_FOR_T_AND_OP()               \
    do {                                               \
        switch (t) {                                   \
            GPB_ALL_TYPES(GPB_SERIAL_ARITH_CASE)       \
        default: break;                                \
        }                                              \
        switch (t) {                                   \
            GPB_INT_TYPES(GPB_SERIAL_BITWISE_CASE)     \
        default: break;                                \
        }                                              \
        return NULL;                                   \
    } while (0)

/* Input element of dtype t from the hash h, at p: floats in (0, 1], or
 * 1 +- 2^-10 for products; integers the hash's low bytes. */
static inline void gpb_put_input(void *p, gp_dtype t, gp_op op, uint64_t h)
{
    if (t == GP_DTYPE_F32) {
        float v = (float)(op == GP_OP_PROD ? gpb_near_one(h) : gpb_unit(h));
        memcpy(p, &v, sizeof v);
    } else if (t == GP_DTYPE_F64) {
        double v = op == GP_OP_PROD ? gpb_near_one(h) : gpb_unit(h);
        memcpy(p, &v, sizeof v);
    } else {
        memcpy(p, &h, gp_dtype_size(t)); /* low bytes: little-endian hosts */
    }
}

#endif
