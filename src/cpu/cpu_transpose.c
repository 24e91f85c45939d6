/*
 * CPU transpose and flips (C11 + OpenMP).
 *
 * The flags cost nothing in the transposed case: reversing the output's
 * columns is reading the input's rows in reverse order, and reversing the
 * output's rows is writing them in reverse order, so both become a start
 * pointer at the last row and a negative stride. What is left is one kernel,
 * out[j][i] = in[i][j], run over square tiles that fit in L1 (both the TILE
 * input rows being read and the TILE output rows being written stay cached
 * while a tile is done), tiles shared among threads.
 *
 * In place (the core sends only square transposes and flips): swap the
 * element pairs (i,j)/(j,i) tile pair by tile pair, and swap rows or
 * reverse rows for the flips; every pair is owned by one thread.
 */
#include <omp.h>
#include <stdint.h>
#include <string.h>

#include "cpu_transpose.h"

/* Tuning, 2-core development machine (2026-11-22, shared and noisy): one
 * thread, 4096 x 4096, CPU time: 4.3 GB/s (r+w) for u8, 6.0 u16, 5.8 u32,
 * 7.1 u64, 8.9 for 16-byte elements, against memcpy's 18-30; reading
 * columns straight from the matrix instead of through the local tile gave
 * 0.4 to 7 (power-of-two strides). Element loops bound the rest; SIMD
 * shuffles would be the next step. */
enum {
    GP_CPU_TP_PAR_BYTES = 1 << 18, /* below this, one thread */
    GP_CPU_TP_CHUNK = 1 << 16      /* elements of a long row per work item */
};
/* Tile side in elements: rows of at least one 64-byte line, at most 16 KiB a tile. */
#define GP_CPU_TP_SIDE(E) ((E) == 1 ? 128 : (E) <= 4 ? 64 : 32)
static int64_t tile_of(size_t e) { return GP_CPU_TP_SIDE(e); }

typedef struct gp_cpu_e16 {
    uint64_t lo, hi;
} gp_cpu_e16;

/*
 * 1- and 2-byte elements: moving them one at a time costs a load and a store
 * per byte. Instead 8 x 8 bytes (or 4 x 4 u16) are loaded as eight (four)
 * 64-bit words, transposed inside them by swapping halves, quarters and
 * eighths between word pairs (SWAR), and stored as whole words: about 4x
 * fewer instructions. Little-endian hosts only (byte k of a word must be
 * element k); elsewhere the element loop does everything.
 */
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define GP_CPU_TP_SWAR 1
#else
#define GP_CPU_TP_SWAR 0
#endif

/* Rows a and b exchange the units selected by mask: a's upper unit of each
 * pair (at shift s) with b's lower one. */
#define GP_SWAR_STEP(a, b, s, mask)                \
    do {                                           \
        uint64_t t_ = (((a) >> (s)) ^ (b)) & (mask); \
        (b) ^= t_;                                 \
        (a) ^= t_ << (s);                          \
    } while (0)

/* Transposes the k x k block of elements of w bytes (k * w == 8) at buf
 * (row pitch `pitch` bytes) into out (row pitch os), one word per row. */
static void swar_block(const unsigned char *buf, int64_t pitch, char *out, ptrdiff_t os, int w)
{
    uint64_t r[8];
    int k = 8 / w;
    for (int i = 0; i < k; i++) memcpy(&r[i], buf + i * pitch, 8);
    if (w == 1) {
        for (int i = 0; i < 4; i++) GP_SWAR_STEP(r[i], r[i + 4], 32, 0x00000000FFFFFFFFull);
        for (int i = 0; i < 8; i += (i % 2 ? 3 : 1)) GP_SWAR_STEP(r[i], r[i + 2], 16, 0x0000FFFF0000FFFFull);
        for (int i = 0; i < 8; i += 2) GP_SWAR_STEP(r[i], r[i + 1], 8, 0x00FF00FF00FF00FFull);
    } else {
        for (int i = 0; i < 2; i++) GP_SWAR_STEP(r[i], r[i + 2], 32, 0x00000000FFFFFFFFull);
        for (int i = 0; i < 4; i += 2) GP_SWAR_STEP(r[i], r[i + 1], 16, 0x0000FFFF0000FFFFull);
    }
    for (int i = 0; i < k; i++) memcpy(out + i * os, &r[i], 8);
}

