/*
 * gp_transpose_ex and gp_transpose against the serial reference
 * gp_ref_transpose, driven by one case table: every element size; square,
 * non-square and degenerate shapes; sizes at the tile sizes +-1 (the CUDA
 * tiles are 32, 64 and 128 elements wide); strides and base offsets that put
 * rows on every alignment (which picks the CUDA kernel's vector width);
 * batches, stacked and row-interleaved; every flag combination; in place.
 *
 * Each output sits between canaries and is poisoned first; the whole
 * output span, gaps between rows and matrices included, is compared byte
 * for byte with what the reference writes over the same poison, so an
 * element left unwritten or a byte written in a gap fails. Out of place,
 * the input is checked unchanged afterwards.
 */
#include "cpu_reference.h"
#include "harness.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define CHECK GPT_CHECK

enum { F_NONE = GP_TRANSPOSE_NONE, F_RR = GP_TRANSPOSE_REVERSE_ROWS, F_RC = GP_TRANSPOSE_REVERSE_COLS };

typedef struct tcase {
    gp_transpose_params p; /* as passed: zeros ask for the defaults */
    bool in_place;
    int in_off, out_off; /* elements between an aligned base and the matrix */
    bool simple;         /* call gp_transpose instead of gp_transpose_ex */
} tcase;

typedef struct table {
    tcase *c;
    size_t n, cap;
} table;

static void add(table *tb, tcase c)
{
    if (tb->n == tb->cap) {
        tb->cap = tb->cap ? 2 * tb->cap : 1024;
        tb->c = realloc(tb->c, tb->cap * sizeof *tb->c);
        if (!tb->c) abort();
    }
    tb->c[tb->n++] = c;
}

static gp_transpose_params shape(size_t e, int64_t rows, int64_t cols, unsigned flags)
{
    gp_transpose_params p = {0};
    p.elem_size = e;
    p.rows = rows;
    p.cols = cols;
    p.flags = flags;
    return p;
}

static void add_p(table *tb, gp_transpose_params p) { add(tb, (tcase){p, false, 0, 0, false}); }

/* ------------------------------------------------------------- layouts */

/* The filled-in layout of a case, computed here from the header's rules. */
typedef struct layout {
    int64_t orows, ocols, is, os, batch, ibs, obs;
    int64_t in_span, out_span; /* elements, 0 when empty */
} layout;

static layout layout_of(const gp_transpose_params *p)
{
    layout l;
    bool tr = !(p->flags & F_NONE);
    l.orows = tr ? p->cols : p->rows;
    l.ocols = tr ? p->rows : p->cols;
    l.is = p->in_stride ? p->in_stride : p->cols;
    l.os = p->out_stride ? p->out_stride : l.ocols;
    l.batch = p->batch ? p->batch : 1;
    l.ibs = p->in_batch_stride ? p->in_batch_stride : p->rows * l.is;
    l.obs = p->out_batch_stride ? p->out_batch_stride : l.orows * l.os;
    bool empty = p->rows == 0 || p->cols == 0;
    l.in_span = empty ? 0 : (l.batch - 1) * l.ibs + (p->rows - 1) * l.is + p->cols;
    l.out_span = empty ? 0 : (l.batch - 1) * l.obs + (l.orows - 1) * l.os + l.ocols;
    return l;
}

/* ----------------------------------------------------------- the table */

static const size_t elem_sizes[] = {1, 2, 4, 8, 16};
static const unsigned all_flags[] = {0,    F_RR,        F_RC,        F_RR | F_RC,
                                     F_NONE, F_NONE | F_RR, F_NONE | F_RC, F_NONE | F_RR | F_RC};

/* Tile sizes +-1 (16, 32, 64, 128), small odd sizes, a prime. */
static const int64_t sizes[] = {0, 1, 2, 3, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 97, 127, 128, 129, 255, 256, 257};
static const int64_t quick_sizes[] = {0, 1, 3, 32, 33, 65, 128, 129};

