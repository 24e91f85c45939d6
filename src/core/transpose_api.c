/*
 * gp_transpose_ex, gp_transpose: argument checks, defaults, the in-place and
 * overlap rules, and a few rewrites that hand the backend fewer cases.
 *
 * What a backend's `transpose` entry receives (gp_transpose_args):
 * - every default filled in: strides, batch >= 1, batch strides;
 *   out_rows x out_cols is the shape of each output matrix; rows, cols >= 1;
 * - out of place (no overlap at all), or in place (in == out, identical
 *   layouts) for exactly two kinds of call: a plain transpose of a square
 *   matrix (flags 0), or a flip (GP_TRANSPOSE_NONE with one or both
 *   REVERSE flags) of any shape. The core splits an in-place rotation into
 *   those two steps, and answers an in-place call with nothing to do itself;
 * - transposes of a single row or column arrive as NONE copies (a 1 x n
 *   matrix and its n x 1 transpose hold the same elements in the same order,
 *   only the strides differ), so tiled kernels never see a degenerate shape.
 */
#include "gp_internal.h"

enum { GP_TP_FLAGS = GP_TRANSPOSE_NONE | GP_TRANSPOSE_REVERSE_ROWS | GP_TRANSPOSE_REVERSE_COLS };
enum { GP_TP_REVERSE = GP_TRANSPOSE_REVERSE_ROWS | GP_TRANSPOSE_REVERSE_COLS };

/* r = a * b + c for a, b, c >= 0; false on int64 overflow. */
static bool muladd_ok(int64_t a, int64_t b, int64_t c, int64_t *r)
{
    if (b != 0 && a > (INT64_MAX - c) / b) return false;
    *r = a * b + c;
    return true;
}

/* Elements from the first to one past the last element of `batch` matrices
 * of rows x cols (all >= 1); false on overflow. */
static bool span_elems(int64_t batch, int64_t bstride, int64_t rows, int64_t stride, int64_t cols, int64_t *span)
{
    int64_t last_row;
    return muladd_ok(rows - 1, stride, cols, &last_row) && muladd_ok(batch - 1, bstride, last_row, span);
}

static bool is_elem_size(size_t e) { return e == 1 || e == 2 || e == 4 || e == 8 || e == 16; }

/*
 * Fills the defaults into a->p and checks every value that does not depend
 * on the pointers. On success a->p.rows, cols may still be 0 (nothing to do).
 */
static gp_status fill_and_check(gp_ctx *ctx, const gp_transpose_params *p, gp_transpose_args *a, int64_t *in_span,
                                int64_t *out_span)
{
    gp_transpose_params q = *p;
    if (!is_elem_size(q.elem_size))
        return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT, "elem_size = %zu is not 1, 2, 4, 8 or 16", q.elem_size);
    if (q.flags & ~(unsigned)GP_TP_FLAGS)
        return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT, "flags 0x%x has unknown bits", q.flags);
    if (q.rows < 0 || q.cols < 0)
        return gp_set_error(ctx, GP_STATUS_INVALID_SIZE, "rows = %lld, cols = %lld: negative", (long long)q.rows,
                            (long long)q.cols);
    if (q.batch < 0 || q.in_stride < 0 || q.out_stride < 0 || q.in_batch_stride < 0 || q.out_batch_stride < 0)
        return gp_set_error(ctx, GP_STATUS_INVALID_SIZE, "a stride or the batch count is negative");

    bool transposed = !(q.flags & GP_TRANSPOSE_NONE);
    a->out_rows = transposed ? q.cols : q.rows;
    a->out_cols = transposed ? q.rows : q.cols;
    if (q.in_stride == 0) q.in_stride = q.cols;
    if (q.out_stride == 0) q.out_stride = a->out_cols;
    if (q.batch == 0) q.batch = 1;
    if (q.in_stride < q.cols)
        return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT, "in_stride = %lld is less than cols = %lld",
                            (long long)q.in_stride, (long long)q.cols);
    if (q.out_stride < a->out_cols)
        return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT, "out_stride = %lld is less than the output width %lld",
                            (long long)q.out_stride, (long long)a->out_cols);
    if (q.in_batch_stride == 0 && !muladd_ok(q.rows, q.in_stride, 0, &q.in_batch_stride))
        return gp_set_error(ctx, GP_STATUS_INVALID_SIZE, "rows x in_stride overflows");
    if (q.out_batch_stride == 0 && !muladd_ok(a->out_rows, q.out_stride, 0, &q.out_batch_stride))
        return gp_set_error(ctx, GP_STATUS_INVALID_SIZE, "the output's rows x out_stride overflows");
    a->p = q;
    *in_span = *out_span = 0;
    if (q.rows == 0 || q.cols == 0) return GP_STATUS_OK;

    int64_t max_elems = INT64_MAX / (int64_t)q.elem_size;
    if ((uint64_t)INT64_MAX > (uint64_t)SIZE_MAX) max_elems = (int64_t)(SIZE_MAX / q.elem_size);
    if (!span_elems(q.batch, q.in_batch_stride, q.rows, q.in_stride, q.cols, in_span) || *in_span > max_elems ||
        !span_elems(q.batch, q.out_batch_stride, a->out_rows, q.out_stride, a->out_cols, out_span) ||
        *out_span > max_elems)
        return gp_set_error(ctx, GP_STATUS_INVALID_SIZE, "the matrices span more bytes than an address can hold");

    /* Output matrices may not share an element: either each lies past the
     * previous one, or their rows interleave (each row group holds one row
     * of every matrix). Other layouts are rejected rather than analysed. */
    if (q.batch > 1) {
        int64_t one = *out_span - (q.batch - 1) * q.out_batch_stride; /* one matrix's span */
        int64_t row_group;
        bool stacked = q.out_batch_stride >= one;
        bool interleaved = q.out_batch_stride >= a->out_cols &&
                           muladd_ok(q.batch - 1, q.out_batch_stride, a->out_cols, &row_group) &&
                           (a->out_rows == 1 || q.out_stride >= row_group);
        if (!stacked && !interleaved)
            return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT,
                                "out_batch_stride = %lld makes the output matrices overlap",
                                (long long)q.out_batch_stride);
    }
    return GP_STATUS_OK;
}

