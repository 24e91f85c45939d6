/* Status table, version, dtype/op/backend names. */
#include "gp_internal.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#define GP_STR_(x) #x
#define GP_XSTR_(x) GP_STR_(x)

unsigned gp_version_number(void) { return GP_VERSION_NUMBER; }

const char *gp_version_string(void)
{
    return GP_XSTR_(GP_VERSION_MAJOR) "." GP_XSTR_(GP_VERSION_MINOR) "." GP_XSTR_(GP_VERSION_PATCH);
}

const char *gp_status_name(gp_status s)
{
    switch (s) {
#define GP_STATUS_NAME_(name, num, msg) \
    case GP_STATUS_##name:              \
        return #name;
        GP_STATUS_MAP(GP_STATUS_NAME_)
#undef GP_STATUS_NAME_
    }
    return "UNKNOWN";
}

const char *gp_status_string(gp_status s)
{
    switch (s) {
#define GP_STATUS_MSG_(name, num, msg) \
    case GP_STATUS_##name:             \
        return msg;
        GP_STATUS_MAP(GP_STATUS_MSG_)
#undef GP_STATUS_MSG_
    }
    return "unknown status";
}

gp_status gp_set_error(gp_ctx *ctx, gp_status s, const char *fmt, ...)
{
    if (!ctx) return s;
    int k = snprintf(ctx->last_error, sizeof ctx->last_error, "%s: ", gp_status_name(s));
    if (k < 0 || (size_t)k >= sizeof ctx->last_error) return s;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->last_error + k, sizeof ctx->last_error - (size_t)k, fmt, ap);
    va_end(ap);
    return s;
}

gp_status gp_check_max_elements(gp_ctx *ctx, const char *name, int64_t n, int64_t backend_limit)
{
    const char *sep = name ? ": " : "";
    if (!name) name = "";
    if (n > GP_MAX_ELEMENTS)
        return gp_set_error(ctx, GP_STATUS_INVALID_SIZE, "%s%sn = %lld is above GP_MAX_ELEMENTS", name, sep,
                            (long long)n);
    if (n > backend_limit)
        return gp_set_error(ctx, GP_STATUS_INVALID_SIZE, "%s%sn = %lld is past the %s backend's %lld elements", name,
                            sep, (long long)n, gp_backend_name(ctx->backend),
                            (long long)backend_limit);
    return GP_STATUS_OK;
}

/* ------------------------------------------------------------------ dtypes */

/* X(enum suffix, name, long name, size, kind) */
#define GP_DTYPE_MAP(X)                           \
    X(I8, "i8", "int8", 1, GP_KIND_SIGNED)        \
    X(U8, "u8", "uint8", 1, GP_KIND_UNSIGNED)     \
    X(I16, "i16", "int16", 2, GP_KIND_SIGNED)     \
    X(U16, "u16", "uint16", 2, GP_KIND_UNSIGNED)  \
    X(I32, "i32", "int32", 4, GP_KIND_SIGNED)     \
    X(U32, "u32", "uint32", 4, GP_KIND_UNSIGNED)  \
    X(I64, "i64", "int64", 8, GP_KIND_SIGNED)     \
    X(U64, "u64", "uint64", 8, GP_KIND_UNSIGNED)  \
    X(F32, "f32", "float32", 4, GP_KIND_FLOAT)    \
    X(F64, "f64", "float64", 8, GP_KIND_FLOAT)

bool gp_dtype_valid(gp_dtype t) { return t >= GP_DTYPE_I8 && t <= GP_DTYPE_F64; }

size_t gp_dtype_size(gp_dtype t)
{
    switch (t) {
#define GP_DT_SIZE_(e, n, ln, sz, k) \
    case GP_DTYPE_##e:               \
        return sz;
        GP_DTYPE_MAP(GP_DT_SIZE_)
#undef GP_DT_SIZE_
    }
    return 0;
}

const char *gp_dtype_name(gp_dtype t)
{
    switch (t) {
#define GP_DT_NAME_(e, n, ln, sz, k) \
    case GP_DTYPE_##e:               \
        return n;
        GP_DTYPE_MAP(GP_DT_NAME_)
#undef GP_DT_NAME_
    }
    return NULL;
}