/* One function family per element size; T is only ever copied. */
#define GP_CPU_TP_TYPES(X) X(1, uint8_t) X(2, uint16_t) X(4, uint32_t) X(8, uint64_t) X(16, gp_cpu_e16)

#define GP_CPU_TP_DEF(E, T)                                                                                 \
    /* out[j][i] = in[i][j] for i in [i0, i1), j in [j0, j1) (at most GP_CPU_TP_SIDE(E) each); strides in \
     * bytes, signed. The tile's input rows are first copied into a dense local tile: reading a column     \
     * straight from the matrix touches rows one stride apart, which for power-of-two strides all fall     \
     * into one L1 set and evict each other. */                                                           \
    static void tile_##E(const char *in, ptrdiff_t is, char *out, ptrdiff_t os, int64_t i0, int64_t i1,      \
                         int64_t j0, int64_t j1)                                                             \
    {                                                                                                       \
        T buf[GP_CPU_TP_SIDE(E) * GP_CPU_TP_SIDE(E)];                                                       \
        const int64_t w = j1 - j0, h = i1 - i0, k = E < 8 ? 8 / E : 1;                                               \
        for (int64_t i = 0; i < h; i++) memcpy(buf + i * w, in + (i0 + i) * is + j0 * E, (size_t)w * E);    \
        out += j0 * os + i0 * E;                                                                            \
        int64_t wb = 0, hb = 0; /* the part done in SWAR blocks */                                          \
        if (GP_CPU_TP_SWAR && E <= 2) {                                                                     \
            wb = w / k * k, hb = h / k * k;                                                                 \
            for (int64_t j = 0; j < wb; j += k)                                                             \
                for (int64_t i = 0; i < hb; i += k)                                                         \
                    swar_block((const unsigned char *)(buf + i * w + j), w * E, out + j * os + i * E, os, E); \
        }                                                                                                   \
        for (int64_t j = 0; j < w; j++) {                                                                   \
            T *restrict d = (T *)(out + j * os);                                                            \
            for (int64_t i = j < wb ? hb : 0; i < h; i++) d[i] = buf[i * w + j];                            \
        }                                                                                                   \
    }                                                                                                       \
    static void reverse_copy_##E(const void *src, void *dst, int64_t n)                                    \
    {                                                                                                      \
        const T *s = (const T *)src;                                                                       \
        T *d = (T *)dst;                                                                                   \
        for (int64_t c = 0; c < n; c++) d[c] = s[n - 1 - c];                                               \
    }                                                                                                      \
    /* a[k] <-> b[n-1-k] for k < n (a == b: reverses a in place). */                                       \
    static void swap_reversed_##E(void *pa, void *pb, int64_t n)                                           \
    {                                                                                                      \
        T *a = (T *)pa, *b = (T *)pb;                                                                      \
        int64_t lim = a == b ? n / 2 : n;                                                                  \
        for (int64_t k = 0; k < lim; k++) {                                                                \
            T t = a[k];                                                                                    \
            a[k] = b[n - 1 - k];                                                                           \
            b[n - 1 - k] = t;                                                                              \
        }                                                                                                  \
    }                                                                                                      \
    /* A[i][j] <-> A[j][i] over the tile pair (rows [i0,i1) x cols [j0,j1)) and its mirror; on a diagonal \
     * tile (i0 == j0) only j > i. */                                                                      \
    static void swap_tiles_##E(char *a, ptrdiff_t s, int64_t i0, int64_t i1, int64_t j0, int64_t j1)        \
    {                                                                                                      \
        for (int64_t i = i0; i < i1; i++) {                                                                \
            T *row = (T *)(a + i * s);                                                                     \
            for (int64_t j = (i0 == j0 ? i + 1 : j0); j < j1; j++) {                                       \
                T *m = (T *)(a + j * s) + i;                                                               \
                T t = row[j];                                                                              \
                row[j] = *m;                                                                               \
                *m = t;                                                                                    \
            }                                                                                              \
        }                                                                                                  \
    }
GP_CPU_TP_TYPES(GP_CPU_TP_DEF)

