/* Serial reference: the definition of each primitive, as plain as possible. */
#include "cpu_reference.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cpu_reference_ops.h"
#include "gp_internal.h"

/* Integers: each element converted to out_t and combined in out_t's width;
 * sum and product wrap (cpu_reference_ops.h). */
static void ref_reduce_int(const void *in, gp_dtype in_t, int64_t n, gp_op op, void *out, gp_dtype out_t)
{
    unsigned bits = 8u * (unsigned)gp_dtype_size(out_t);
    uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
    bool is_signed = gp_dtype_kind(out_t) == GP_KIND_SIGNED;
    uint64_t acc = ref_int_identity(op, out_t); /* low `bits` bits hold the value */
    for (int64_t i = 0; i < n; i++) {
        uint64_t v = (is_signed ? (uint64_t)ref_get_signed(in, in_t, i) : ref_get_unsigned(in, in_t, i)) & mask;
        acc = ref_int_combine(op, acc, v, bits, mask, is_signed);
    }
    memcpy(out, &acc, gp_dtype_size(out_t)); /* little-endian: the low bytes */
}

/* Floats: combine in out_t (COMBINE: ref_combine_f32 or _f64). */
#define GP_REF_FLOAT(T, COMBINE)                                                                     \
    do {                                                                                             \
        T acc = (T)ref_float_identity(op);                                                           \
        for (int64_t i = 0; i < n; i++) {                                                            \
            T v = in_t == GP_DTYPE_F32 ? (T)((const float *)in)[i] : (T)((const double *)in)[i];     \
            acc = COMBINE(op, acc, v);                                                               \
        }                                                                                            \
        memcpy(out, &acc, sizeof acc);                                                               \
    } while (0)

void gp_ref_reduce(const void *in, gp_dtype in_t, int64_t n, gp_op op, void *out, gp_dtype out_t)
{
    if (gp_dtype_kind(out_t) != GP_KIND_FLOAT)
        ref_reduce_int(in, in_t, n, op, out, out_t);
    else if (out_t == GP_DTYPE_F32)
        GP_REF_FLOAT(float, ref_combine_f32);
    else
        GP_REF_FLOAT(double, ref_combine_f64);
}
