/* gp_count_if and the histograms: argument checks, workspace, dispatch. */
#include "gp_internal.h"

#include <stdint.h>
#include <string.h>

enum { GP_HISTOGRAM_MAX_BINS = 1 << 20 };

static bool aligned(const void *p, size_t a) { return ((uintptr_t)p & (a - 1)) == 0; }

/* dtype, n and whether the backend has `prim` for t; shared by the calls
 * and their size queries. */
static gp_status check_common(gp_ctx *ctx, const char *what, gp_primitive prim, gp_dtype t, int64_t n)
{
    if (n < 0) return gp_set_error(ctx, GP_STATUS_INVALID_SIZE, "%s: n = %lld is negative", what, (long long)n);
    if (!gp_dtype_valid(t)) return gp_set_error(ctx, GP_STATUS_INVALID_DTYPE, "%s: dtype %d is unknown", what, (int)t);
    const gp_status size = gp_check_max_elements(ctx, what, n, GP_MAX_ELEMENTS);
    if (size != GP_STATUS_OK) return size;
    if (!gp_backend_has(ctx->vt, prim) || !ctx->vt->supports(prim, (gp_op)0, t, t))
        return gp_set_error(ctx, GP_STATUS_UNSUPPORTED_DTYPE, "%s: the %s backend has no %s for %s", what,
                            gp_backend_name(ctx->backend), prim == GP_PRIM_COUNT ? "count" : "histogram",
                            gp_dtype_name(t));
    return GP_STATUS_OK;
}

/* The input: present when n > 0, aligned to its element size (the CUDA
 * kernels load whole elements; a misaligned load would kill the context). */
static gp_status check_input(gp_ctx *ctx, const char *what, const void *in, gp_dtype t, int64_t n)
{
    if (n > 0 && !in) return gp_set_error(ctx, GP_STATUS_NULL_POINTER, "%s: in is NULL", what);
    if (!aligned(in, gp_dtype_size(t)))
        return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT, "%s: in is not aligned to its %zu-byte elements", what,
                            gp_dtype_size(t));
    return GP_STATUS_OK;
}

/* ------------------------------------------------------------------- count */

gp_status gp_count_if(gp_ctx *ctx, const void *in, gp_dtype t, int64_t n, gp_cmp cmp, const void *value,
                      int64_t *count, int64_t *host_count)
{
    static const char what[] = "gp_count_if";
    if (!ctx) return GP_STATUS_NULL_POINTER;
    if (!value) return gp_set_error(ctx, GP_STATUS_NULL_POINTER, "%s: value is NULL", what);
    int64_t *target;
    gp_status s = gp_count_target(ctx, count, host_count, &target);
    if (s != GP_STATUS_OK) return s;
    s = check_common(ctx, what, GP_PRIM_COUNT, t, n);
    if (s != GP_STATUS_OK) return s;
    if (!gp_cmp_name(cmp)) return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT, "%s: cmp %d is unknown", what, (int)cmp);
    s = check_input(ctx, what, in, t, n);
    if (s != GP_STATUS_OK) return s;
    if (!aligned(target, sizeof *target))
        return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT, "%s: count is not 8-byte aligned", what);
    if (gp_overlaps(target, sizeof *target, in, (size_t)n * gp_dtype_size(t)))
        return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT, "%s: count overlaps the input", what);

    gp_count_args a = {in, t, n, cmp, {0}, target};
    memcpy(a.value, value, gp_dtype_size(t));
    void *ws;
    s = gp_ctx_scratch(ctx, ctx->vt->count_workspace(ctx, &a), &ws);
    if (s != GP_STATUS_OK) return s;
    s = ctx->vt->count(ctx, &a, ws);
    if (s != GP_STATUS_OK) return s;
    return gp_count_finish(ctx, target, host_count);
}

