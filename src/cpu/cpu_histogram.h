/* The CPU backend's counting and histograms (cpu_histogram.c). */
#ifndef GP_CPU_HISTOGRAM_H
#define GP_CPU_HISTOGRAM_H

#include "gp_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

size_t gp_cpu_count_workspace(const gp_ctx *ctx, const gp_count_args *a);
gp_status gp_cpu_count(gp_ctx *ctx, const gp_count_args *a, void *ws);
size_t gp_cpu_histogram_workspace(const gp_ctx *ctx, gp_dtype t, int64_t n, int64_t bins);
gp_status gp_cpu_histogram(gp_ctx *ctx, const gp_histogram_args *a, void *ws);

#ifdef __cplusplus
}
#endif

#endif
