/* The CPU backend's transpose and flips (cpu_transpose.c). */
#ifndef GP_CPU_TRANSPOSE_H
#define GP_CPU_TRANSPOSE_H

#include "gp_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

gp_status gp_cpu_transpose(gp_ctx *ctx, const gp_transpose_args *a);

#ifdef __cplusplus
}
#endif

#endif