typedef void (*tile_fn)(const char *, ptrdiff_t, char *, ptrdiff_t, int64_t, int64_t, int64_t, int64_t);
typedef void (*reverse_fn)(const void *, void *, int64_t);
typedef void (*swap_reversed_fn)(void *, void *, int64_t);
typedef void (*swap_tiles_fn)(char *, ptrdiff_t, int64_t, int64_t, int64_t, int64_t);

typedef struct elem_ops {
    tile_fn tile;
    reverse_fn reverse_copy;
    swap_reversed_fn swap_reversed;
    swap_tiles_fn swap_tiles;
} elem_ops;

static elem_ops ops_for(size_t e)
{
#define GP_CPU_TP_CASE(E, T) \
    case E: return (elem_ops){tile_##E, reverse_copy_##E, swap_reversed_##E, swap_tiles_##E};
    switch (e) { GP_CPU_TP_TYPES(GP_CPU_TP_CASE) }
#undef GP_CPU_TP_CASE
    return (elem_ops){0};
}

/* a and b (n bytes each, disjoint) trade contents. */
static void swap_bytes(char *a, char *b, size_t n)
{
    char t[256];
    while (n) {
        size_t k = n < sizeof t ? n : sizeof t;
        memcpy(t, a, k);
        memcpy(a, b, k);
        memcpy(b, t, k);
        a += k;
        b += k;
        n -= k;
    }
}

static int threads_for(size_t bytes) { return bytes < GP_CPU_TP_PAR_BYTES ? 1 : omp_get_max_threads(); }

/* ------------------------------------------------------ out of place */

static void transpose_tiled(const gp_transpose_args *a, elem_ops ops)
{
    const gp_transpose_params *p = &a->p;
    size_t e = p->elem_size;
    ptrdiff_t is = (ptrdiff_t)(p->in_stride * (int64_t)e), os = (ptrdiff_t)(p->out_stride * (int64_t)e);
    const char *in = (const char *)a->in;
    char *out = (char *)a->out;
    if (p->flags & GP_TRANSPOSE_REVERSE_COLS) { /* read the input's rows last to first */
        in += (p->rows - 1) * is;
        is = -is;
    }
    if (p->flags & GP_TRANSPOSE_REVERSE_ROWS) { /* write the output's rows last to first */
        out += (a->out_rows - 1) * os;
        os = -os;
    }
    int64_t t = tile_of(e), tr = (p->rows + t - 1) / t, tc = (p->cols + t - 1) / t;
    int64_t items = p->batch * tr * tc;
    ptrdiff_t ibs = (ptrdiff_t)(p->in_batch_stride * (int64_t)e), obs = (ptrdiff_t)(p->out_batch_stride * (int64_t)e);
    int nt = threads_for((size_t)(p->batch * p->rows * p->cols) * e);
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
    for (int64_t k = 0; k < items; k++) {
        int64_t b = k / (tr * tc), rest = k % (tr * tc), i0 = rest / tc * t, j0 = rest % tc * t;
        int64_t i1 = i0 + t < p->rows ? i0 + t : p->rows, j1 = j0 + t < p->cols ? j0 + t : p->cols;
        ops.tile(in + b * ibs, is, out + b * obs, os, i0, i1, j0, j1);
    }
}

/* NONE: a row copy, each row forward or reversed, rows in either order. */
static void copy_rows(const gp_transpose_args *a, elem_ops ops)
{
    const gp_transpose_params *p = &a->p;
    size_t e = p->elem_size;
    bool rev_cols = p->flags & GP_TRANSPOSE_REVERSE_COLS;
    ptrdiff_t is = (ptrdiff_t)(p->in_stride * (int64_t)e), os = (ptrdiff_t)(p->out_stride * (int64_t)e);
    char *out = (char *)a->out;
    if (p->flags & GP_TRANSPOSE_REVERSE_ROWS) {
        out += (p->rows - 1) * os;
        os = -os;
    }
    ptrdiff_t ibs = (ptrdiff_t)(p->in_batch_stride * (int64_t)e), obs = (ptrdiff_t)(p->out_batch_stride * (int64_t)e);
    /* Work items are pieces of rows, so that one long row still uses every thread. */
    int64_t pieces = (p->cols + GP_CPU_TP_CHUNK - 1) / GP_CPU_TP_CHUNK, items = p->batch * p->rows * pieces;
    int nt = threads_for((size_t)(p->batch * p->rows * p->cols) * e);
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
    for (int64_t k = 0; k < items; k++) {
        int64_t row = k / pieces, c0 = k % pieces * GP_CPU_TP_CHUNK;
        int64_t b = row / p->rows, r = row % p->rows;
        int64_t n = p->cols - c0 < GP_CPU_TP_CHUNK ? p->cols - c0 : GP_CPU_TP_CHUNK;
        const char *src = (const char *)a->in + b * ibs + r * is;
        char *dst = out + b * obs + r * os + c0 * (ptrdiff_t)e;
        if (rev_cols) ops.reverse_copy(src + (p->cols - c0 - n) * (ptrdiff_t)e, dst, n);
        else memcpy(dst, src + c0 * (ptrdiff_t)e, (size_t)n * e);
    }
}

/* ------------------------------------------------------------ in place */

/* Square n x n, equal strides: tile pairs (ti, tj >= ti), one thread each. */
static void transpose_in_place(const gp_transpose_args *a, elem_ops ops)
{
    const gp_transpose_params *p = &a->p;
    size_t e = p->elem_size;
    ptrdiff_t s = (ptrdiff_t)(p->in_stride * (int64_t)e), bs = (ptrdiff_t)(p->in_batch_stride * (int64_t)e);
    int64_t n = p->rows, t = tile_of(e), nt_ = (n + t - 1) / t, items = p->batch * nt_;
    int nt = threads_for((size_t)(p->batch * n * n) * e);
    /* Row band ti holds nt_ - ti tiles: dynamic scheduling evens that out. */
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (nt > 1)
    for (int64_t k = 0; k < items; k++) {
        int64_t b = k / nt_, ti = k % nt_;
        char *m = (char *)a->out + b * bs;
        int64_t i0 = ti * t, i1 = i0 + t < n ? i0 + t : n;
        for (int64_t j0 = i0; j0 < n; j0 += t) ops.swap_tiles(m, s, i0, i1, j0, j0 + t < n ? j0 + t : n);
    }
}

/* NONE flips of any shape: row r pairs with row rows-1-r (itself in the middle). */
static void flip_in_place(const gp_transpose_args *a, elem_ops ops)
{
    const gp_transpose_params *p = &a->p;
    size_t e = p->elem_size;
    bool rev_rows = p->flags & GP_TRANSPOSE_REVERSE_ROWS, rev_cols = p->flags & GP_TRANSPOSE_REVERSE_COLS;
    ptrdiff_t s = (ptrdiff_t)(p->in_stride * (int64_t)e), bs = (ptrdiff_t)(p->in_batch_stride * (int64_t)e);
    int64_t half = (p->rows + 1) / 2, items = p->batch * half;
    int nt = threads_for((size_t)(p->batch * p->rows * p->cols) * e);
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
    for (int64_t k = 0; k < items; k++) {
        int64_t b = k / half, r = k % half;
        char *m = (char *)a->out + b * bs;
        char *top = m + r * s, *bottom = m + (p->rows - 1 - r) * s;
        if (top == bottom || !rev_rows) { /* reverse each row by itself */
            if (rev_cols) {
                ops.swap_reversed(top, top, p->cols);
                if (bottom != top) ops.swap_reversed(bottom, bottom, p->cols);
            }
        } else if (rev_cols) {
            ops.swap_reversed(top, bottom, p->cols);
        } else {
            swap_bytes(top, bottom, (size_t)p->cols * e);
        }
    }
}

gp_status gp_cpu_transpose(gp_ctx *ctx, const gp_transpose_args *a)
{
    (void)ctx;
    elem_ops ops = ops_for(a->p.elem_size);
    bool transposed = !(a->p.flags & GP_TRANSPOSE_NONE);
    if (a->in == a->out) {
        if (transposed) transpose_in_place(a, ops);
        else flip_in_place(a, ops);
    } else if (transposed) {
        transpose_tiled(a, ops);
    } else {
        copy_rows(a, ops);
    }
    return GP_STATUS_OK;
}
