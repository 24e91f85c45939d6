/* gp_supports: the core's type rules, then the backend's own answer. */
#include "gp_internal.h"

bool gp_backend_has(const gp_backend_vtable *vt, gp_primitive prim)
{
    switch (prim) {
    case GP_PRIM_REDUCE: return vt->reduce != NULL;
    case GP_PRIM_SCAN: return vt->scan != NULL;
    case GP_PRIM_SELECT:
    case GP_PRIM_PARTITION: return vt->select != NULL;
    case GP_PRIM_FILTER: return vt->filter != NULL;
    case GP_PRIM_TRANSPOSE: return vt->transpose != NULL;
    case GP_PRIM_COUNT: return vt->count != NULL;
    case GP_PRIM_HISTOGRAM: return vt->histogram != NULL;
    }
    return false;
}

int gp_supports(const gp_ctx *ctx, gp_primitive prim, gp_op op, gp_dtype in, gp_dtype out)
{
    if (!ctx || !gp_backend_has(ctx->vt, prim)) return 0;
    switch (prim) {
    case GP_PRIM_REDUCE:
    case GP_PRIM_SCAN:
        if (!gp_op_defined_for(op, in) || !gp_widening_ok(in, out)) return 0;
        break;
    case GP_PRIM_SELECT:
    case GP_PRIM_PARTITION:
    case GP_PRIM_FILTER:
    case GP_PRIM_TRANSPOSE:
    case GP_PRIM_COUNT:
    case GP_PRIM_HISTOGRAM:
        if (op != 0 || !gp_dtype_valid(in) || out != in) return 0;
        break;
    default: return 0;
    }
    return ctx->vt->supports(prim, op, in, out);
}