gp_kind gp_dtype_kind(gp_dtype t)
{
    switch (t) {
#define GP_DT_KIND_(e, n, ln, sz, k) \
    case GP_DTYPE_##e:               \
        return k;
        GP_DTYPE_MAP(GP_DT_KIND_)
#undef GP_DT_KIND_
    }
    return GP_KIND_SIGNED;
}

gp_status gp_dtype_from_name(const char *name, gp_dtype *out)
{
    if (!name || !out) return GP_STATUS_NULL_POINTER;
#define GP_DT_PARSE_(e, n, ln, sz, k)                                  \
    if (strcasecmp(name, n) == 0 || strcasecmp(name, ln) == 0) {       \
        *out = GP_DTYPE_##e;                                           \
        return GP_STATUS_OK;                                           \
    }
    GP_DTYPE_MAP(GP_DT_PARSE_)
#undef GP_DT_PARSE_
    return GP_STATUS_INVALID_DTYPE;
}

bool gp_widening_ok(gp_dtype in_t, gp_dtype out_t)
{
    return gp_dtype_valid(in_t) && gp_dtype_valid(out_t) &&
           gp_dtype_kind(in_t) == gp_dtype_kind(out_t) &&
           gp_dtype_size(out_t) >= gp_dtype_size(in_t);
}

/* --------------------------------------------------------------------- ops */

static const char *const op_names[] = {NULL, "sum", "prod", "min", "max", "and", "or", "xor"};

bool gp_op_valid(gp_op op) { return op >= GP_OP_SUM && op <= GP_OP_XOR; }
bool gp_op_is_bitwise(gp_op op) { return op == GP_OP_AND || op == GP_OP_OR || op == GP_OP_XOR; }

bool gp_op_defined_for(gp_op op, gp_dtype t)
{
    return gp_op_valid(op) && gp_dtype_valid(t) &&
           !(gp_op_is_bitwise(op) && gp_dtype_kind(t) == GP_KIND_FLOAT);
}

const char *gp_op_name(gp_op op) { return gp_op_valid(op) ? op_names[op] : NULL; }

gp_status gp_op_from_name(const char *name, gp_op *out)
{
    if (!name || !out) return GP_STATUS_NULL_POINTER;
    for (int i = GP_OP_SUM; i <= GP_OP_XOR; i++) {
        if (strcasecmp(name, op_names[i]) == 0) {
            *out = (gp_op)i;
            return GP_STATUS_OK;
        }
    }
    return GP_STATUS_INVALID_OP;
}

/* ---------------------------------------------------------------- backends */

const char *gp_backend_name(gp_backend b)
{
    switch (b) {
    case GP_BACKEND_AUTO: return "auto";
    case GP_BACKEND_CPU: return "cpu";
    case GP_BACKEND_CUDA: return "cuda";
    }
    return NULL;
}

gp_status gp_backend_from_name(const char *name, gp_backend *out)
{
    if (!name || !out) return GP_STATUS_NULL_POINTER;
    for (int i = GP_BACKEND_AUTO; i <= GP_BACKEND_CUDA; i++) {
        if (strcasecmp(name, gp_backend_name((gp_backend)i)) == 0) {
            *out = (gp_backend)i;
            return GP_STATUS_OK;
        }
    }
    return GP_STATUS_INVALID_BACKEND;
}

/* ------------------------------------------------------------- comparisons */

static const char *const cmp_names[] = {NULL, "lt", "le", "gt", "ge", "eq", "ne"};

const char *gp_cmp_name(gp_cmp c) { return c >= GP_CMP_LT && c <= GP_CMP_NE ? cmp_names[c] : NULL; }

gp_status gp_cmp_from_name(const char *name, gp_cmp *out)
{
    if (!name || !out) return GP_STATUS_NULL_POINTER;
    for (int i = GP_CMP_LT; i <= GP_CMP_NE; i++) {
        if (strcasecmp(name, cmp_names[i]) == 0) {
            *out = (gp_cmp)i;
            return GP_STATUS_OK;
        }
    }
    return GP_STATUS_INVALID_ARGUMENT;
}
