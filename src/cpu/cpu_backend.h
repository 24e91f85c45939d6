/* Entry points shared by the CPU backend's files. */
#ifndef GP_CPU_BACKEND_H
#define GP_CPU_BACKEND_H

#include "gp_float_order.h"
#include "gp_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Float MIN and MAX as every CPU kernel combines them (a earlier, b later;
 * needs <math.h>): the rule is gp_float_order.h's; of two NaNs b wins. */
#define GP_CPU_FMIN(a, b) (GP_FMIN_TAKES(b, a) ? (b) : (a))
#define GP_CPU_FMAX(a, b) (GP_FMAX_TAKES(b, a) ? (b) : (a))

gp_status gp_cpu_reduce(gp_ctx *ctx, const gp_reduce_args *a, void *ws);
/* Writes op's identity in out_t (the result of reducing nothing). */
void gp_cpu_reduce_identity(gp_op op, void *out, gp_dtype out_t);

/* cpu_scan.c */
size_t gp_cpu_scan_workspace(const gp_ctx *ctx, const gp_scan_args *a, bool pooled);
gp_status gp_cpu_scan(gp_ctx *ctx, const gp_scan_args *a, void *ws);
/* cpu_select.c: selection and partition, and the running-max filter */
size_t gp_cpu_select_workspace(const gp_ctx *ctx, gp_dtype t, int64_t n, bool pooled);
gp_status gp_cpu_select(gp_ctx *ctx, const gp_select_args *a, void *ws);
gp_status gp_cpu_filter(gp_ctx *ctx, const gp_filter_args *a, void *ws);

#ifdef __cplusplus
}
#endif

#endif
