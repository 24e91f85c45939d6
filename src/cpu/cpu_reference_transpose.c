/*
 * Serial reference transpose: the header's definition, element by element,
 * reading the defaults from gp_transpose_params itself (not from the core),
 * so that the tests check the core's reading of the contract too.
 */
#include "cpu_reference.h"

#include <string.h>

void gp_ref_transpose(const void *in, void *out, const gp_transpose_params *p)
{
    size_t e = p->elem_size;
    int transposed = !(p->flags & GP_TRANSPOSE_NONE);
    int64_t out_rows = transposed ? p->cols : p->rows;
    int64_t out_cols = transposed ? p->rows : p->cols;
    int64_t in_stride = p->in_stride ? p->in_stride : p->cols;
    int64_t out_stride = p->out_stride ? p->out_stride : out_cols;
    int64_t batch = p->batch ? p->batch : 1;
    int64_t in_bstride = p->in_batch_stride ? p->in_batch_stride : p->rows * in_stride;
    int64_t out_bstride = p->out_batch_stride ? p->out_batch_stride : out_rows * out_stride;
    const unsigned char *src = (const unsigned char *)in;
    unsigned char *dst = (unsigned char *)out;

    for (int64_t b = 0; b < batch; b++)
        for (int64_t r = 0; r < out_rows; r++)
            for (int64_t c = 0; c < out_cols; c++) {
                /* out[r][c] = base[r2][c2], base = in or its transpose */
                int64_t r2 = (p->flags & GP_TRANSPOSE_REVERSE_ROWS) ? out_rows - 1 - r : r;
                int64_t c2 = (p->flags & GP_TRANSPOSE_REVERSE_COLS) ? out_cols - 1 - c : c;
                int64_t i = transposed ? c2 : r2, j = transposed ? r2 : c2;
                memcpy(dst + (size_t)(b * out_bstride + r * out_stride + c) * e,
                       src + (size_t)(b * in_bstride + i * in_stride + j) * e, e);
            }
}
