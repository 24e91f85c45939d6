/*
 * gp_select_*, gp_partition_*, gp_filter_running_max and their workspace
 * query: argument checks, the count target, workspace, dispatch.
 */
#include "gp_internal.h"

#include <string.h>

/* The dtype, size and backend checks every call of this file shares. */
static gp_status check_common(gp_ctx *ctx, const char *name, gp_primitive prim, gp_dtype t, int64_t n)
{
    if (n < 0) return gp_set_error(ctx, GP_STATUS_INVALID_SIZE, "%s: n = %lld is negative", name, (long long)n);
    if (!gp_dtype_valid(t)) return gp_set_error(ctx, GP_STATUS_INVALID_DTYPE, "%s: dtype %d is unknown", name, (int)t);
    const gp_status size = gp_check_max_elements(ctx, name, n, ctx->vt->max_select_elements);
    if (size != GP_STATUS_OK) return size;
    bool has = prim == GP_PRIM_FILTER ? ctx->vt->filter != NULL : ctx->vt->select != NULL;
    if (!has || !ctx->vt->supports(prim, (gp_op)0, t, t))
        return gp_set_error(ctx, GP_STATUS_UNSUPPORTED_DTYPE, "%s: the %s backend does not support %s", name,
                            gp_backend_name(ctx->backend), gp_dtype_name(t));
    return GP_STATUS_OK;
}

/* in and out start on their element size and count on 8 bytes: each is
 * loaded or stored whole (on CUDA a misaligned access would end the
 * context). */
static gp_status check_alignment(gp_ctx *ctx, const char *name, const void *in, gp_dtype t, const void *out,
                                 const int64_t *count)
{
    if (!gp_aligned(in, gp_dtype_size(t)) || !gp_aligned(out, gp_dtype_size(t)))
        return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT, "%s: in or out is not aligned to its element size",
                            name);
    if (!gp_aligned(count, sizeof *count))
        return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT, "%s: count is not 8-byte aligned", name);
    return GP_STATUS_OK;
}

/* An output (out_name in the messages) must not share a byte with any
 * input, nor `count` with anything. */
static gp_status check_overlaps(gp_ctx *ctx, const char *name, const void *in, size_t in_bytes,
                                const uint8_t *flags, size_t flag_bytes, const char *out_name, const void *out,
                                const int64_t *count)
{
    if (gp_overlaps(out, in_bytes, in, in_bytes))
        return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT, "%s: %s overlaps in", name, out_name);
    if (flags && gp_overlaps(out, in_bytes, flags, flag_bytes))
        return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT, "%s: %s overlaps flags", name, out_name);
    if (count && (gp_overlaps(count, sizeof *count, in, in_bytes) || gp_overlaps(count, sizeof *count, out, in_bytes) ||
                  (flags && gp_overlaps(count, sizeof *count, flags, flag_bytes))))
        return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT, "%s: count overlaps in, %s or flags", name, out_name);
    return GP_STATUS_OK;
}

gp_status gp_select_workspace_size(const gp_ctx *ctx, gp_dtype t, int64_t n, size_t *bytes)
{
    if (!ctx || !bytes) return GP_STATUS_NULL_POINTER;
    gp_status s = check_common((gp_ctx *)ctx, "gp_select_workspace_size", GP_PRIM_SELECT, t, n);
    if (s != GP_STATUS_OK) return s;
    *bytes = n == 0 ? 0 : ctx->vt->select_workspace(ctx, t, n, false);
    return GP_STATUS_OK;
}

/* A partition_copy's second buffer: aligned as out, apart from it, and
 * checked against the inputs and count as out is. */
