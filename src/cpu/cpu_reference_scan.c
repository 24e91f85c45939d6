/* Serial reference for scan, selection, partition and the running-max
 * filter: plain loops in input order, the definition the fast paths must
 * match. */
#include "cpu_reference.h"

#include <math.h>
#include <string.h>

#include "cpu_reference_ops.h"
#include "gp_internal.h"

/* ------------------------------------------------------------ element access */

static double get_float(const void *p, gp_dtype t, int64_t i)
{
    return t == GP_DTYPE_F32 ? (double)((const float *)p)[i] : ((const double *)p)[i];
}

/* ---------------------------------------------------------------------- scan */

/* Integers: each element converted to out_t, combined in out_t's width;
 * sum and product wrap (done in uint64_t, truncated after every step). */
static void ref_scan_int(const void *in, gp_dtype in_t, int64_t n, gp_op op, bool exclusive, const void *init,
                         void *out, gp_dtype out_t)
{
    size_t osz = gp_dtype_size(out_t);
    unsigned bits = 8u * (unsigned)osz;
    uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
    bool is_signed = gp_dtype_kind(out_t) == GP_KIND_SIGNED;
    uint64_t acc = ref_int_identity(op, out_t);
    if (exclusive && init) {
        acc = 0;
        memcpy(&acc, init, osz); /* little-endian: the low bytes */
    }
    for (int64_t i = 0; i < n; i++) {
        /* Read before writing: out may be in. */
        uint64_t v = (is_signed ? (uint64_t)ref_get_signed(in, in_t, i) : ref_get_unsigned(in, in_t, i)) & mask;
        if (exclusive) memcpy((char *)out + (size_t)i * osz, &acc, osz);
        acc = ref_int_combine(op, acc, v, bits, mask, is_signed);
        if (!exclusive) memcpy((char *)out + (size_t)i * osz, &acc, osz);
    }
}

/* Floats: combined in out_t (COMBINE: ref_combine_f32 or _f64). */
#define GP_REF_SCAN_FLOAT(T, COMBINE)                                                            \
    do {                                                                                         \
        T acc = (T)ref_float_identity(op);                                                       \
        if (exclusive && init) memcpy(&acc, init, sizeof acc);                                  \
        T *y = (T *)out;                                                                         \
        for (int64_t i = 0; i < n; i++) {                                                        \
            T v = (T)get_float(in, in_t, i);                                                     \
            if (exclusive) y[i] = acc;                                                           \
            acc = COMBINE(op, acc, v);                                                           \
            if (!exclusive) y[i] = acc;                                                          \
        }                                                                                        \
    } while (0)

void gp_ref_scan(const void *in, gp_dtype in_t, int64_t n, gp_op op, bool exclusive, const void *init, void *out,
                 gp_dtype out_t)
{
    if (gp_dtype_kind(out_t) != GP_KIND_FLOAT)
        ref_scan_int(in, in_t, n, op, exclusive, init, out, out_t);
    else if (out_t == GP_DTYPE_F32)
        GP_REF_SCAN_FLOAT(float, ref_combine_f32);
    else
        GP_REF_SCAN_FLOAT(double, ref_combine_f64);
}

/* ----------------------------------------------------- selection, partition */

/* IEEE comparisons for floats: a NaN compares false except for NE. */
#define GP_REF_COMPARE(x, v, cmp)                                                                    \
    ((cmp) == GP_CMP_LT ? (x) < (v) : (cmp) == GP_CMP_LE ? (x) <= (v) : (cmp) == GP_CMP_GT ? (x) > (v) \
     : (cmp) == GP_CMP_GE ? (x) >= (v) : (cmp) == GP_CMP_EQ ? (x) == (v) : (x) != (v))

bool gp_ref_selected(const void *in, gp_dtype t, int64_t i, const uint8_t *flags, gp_cmp cmp, const void *value)
{
    if (flags) return flags[i] != 0;
    switch (gp_dtype_kind(t)) {
    case GP_KIND_SIGNED: {
        int64_t x = ref_get_signed(in, t, i), v = ref_get_signed(value, t, 0);
        return GP_REF_COMPARE(x, v, cmp);
    }
    case GP_KIND_UNSIGNED: {
        uint64_t x = ref_get_unsigned(in, t, i), v = ref_get_unsigned(value, t, 0);
        return GP_REF_COMPARE(x, v, cmp);
    }
    default: {
        double x = get_float(in, t, i), v = get_float(value, t, 0);
        return GP_REF_COMPARE(x, v, cmp);
    }
    }
}

int64_t gp_ref_select(const void *in, gp_dtype t, int64_t n, const uint8_t *flags, gp_cmp cmp, const void *value,
                      void *out)
{
    size_t sz = gp_dtype_size(t);
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++)
        if (gp_ref_selected(in, t, i, flags, cmp, value))
            memcpy((char *)out + (size_t)k++ * sz, (const char *)in + (size_t)i * sz, sz);
    return k;
}

/* The rejected elements in order, to out from element `at` on. */
static void ref_rejected(const void *in, gp_dtype t, int64_t n, const uint8_t *flags, gp_cmp cmp, const void *value,
                         void *out, int64_t at)
{
    size_t sz = gp_dtype_size(t);
    for (int64_t i = 0; i < n; i++)
        if (!gp_ref_selected(in, t, i, flags, cmp, value))
            memcpy((char *)out + (size_t)at++ * sz, (const char *)in + (size_t)i * sz, sz);
}

int64_t gp_ref_partition(const void *in, gp_dtype t, int64_t n, const uint8_t *flags, gp_cmp cmp,
                         const void *value, void *out)
{
    int64_t k = gp_ref_select(in, t, n, flags, cmp, value, out);
    ref_rejected(in, t, n, flags, cmp, value, out, k);
    return k;
}

int64_t gp_ref_partition_copy(const void *in, gp_dtype t, int64_t n, const uint8_t *flags, gp_cmp cmp,
                              const void *value, void *out_selected, void *out_rejected)
{
    int64_t k = gp_ref_select(in, t, n, flags, cmp, value, out_selected);
    ref_rejected(in, t, n, flags, cmp, value, out_rejected, 0);
    return k;
}

/* ----------------------------------------------------- the running-max filter */

/* Keeps x when no earlier non-NaN element is greater (smaller when
 * descending); NaN is skipped and never kept. */
int64_t gp_ref_filter(const void *in, gp_dtype t, int64_t n, bool descending, void *out)
{
    size_t sz = gp_dtype_size(t);
    gp_kind kind = gp_dtype_kind(t);
    bool have = false;
    int64_t ms = 0;
    uint64_t mu = 0;
    double mf = 0;
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) {
        bool keep;
        if (kind == GP_KIND_SIGNED) {
            int64_t x = ref_get_signed(in, t, i);
            keep = !have || (descending ? x <= ms : x >= ms);
            if (keep) ms = x;
        } else if (kind == GP_KIND_UNSIGNED) {
            uint64_t x = ref_get_unsigned(in, t, i);
            keep = !have || (descending ? x <= mu : x >= mu);
            if (keep) mu = x;
        } else {
            double x = get_float(in, t, i);
            if (isnan(x)) continue;
            keep = !have || (descending ? x <= mf : x >= mf);
            if (keep) mf = x;
        }
        if (!keep) continue;
        have = true;
        memcpy((char *)out + (size_t)k++ * sz, (const char *)in + (size_t)i * sz, sz);
    }
    return k;
}