static void build_shapes(table *tb, size_t e, bool quick)
{
    const int64_t *sz = quick ? quick_sizes : sizes;
    size_t n = quick ? COUNT(quick_sizes) : COUNT(sizes);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) add_p(tb, shape(e, sz[i], sz[j], 0));

    /* Every flag on square, non-square and degenerate shapes. */
    static const int64_t fshapes[][2] = {{33, 65}, {64, 64}, {1, 17}, {17, 1},    {129, 7},
                                         {7, 129},  {1, 1},   {256, 255}, {3, 5}, {5, 2}};
    for (size_t s = 0; s < COUNT(fshapes); s++)
        for (size_t f = 0; f < COUNT(all_flags); f++) {
            if (quick && s % 2) continue;
            add_p(tb, shape(e, fshapes[s][0], fshapes[s][1], all_flags[f]));
        }

    /* Tall, wide and larger shapes; rows or cols past 65535 (a grid's y limit). */
    static const int64_t big[][2] = {{1080, 1920}, {1920, 1080}, {30000, 7}, {7, 30000}, {1, 100000},
                                     {100000, 1},  {70000, 3},   {3, 70000},  {509, 251}, {997, 1009}};
    for (size_t s = 0; s < COUNT(big); s++) {
        int64_t r = big[s][0], c = big[s][1];
        /* --quick (compute-sanitizer): the narrow shapes, and the full-HD one for bytes only. */
        if ((quick && (s > 3 || (s < 2 && e > 1))) || (size_t)(r * c) * e > ((size_t)32 << 20)) continue;
        add_p(tb, shape(e, r, c, 0));
        if (s < 4) add_p(tb, shape(e, r, c, F_RC)); /* a rotation */
    }
    /* Several tiles of every side (up to 256) with edge tiles cut at a
     * multiple of 16 elements, flipped both ways. */
    static const int64_t multi[][2] = {{272, 528}, {528, 272}, {784, 1040}};
    for (size_t s = 0; s < COUNT(multi); s++) {
        if (quick && s == 2) continue;
        add_p(tb, shape(e, multi[s][0], multi[s][1], 0));
        add_p(tb, shape(e, multi[s][0], multi[s][1], s % 2 ? F_RC : F_RR));
    }
    /* Just past 16 MiB a short side of up to 16 leaves the CUDA backend's
     * one-element-per-thread kernel for chunks through shared memory
     * (elements of 4 bytes and more): a tall and a wide shape, one flipped. */
    if (!quick || e >= 4) {
        const int64_t mib17 = (int64_t)17 << 20;
        add_p(tb, shape(e, mib17 / (4 * (int64_t)e) + 1, 4, 0));
        add_p(tb, shape(e, 5, mib17 / (5 * (int64_t)e) + 3, F_RR));
    }
}

/* Strides and base offsets: row lengths in bytes on each alignment the
 * CUDA backend tells apart (16, 8, 4, 2, 1), for input and output. */
static void build_strides(table *tb, size_t e, bool quick)
{
    static const int64_t shapes[][2] = {{33, 65}, {64, 64}, {128, 129}, {200, 72}, {17, 300}};
    static const int64_t pads[] = {0, 1, 2, 4, 8, 16}; /* elements past the width rounded up to 16 */
    static const int offs[] = {0, 1, 2, 4, 8};
    for (size_t s = 0; s < COUNT(shapes); s++)
        for (size_t pi = 0; pi < COUNT(pads); pi++)
            for (size_t po = 0; po < COUNT(pads); po++) {
                if (quick && (pi != po || s > 1)) continue;
                int64_t r = shapes[s][0], c = shapes[s][1];
                gp_transpose_params p = shape(e, r, c, (pi + po) % 3 == 2 ? F_RR : 0);
                p.in_stride = (c + 15) / 16 * 16 + pads[pi];
                p.out_stride = (r + 15) / 16 * 16 + pads[po];
                tcase t = {p, false, offs[(pi + s) % COUNT(offs)], offs[(po + 2 * s) % COUNT(offs)], false};
                add(tb, t);
            }
    /* Strides just above the width; NONE copies with strides. */
    for (size_t f = 0; f < COUNT(all_flags); f++) {
        gp_transpose_params p = shape(e, 45, 70, all_flags[f]);
        p.in_stride = 71;
        p.out_stride = (all_flags[f] & F_NONE) ? 73 : 47;
        add(tb, (tcase){p, false, 1, 3, false});
    }
}