gp_status gp_count_workspace_size(const gp_ctx *ctx, gp_dtype t, int64_t n, size_t *bytes)
{
    if (!ctx || !bytes) return GP_STATUS_NULL_POINTER;
    gp_ctx *c = (gp_ctx *)ctx; /* only its error message changes */
    gp_status s = check_common(c, "gp_count_workspace_size", GP_PRIM_COUNT, t, n);
    if (s != GP_STATUS_OK) return s;
    gp_count_args a = {NULL, t, n, GP_CMP_EQ, {0}, NULL};
    *bytes = ctx->vt->count_workspace(ctx, &a);
    return GP_STATUS_OK;
}

/* -------------------------------------------------------------- histograms */

static gp_status check_bins(gp_ctx *ctx, const char *what, int64_t bins)
{
    if (bins < 1 || bins > GP_HISTOGRAM_MAX_BINS)
        return gp_set_error(ctx, GP_STATUS_INVALID_SIZE, "%s: bins = %lld is not in 1..%d", what, (long long)bins,
                            GP_HISTOGRAM_MAX_BINS);
    return GP_STATUS_OK;
}

gp_status gp_histogram_workspace_size(const gp_ctx *ctx, gp_dtype t, int64_t n, int64_t bins, size_t *bytes)
{
    if (!ctx || !bytes) return GP_STATUS_NULL_POINTER;
    gp_ctx *c = (gp_ctx *)ctx; /* only its error message changes */
    gp_status s = check_common(c, "gp_histogram_workspace_size", GP_PRIM_HISTOGRAM, t, n);
    if (s == GP_STATUS_OK) s = check_bins(c, "gp_histogram_workspace_size", bins);
    if (s != GP_STATUS_OK) return s;
    *bytes = ctx->vt->histogram_workspace(ctx, t, n, bins);
    return GP_STATUS_OK;
}

/* Everything both histograms check but the bin layout. */
static gp_status check_histogram(gp_ctx *ctx, const char *what, const gp_histogram_args *a, unsigned flags)
{
    if (!a->hist) return gp_set_error(ctx, GP_STATUS_NULL_POINTER, "%s: hist is NULL", what);
    gp_status s = check_common(ctx, what, GP_PRIM_HISTOGRAM, a->t, a->n);
    if (s == GP_STATUS_OK) s = check_bins(ctx, what, a->bins);
    if (s == GP_STATUS_OK) s = check_input(ctx, what, a->in, a->t, a->n);
    if (s != GP_STATUS_OK) return s;
    if (flags & ~(unsigned)GP_HISTOGRAM_ACCUMULATE)
        return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT, "%s: unknown flags 0x%x", what,
                            flags & ~(unsigned)GP_HISTOGRAM_ACCUMULATE);
    if (!aligned(a->hist, sizeof *a->hist))
        return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT, "%s: hist is not 8-byte aligned", what);
    size_t hbytes = (size_t)a->bins * sizeof *a->hist;
    if (gp_overlaps(a->hist, hbytes, a->in, (size_t)a->n * gp_dtype_size(a->t)))
        return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT, "%s: hist overlaps the input", what);
    return GP_STATUS_OK;
}

static gp_status run_histogram(gp_ctx *ctx, const gp_histogram_args *a)
{
    void *ws;
    gp_status s = gp_ctx_scratch(ctx, ctx->vt->histogram_workspace(ctx, a->t, a->n, a->bins), &ws);
    if (s != GP_STATUS_OK) return s;
    return ctx->vt->histogram(ctx, a, ws);
}

gp_status gp_histogram_even(gp_ctx *ctx, const void *in, gp_dtype t, int64_t n, int64_t bins, double lower,
                            double upper, uint64_t *hist, unsigned flags)
{
    static const char what[] = "gp_histogram_even";
    if (!ctx) return GP_STATUS_NULL_POINTER;
    gp_histogram_args a = {in, t, n, bins, lower, upper, NULL, hist, (flags & GP_HISTOGRAM_ACCUMULATE) != 0};
    gp_status s = check_histogram(ctx, what, &a, flags);
    if (s != GP_STATUS_OK) return s;
    /* x - lower and (x - lower) / (upper - lower) stay finite for every x in
     * range exactly when upper - lower does. */
    double width = upper - lower;
    if (!(lower < upper) || width - width != 0.0)
        return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT,
                            "%s: the range [%g, %g) is empty, not finite, or wider than the largest double", what,
                            lower, upper);
    return run_histogram(ctx, &a);
}