static gp_status check_rejected(gp_ctx *ctx, const char *name, const void *in, size_t in_bytes,
                                const uint8_t *flags, size_t flag_bytes, const void *out, const void *rejected,
                                gp_dtype t, const int64_t *count)
{
    if (!gp_aligned(rejected, gp_dtype_size(t)))
        return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT, "%s: out_rejected is not aligned to its element size",
                            name);
    if (gp_overlaps(rejected, in_bytes, out, in_bytes))
        return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT, "%s: out_rejected overlaps out_selected", name);
    return check_overlaps(ctx, name, in, in_bytes, flags, flag_bytes, "out_rejected", rejected, count);
}

/* Select or partition, by flags (flags_mode) or by comparison; a partition
 * with `rejected` (partition_copy) puts the rejected items there. */
static gp_status select_call(gp_ctx *ctx, const char *name, bool partition, bool flags_mode, const void *in,
                             gp_dtype t, int64_t n, const uint8_t *flags, gp_cmp cmp, const void *value, void *out,
                             void *rejected, bool copy, int64_t *count, int64_t *host_count)
{
    if (!ctx) return GP_STATUS_NULL_POINTER;
    gp_primitive prim = partition ? GP_PRIM_PARTITION : GP_PRIM_SELECT;
    if (!in && n > 0) return gp_set_error(ctx, GP_STATUS_NULL_POINTER, "%s: in is NULL", name);
    const char *out_name = copy ? "out_selected" : "out";
    if (!out && n > 0) return gp_set_error(ctx, GP_STATUS_NULL_POINTER, "%s: %s is NULL", name, out_name);
    if (copy && !rejected && n > 0) return gp_set_error(ctx, GP_STATUS_NULL_POINTER, "%s: out_rejected is NULL", name);
    if (flags_mode && !flags && n > 0) return gp_set_error(ctx, GP_STATUS_NULL_POINTER, "%s: flags is NULL", name);
    if (!flags_mode && !value) return gp_set_error(ctx, GP_STATUS_NULL_POINTER, "%s: value is NULL", name);
    int64_t *target;
    gp_status s = gp_count_target(ctx, count, host_count, &target);
    if (s != GP_STATUS_OK) return s;
    s = check_common(ctx, name, prim, t, n);
    if (s != GP_STATUS_OK) return s;
    if (!flags_mode && (cmp < GP_CMP_LT || cmp > GP_CMP_NE))
        return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT, "%s: comparison %d is unknown", name, (int)cmp);
    s = check_alignment(ctx, name, in, t, out, count);
    if (s != GP_STATUS_OK) return s;
    size_t in_bytes = (size_t)n * gp_dtype_size(t);
    const uint8_t *used_flags = flags_mode ? flags : NULL;
    s = check_overlaps(ctx, name, in, in_bytes, used_flags, (size_t)n, out_name, out, count);
    if (s != GP_STATUS_OK) return s;
    if (copy) s = check_rejected(ctx, name, in, in_bytes, used_flags, (size_t)n, out, rejected, t, count);
    if (s != GP_STATUS_OK) return s;

    gp_select_args a;
    memset(&a, 0, sizeof a);
    a.in = in, a.t = t, a.n = n, a.flags = used_flags, a.cmp = cmp, a.partition = partition;
    a.out = out, a.rejected = copy ? rejected : NULL, a.count = target;
    if (!flags_mode) memcpy(a.value, value, gp_dtype_size(t));
    void *ws;
    s = gp_ctx_scratch(ctx, n == 0 ? 0 : ctx->vt->select_workspace(ctx, t, n, !ctx->have_user_ws), &ws);
    if (s != GP_STATUS_OK) return s;
    s = ctx->vt->select(ctx, &a, ws);
    if (s != GP_STATUS_OK) return s;
    return gp_count_finish(ctx, target, host_count);
}

gp_status gp_select_flagged(gp_ctx *ctx, const void *in, gp_dtype t, int64_t n, const uint8_t *flags, void *out,
                            int64_t *count, int64_t *host_count)
{
    return select_call(ctx, "gp_select_flagged", false, true, in, t, n, flags, (gp_cmp)0, NULL, out, NULL, false,
                       count, host_count);
}

