/* gp_scan_inclusive, gp_scan_exclusive: argument checks, workspace, dispatch. */
#include "gp_internal.h"

#include <math.h>
#include <string.h>

/* Checks everything but the pointers; shared by the calls and the size query. */
static gp_status check_scan(gp_ctx *ctx, const gp_scan_args *a)
{
    if (a->n < 0) return gp_set_error(ctx, GP_STATUS_INVALID_SIZE, "n = %lld is negative", (long long)a->n);
    if (!gp_dtype_valid(a->in_t))
        return gp_set_error(ctx, GP_STATUS_INVALID_DTYPE, "input dtype %d is unknown", (int)a->in_t);
    if (!gp_dtype_valid(a->out_t))
        return gp_set_error(ctx, GP_STATUS_INVALID_DTYPE, "output dtype %d is unknown", (int)a->out_t);
    const gp_status size = gp_check_max_elements(ctx, NULL, a->n, ctx->vt->max_scan_elements);
    if (size != GP_STATUS_OK) return size;
    if (!gp_op_valid(a->op)) return gp_set_error(ctx, GP_STATUS_INVALID_OP, "op %d is unknown", (int)a->op);
    if (!gp_op_defined_for(a->op, a->in_t))
        return gp_set_error(ctx, GP_STATUS_UNSUPPORTED_OP, "%s is not defined on %s", gp_op_name(a->op),
                            gp_dtype_name(a->in_t));
    if (!gp_widening_ok(a->in_t, a->out_t))
        return gp_set_error(ctx, GP_STATUS_UNSUPPORTED_DTYPE,
                            "%s cannot be scanned into %s (the output must be the input dtype or a wider one "
                            "of the same kind)",
                            gp_dtype_name(a->in_t), gp_dtype_name(a->out_t));
    if (!ctx->vt->scan || !ctx->vt->supports(GP_PRIM_SCAN, a->op, a->in_t, a->out_t))
        return gp_set_error(ctx, GP_STATUS_UNSUPPORTED_DTYPE, "the %s backend has no %s scan from %s to %s",
                            gp_backend_name(ctx->backend), gp_op_name(a->op), gp_dtype_name(a->in_t),
                            gp_dtype_name(a->out_t));
    return GP_STATUS_OK;
}

/* The op's identity in out_t, the exclusive scan's default init: 0 for SUM,
 * OR, XOR; 1 for PROD; all bits for AND; the largest value (+inf) for MIN,
 * the smallest (-inf) for MAX. */
static void scan_identity(gp_op op, gp_dtype out_t, unsigned char *out)
{
    size_t sz = gp_dtype_size(out_t);
    memset(out, 0, 16);
    if (gp_dtype_kind(out_t) == GP_KIND_FLOAT) {
        double v = op == GP_OP_SUM ? 0.0 : op == GP_OP_PROD ? 1.0 : op == GP_OP_MIN ? INFINITY : -INFINITY;
        if (out_t == GP_DTYPE_F32) {
            float f = (float)v;
            memcpy(out, &f, sizeof f);
        } else {
            memcpy(out, &v, sizeof v);
        }
        return;
    }
    unsigned bits = 8u * (unsigned)sz;
    uint64_t ones = bits == 64 ? ~0ull : (1ull << bits) - 1;
    bool is_signed = gp_dtype_kind(out_t) == GP_KIND_SIGNED;
    uint64_t v = 0;
    switch (op) {
    case GP_OP_PROD: v = 1; break;
    case GP_OP_AND: v = ones; break;
    case GP_OP_MIN: v = is_signed ? ones >> 1 : ones; break;
    case GP_OP_MAX: v = is_signed ? (ones >> 1) + 1 : 0; break;
    default: v = 0; break;
    }
    memcpy(out, &v, sz); /* little-endian: the low bytes */
}

gp_status gp_scan_workspace_size(const gp_ctx *ctx, gp_dtype in_t, int64_t n, gp_op op, gp_dtype out_t,
                                 size_t *bytes)
{
    if (!ctx || !bytes) return GP_STATUS_NULL_POINTER;
    gp_scan_args a;
    memset(&a, 0, sizeof a);
    a.in_t = in_t, a.n = n, a.op = op, a.out_t = out_t;
    gp_status s = check_scan((gp_ctx *)ctx, &a);
    if (s != GP_STATUS_OK) return s;
    *bytes = n == 0 ? 0 : ctx->vt->scan_workspace(ctx, &a, false);
    return GP_STATUS_OK;
}

static gp_status scan_call(gp_ctx *ctx, const char *name, const void *in, gp_dtype in_t, int64_t n, gp_op op,
                           bool exclusive, const void *init, void *out, gp_dtype out_t)
{
    if (!ctx) return GP_STATUS_NULL_POINTER;
    if (!out && n > 0) return gp_set_error(ctx, GP_STATUS_NULL_POINTER, "%s: out is NULL", name);
    if (!in && n > 0) return gp_set_error(ctx, GP_STATUS_NULL_POINTER, "%s: in is NULL", name);
    gp_scan_args a;
    memset(&a, 0, sizeof a);
    a.in = in, a.in_t = in_t, a.n = n, a.op = op, a.exclusive = exclusive, a.out = out, a.out_t = out_t;
    gp_status s = check_scan(ctx, &a);
    if (s != GP_STATUS_OK) return s;
    /* Elements are loaded whole (on CUDA a misaligned load would end the
     * context), so each array starts on its element size. */
    if (!gp_aligned(in, gp_dtype_size(in_t)) || !gp_aligned(out, gp_dtype_size(out_t)))
        return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT, "%s: in or out is not aligned to its element size",
                            name);
    /* In place means exactly in place: the same start and the same dtype. */
    size_t in_bytes = (size_t)n * gp_dtype_size(in_t), out_bytes = (size_t)n * gp_dtype_size(out_t);
    if (in == out && n > 0 && out_t != in_t)
        return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT,
                            "%s: in place (out == in) needs out_t == in_t, got %s into %s", name,
                            gp_dtype_name(in_t), gp_dtype_name(out_t));
    if (in != out && gp_overlaps(in, in_bytes, out, out_bytes))
        return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT,
                            "%s: out overlaps in without being equal to it (only exact in place is allowed)",
                            name);
    if (exclusive && init) memcpy(a.init, init, gp_dtype_size(out_t));
    else scan_identity(op, out_t, a.init);
    if (n == 0) return GP_STATUS_OK; /* nothing to write */
    void *ws;
    s = gp_ctx_scratch(ctx, ctx->vt->scan_workspace(ctx, &a, !ctx->have_user_ws), &ws);
    if (s != GP_STATUS_OK) return s;
    return ctx->vt->scan(ctx, &a, ws);
}

gp_status gp_scan_inclusive(gp_ctx *ctx, const void *in, gp_dtype in_t, int64_t n, gp_op op, void *out,
                            gp_dtype out_t)
{
    return scan_call(ctx, "gp_scan_inclusive", in, in_t, n, op, false, NULL, out, out_t);
}

gp_status gp_scan_exclusive(gp_ctx *ctx, const void *in, gp_dtype in_t, int64_t n, gp_op op, const void *init,
                            void *out, gp_dtype out_t)
{
    return scan_call(ctx, "gp_scan_exclusive", in, in_t, n, op, true, init, out, out_t);
}
