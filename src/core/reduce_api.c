/* gp_reduce: argument checks, workspace, dispatch to the backend. */
#include "gp_internal.h"

#include <string.h>

/* Checks everything but the pointers; shared by the call and its size query. */
static gp_status check_reduce(gp_ctx *ctx, const gp_reduce_args *a)
{
    if (a->n < 0) return gp_set_error(ctx, GP_STATUS_INVALID_SIZE, "n = %lld is negative", (long long)a->n);
    const gp_status size = gp_check_max_elements(ctx, NULL, a->n, GP_MAX_ELEMENTS);
    if (size != GP_STATUS_OK) return size;
    if (!gp_dtype_valid(a->in_t))
        return gp_set_error(ctx, GP_STATUS_INVALID_DTYPE, "input dtype %d is unknown", (int)a->in_t);
    if (!gp_dtype_valid(a->out_t))
        return gp_set_error(ctx, GP_STATUS_INVALID_DTYPE, "output dtype %d is unknown", (int)a->out_t);
    if (!gp_op_valid(a->op)) return gp_set_error(ctx, GP_STATUS_INVALID_OP, "op %d is unknown", (int)a->op);
    if (!gp_op_defined_for(a->op, a->in_t))
        return gp_set_error(ctx, GP_STATUS_UNSUPPORTED_OP, "%s is not defined on %s",
                            gp_op_name(a->op), gp_dtype_name(a->in_t));
    if (!gp_widening_ok(a->in_t, a->out_t))
        return gp_set_error(ctx, GP_STATUS_UNSUPPORTED_DTYPE,
                            "%s cannot be reduced into %s (the output must be the input dtype or a "
                            "wider one of the same kind)",
                            gp_dtype_name(a->in_t), gp_dtype_name(a->out_t));
    if (!ctx->vt->supports(GP_PRIM_REDUCE, a->op, a->in_t, a->out_t))
        return gp_set_error(ctx, GP_STATUS_UNSUPPORTED_DTYPE, "the %s backend has no %s reduction from %s to %s",
                            gp_backend_name(ctx->backend), gp_op_name(a->op), gp_dtype_name(a->in_t),
                            gp_dtype_name(a->out_t));
    return GP_STATUS_OK;
}

gp_status gp_reduce_workspace_size(const gp_ctx *ctx, gp_dtype in_t, int64_t n, gp_op op, gp_dtype out_t,
                                   size_t *bytes)
{
    if (!ctx || !bytes) return GP_STATUS_NULL_POINTER;
    gp_reduce_args a = {NULL, in_t, n, op, NULL, out_t};
    gp_status s = check_reduce((gp_ctx *)ctx, &a);
    if (s != GP_STATUS_OK) return s;
    *bytes = ctx->vt->reduce_workspace(ctx, &a);
    return GP_STATUS_OK;
}

gp_status gp_reduce(gp_ctx *ctx, const void *in, gp_dtype in_t, int64_t n, gp_op op, void *out, gp_dtype out_t)
{
    if (!ctx) return GP_STATUS_NULL_POINTER;
    if (!out) return gp_set_error(ctx, GP_STATUS_NULL_POINTER, "gp_reduce: out is NULL");
    if (!in && n > 0) return gp_set_error(ctx, GP_STATUS_NULL_POINTER, "gp_reduce: in is NULL");
    gp_reduce_args a = {in, in_t, n, op, out, out_t};
    gp_status s = check_reduce(ctx, &a);
    if (s != GP_STATUS_OK) return s;
    if (!gp_aligned(in, gp_dtype_size(in_t)) || !gp_aligned(out, gp_dtype_size(out_t)))
        return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT,
                            "gp_reduce: in or out is not aligned to its element size");
    void *ws;
    s = gp_ctx_scratch(ctx, ctx->vt->reduce_workspace(ctx, &a), &ws);
    if (s != GP_STATUS_OK) return s;
    return ctx->vt->reduce(ctx, &a, ws);
}

gp_status gp_reduce_to_host(gp_ctx *ctx, const void *in, gp_dtype in_t, int64_t n, gp_op op, void *host_out,
                            gp_dtype out_t)
{
    if (!ctx) return GP_STATUS_NULL_POINTER;
    if (!host_out) return gp_set_error(ctx, GP_STATUS_NULL_POINTER, "gp_reduce_to_host: host_out is NULL");
    if (ctx->backend == GP_BACKEND_CPU) {
        /* host_out has no alignment rule (gpuprim.h), where gp_reduce's out
         * has one: the result lands in an aligned slot first. */
        _Alignas(8) unsigned char slot[8];
        gp_status s = gp_reduce(ctx, in, in_t, n, op, slot, out_t);
        if (s == GP_STATUS_OK) memcpy(host_out, slot, gp_dtype_size(out_t));
        return s;
    }
    if (!gp_dtype_valid(out_t))
        return gp_set_error(ctx, GP_STATUS_INVALID_DTYPE, "output dtype %d is unknown", (int)out_t);
    /* The device result lands in the context's result slot, then comes back. */
    gp_status s = gp_reduce(ctx, in, in_t, n, op, ctx->result_slot, out_t);
    if (s != GP_STATUS_OK) return s;
    void *slot = ctx->result_slot;
    return ctx->vt->copy(ctx, host_out, slot, gp_dtype_size(out_t), GP_COPY_CTX_TO_HOST);
}