/* A transpose of one row or one column, as the NONE copy that moves the same
 * elements: both views are n x 1 matrices whose row strides are the element
 * strides of the two sides. The transpose's REVERSE_ROWS (or, for a column,
 * its REVERSE_COLS) reverses that sequence; the other flag is a no-op on a
 * dimension of 1. When both strides are 1 the copy is rewritten once more
 * as one 1 x n row, which backends move in wide words. */
static void as_copy(gp_transpose_args *a)
{
    gp_transpose_params *q = &a->p;
    bool single_row = q->rows == 1;
    int64_t n = single_row ? q->cols : q->rows;
    int64_t in_step = single_row ? 1 : q->in_stride;
    int64_t out_step = single_row ? q->out_stride : 1;
    unsigned rev = q->flags & (single_row ? GP_TRANSPOSE_REVERSE_ROWS : GP_TRANSPOSE_REVERSE_COLS);
    if (in_step == 1 && out_step == 1) {
        q->rows = 1;
        q->cols = n;
        q->in_stride = q->out_stride = n;
        q->flags = GP_TRANSPOSE_NONE | (rev ? GP_TRANSPOSE_REVERSE_COLS : 0);
    } else {
        q->rows = n;
        q->cols = 1;
        q->in_stride = in_step;
        q->out_stride = out_step;
        q->flags = GP_TRANSPOSE_NONE | (rev ? GP_TRANSPOSE_REVERSE_ROWS : 0);
    }
    a->out_rows = q->rows;
    a->out_cols = q->cols;
}

gp_status gp_transpose_ex(gp_ctx *ctx, const void *in, void *out, const gp_transpose_params *p)
{
    if (!ctx) return GP_STATUS_NULL_POINTER;
    if (!p) return gp_set_error(ctx, GP_STATUS_NULL_POINTER, "gp_transpose_ex: p is NULL");
    gp_transpose_args a;
    int64_t in_span = 0, out_span = 0;
    gp_status s = fill_and_check(ctx, p, &a, &in_span, &out_span);
    if (s != GP_STATUS_OK) return s;
    if (!ctx->vt->transpose)
        return gp_set_error(ctx, GP_STATUS_UNSUPPORTED_DTYPE, "the %s backend has no transpose",
                            gp_backend_name(ctx->backend));
    gp_transpose_params *q = &a.p;
    if (q->rows == 0 || q->cols == 0) return GP_STATUS_OK; /* in and out may be NULL */
    if (!in || !out)
        return gp_set_error(ctx, GP_STATUS_NULL_POINTER, "gp_transpose_ex: %s is NULL", in ? "out" : "in");
    if ((uintptr_t)in % q->elem_size || (uintptr_t)out % q->elem_size)
        return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT, "in (%p) or out (%p) is not aligned to elem_size %zu",
                            in, (void *)out, q->elem_size);
    a.in = in;
    a.out = out;

    bool transposed = !(q->flags & GP_TRANSPOSE_NONE);
    unsigned reverse = q->flags & GP_TP_REVERSE;
    if (in == out) {
        if (transposed && q->rows != q->cols)
            return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT,
                                "in place needs a square matrix to transpose (%lld x %lld)", (long long)q->rows,
                                (long long)q->cols);
        if (q->in_stride != q->out_stride || q->in_batch_stride != q->out_batch_stride)
            return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT,
                                "in place needs equal input and output strides and batch strides");
        if (transposed) {
            if (q->rows == 1) return GP_STATUS_OK; /* 1 x 1: every flag is the identity */
            /* An in-place rotation is a transpose, then a flip. */
            q->flags = 0;
            s = ctx->vt->transpose(ctx, &a);
            if (s != GP_STATUS_OK) return s;
        }
        if (!reverse) return GP_STATUS_OK; /* done, or the identity */
        q->flags = GP_TRANSPOSE_NONE | reverse;
        return ctx->vt->transpose(ctx, &a); /* the shape is square or unchanged */
    }
    size_t e = q->elem_size;
    if (gp_overlaps(in, (size_t)in_span * e, out, (size_t)out_span * e))
        return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT,
                            "in and out overlap but are not the same buffer (in place needs in == out)");
    if (transposed && (q->rows == 1 || q->cols == 1)) as_copy(&a);
    return ctx->vt->transpose(ctx, &a);
}

gp_status gp_transpose(gp_ctx *ctx, const void *in, void *out, size_t elem_size, int64_t rows, int64_t cols)
{
    gp_transpose_params p = {0};
    p.elem_size = elem_size;
    p.rows = rows;
    p.cols = cols;
    return gp_transpose_ex(ctx, in, out, &p);
}