static void build_batches(table *tb, size_t e, bool quick)
{
    static const int64_t shapes[][2] = {{33, 65}, {64, 64}, {7, 129}, {1, 40}, {40, 1}, {130, 129}};
    static const int64_t batches[] = {2, 3, 5};
    for (size_t s = 0; s < COUNT(shapes); s++)
        for (size_t bi = 0; bi < COUNT(batches); bi++) {
            if (quick && bi) continue;
            int64_t r = shapes[s][0], c = shapes[s][1], b = batches[bi];
            unsigned fl = all_flags[(s + bi) % COUNT(all_flags)];
            gp_transpose_params p = shape(e, r, c, fl);
            p.batch = b;
            add_p(tb, p); /* dense, default batch strides */
            layout l = layout_of(&p);
            p.in_stride = c + 3;
            p.out_stride = l.ocols + 5;
            p.in_batch_stride = r * p.in_stride + 11; /* gaps between matrices */
            p.out_batch_stride = l.orows * p.out_stride + 13;
            add(tb, (tcase){p, false, 2, 1, false});
            /* Row-interleaved output: matrix k's row i at i * stride + k * width. */
            p.out_batch_stride = l.ocols;
            p.out_stride = b * l.ocols + 2;
            add(tb, (tcase){p, false, 0, 3, false});
            /* Overlapping input matrices are fine (they are only read). */
            p.in_batch_stride = 1;
            add(tb, (tcase){p, false, 0, 0, false});
        }
}

static void build_in_place(table *tb, size_t e, bool quick)
{
    static const int64_t ns[] = {1, 2, 3, 16, 31, 32, 33, 63, 64, 65, 127, 128, 129, 200, 257};
    for (size_t i = 0; i < COUNT(ns); i++) {
        if (quick && i % 3) continue;
        for (size_t f = 0; f < COUNT(all_flags); f++) {
            if (f && i % 2 && !quick) continue; /* all flags on every other size */
            gp_transpose_params p = shape(e, ns[i], ns[i], all_flags[f]);
            add(tb, (tcase){p, true, 0, 0, false});
        }
        gp_transpose_params p = shape(e, ns[i], ns[i], 0);
        p.in_stride = p.out_stride = ns[i] + 3;
        p.batch = 3;
        add(tb, (tcase){p, true, 1, 1, false});
        p.in_stride = p.out_stride = (ns[i] + 15) / 16 * 16;
        p.flags = F_RC;
        add(tb, (tcase){p, true, 0, 0, false});
    }
    /* Flips keep the shape, so they work in place on any shape. */
    static const int64_t fl[][2] = {{33, 65}, {65, 33}, {1, 100}, {100, 1}, {4, 1000}};
    for (size_t s = 0; s < COUNT(fl); s++)
        for (size_t f = 4; f < COUNT(all_flags); f++) {
            gp_transpose_params p = shape(e, fl[s][0], fl[s][1], all_flags[f]);
            p.batch = 2;
            add(tb, (tcase){p, true, 0, 0, false});
        }
}

static table build_table(bool quick)
{
    table tb = {0};
    for (size_t i = 0; i < COUNT(elem_sizes); i++) {
        size_t e = elem_sizes[i];
        build_shapes(&tb, e, quick);
        build_strides(&tb, e, quick);
        build_batches(&tb, e, quick);
        build_in_place(&tb, e, quick);
        tcase t = {shape(e, 37, 91, 0), false, 0, 0, true}; /* the short form */
        add(&tb, t);
    }
    return tb;
}

/* ---------------------------------------------------------------- running */

static void describe(const tcase *c, long k, char *s, size_t size)
{
    const gp_transpose_params *p = &c->p;
    snprintf(s, size,
             "case %ld: %s%s e=%zu %" PRId64 "x%" PRId64 " flags=%u strides=%" PRId64 "/%" PRId64 " batch=%" PRId64
             " bstrides=%" PRId64 "/%" PRId64 " offsets=%d/%d",
             k, c->in_place ? "in place " : "", c->simple ? "gp_transpose" : "gp_transpose_ex", p->elem_size, p->rows,
             p->cols, p->flags, p->in_stride, p->out_stride, p->batch, p->in_batch_stride, p->out_batch_stride,
             c->in_off, c->out_off);
}

static const unsigned char poison[] = {0xA5, 0x5A, 0x3C, 0xC3, 0x0F, 0xF0, 0x69};