/* Edges strictly ascend, compared in t (a NaN edge fails every comparison).
 * Returns the first i with !(e[i] < e[i+1]), or -1. */
#define GP_EDGES_CASE(DT, T)                                  \
    case DT: {                                                \
        const T *e = (const T *)edges;                        \
        for (int64_t i = 0; i < bins; i++)                    \
            if (!(e[i] < e[i + 1])) return i;                 \
        return -1;                                            \
    }

static int64_t first_unordered_edge(const void *edges, gp_dtype t, int64_t bins)
{
    switch (t) {
        GP_EDGES_CASE(GP_DTYPE_I8, int8_t)
        GP_EDGES_CASE(GP_DTYPE_U8, uint8_t)
        GP_EDGES_CASE(GP_DTYPE_I16, int16_t)
        GP_EDGES_CASE(GP_DTYPE_U16, uint16_t)
        GP_EDGES_CASE(GP_DTYPE_I32, int32_t)
        GP_EDGES_CASE(GP_DTYPE_U32, uint32_t)
        GP_EDGES_CASE(GP_DTYPE_I64, int64_t)
        GP_EDGES_CASE(GP_DTYPE_U64, uint64_t)
        GP_EDGES_CASE(GP_DTYPE_F32, float)
        GP_EDGES_CASE(GP_DTYPE_F64, double)
    }
    return 0;
}

/* Checks the edges on the host: in place for a host context, else through a
 * host copy (which synchronises the stream). */
static gp_status check_edges(gp_ctx *ctx, const char *what, const void *edges, gp_dtype t, int64_t bins)
{
    size_t bytes = (size_t)(bins + 1) * gp_dtype_size(t);
    const void *host = edges;
    void *copy = NULL;
    if (ctx->space != GP_MEM_HOST) {
        copy = gp_ctx_alloc(ctx, GP_MEM_HOST, bytes);
        if (!copy) return gp_ctx_alloc_failed(ctx, GP_MEM_HOST, bytes, "a host copy of the edges");
        gp_status s = ctx->vt->copy(ctx, copy, edges, bytes, GP_COPY_CTX_TO_HOST);
        if (s != GP_STATUS_OK) {
            gp_ctx_dealloc(ctx, GP_MEM_HOST, copy);
            return s;
        }
        host = copy;
    }
    int64_t bad = first_unordered_edge(host, t, bins);
    gp_ctx_dealloc(ctx, GP_MEM_HOST, copy);
    if (bad >= 0)
        return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT,
                            "%s: edges[%lld] < edges[%lld] does not hold (edges must ascend strictly, no NaN)", what,
                            (long long)bad, (long long)bad + 1);
    return GP_STATUS_OK;
}

gp_status gp_histogram_edges(gp_ctx *ctx, const void *in, gp_dtype t, int64_t n, int64_t bins, const void *edges,
                             uint64_t *hist, unsigned flags)
{
    static const char what[] = "gp_histogram_edges";
    if (!ctx) return GP_STATUS_NULL_POINTER;
    if (!edges) return gp_set_error(ctx, GP_STATUS_NULL_POINTER, "%s: edges is NULL", what);
    gp_histogram_args a = {in, t, n, bins, 0.0, 0.0, edges, hist, (flags & GP_HISTOGRAM_ACCUMULATE) != 0};
    gp_status s = check_histogram(ctx, what, &a, flags);
    if (s != GP_STATUS_OK) return s;
    if (!aligned(edges, gp_dtype_size(t)))
        return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT, "%s: edges are not aligned to their %zu-byte elements",
                            what, gp_dtype_size(t));
    if (gp_overlaps(hist, (size_t)bins * sizeof *hist, edges, (size_t)(bins + 1) * gp_dtype_size(t)))
        return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT, "%s: hist overlaps the edges", what);
    s = check_edges(ctx, what, edges, t, bins);
    if (s != GP_STATUS_OK) return s;
    return run_histogram(ctx, &a);
}
