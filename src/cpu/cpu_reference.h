/*
 * Serial reference implementations: the oracle of every test. Plain loops in
 * input order, no cleverness; the fast paths must agree with these (exactly
 * where the answer is exact, the sign of a zero float MIN or MAX included).
 * Internal, reached through gpuprim_internal.
 */
#ifndef GP_CPU_REFERENCE_H
#define GP_CPU_REFERENCE_H

#include "gpuprim.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* out[0] = in[0] op ... op in[n-1], each element converted to out_t first,
 * combined left to right in out_t (integers wrap). Arguments are assumed
 * valid (the core checks them). */
void gp_ref_reduce(const void *in, gp_dtype in_t, int64_t n, gp_op op, void *out, gp_dtype out_t);

/* Counting, histograms: the definitions in gpuprim.h, one element at a time,
 * in input order (cpu_reference_histogram.c). */

/* The number of i with (in[i] cmp *value), IEEE comparisons in t. */
int64_t gp_ref_count(const void *in, gp_dtype t, int64_t n, gp_cmp cmp, const void *value);
/* hist[b] (+)= the number of x with lower <= x < upper (x converted to
 * double) and floor((x - lower) / (upper - lower) * bins) == b, clamped to
 * bins - 1; adds to hist when flags has GP_HISTOGRAM_ACCUMULATE, else
 * overwrites all `bins` counts. */
void gp_ref_histogram_even(const void *in, gp_dtype t, int64_t n, int64_t bins, double lower, double upper,
                           uint64_t *hist, unsigned flags);
/* hist[b] (+)= the number of x with edges[b] <= x < edges[b+1], compared in
 * t; `edges` is a host array of bins + 1 ascending values of t. */
void gp_ref_histogram_edges(const void *in, gp_dtype t, int64_t n, int64_t bins, const void *edges,
                            uint64_t *hist, unsigned flags);

/* The transpose or flip that p describes (gpuprim.h), defaults read from p
 * itself, one element at a time. Out of place only: in and out must not
 * overlap. Arguments are assumed valid. */
void gp_ref_transpose(const void *in, void *out, const gp_transpose_params *p);

/* ------------------------------------------------ cpu_reference_scan.c */

/* out[i] = in[0] op ... op in[i] (inclusive) or init op in[0] op ... op
 * in[i-1] (exclusive; out[0] = init), each element converted to out_t and
 * combined left to right in out_t as gp_ref_reduce does. `init` points to
 * one out_t value; NULL means the op's identity. out may equal in. */
void gp_ref_scan(const void *in, gp_dtype in_t, int64_t n, gp_op op, bool exclusive, const void *init, void *out,
                 gp_dtype out_t);

/* Whether element i is selected: flags[i] != 0 when flags is not NULL,
 * else (in[i] cmp *value) with IEEE rules for floats. */
bool gp_ref_selected(const void *in, gp_dtype t, int64_t i, const uint8_t *flags, gp_cmp cmp, const void *value);
/* Copies the selected elements to out in order; returns how many. */
int64_t gp_ref_select(const void *in, gp_dtype t, int64_t n, const uint8_t *flags, gp_cmp cmp, const void *value,
                      void *out);
/* The selected elements in order, then the rejected ones in order; returns
 * the number selected. */
int64_t gp_ref_partition(const void *in, gp_dtype t, int64_t n, const uint8_t *flags, gp_cmp cmp,
                         const void *value, void *out);
/* The same into two buffers (gp_partition_copy_*): the selected elements
 * to out_selected, the rejected ones to out_rejected; returns the number
 * selected. */
int64_t gp_ref_partition_copy(const void *in, gp_dtype t, int64_t n, const uint8_t *flags, gp_cmp cmp,
                              const void *value, void *out_selected, void *out_rejected);
/* The running-max filter (gp_filter_running_max): copies the survivors to
 * out; returns how many. */
int64_t gp_ref_filter(const void *in, gp_dtype t, int64_t n, bool descending, void *out);

#ifdef __cplusplus
}
#endif

#endif