gp_status gp_select_if(gp_ctx *ctx, const void *in, gp_dtype t, int64_t n, gp_cmp cmp, const void *value, void *out,
                       int64_t *count, int64_t *host_count)
{
    return select_call(ctx, "gp_select_if", false, false, in, t, n, NULL, cmp, value, out, NULL, false, count,
                       host_count);
}

gp_status gp_partition_flagged(gp_ctx *ctx, const void *in, gp_dtype t, int64_t n, const uint8_t *flags, void *out,
                               int64_t *count, int64_t *host_count)
{
    return select_call(ctx, "gp_partition_flagged", true, true, in, t, n, flags, (gp_cmp)0, NULL, out, NULL, false,
                       count, host_count);
}

gp_status gp_partition_if(gp_ctx *ctx, const void *in, gp_dtype t, int64_t n, gp_cmp cmp, const void *value,
                          void *out, int64_t *count, int64_t *host_count)
{
    return select_call(ctx, "gp_partition_if", true, false, in, t, n, NULL, cmp, value, out, NULL, false, count,
                       host_count);
}

gp_status gp_partition_copy_flagged(gp_ctx *ctx, const void *in, gp_dtype t, int64_t n, const uint8_t *flags,
                                    void *out_selected, void *out_rejected, int64_t *count, int64_t *host_count)
{
    return select_call(ctx, "gp_partition_copy_flagged", true, true, in, t, n, flags, (gp_cmp)0, NULL, out_selected,
                       out_rejected, true, count, host_count);
}

gp_status gp_partition_copy_if(gp_ctx *ctx, const void *in, gp_dtype t, int64_t n, gp_cmp cmp, const void *value,
                               void *out_selected, void *out_rejected, int64_t *count, int64_t *host_count)
{
    return select_call(ctx, "gp_partition_copy_if", true, false, in, t, n, NULL, cmp, value, out_selected,
                       out_rejected, true, count, host_count);
}

gp_status gp_filter_running_max(gp_ctx *ctx, const void *in, gp_dtype t, int64_t n, unsigned flags, void *out,
                                int64_t *count, int64_t *host_count)
{
    const char *name = "gp_filter_running_max";
    if (!ctx) return GP_STATUS_NULL_POINTER;
    if (!in && n > 0) return gp_set_error(ctx, GP_STATUS_NULL_POINTER, "%s: in is NULL", name);
    if (!out && n > 0) return gp_set_error(ctx, GP_STATUS_NULL_POINTER, "%s: out is NULL", name);
    int64_t *target;
    gp_status s = gp_count_target(ctx, count, host_count, &target);
    if (s != GP_STATUS_OK) return s;
    s = check_common(ctx, name, GP_PRIM_FILTER, t, n);
    if (s != GP_STATUS_OK) return s;
    if (flags & ~(unsigned)GP_FILTER_DESCENDING)
        return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT, "%s: unknown flag bits 0x%x", name,
                            flags & ~(unsigned)GP_FILTER_DESCENDING);
    s = check_alignment(ctx, name, in, t, out, count);
    if (s != GP_STATUS_OK) return s;
    s = check_overlaps(ctx, name, in, (size_t)n * gp_dtype_size(t), NULL, 0, "out", out, count);
    if (s != GP_STATUS_OK) return s;

    gp_filter_args a;
    memset(&a, 0, sizeof a);
    a.in = in, a.t = t, a.n = n, a.descending = (flags & GP_FILTER_DESCENDING) != 0, a.out = out, a.count = target;
    void *ws;
    s = gp_ctx_scratch(ctx, n == 0 ? 0 : ctx->vt->filter_workspace(ctx, t, n, !ctx->have_user_ws), &ws);
    if (s != GP_STATUS_OK) return s;
    s = ctx->vt->filter(ctx, &a, ws);
    if (s != GP_STATUS_OK) return s;
    return gp_count_finish(ctx, target, host_count);
}