/* Where the first difference lies, in output coordinates. */
static void locate(const tcase *c, const layout *l, size_t byte, char *s, size_t size)
{
    size_t e = c->p.elem_size;
    int64_t el = (int64_t)(byte / e) - c->out_off;
    if (el < 0 || el >= l->out_span) {
        snprintf(s, size, "byte %zu, outside the output span", byte);
        return;
    }
    int64_t b = l->batch > 1 && l->obs ? el / l->obs : 0, rest = el - b * l->obs;
    int64_t r = rest / l->os, col = rest % l->os;
    snprintf(s, size,
             "first difference at element %" PRId64 " (matrix %" PRId64 ", row %" PRId64 ", col %" PRId64 "%s)", el,
             b, r, col, col >= l->ocols ? ", in a gap" : "");
}

static void run_case(gpt *t, long k, const tcase *c)
{
    char desc[320], why[512] = "";
    describe(c, k, desc, sizeof desc);
    const gp_transpose_params *p = &c->p;
    size_t e = p->elem_size;
    layout l = layout_of(p);
    size_t in_bytes = (size_t)(c->in_off + l.in_span + 16) * e;
    size_t out_bytes = (size_t)(c->out_off + l.out_span + 16) * e;
    if (c->in_place) out_bytes = in_bytes = in_bytes > out_bytes ? in_bytes : out_bytes;

    unsigned char *hin = malloc(in_bytes), *exp = malloc(out_bytes), *got = malloc(out_bytes);
    if (!hin || !exp || !got) abort();
    gpt_rng rng = {gpt_derive(t->seed, (uint64_t)k, e, (uint64_t)p->rows, (uint64_t)p->cols)};
    for (size_t i = 0; i < in_bytes; i++) hin[i] = (unsigned char)gpt_next(&rng);

    /* Expected: the reference over the poison (out of place), or over the input (in place). */
    if (c->in_place) memcpy(exp, hin, out_bytes);
    else for (size_t i = 0; i < out_bytes; i++) exp[i] = poison[i % sizeof poison];
    if (l.in_span && l.out_span) {
        unsigned char *src = hin;
        if (c->in_place && !(src = malloc(in_bytes))) abort();
        if (c->in_place) memcpy(src, hin, in_bytes);
        gp_ref_transpose(src + (size_t)c->in_off * e, exp + (size_t)c->out_off * e, p);
        if (c->in_place) free(src);
    }

    gpt_guarded g;
    unsigned char *din = NULL;
    gp_status s = gpt_guarded_alloc(t->ctx, &g, out_bytes);
    if (s != GP_STATUS_OK) {
        gpt_fail(t, "%s: allocating the output gave %s", desc, gp_status_name(s));
        goto done;
    }
    s = gpt_guarded_poison(&g, poison, sizeof poison);
    if (s == GP_STATUS_OK && c->in_place) s = gp_copy_from_host(t->ctx, g.ptr, hin, in_bytes);
    if (s == GP_STATUS_OK && !c->in_place && (s = gp_malloc(t->ctx, (void **)&din, in_bytes)) == GP_STATUS_OK)
        s = gp_copy_from_host(t->ctx, din, hin, in_bytes);
    if (s != GP_STATUS_OK) {
        gpt_fail(t, "%s: preparing the buffers gave %s", desc, gp_status_name(s));
        goto free_dev;
    }
    const unsigned char *in = c->in_place ? g.ptr : din;
    in += (size_t)c->in_off * e;
    unsigned char *out = g.ptr + (size_t)c->out_off * e;
    s = c->simple ? gp_transpose(t->ctx, in, out, e, p->rows, p->cols) : gp_transpose_ex(t->ctx, in, out, p);
    bool ok = true;
    if (s != GP_STATUS_OK) {
        snprintf(why, sizeof why, "returned %s (%s)", gp_status_name(s), gp_ctx_last_error(t->ctx));
        ok = false;
    } else if (!gpt_guarded_check(&g, got, why, sizeof why)) {
        ok = false;
    } else if (memcmp(got, exp, out_bytes) != 0) {
        size_t i = 0;
        while (got[i] == exp[i]) i++;
        locate(c, &l, i, why, sizeof why);
        ok = false;
    }
    if (ok && !c->in_place)
        ok = gpt_unchanged(t->ctx, din, hin, in_bytes, "input", why, sizeof why);
    if (ok) gpt_pass(t);
    else gpt_fail(t, "%s: %s", desc, why);
free_dev:
    gp_free(t->ctx, din);
    gpt_guarded_free(&g);
done:
    free(hin);
    free(exp);
    free(got);
}

