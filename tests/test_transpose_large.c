/*
 * Transposes past 2^31 bytes and elements, where a 32-bit offset or index
 * would wrap: every element is a function of its position (no reference
 * copy needed), the output is checked element by element in parallel.
 * Out of place with 1-, 4- and 16-byte elements, in place with 2-byte ones,
 * and a rotation; each case moves about 2.2 GB each way.
 */
#include "harness.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct lcase {
    size_t e;
    int64_t rows, cols;
    unsigned flags;
    bool in_place;
} lcase;

static const lcase cases[] = {
    {1, 65537, 32771, 0, false},                        /* 2^31 + 98k elements */
    {1, 65536, 32784, GP_TRANSPOSE_REVERSE_ROWS, false}, /* 2^31 + 2^20, sides multiples of 16: byte tiles on CUDA */
    {4, 24001, 24007, GP_TRANSPOSE_REVERSE_COLS, false}, /* 2.3 GB: byte offsets past 2^31 */
    {16, 12011, 12007, 0, false},
    {2, 33001, 33001, 0, true},
};
enum { NCASES = sizeof cases / sizeof cases[0] };

/* Byte b of element k (k = i * cols + j of the input): the top byte of a
 * multiplicative hash, which depends on every bit of k. */
static inline unsigned char value_byte(uint64_t k, size_t b)
{
    return (unsigned char)((k * 0x9E3779B97F4A7C15ull + b * 0xD1B54A32D192ED03ull) >> 56);
}

static void fill(unsigned char *x, const lcase *c)
{
    int64_t n = c->rows * c->cols;
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < n; k++)
        for (size_t b = 0; b < c->e; b++) x[(size_t)k * c->e + b] = value_byte((uint64_t)k, b);
}

/* out[r][c] of the output against the input element it must hold; the
 * first mismatch (lowest row found by any thread) goes to *bad_r, *bad_c. */
static bool verify(const unsigned char *out, const lcase *c, int64_t *bad_r, int64_t *bad_c)
{
    bool transposed = !(c->flags & GP_TRANSPOSE_NONE);
    int64_t orows = transposed ? c->cols : c->rows, ocols = transposed ? c->rows : c->cols;
    int64_t first = INT64_MAX;
#pragma omp parallel for schedule(static) reduction(min : first)
    for (int64_t r = 0; r < orows; r++)
        for (int64_t col = 0; col < ocols; col++) {
            int64_t r2 = c->flags & GP_TRANSPOSE_REVERSE_ROWS ? orows - 1 - r : r;
            int64_t c2 = c->flags & GP_TRANSPOSE_REVERSE_COLS ? ocols - 1 - col : col;
            int64_t i = transposed ? c2 : r2, j = transposed ? r2 : c2;
            const unsigned char *e = out + (size_t)(r * ocols + col) * c->e;
            for (size_t b = 0; b < c->e; b++)
                if (e[b] != value_byte((uint64_t)(i * c->cols + j), b) && r * ocols + col < first) {
                    first = r * ocols + col;
                    break;
                }
        }
    if (first == INT64_MAX) return true;
    *bad_r = first / ocols;
    *bad_c = first % ocols;
    return false;
}

static void run_case(gpt *t, int k, const lcase *c)
{
    size_t bytes = (size_t)(c->rows * c->cols) * c->e;
    unsigned char *host = malloc(bytes);
    void *in = NULL, *out = NULL;
    gp_status s = host ? gp_malloc(t->ctx, &in, bytes) : GP_STATUS_OUT_OF_MEMORY;
    if (s == GP_STATUS_OK && !c->in_place) s = gp_malloc(t->ctx, &out, bytes);
    if (s != GP_STATUS_OK) {
        /* Not a failure of transpose: this machine cannot hold the case. */
        char why[96];
        snprintf(why, sizeof why, "case %d: %zu bytes do not fit (%s)", k, bytes, gp_status_name(s));
        gpt_skip_for_memory(t, why);
        goto done;
    }
    fill(host, c);
    s = gp_copy_from_host(t->ctx, in, host, bytes);
    if (s == GP_STATUS_OK && !c->in_place) s = gp_memset(t->ctx, out, 0xA5, bytes);
    gp_transpose_params p = {0};
    p.elem_size = c->e;
    p.rows = c->rows;
    p.cols = c->cols;
    p.flags = c->flags;
    if (s == GP_STATUS_OK) s = gp_transpose_ex(t->ctx, in, c->in_place ? in : out, &p);
    if (s == GP_STATUS_OK) s = gp_copy_to_host(t->ctx, host, c->in_place ? in : out, bytes);
    int64_t br = 0, bc = 0;
    if (s != GP_STATUS_OK)
        gpt_fail(t, "case %d: %s (%s)", k, gp_status_name(s), gp_ctx_last_error(t->ctx));
    else if (!verify(host, c, &br, &bc))
        gpt_fail(t, "case %d: e=%zu %" PRId64 "x%" PRId64 " flags=%u%s: wrong element at output row %" PRId64
                 ", col %" PRId64,
                 k, c->e, c->rows, c->cols, c->flags, c->in_place ? " in place" : "", br, bc);
    else
        gpt_pass(t);
done:
    gp_free(t->ctx, in);
    gp_free(t->ctx, out);
    free(host);
}

int main(int argc, char **argv)
{
    gpt t;
    gpt_init(&t, argc, argv);
    for (int k = 0; k < NCASES; k++)
        if (gpt_selected(&t, k) && (!t.quick || k == 0)) run_case(&t, k, &cases[k]);
    return gpt_finish(&t);
}
