/*
 * Serial reference for counting and histograms: the header's definitions
 * written out literally, one element at a time. No fast paths: the backends
 * must agree with this exactly.
 */
#include "cpu_reference.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#define GP_REF_TYPES(X)        \
    X(GP_DTYPE_I8, int8_t)     \
    X(GP_DTYPE_U8, uint8_t)    \
    X(GP_DTYPE_I16, int16_t)   \
    X(GP_DTYPE_U16, uint16_t)  \
    X(GP_DTYPE_I32, int32_t)   \
    X(GP_DTYPE_U32, uint32_t)  \
    X(GP_DTYPE_I64, int64_t)   \
    X(GP_DTYPE_U64, uint64_t)  \
    X(GP_DTYPE_F32, float)     \
    X(GP_DTYPE_F64, double)

/* ------------------------------------------------------------------ count */

#define GP_REF_COUNT_CASE(DT, T)                                        \
    case DT: {                                                          \
        const T *x = (const T *)in;                                     \
        T v;                                                            \
        memcpy(&v, value, sizeof v);                                    \
        for (int64_t i = 0; i < n; i++) {                               \
            bool hit = false;                                           \
            switch (cmp) {                                              \
            case GP_CMP_LT: hit = x[i] < v; break;                      \
            case GP_CMP_LE: hit = x[i] <= v; break;                     \
            case GP_CMP_GT: hit = x[i] > v; break;                      \
            case GP_CMP_GE: hit = x[i] >= v; break;                     \
            case GP_CMP_EQ: hit = x[i] == v; break;                     \
            case GP_CMP_NE: hit = x[i] != v; break;                     \
            }                                                           \
            if (hit) c++;                                               \
        }                                                               \
        break;                                                          \
    }

int64_t gp_ref_count(const void *in, gp_dtype t, int64_t n, gp_cmp cmp, const void *value)
{
    int64_t c = 0;
    switch (t) {
        GP_REF_TYPES(GP_REF_COUNT_CASE)
    }
    return c;
}

/* ------------------------------------------------------------- histograms */

static void clear_unless_accumulate(uint64_t *hist, int64_t bins, unsigned flags)
{
    if (!(flags & GP_HISTOGRAM_ACCUMULATE))
        for (int64_t b = 0; b < bins; b++) hist[b] = 0;
}

/* The header's formula, in double: the product first, or where it
 * overflows the quotient first. The clamp catches x just below upper, where
 * the rounded result can come to exactly bins. */
static void ref_even_one(double x, int64_t bins, double lower, double upper, uint64_t *hist)
{
    if (!(x >= lower && x < upper)) return; /* outside, or NaN */
    double scaled = (x - lower) * (double)bins;
    double f = floor(isfinite(scaled) ? scaled / (upper - lower) : (x - lower) / (upper - lower) * (double)bins);
    int64_t b = f < 0 ? 0 : f > (double)(bins - 1) ? bins - 1 : (int64_t)f;
    hist[b]++;
}

#define GP_REF_EVEN_CASE(DT, T)                                                    \
    case DT: {                                                                     \
        const T *x = (const T *)in;                                                \
        for (int64_t i = 0; i < n; i++) ref_even_one((double)x[i], bins, lower, upper, hist); \
        break;                                                                     \
    }

void gp_ref_histogram_even(const void *in, gp_dtype t, int64_t n, int64_t bins, double lower, double upper,
                           uint64_t *hist, unsigned flags)
{
    clear_unless_accumulate(hist, bins, flags);
    switch (t) {
        GP_REF_TYPES(GP_REF_EVEN_CASE)
    }
}

/* Outside [e[0], e[bins]) (NaN included) nothing; else a textbook bisection
 * for the b with e[b] <= x < e[b+1], keeping e[lo] <= x < e[hi]. */
#define GP_REF_EDGES_CASE(DT, T)                                       \
    case DT: {                                                         \
        const T *x = (const T *)in, *e = (const T *)edges;             \
        for (int64_t i = 0; i < n; i++) {                              \
            if (!(e[0] <= x[i] && x[i] < e[bins])) continue;           \
            int64_t lo = 0, hi = bins;                                 \
            while (hi - lo > 1) {                                      \
                int64_t mid = lo + (hi - lo) / 2;                      \
                if (e[mid] <= x[i]) lo = mid;                          \
                else hi = mid;                                         \
            }                                                          \
            hist[lo]++;                                                \
        }                                                              \
        break;                                                         \
    }

void gp_ref_histogram_edges(const void *in, gp_dtype t, int64_t n, int64_t bins, const void *edges,
                            uint64_t *hist, unsigned flags)
{
    clear_unless_accumulate(hist, bins, flags);
    switch (t) {
        GP_REF_TYPES(GP_REF_EDGES_CASE)
    }
}