/* ------------------------------------------------------------ error paths */

/* A failing call returns `want` and leaves the poisoned output alone. */
static void expect_fail(gpt *t, const char *what, gp_status want, const void *in, void *out,
                        const gp_transpose_params *p, gpt_guarded *g)
{
    gp_status s = gpt_guarded_poison(g, poison, sizeof poison);
    if (s == GP_STATUS_OK) s = gp_transpose_ex(t->ctx, in, out, p);
    unsigned char *back = malloc(g->bytes), *pz = malloc(g->bytes);
    char why[256] = "";
    if (!back || !pz) abort();
    for (size_t i = 0; i < g->bytes; i++) pz[i] = poison[i % sizeof poison];
    bool intact = gpt_guarded_check(g, back, why, sizeof why) && memcmp(back, pz, g->bytes) == 0;
    CHECK(t, s == want, "%s: got %s, want %s", what, gp_status_name(s), gp_status_name(want));
    CHECK(t, intact, "%s: the output changed on failure %s", what, why);
    CHECK(t, gp_ctx_last_error(t->ctx)[0] != '\0', "%s: no error detail recorded", what);
    free(back);
    free(pz);
}

static void test_errors(gpt *t)
{
    enum { N = 64 }; /* a 64 x 64 matrix of 16-byte elements fits every case below */
    gpt_guarded g, gi;
    if (gpt_guarded_alloc(t->ctx, &g, N * N * 16) != GP_STATUS_OK ||
        gpt_guarded_alloc(t->ctx, &gi, N * N * 16) != GP_STATUS_OK) {
        gpt_fail(t, "could not allocate the error-path buffers");
        return;
    }
    const unsigned char *in = gi.ptr;
    unsigned char *out = g.ptr;
    gp_transpose_params ok = shape(4, 8, 12, 0);

    CHECK(t, gp_transpose_ex(NULL, in, out, &ok) == GP_STATUS_NULL_POINTER, "NULL ctx");
    CHECK(t, gp_transpose(NULL, in, out, 4, 8, 12) == GP_STATUS_NULL_POINTER, "NULL ctx, short form");
    expect_fail(t, "NULL params", GP_STATUS_NULL_POINTER, in, out, NULL, &g);
    expect_fail(t, "NULL in", GP_STATUS_NULL_POINTER, NULL, out, &ok, &g);
    expect_fail(t, "NULL out", GP_STATUS_NULL_POINTER, in, NULL, &ok, &g);

    static const size_t bad_sizes[] = {0, 3, 5, 6, 12, 32};
    for (size_t i = 0; i < COUNT(bad_sizes); i++) {
        gp_transpose_params p = ok;
        p.elem_size = bad_sizes[i];
        expect_fail(t, "bad elem_size", GP_STATUS_INVALID_ARGUMENT, in, out, &p, &g);
    }
    gp_transpose_params p = ok;
    p.flags = 8;
    expect_fail(t, "unknown flag", GP_STATUS_INVALID_ARGUMENT, in, out, &p, &g);
    p = ok, p.rows = -1;
    expect_fail(t, "rows < 0", GP_STATUS_INVALID_SIZE, in, out, &p, &g);
    p = ok, p.cols = -5;
    expect_fail(t, "cols < 0", GP_STATUS_INVALID_SIZE, in, out, &p, &g);
    p = ok, p.batch = -1;
    expect_fail(t, "batch < 0", GP_STATUS_INVALID_SIZE, in, out, &p, &g);
    p = ok, p.in_stride = -12;
    expect_fail(t, "in_stride < 0", GP_STATUS_INVALID_SIZE, in, out, &p, &g);
    p = ok, p.out_batch_stride = -1;
    expect_fail(t, "out_batch_stride < 0", GP_STATUS_INVALID_SIZE, in, out, &p, &g);
    p = ok, p.in_stride = 11;
    expect_fail(t, "in_stride < cols", GP_STATUS_INVALID_ARGUMENT, in, out, &p, &g);
    p = ok, p.out_stride = 7;
    expect_fail(t, "out_stride < output width", GP_STATUS_INVALID_ARGUMENT, in, out, &p, &g);
    p = ok, p.flags = F_NONE, p.out_stride = 11;
    expect_fail(t, "NONE: out_stride < cols", GP_STATUS_INVALID_ARGUMENT, in, out, &p, &g);
    p = ok, p.rows = (int64_t)1 << 40, p.cols = (int64_t)1 << 40;
    expect_fail(t, "size overflow", GP_STATUS_INVALID_SIZE, in, out, &p, &g);
    p = ok, p.rows = INT64_MAX / 2, p.cols = 1;
    expect_fail(t, "byte size overflow", GP_STATUS_INVALID_SIZE, in, out, &p, &g);
    p = ok, p.batch = 3, p.out_batch_stride = 50; /* one output matrix spans 12 x 8 = 96 */
    expect_fail(t, "output matrices overlap", GP_STATUS_INVALID_ARGUMENT, in, out, &p, &g);

    p = shape(4, 8, 8, 0);
    expect_fail(t, "out not aligned to elem_size", GP_STATUS_INVALID_ARGUMENT, in, out + 2, &p, &g);
    expect_fail(t, "in not aligned to elem_size", GP_STATUS_INVALID_ARGUMENT, in + 1, out, &p, &g);
    p = shape(16, 4, 4, 0);
    expect_fail(t, "16-byte elements 8-byte aligned", GP_STATUS_INVALID_ARGUMENT, in + 8, out, &p, &g);

    /* In place and overlap rules, on the poisoned buffer itself. */
    p = ok;
    expect_fail(t, "in place, not square", GP_STATUS_INVALID_ARGUMENT, out, out, &p, &g);
    p = shape(4, 8, 8, 0), p.in_stride = 8, p.out_stride = 9;
    expect_fail(t, "in place, unequal strides", GP_STATUS_INVALID_ARGUMENT, out, out, &p, &g);
    p = shape(4, 8, 8, 0), p.batch = 2, p.in_batch_stride = 64, p.out_batch_stride = 80;
    expect_fail(t, "in place, unequal batch strides", GP_STATUS_INVALID_ARGUMENT, out, out, &p, &g);
    p = shape(4, 8, 8, 0);
    expect_fail(t, "partial overlap", GP_STATUS_INVALID_ARGUMENT, out + 4, out, &p, &g);
    expect_fail(t, "partial overlap, out after in", GP_STATUS_INVALID_ARGUMENT, out, out + 4 * 63, &p, &g);
    p = shape(1, 8, 8, F_NONE | F_RC), p.in_stride = 16, p.out_stride = 16;
    expect_fail(t, "interleaved rows of in and out", GP_STATUS_INVALID_ARGUMENT, out + 8, out, &p, &g);

    /* Empty matrices: OK with NULL pointers, nothing written. */
    static const int64_t empty[][2] = {{0, 0}, {0, 7}, {7, 0}};
    for (size_t i = 0; i < COUNT(empty); i++) {
        p = shape(2, empty[i][0], empty[i][1], 0);
        CHECK(t, gp_transpose_ex(t->ctx, NULL, NULL, &p) == GP_STATUS_OK, "empty %" PRId64 "x%" PRId64 " with NULL",
              p.rows, p.cols);
        p.batch = 4;
        CHECK(t, gp_transpose_ex(t->ctx, in, out, &p) == GP_STATUS_OK, "empty batch");
    }

    /* gp_supports: every dtype with op 0; nothing with an op. */
    for (int dt = GP_DTYPE_I8; dt <= GP_DTYPE_F64; dt++) {
        CHECK(t, gp_supports(t->ctx, GP_PRIM_TRANSPOSE, 0, (gp_dtype)dt, (gp_dtype)dt) == 1,
              "gp_supports(transpose, %s)", gp_dtype_name((gp_dtype)dt));
        CHECK(t, gp_supports(t->ctx, GP_PRIM_TRANSPOSE, GP_OP_SUM, (gp_dtype)dt, (gp_dtype)dt) == 0,
              "gp_supports(transpose, sum)");
    }
    gpt_guarded_free(&g);
    gpt_guarded_free(&gi);
}

int main(int argc, char **argv)
{
    gpt t;
    gpt_init(&t, argc, argv);
    table tb = build_table(t.quick);
    printf("%zu cases\n", tb.n);
    if (t.only_case < 0) test_errors(&t);
    for (size_t i = 0; i < tb.n; i++)
        if (gpt_selected(&t, (long)i)) run_case(&t, (long)i, &tb.c[i]);
    free(tb.c);
    return gpt_finish(&t);
}
