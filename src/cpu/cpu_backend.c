/* The CPU backend's table: host memory, no streams, OpenMP primitives. */
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "cpu_backend.h"
#include "cpu_histogram.h"
#include "cpu_select_simd.h"
#include "cpu_transpose.h"

/* Copies and sets above this size are split across threads: one core does
 * not saturate memory bandwidth (PERF.md: memcpy 48 GB/s, OpenMP copy 83). */
enum { GP_CPU_PAR_BYTES = 1 << 20 };

/* Always usable; the detail says what it will run with. */
static gp_status cpu_probe(char *detail, size_t size)
{
    if (detail && size)
        snprintf(detail, size, "%d threads, %s selections", omp_get_max_threads(), gp_cpu_select_path());
    return GP_STATUS_OK;
}

/* The result slot (for host-only counts) is ordinary host memory here. */
static gp_status cpu_ctx_init(gp_ctx *ctx)
{
    ctx->result_slot = gp_ctx_alloc(ctx, GP_MEM_HOST, 64);
    return ctx->result_slot ? GP_STATUS_OK : gp_ctx_alloc_failed(ctx, GP_MEM_HOST, 64, "the result slot");
}

static void cpu_ctx_fini(gp_ctx *ctx) { gp_ctx_dealloc(ctx, GP_MEM_HOST, ctx->result_slot); }
static gp_status cpu_set_stream(gp_ctx *ctx, void *stream) { return GP_STATUS_OK; }
static gp_status cpu_synchronize(gp_ctx *ctx) { return GP_STATUS_OK; }

static gp_status cpu_copy(gp_ctx *ctx, void *dst, const void *src, size_t bytes, gp_copy_kind kind)
{
    (void)kind;
    if (bytes < GP_CPU_PAR_BYTES) {
        memmove(dst, src, bytes);
        return GP_STATUS_OK;
    }
    char *d = (char *)dst;
    const char *s = (const char *)src;
    if ((d < s + bytes) && (s < d + bytes)) { /* overlap: keep memmove's meaning */
        memmove(dst, src, bytes);
        return GP_STATUS_OK;
    }
#pragma omp parallel
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        size_t lo = bytes / (size_t)nt * (size_t)t;
        size_t hi = t == nt - 1 ? bytes : bytes / (size_t)nt * (size_t)(t + 1);
        memcpy(d + lo, s + lo, hi - lo);
    }
    return GP_STATUS_OK;
}

static gp_status cpu_memset(gp_ctx *ctx, void *dst, int value, size_t bytes)
{
    if (bytes < GP_CPU_PAR_BYTES) {
        memset(dst, value, bytes);
        return GP_STATUS_OK;
    }
    char *d = (char *)dst;
#pragma omp parallel
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        size_t lo = bytes / (size_t)nt * (size_t)t;
        size_t hi = t == nt - 1 ? bytes : bytes / (size_t)nt * (size_t)(t + 1);
        memset(d + lo, value, hi - lo);
    }
    return GP_STATUS_OK;
}

/* Every combination the core accepts runs here, for each primitive whose
 * table entry is set (the core checks that). */
static int cpu_supports(gp_primitive prim, gp_op op, gp_dtype in_t, gp_dtype out_t) { return 1; }

static size_t cpu_reduce_workspace(const gp_ctx *ctx, const gp_reduce_args *a) { return 0; }

const gp_backend_vtable gp_cpu_backend = {
    .id = GP_BACKEND_CPU,
    .probe = cpu_probe,
    .device_alloc = NULL,
    .device_free = NULL,
    .device_count = NULL,
    .device_info = NULL,
    .ctx_init = cpu_ctx_init,
    .ctx_fini = cpu_ctx_fini,
    .set_stream = cpu_set_stream,
    .synchronize = cpu_synchronize,
    .copy = cpu_copy,
    .memset = cpu_memset,
    .supports = cpu_supports,
    .reduce_workspace = cpu_reduce_workspace,
    .reduce = gp_cpu_reduce,
    .scan_workspace = gp_cpu_scan_workspace,
    .scan = gp_cpu_scan,
    .max_scan_elements = GP_MAX_ELEMENTS,
    .select_workspace = gp_cpu_select_workspace,
    .select = gp_cpu_select,
    .filter_workspace = gp_cpu_select_workspace, /* 0 for both */
    .filter = gp_cpu_filter,
    .max_select_elements = GP_MAX_ELEMENTS,
    .transpose = gp_cpu_transpose,
    .count_workspace = gp_cpu_count_workspace,
    .count = gp_cpu_count,
    .histogram_workspace = gp_cpu_histogram_workspace,
    .histogram = gp_cpu_histogram,
};
