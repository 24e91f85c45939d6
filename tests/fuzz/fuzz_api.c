/*
 * The api target: the library's calls with arguments drawn from the input,
 * valid or not. Its first bytes choose the call, dtypes, op, comparison, n,
 * which pointers are NULL, misaligned or overlapping, and the data's kind
 * (or a transpose's shape, strides, batches and flags);
 * the data comes from a generator seeded by the whole input. Every call
 * must keep gpuprim.h's contract:
 *  - a status from the table: OK exactly when every argument is valid, else
 *    one of the statuses the invalid arguments call for. A model written
 *    from the header (call_model) lists them: any one of them will do when
 *    several arguments are wrong, and a few rules the header leaves open
 *    (a misaligned pointer with n == 0) may go either way;
 *  - a refused call writes nothing: outputs, counts and host results keep
 *    their poison, and no guard band changes;
 *  - inputs are only read (but an in-place scan's);
 *  - an accepted call gives the serial reference's answer bit for bit (a
 *    float sum or product only where the data makes it exact), and a
 *    selection leaves out[count..n) as it was (a partition_copy also
 *    out_rejected[n - count..n));
 *  - with a caller's workspace (gp_ctx_set_workspace) of the size the
 *    call's *_workspace_size query gives, or more, the call runs; with less
 *    it returns WORKSPACE_TOO_SMALL and writes nothing, the workspace
 *    included past its end.
 * Each buffer is allocated for the call, in the context's space, between
 * guard bands. The context is the CPU backend's unless gpf_api_backend
 * chose another before the first input.
 */
#include "fuzz_targets.h"

#include "cpu_reference.h"
#include "harness.h"
#include "reduce_data.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    MAX_N = 20000,    /* several CUDA tiles of every item size */
    MAX_BINS = 4096,  /* valid bins drawn; the limit itself (2^20) is only passed plus one */
};

typedef enum call_kind {
    C_REDUCE, C_REDUCE_TO_HOST, C_SCAN_INCLUSIVE, C_SCAN_EXCLUSIVE, C_SELECT_FLAGGED, C_SELECT_IF,
    C_PARTITION_FLAGGED, C_PARTITION_IF, C_FILTER, C_COUNT_IF, C_HISTOGRAM_EVEN, C_HISTOGRAM_EDGES, C_TRANSPOSE,
    C_PARTITION_COPY_FLAGGED, C_PARTITION_COPY_IF, /* last: an input's first byte keeps the kind it named */
    C_KINDS
} call_kind;

static const char *const call_names[C_KINDS] = {
    "gp_reduce", "gp_reduce_to_host", "gp_scan_inclusive", "gp_scan_exclusive", "gp_select_flagged",
    "gp_select_if", "gp_partition_flagged", "gp_partition_if", "gp_filter_running_max", "gp_count_if",
    "gp_histogram_even", "gp_histogram_edges", "gp_transpose_ex", "gp_partition_copy_flagged",
    "gp_partition_copy_if"};

/* The partition_copy calls: a second output, out_rejected. */
static bool is_copy(call_kind k) { return k == C_PARTITION_COPY_FLAGGED || k == C_PARTITION_COPY_IF; }
static bool is_flagged(call_kind k)
{
    return k == C_SELECT_FLAGGED || k == C_PARTITION_FLAGGED || k == C_PARTITION_COPY_FLAGGED;
}

/* The buffers a call may point into; a role's place is one of them plus an
 * offset, or NULL. */
typedef enum buf_id { B_IN, B_OUT, B_AUX, B_COUNT, B_REJ, BUFS } buf_id;
static const char *const buf_names[BUFS] = {"input", "output", "flags or edges", "count", "rejected output"};

typedef struct place {
    int buf; /* a buf_id, or -1 for NULL */
    size_t off;
} place;

typedef struct api_call {
    call_kind kind;
    gp_dtype t, out_t;
    gp_op op;
    gp_cmp cmp;
    int64_t n, bins;
    unsigned flags; /* the filter's or the histogram's flags word */
    double lower, upper;
    place in, out, aux, count; /* aux: the flags or the edges; out: the hist */
    place rej;                 /* a partition_copy's out_rejected (out: its out_selected); else NULL */
    bool value_given, init_given, host_count_given, host_out_given;
    bool value_from_data; /* the comparison's value is one of the input's elements */
    size_t host_out_skew; /* host_out 0 or 1 byte past an aligned address */
    unsigned char value[8], init[8];
    int data_kind;
    unsigned density; /* of the flags set, out of 256 */
    int workspace;    /* a caller's workspace: W_NONE, or its size against the query's */
    gp_transpose_params tp; /* C_TRANSPOSE's; in and out are its matrices */
    int in_place;           /* C_TRANSPOSE: 1 out = in, 2 out a few elements into in */
    bool dense;             /* C_TRANSPOSE through gp_transpose: no strides, batches or flags */
} api_call;

enum { W_NONE, W_EXACT, W_SHORT, W_HALF, W_EMPTY, W_MORE };

/* What the model allows: `hard` statuses, one of which a call with an
 * invalid argument must return; `soft` ones it may return either way. */
typedef struct verdict {
    gp_status hard[12], soft[12];
    int nh, ns;
} verdict;

static gp_backend backend = GP_BACKEND_CPU;
static gp_ctx *ctx;

void gpf_api_backend(gp_backend b) { backend = b; }

/* ------------------------------------------------------------- the input */

typedef struct reader {
    const uint8_t *p;
    size_t n, at;
} reader;

static unsigned byte(reader *r) { return r->at < r->n ? r->p[r->at++] : 0; }

static uint64_t fnv1a(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static gp_dtype draw_dtype(unsigned b)
{
    static const int odd[] = {0, 11, 12, -1, 1000, 0x7fffffff};
    return (gp_dtype)(b >= 0xf0 ? odd[b % 6] : 1 + (int)(b % 10));
}

/* n: mostly small, often up to MAX_N, sometimes negative or above
 * GP_MAX_ELEMENTS (each must be refused: no buffer of that size exists). */
static int64_t draw_n(unsigned lo, unsigned hi)
{
    static const int64_t odd[] = {-1, INT64_MIN, GP_MAX_ELEMENTS + 1, INT64_MAX, ((int64_t)1 << 62) + 3, -4096};
    const unsigned v = lo | hi << 8;
    if (hi >= 0xf8) return odd[lo % 6];
    if (hi & 0x80) return (int64_t)(v % (MAX_N + 1));
    return (int64_t)(v % 80);
}

static bool n_valid(int64_t n) { return n >= 0 && n <= MAX_N; }

/* --------------------------------------------------------------- values */

/* Dtype kinds and the widening and op rules: the tests' own view of them
 * (reduce_data.h), not the library's tables. */
static bool is_unsigned(gp_dtype t) { return gpt_size(t) && !gpt_is_signed(t) && !gpt_is_float(t); }

/* Stores integer v, or float f for float dtypes, as t. */
static void put(void *p, gp_dtype t, int64_t v, double f)
{
    switch (t) {
    case GP_DTYPE_I8: { int8_t x = (int8_t)v; memcpy(p, &x, 1); break; }
    case GP_DTYPE_U8: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
    case GP_DTYPE_I16: { int16_t x = (int16_t)v; memcpy(p, &x, 2); break; }
    case GP_DTYPE_U16: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
    case GP_DTYPE_I32: { int32_t x = (int32_t)v; memcpy(p, &x, 4); break; }
    case GP_DTYPE_U32: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
    case GP_DTYPE_I64: memcpy(p, &v, 8); break;
    case GP_DTYPE_U64: { uint64_t x = (uint64_t)v; memcpy(p, &x, 8); break; }
    case GP_DTYPE_F32: { float x = (float)f; memcpy(p, &x, 4); break; }
    case GP_DTYPE_F64: memcpy(p, &f, 8); break;
    }
}

/* A value as t reads it, for sorting (NaN first, so sorted data ascends
 * past it). */
static double as_double(const void *p, gp_dtype t)
{
    switch (t) {
    case GP_DTYPE_I8: { int8_t x; memcpy(&x, p, 1); return x; }
    case GP_DTYPE_U8: { uint8_t x; memcpy(&x, p, 1); return x; }
    case GP_DTYPE_I16: { int16_t x; memcpy(&x, p, 2); return x; }
    case GP_DTYPE_U16: { uint16_t x; memcpy(&x, p, 2); return x; }
    case GP_DTYPE_I32: { int32_t x; memcpy(&x, p, 4); return x; }
    case GP_DTYPE_U32: { uint32_t x; memcpy(&x, p, 4); return x; }
    case GP_DTYPE_I64: { int64_t x; memcpy(&x, p, 8); return (double)x; }
    case GP_DTYPE_U64: { uint64_t x; memcpy(&x, p, 8); return (double)x; }
    case GP_DTYPE_F32: { float x; memcpy(&x, p, 4); return isnan(x) ? -INFINITY : x; }
    case GP_DTYPE_F64: { double x; memcpy(&x, p, 8); return isnan(x) ? -INFINITY : x; }
    }
    return 0;
}

enum { D_BITS, D_SMALL, D_SORTED, D_SPECIAL, D_POWERS, D_MOSTLY_SORTED, D_KINDS };

/* One element of kind k: random bits; small integers (-8..8); the dtype's
 * specials (limits, zeros, infinities, NaN); or +-1, 2, 4 (exact products). */
static void draw_value(void *p, gp_dtype t, int k, gpt_rng *r)
{
    const uint64_t x = gpt_next(r);
    const size_t sz = gp_dtype_size(t);
    if (k == D_BITS) {
        memcpy(p, &x, sz);
    } else if (k == D_SPECIAL) {
        static const double fs[] = {NAN, INFINITY, -INFINITY, -0.0, 0.0, 1.0, -1.0, DBL_MAX, 4.9e-324, 1e-40};
        static const int64_t is[] = {0, 1, -1, INT64_MAX, INT64_MIN, 127, -128, 255, 65535, 0x7fffffff};
        const int i = (int)(x % 10);
        put(p, t, is[i], t == GP_DTYPE_F32 && i == 7 ? FLT_MAX : fs[i]);
    } else if (k == D_POWERS) {
        const int64_t v = ((int64_t)1 << (x % 3)) * (is_unsigned(t) || (x >> 8) % 2 ? 1 : -1);
        put(p, t, v, (double)v);
    } else {
        const int64_t v = is_unsigned(t) ? (int64_t)(x % 17) : (int64_t)(x % 17) - 8;
        put(p, t, v, (double)v);
    }
}

static gp_dtype sort_t;
static int by_value(const void *a, const void *b)
{
    const double x = as_double(a, sort_t), y = as_double(b, sort_t);
    return (x > y) - (x < y);
}

static void draw_data(unsigned char *p, gp_dtype t, int64_t n, int k, gpt_rng *r)
{
    const size_t sz = gp_dtype_size(t);
    const int each = k == D_SORTED || k == D_MOSTLY_SORTED ? D_SMALL : k;
    for (int64_t i = 0; i < n; i++) draw_value(p + (size_t)i * sz, t, each, r);
    if (k == D_SORTED || k == D_MOSTLY_SORTED) {
        sort_t = t;
        qsort(p, (size_t)n, sz, by_value);
    }
    if (k == D_MOSTLY_SORTED)
        for (int64_t i = 0; i < n / 20; i++) draw_value(p + gpt_below(r, (uint64_t)n) * sz, t, D_BITS, r);
}

/* ----------------------------------------------------------------- model */

static void hard(verdict *v, gp_status s) { v->hard[v->nh++] = s; }
static void soft(verdict *v, gp_status s) { v->soft[v->ns++] = s; }

static bool listed(const gp_status *list, int count, gp_status s)
{
    for (int i = 0; i < count; i++)
        if (list[i] == s) return true;
    return false;
}

static bool dtype_valid(gp_dtype t) { return t >= GP_DTYPE_I8 && t <= GP_DTYPE_F64; }
static bool op_valid(gp_op op) { return op >= GP_OP_SUM && op <= GP_OP_XOR; }
static bool cmp_valid(gp_cmp c) { return c >= GP_CMP_LT && c <= GP_CMP_NE; }

static bool overlaps(place a, size_t abytes, place b, size_t bbytes)
{
    return a.buf >= 0 && a.buf == b.buf && abytes && bbytes && a.off < b.off + bbytes && b.off < a.off + abytes;
}

static bool misaligned(place p, size_t align) { return p.buf >= 0 && align && p.off % align; }

static bool edges_ascend(const unsigned char *e, gp_dtype t, int64_t bins)
{
    const size_t sz = gp_dtype_size(t);
    for (int64_t i = 0; i < bins; i++) {
        const unsigned char *a = e + (size_t)i * sz, *b = a + sz;
        bool lt;
        switch (t) {
#define LT(DT, T) case DT: { T x, y; memcpy(&x, a, sizeof x); memcpy(&y, b, sizeof y); lt = x < y; break; }
            LT(GP_DTYPE_I8, int8_t) LT(GP_DTYPE_U8, uint8_t) LT(GP_DTYPE_I16, int16_t) LT(GP_DTYPE_U16, uint16_t)
            LT(GP_DTYPE_I32, int32_t) LT(GP_DTYPE_U32, uint32_t) LT(GP_DTYPE_I64, int64_t)
            LT(GP_DTYPE_U64, uint64_t) LT(GP_DTYPE_F32, float) LT(GP_DTYPE_F64, double)
#undef LT
        default: return false;
        }
        if (!lt) return false;
    }
    return true;
}

static gp_primitive primitive_of(call_kind k)
{
    switch (k) {
    case C_REDUCE: case C_REDUCE_TO_HOST: return GP_PRIM_REDUCE;
    case C_SCAN_INCLUSIVE: case C_SCAN_EXCLUSIVE: return GP_PRIM_SCAN;
    case C_SELECT_FLAGGED: case C_SELECT_IF: return GP_PRIM_SELECT;
    case C_PARTITION_FLAGGED: case C_PARTITION_IF:
    case C_PARTITION_COPY_FLAGGED: case C_PARTITION_COPY_IF: return GP_PRIM_PARTITION;
    case C_FILTER: return GP_PRIM_FILTER;
    case C_COUNT_IF: return GP_PRIM_COUNT;
    default: return GP_PRIM_HISTOGRAM;
    }
}

/* The statuses gpuprim.h lets this call return (`edges`: the edges' bytes
 * as the call will find them, for gp_histogram_edges). */
static verdict call_model(const api_call *c, const unsigned char *edges)
{
    verdict v = {.nh = 0};
    const call_kind k = c->kind;
    const bool reduce = k == C_REDUCE || k == C_REDUCE_TO_HOST, scan = k == C_SCAN_INCLUSIVE || k == C_SCAN_EXCLUSIVE;
    const bool by_flags = is_flagged(k), copy = is_copy(k);
    const bool by_cmp = k == C_SELECT_IF || k == C_PARTITION_IF || k == C_COUNT_IF || k == C_PARTITION_COPY_IF;
    const bool selection = (k >= C_SELECT_FLAGGED && k <= C_FILTER) || copy;
    const bool histogram = k == C_HISTOGRAM_EVEN || k == C_HISTOGRAM_EDGES;
    const bool dtypes_ok = dtype_valid(c->t) && (!(reduce || scan) || dtype_valid(c->out_t));
    const size_t isz = gp_dtype_size(c->t), osz = reduce || scan ? gp_dtype_size(c->out_t) : isz;
    const int64_t n = c->n;

    /* Sizes, pointers, names. */
    if (!n_valid(n)) hard(&v, GP_STATUS_INVALID_SIZE);
    if (c->in.buf < 0 && n > 0) hard(&v, GP_STATUS_NULL_POINTER);
    if (k == C_REDUCE && c->out.buf < 0) hard(&v, GP_STATUS_NULL_POINTER);
    if (k == C_REDUCE_TO_HOST && !c->host_out_given) hard(&v, GP_STATUS_NULL_POINTER);
    if ((scan || selection) && c->out.buf < 0 && n > 0) hard(&v, GP_STATUS_NULL_POINTER);
    if (copy && c->rej.buf < 0 && n > 0) hard(&v, GP_STATUS_NULL_POINTER);
    if (histogram && c->out.buf < 0) hard(&v, GP_STATUS_NULL_POINTER);
    if (by_flags && c->aux.buf < 0 && n > 0) hard(&v, GP_STATUS_NULL_POINTER);
    if (k == C_HISTOGRAM_EDGES && c->aux.buf < 0) hard(&v, GP_STATUS_NULL_POINTER);
    if (by_cmp && !c->value_given) hard(&v, GP_STATUS_NULL_POINTER);
    if ((selection || k == C_COUNT_IF) && c->count.buf < 0 && !c->host_count_given) hard(&v, GP_STATUS_NULL_POINTER);
    if (!dtypes_ok) hard(&v, GP_STATUS_INVALID_DTYPE);
    if ((reduce || scan) && !op_valid(c->op)) hard(&v, GP_STATUS_INVALID_OP);
    if (by_cmp && !cmp_valid(c->cmp)) hard(&v, GP_STATUS_INVALID_ARGUMENT);
    if ((k == C_FILTER && c->flags & ~1u) || (histogram && c->flags & ~1u)) hard(&v, GP_STATUS_INVALID_ARGUMENT);
    if (histogram && (c->bins < 1 || c->bins > (1 << 20))) hard(&v, GP_STATUS_INVALID_SIZE);
    if (k == C_HISTOGRAM_EVEN && !(c->lower < c->upper && isfinite(c->upper - c->lower)))
        hard(&v, GP_STATUS_INVALID_ARGUMENT);

    /* Support: the header's rules, then what the backend says it has. */
    if (dtypes_ok && (!(reduce || scan) || op_valid(c->op))) {
        bool defined = true;
        if ((reduce || scan) && !gpt_op_defined(c->op, c->t)) {
            hard(&v, GP_STATUS_UNSUPPORTED_OP);
            defined = false;
        }
        if ((reduce || scan) && !gpt_widening_ok(c->t, c->out_t)) {
            hard(&v, GP_STATUS_UNSUPPORTED_DTYPE);
            defined = false;
        }
        const gp_op op = reduce || scan ? c->op : (gp_op)0;
        const int says = gp_supports(ctx, primitive_of(k), op, c->t, reduce || scan ? c->out_t : c->t);
        if (!defined && says)
            gpf_violation("api: gp_supports says yes to %s of %s into %s by op %d, which gpuprim.h refuses",
                          call_names[k], gp_dtype_name(c->t), gp_dtype_name(c->out_t), (int)c->op);
        if (defined && !says) hard(&v, GP_STATUS_UNSUPPORTED_DTYPE);
    }

    /* Alignment and overlaps need the element sizes and a real n. */
    if (!dtypes_ok || !n_valid(n)) return v;
    const gp_status bad = GP_STATUS_INVALID_ARGUMENT;
    const size_t in_bytes = (size_t)n * isz, out_bytes = (size_t)n * osz, flag_bytes = (size_t)n;
    const size_t hist_bytes = c->bins >= 1 && c->bins <= MAX_BINS ? (size_t)c->bins * 8 : 0;
    /* A misaligned pointer that is never read (n == 0) may pass. */
    if (misaligned(c->in, isz)) (n > 0 ? hard : soft)(&v, bad);
    if (!histogram && k != C_COUNT_IF && k != C_REDUCE_TO_HOST && misaligned(c->out, osz))
        (n > 0 || reduce ? hard : soft)(&v, bad);
    if (misaligned(c->count, 8) && (selection || k == C_COUNT_IF)) hard(&v, bad);
    if (histogram && misaligned(c->out, 8)) hard(&v, bad);
    if (scan && overlaps(c->in, in_bytes, c->out, out_bytes) && !(c->in.off == c->out.off && c->t == c->out_t))
        hard(&v, bad);
    if (selection) {
        if (overlaps(c->out, out_bytes, c->in, in_bytes) || (by_flags && overlaps(c->out, out_bytes, c->aux, flag_bytes)))
            hard(&v, bad);
        if (overlaps(c->count, 8, c->in, in_bytes) || overlaps(c->count, 8, c->out, out_bytes) ||
            (by_flags && overlaps(c->count, 8, c->aux, flag_bytes)))
            hard(&v, bad);
    }
    /* out_rejected: as out, and apart from out too (each taken as n elements). */
    if (copy) {
        if (misaligned(c->rej, isz)) (n > 0 ? hard : soft)(&v, bad);
        if (overlaps(c->rej, in_bytes, c->in, in_bytes) || overlaps(c->rej, in_bytes, c->out, out_bytes) ||
            (by_flags && overlaps(c->rej, in_bytes, c->aux, flag_bytes)) || overlaps(c->count, 8, c->rej, in_bytes))
            hard(&v, bad);
    }
    if (k == C_COUNT_IF && overlaps(c->count, 8, c->in, in_bytes)) hard(&v, bad);
    if (histogram && overlaps(c->out, hist_bytes, c->in, in_bytes)) hard(&v, bad);
    if (k == C_HISTOGRAM_EDGES && hist_bytes) {
        const size_t edge_bytes = (size_t)(c->bins + 1) * isz;
        if (misaligned(c->aux, isz)) hard(&v, bad);
        else if (c->aux.buf >= 0 && !edges_ascend(edges, c->t, c->bins)) hard(&v, bad);
        if (overlaps(c->out, hist_bytes, c->aux, edge_bytes)) hard(&v, bad);
    }
    return v;
}

/* gp_transpose_ex's rules, from gpuprim.h (its parameters are small here:
 * no span overflows). */
static bool elem_size_valid(size_t e) { return e == 1 || e == 2 || e == 4 || e == 8 || e == 16; }

static int64_t or_default(int64_t v, int64_t d) { return v ? v : d; }

/* The resolved layout: strides, batch and batch strides with the defaults
 * filled in, and the spans (elements from the first to one past the last). */
typedef struct tlayout {
    int64_t out_rows, out_cols, is, os, batch, ibs, obs, in_span, out_span;
    bool transposed;
} tlayout;

static tlayout resolve(const gp_transpose_params *q)
{
    tlayout l;
    l.transposed = !(q->flags & GP_TRANSPOSE_NONE);
    l.out_rows = l.transposed ? q->cols : q->rows;
    l.out_cols = l.transposed ? q->rows : q->cols;
    l.is = or_default(q->in_stride, q->cols);
    l.os = or_default(q->out_stride, l.out_cols);
    l.batch = or_default(q->batch, 1);
    l.ibs = or_default(q->in_batch_stride, q->rows * l.is);
    l.obs = or_default(q->out_batch_stride, l.out_rows * l.os);
    const bool empty = q->rows <= 0 || q->cols <= 0;
    l.in_span = empty ? 0 : (l.batch - 1) * l.ibs + (q->rows - 1) * l.is + q->cols;
    l.out_span = empty ? 0 : (l.batch - 1) * l.obs + (l.out_rows - 1) * l.os + l.out_cols;
    return l;
}

static verdict transpose_model(const api_call *c)
{
    verdict v = {.nh = 0};
    const gp_transpose_params *q = &c->tp;
    if (!c->value_given && !c->dense) { /* p itself NULL */
        hard(&v, GP_STATUS_NULL_POINTER);
        return v;
    }
    const gp_status bad = GP_STATUS_INVALID_ARGUMENT;
    const bool e_ok = elem_size_valid(q->elem_size);
    if (!e_ok) hard(&v, bad);
    if (q->flags & ~7u) hard(&v, bad);
    if (q->rows < 0 || q->cols < 0 || q->batch < 0 || q->in_stride < 0 || q->out_stride < 0 ||
        q->in_batch_stride < 0 || q->out_batch_stride < 0) {
        hard(&v, GP_STATUS_INVALID_SIZE);
        return v;
    }
    const tlayout l = resolve(q);
    if (l.is < q->cols || l.os < l.out_cols) hard(&v, bad);
    if (q->rows == 0 || q->cols == 0) return v; /* nothing moves: in and out may be anything */
    if (l.batch > 1) {
        const int64_t one = (l.out_rows - 1) * l.os + l.out_cols;
        const bool stacked = l.obs >= one;
        const bool interleaved = l.obs >= l.out_cols && (l.out_rows == 1 || l.os >= (l.batch - 1) * l.obs + l.out_cols);
        if (!stacked && !interleaved) hard(&v, bad);
    }
    if (c->in.buf < 0 || c->out.buf < 0) hard(&v, GP_STATUS_NULL_POINTER);
    if (!e_ok) return v;
    if (misaligned(c->in, q->elem_size) || misaligned(c->out, q->elem_size)) hard(&v, bad);
    if (c->in.buf >= 0 && c->in.buf == c->out.buf) {
        const size_t e = q->elem_size;
        if (c->in.off == c->out.off) {
            if ((l.transposed && q->rows != q->cols) || l.is != l.os || l.ibs != l.obs) hard(&v, bad);
        } else if (overlaps(c->in, (size_t)l.in_span * e, c->out, (size_t)l.out_span * e)) {
            hard(&v, bad);
        }
    }
    if (e_ok && q->elem_size < 16) {
        static const gp_dtype of_size[9] = {
            [1] = GP_DTYPE_U8, [2] = GP_DTYPE_U16, [4] = GP_DTYPE_U32, [8] = GP_DTYPE_U64};
        const gp_dtype t = of_size[q->elem_size];
        if (!gp_supports(ctx, GP_PRIM_TRANSPOSE, (gp_op)0, t, t)) hard(&v, GP_STATUS_UNSUPPORTED_DTYPE);
    }
    return v;
}

/* ------------------------------------------------------------- the call */

typedef struct buffers {
    gpt_guarded dev[BUFS];
    unsigned char *before[BUFS], *expect[BUFS], *got[BUFS];
    size_t bytes[BUFS];
} buffers;

static void *at(buffers *b, place p) { return p.buf < 0 ? NULL : b->dev[p.buf].ptr + p.off; }
static unsigned char *expect_at(buffers *b, place p) { return b->expect[p.buf] + p.off; }
static unsigned char *before_at(buffers *b, place p) { return b->before[p.buf] + p.off; }

static void need(size_t *bytes, place p, size_t extent)
{
    if (p.buf >= 0 && p.off + extent > bytes[p.buf]) bytes[p.buf] = p.off + extent;
}

/* A role's place: 0 its own buffer at an element-aligned offset, 1 NULL, 2
 * misaligned by `skew` bytes, 3 inside `alias` (where the call allows or
 * forbids an overlap) at `alias_off`. */
static place choose(unsigned mode, int own, size_t off, size_t skew, int alias, size_t alias_off)
{
    switch (mode % 4) {
    case 1: return (place){-1, 0};
    case 2: return (place){own, off + skew};
    case 3: return alias >= 0 ? (place){alias, alias_off} : (place){own, off};
    default: return (place){own, off};
    }
}

static const unsigned char poison = 0xA5;

static void describe(const api_call *c, char *s, size_t size)
{
    const gp_transpose_params *q = &c->tp;
    if (c->kind == C_TRANSPOSE) {
        snprintf(s, size,
                 "%s(elem %zu, %lld x %lld, strides %lld/%lld, batch %lld by %lld/%lld, flags %u, in %d+%zu, "
                 "out %d+%zu, p %d)",
                 c->dense ? "gp_transpose" : "gp_transpose_ex", q->elem_size, (long long)q->rows, (long long)q->cols, (long long)q->in_stride,
                 (long long)q->out_stride, (long long)q->batch, (long long)q->in_batch_stride,
                 (long long)q->out_batch_stride, q->flags, c->in.buf, c->in.off, c->out.buf, c->out.off,
                 c->value_given);
        return;
    }
    char rej[48] = "";
    if (is_copy(c->kind)) snprintf(rej, sizeof rej, ", rejected %d+%zu", c->rej.buf, c->rej.off);
    snprintf(s, size,
             "%s(t %d, out_t %d, op %d, cmp %d, n %lld, bins %lld, flags %u, [%g, %g), in %d+%zu, out %d+%zu%s, "
             "aux %d+%zu, count %d+%zu, value %d, init %d, host_count %d, host_out %d+%zu, data %d, workspace %d)",
             call_names[c->kind], (int)c->t, (int)c->out_t, (int)c->op, (int)c->cmp, (long long)c->n,
             (long long)c->bins, c->flags, c->lower, c->upper, c->in.buf, c->in.off, c->out.buf, c->out.off, rej,
             c->aux.buf, c->aux.off, c->count.buf, c->count.off, c->value_given, c->init_given, c->host_count_given,
             c->host_out_given, c->host_out_skew, c->data_kind, c->workspace);
}

/* The transpose's parameters: small shapes, strides at the width or past
 * it (or below: refused), batches of up to 3 stacked, interleaved or
 * overlapping, flags valid or not; now and then a negative one. */
static void decode_transpose(api_call *c, reader *r)
{
    gp_transpose_params *q = &c->tp;
    static const size_t sizes[] = {1, 2, 4, 8, 16, 4, 8, 1, 2, 16, 3, 0, 32, 4, 8, 1};
    q->elem_size = sizes[byte(r) % 16];
    q->rows = (int64_t)(byte(r) % 40);
    q->cols = (int64_t)(byte(r) % 40);
    const unsigned st = byte(r), bt = byte(r), fl = byte(r), neg = byte(r), where = byte(r);
    q->flags = fl % 16 == 15 ? 8u << (fl >> 6) : fl % 8;
    const tlayout d = resolve(q); /* the defaults, to place strides around */
    static const int64_t step[] = {0, 0, 1, 3, -1};
    const int64_t is = st % 5 ? d.is + step[st % 5] : 0, os = (st / 5) % 5 ? d.os + step[(st / 5) % 5] : 0;
    q->in_stride = is < 0 ? 0 : is;
    q->out_stride = os < 0 ? 0 : os;
    if (st >= 200) q->out_stride = q->in_stride ? q->in_stride : d.is; /* equal strides: in place may run */
    q->batch = (int64_t)(bt % 4);
    const tlayout l = resolve(q);
    /* Batch strides: the default, one matrix further, rows interleaved
     * (a matrix's width), too close (overlapping outputs), or the input's
     * (as in place needs). */
    const int64_t ibs[] = {0, l.in_span + 2, q->cols, 1};
    q->in_batch_stride = ibs[(bt >> 2) % 4];
    const int64_t obs[] = {0, l.out_span + 1, l.out_cols, l.out_cols > 1 ? l.out_cols - 1 : 1, resolve(q).ibs};
    q->out_batch_stride = obs[(bt >> 4) % 8 % 5];
    if ((bt >> 4) % 8 == 2 && l.batch > 1) q->out_stride = (l.batch - 1) * l.out_cols + l.out_cols + (bt >> 7);
    /* In place, mostly with the equal strides and batch strides it needs, so
     * that the shape and the flags decide. */
    c->in_place = where % 4 == 1 ? 1 : where % 4 == 2 ? 2 : 0;
    if (c->in_place == 1 && (where >> 2) % 4 != 0) {
        const tlayout e = resolve(q);
        q->out_stride = e.is;
        q->out_batch_stride = e.ibs;
    }
    /* A quarter through gp_transpose, the dense form: its parameters are
     * gp_transpose_ex's defaults. */
    c->dense = (where >> 4) % 4 == 0;
    if (c->dense) {
        const int64_t rows = q->rows, cols = q->cols;
        const size_t e = q->elem_size;
        memset(q, 0, sizeof *q);
        q->elem_size = e, q->rows = rows, q->cols = cols;
    }
    switch (c->dense ? neg % 32 % 3 : neg % 32) {
    case 1: q->rows = -1; break;
    case 2: q->cols = -(int64_t)(neg >> 5) - 1; break;
    case 3: q->batch = -1; break;
    case 4: q->in_stride = -2; break;
    case 5: q->out_batch_stride = -1; break;
    default: break;
    }
    c->t = GP_DTYPE_U8; /* unused; keeps the generic places' sizes defined */
    c->out_t = GP_DTYPE_U8;
}

static void decode(api_call *c, const uint8_t *data, size_t size, gpt_rng *rng)
{
    reader r = {data, size, 0};
    memset(c, 0, sizeof *c);
    c->kind = (call_kind)(byte(&r) % C_KINDS);
    c->t = draw_dtype(byte(&r));
    const unsigned ob = byte(&r);
    c->out_t = ob < 0x80 ? c->t : draw_dtype(ob);
    const unsigned opb = byte(&r);
    c->op = (gp_op)(opb >= 0xfe ? (opb == 0xfe ? -1 : 100) : (int)(opb % 9));
    c->cmp = (gp_cmp)(byte(&r) % 8);
    const unsigned nlo = byte(&r);
    c->n = draw_n(nlo, byte(&r));
    const unsigned modes = byte(&r), modes2 = byte(&r), offsets = byte(&r);
    c->data_kind = (int)(byte(&r) % D_KINDS);
    c->density = byte(&r);
    const unsigned blo = byte(&r), bhi = byte(&r), range = byte(&r), given = byte(&r);
    const unsigned flag_bits = byte(&r);
    const unsigned ws = byte(&r) % 12;
    c->workspace = ws <= W_MORE && c->kind != C_TRANSPOSE ? (int)ws : W_NONE;
    if (c->kind == C_TRANSPOSE) decode_transpose(c, &r);
    /* A partition_copy's out_rejected: one byte where a transpose's parameters are. */
    const unsigned rej_modes = is_copy(c->kind) ? byte(&r) : 0;

    static const unsigned odd_flags[] = {0, 1, 2, 0x80000000u};
    c->flags = flag_bits % 4 == 3 ? odd_flags[(flag_bits >> 2) % 4] : flag_bits % 2;
    static const int64_t odd_bins[] = {0, -1, (1 << 20) + 1, INT64_MAX, INT64_MIN};
    c->bins = bhi >= 0xf0 ? odd_bins[blo % 5] : 1 + (int64_t)((blo | bhi << 8) % MAX_BINS);
    if (c->kind == C_HISTOGRAM_EDGES && bhi < 0xf0 && c->bins > 300) c->bins = 1 + c->bins % 300;

    const size_t tsz = c->kind == C_TRANSPOSE && elem_size_valid(c->tp.elem_size) ? c->tp.elem_size : 0;
    const size_t isz = tsz ? tsz : gp_dtype_size(c->t) ? gp_dtype_size(c->t) : 4;
    const bool hist = c->kind == C_HISTOGRAM_EVEN || c->kind == C_HISTOGRAM_EDGES;
    /* out's elements: out_t's for reduce and scan, 8-byte counts for a
     * histogram, else the input's. */
    const size_t osz = hist                           ? 8
                       : c->kind > C_SCAN_EXCLUSIVE   ? isz
                       : gp_dtype_size(c->out_t)      ? gp_dtype_size(c->out_t)
                                                      : 4;
    const size_t in_off = (offsets % 4) * isz, out_off = ((offsets >> 2) % 4) * osz;
    const size_t aux_off = ((offsets >> 4) % 4) * (c->kind == C_HISTOGRAM_EDGES ? isz : 1);
    const size_t count_off = ((offsets >> 6) % 2) * 8;
    const int64_t nn = n_valid(c->n) ? c->n : 0;
    /* out inside in: at its start (an in-place scan), one element on, or
     * past in's end; hist inside in likewise. */
    const size_t alias_out = (modes2 % 4 == 0 ? 0 : modes2 % 4 == 1 ? isz : (size_t)nn * isz) + in_off;
    c->in = choose(modes, B_IN, in_off, isz >= 2 ? isz / 2 : 1, -1, 0);
    c->out = choose(modes >> 2, B_OUT, out_off, hist ? 4 : isz >= 2 ? isz / 2 : 1, c->kind == C_REDUCE ? -1 : B_IN,
                    alias_out);
    if (c->kind == C_TRANSPOSE && c->in_place && c->in.buf >= 0)
        c->out = (place){c->in.buf, c->in.off + (c->in_place == 2 ? isz * (1 + modes2 % 3) : 0)};
    /* flags inside in (allowed: both are read) or inside out (refused). */
    c->aux = choose(modes >> 4, B_AUX, aux_off, c->kind == C_HISTOGRAM_EDGES ? 1 : 0, (modes2 >> 2) % 2 ? B_OUT : B_IN,
                    (modes2 >> 2) % 2 ? out_off : in_off);
    /* count inside in, out or the flags (refused where they hold bytes). */
    static const int count_alias[] = {B_IN, B_OUT, B_AUX, B_IN};
    c->count = choose(modes >> 6, B_COUNT, count_off, 4, count_alias[(modes2 >> 3) % 4],
                      (modes2 >> 3) % 4 == 3 ? (size_t)nn * isz / 16 * 8 : 0);
    /* out_rejected inside in, out, the flags or count: at its start, one
     * element on, n elements on (just past in or out: allowed) or half way. */
    c->rej = (place){-1, 0};
    if (is_copy(c->kind)) {
        static const int rej_alias[] = {B_IN, B_OUT, B_AUX, B_COUNT};
        const size_t base[] = {in_off, out_off, aux_off, count_off};
        const size_t into[] = {0, isz, (size_t)nn * isz, (size_t)nn / 2 * isz};
        const unsigned a = (rej_modes >> 4) % 4;
        c->rej = choose(rej_modes, B_REJ, ((rej_modes >> 2) % 4) * isz, isz >= 2 ? isz / 2 : 1, rej_alias[a],
                        base[a] + into[rej_modes >> 6]);
    }
    c->value_given = given % 16 != 15;
    c->host_count_given = (given >> 4) % 2;
    c->init_given = (given >> 5) % 2;
    c->host_out_given = given % 64 != 63;
    c->host_out_skew = (given >> 6) % 2;
    c->value_from_data = given >> 7;

    /* The comparison's value: an element of the data's kind (often equal to
     * some input), and the exclusive scan's init. */
    if (dtype_valid(c->t)) draw_value(c->value, c->t, c->data_kind, rng);
    if (dtype_valid(c->out_t)) draw_value(c->init, c->out_t, c->data_kind, rng);

    /* The histogram's range: around the data, or empty, reversed, infinite,
     * NaN, or wider than the largest double. */
    static const double odd_lo[] = {1, 2, -INFINITY, NAN, -DBL_MAX, 0};
    static const double odd_hi[] = {1, 1, 0, 1, DBL_MAX, INFINITY};
    if (range >= 0xe0) {
        c->lower = odd_lo[range % 6];
        c->upper = odd_hi[range % 6];
    } else {
        c->lower = -8.0 - (range % 8);
        c->upper = 1.0 + (range >> 3);
    }
}

/* The reference's effect of an accepted call on the expected images, and
 * the bytes of the outputs a float sum or product makes inexact (skip_*). */
static void apply_reference(const api_call *c, buffers *b, const unsigned char *in, unsigned char *host_out,
                            int64_t *host_count, size_t *skip_off, size_t *skip_bytes)
{
    const bool exact_data = c->data_kind == D_POWERS || (c->data_kind == D_SMALL && c->op == GP_OP_SUM);
    const bool inexact = gpt_is_float(c->out_t) && (c->op == GP_OP_SUM || c->op == GP_OP_PROD) && !exact_data;
    int64_t selected = -1;
    const unsigned char *flags = c->aux.buf >= 0 ? before_at(b, c->aux) : NULL;
    *skip_bytes = 0;
    switch (c->kind) {
    case C_REDUCE:
    case C_REDUCE_TO_HOST: {
        unsigned char *out = c->kind == C_REDUCE ? expect_at(b, c->out) : host_out;
        gp_ref_reduce(in, c->t, c->n, c->op, out, c->out_t);
        if (inexact && c->kind == C_REDUCE) *skip_off = c->out.off, *skip_bytes = gp_dtype_size(c->out_t);
        if (inexact && c->kind == C_REDUCE_TO_HOST) *skip_off = SIZE_MAX, *skip_bytes = gp_dtype_size(c->out_t);
        break;
    }
    case C_SCAN_INCLUSIVE:
    case C_SCAN_EXCLUSIVE:
        if (c->n > 0) {
            gp_ref_scan(in, c->t, c->n, c->op, c->kind == C_SCAN_EXCLUSIVE, c->init_given ? c->init : NULL,
                        expect_at(b, c->out), c->out_t);
            if (inexact) *skip_off = c->out.off, *skip_bytes = (size_t)c->n * gp_dtype_size(c->out_t);
        }
        break;
    case C_SELECT_FLAGGED:
    case C_SELECT_IF:
        selected = gp_ref_select(in, c->t, c->n, c->kind == C_SELECT_FLAGGED ? flags : NULL, c->cmp, c->value,
                                 c->n ? expect_at(b, c->out) : NULL);
        break;
    case C_PARTITION_FLAGGED:
    case C_PARTITION_IF:
        selected = gp_ref_partition(in, c->t, c->n, c->kind == C_PARTITION_FLAGGED ? flags : NULL, c->cmp,
                                    c->value, c->n ? expect_at(b, c->out) : NULL);
        break;
    case C_PARTITION_COPY_FLAGGED:
    case C_PARTITION_COPY_IF:
        selected = gp_ref_partition_copy(in, c->t, c->n, c->kind == C_PARTITION_COPY_FLAGGED ? flags : NULL, c->cmp,
                                         c->value, c->n ? expect_at(b, c->out) : NULL,
                                         c->n ? expect_at(b, c->rej) : NULL);
        break;
    case C_FILTER:
        selected = gp_ref_filter(in, c->t, c->n, c->flags & GP_FILTER_DESCENDING, c->n ? expect_at(b, c->out) : NULL);
        break;
    case C_COUNT_IF: selected = gp_ref_count(in, c->t, c->n, c->cmp, c->value); break;
    case C_HISTOGRAM_EVEN:
        gp_ref_histogram_even(in, c->t, c->n, c->bins, c->lower, c->upper, (uint64_t *)(void *)expect_at(b, c->out),
                              c->flags);
        break;
    case C_HISTOGRAM_EDGES:
        gp_ref_histogram_edges(in, c->t, c->n, c->bins, before_at(b, c->aux), (uint64_t *)(void *)expect_at(b, c->out),
                               c->flags);
        break;
    case C_TRANSPOSE: /* from the image before the call: in place too */
        if (c->tp.rows > 0 && c->tp.cols > 0) gp_ref_transpose(in, expect_at(b, c->out), &c->tp);
        break;
    default: break;
    }
    if (selected >= 0) {
        if (c->count.buf >= 0) memcpy(expect_at(b, c->count), &selected, 8);
        if (c->host_count_given) *host_count = selected;
    }
}

/* The reduce or scan results, element by element as values (any NaN
 * equals any NaN; a zero's sign must match, the header ordering -0 < +0);
 * each that matches is copied into the expected image, so that the byte
 * comparison after sees the library's own bits there. */
static void relax_results(const api_call *c, unsigned char *got, unsigned char *expect, size_t count)
{
    const size_t sz = gp_dtype_size(c->out_t);
    for (size_t i = 0; i < count; i++)
        if (gpf_same_value(got + i * sz, expect + i * sz, c->out_t)) memcpy(expect + i * sz, got + i * sz, sz);
}

static gp_status run_call(const api_call *c, buffers *b, void *host_out, int64_t *host_count)
{
    void *in = at(b, c->in), *out = at(b, c->out), *aux = at(b, c->aux), *rej = at(b, c->rej);
    int64_t *count = (int64_t *)at(b, c->count);
    int64_t *hc = c->host_count_given ? host_count : NULL;
    const void *value = c->value_given ? c->value : NULL;
    switch (c->kind) {
    case C_REDUCE: return gp_reduce(ctx, in, c->t, c->n, c->op, out, c->out_t);
    case C_REDUCE_TO_HOST:
        return gp_reduce_to_host(ctx, in, c->t, c->n, c->op, c->host_out_given ? host_out : NULL, c->out_t);
    case C_SCAN_INCLUSIVE: return gp_scan_inclusive(ctx, in, c->t, c->n, c->op, out, c->out_t);
    case C_SCAN_EXCLUSIVE:
        return gp_scan_exclusive(ctx, in, c->t, c->n, c->op, c->init_given ? c->init : NULL, out, c->out_t);
    case C_SELECT_FLAGGED: return gp_select_flagged(ctx, in, c->t, c->n, aux, out, count, hc);
    case C_SELECT_IF: return gp_select_if(ctx, in, c->t, c->n, c->cmp, value, out, count, hc);
    case C_PARTITION_FLAGGED: return gp_partition_flagged(ctx, in, c->t, c->n, aux, out, count, hc);
    case C_PARTITION_IF: return gp_partition_if(ctx, in, c->t, c->n, c->cmp, value, out, count, hc);
    case C_PARTITION_COPY_FLAGGED: return gp_partition_copy_flagged(ctx, in, c->t, c->n, aux, out, rej, count, hc);
    case C_PARTITION_COPY_IF:
        return gp_partition_copy_if(ctx, in, c->t, c->n, c->cmp, value, out, rej, count, hc);
    case C_FILTER: return gp_filter_running_max(ctx, in, c->t, c->n, c->flags, out, count, hc);
    case C_COUNT_IF: return gp_count_if(ctx, in, c->t, c->n, c->cmp, value, count, hc);
    case C_HISTOGRAM_EVEN:
        return gp_histogram_even(ctx, in, c->t, c->n, c->bins, c->lower, c->upper, (uint64_t *)out, c->flags);
    case C_HISTOGRAM_EDGES:
        return gp_histogram_edges(ctx, in, c->t, c->n, c->bins, aux, (uint64_t *)out, c->flags);
    case C_TRANSPOSE:
        if (c->dense) return gp_transpose(ctx, in, out, c->tp.elem_size, c->tp.rows, c->tp.cols);
        return gp_transpose_ex(ctx, in, out, c->value_given ? &c->tp : NULL);
    default: return GP_STATUS_INTERNAL;
    }
}

/* Freed at exit, so that a leak check (memcheck's) sees only the calls'. */
static void free_context(void) { gp_ctx_free(ctx); }

static void setup_context(void)
{
    if (ctx) return;
    gp_status s = gp_ctx_create(&ctx, backend, 0);
    if (s != GP_STATUS_OK) gpf_violation("api: no %s context: %s", gp_backend_name(backend), gp_status_name(s));
    atexit(free_context);
}

/* Sizes each buffer for what the call's places reach, fills the images
 * (the input's data, flags, edges, prior histogram counts; poison
 * elsewhere) and sends them to the context's space. */
static void prepare(api_call *c, buffers *b, gpt_rng *rng)
{
    const size_t isz = gp_dtype_size(c->t) ? gp_dtype_size(c->t) : 1;
    const bool widened = c->kind <= C_SCAN_EXCLUSIVE; /* reduce and scan: out in out_t */
    const size_t osz = !widened ? isz : gp_dtype_size(c->out_t) ? gp_dtype_size(c->out_t) : 1;
    const size_t nn = n_valid(c->n) ? (size_t)c->n : 4;
    const size_t bins = c->bins >= 1 && c->bins <= MAX_BINS ? (size_t)c->bins : 1;
    const bool hist = c->kind == C_HISTOGRAM_EVEN || c->kind == C_HISTOGRAM_EDGES;
    size_t *bytes = b->bytes;
    for (int i = 0; i < BUFS; i++) bytes[i] = 1;
    if (c->kind == C_TRANSPOSE) {
        const tlayout l = resolve(&c->tp);
        const size_t e = elem_size_valid(c->tp.elem_size) ? c->tp.elem_size : 1;
        const bool sane = c->tp.rows >= 0 && c->tp.cols >= 0 && c->tp.batch >= 0 && l.in_span >= 0 && l.out_span >= 0;
        need(bytes, c->in, sane ? (size_t)l.in_span * e : 0);
        need(bytes, c->out, sane ? (size_t)l.out_span * e : 0);
    }
    need(bytes, c->in, nn * isz);
    need(bytes, c->out, hist ? bins * 8 : c->kind == C_REDUCE ? osz : nn * osz);
    need(bytes, c->aux, c->kind == C_HISTOGRAM_EDGES ? (bins + 1) * isz : nn);
    need(bytes, c->count, 8);
    need(bytes, c->rej, nn * isz);
    for (int i = 0; i < BUFS; i++) {
        b->before[i] = malloc(bytes[i]);
        b->expect[i] = malloc(bytes[i]);
        b->got[i] = malloc(bytes[i]);
        if (!b->before[i] || !b->expect[i] || !b->got[i]) gpf_violation("api: out of host memory");
        memset(b->before[i], poison, bytes[i]);
    }
    /* Data first, then the flags or edges and the prior counts, in that
     * order, so that where places share a buffer the later ones win, as
     * the call will find them. */
    if (c->kind == C_TRANSPOSE && c->in.buf >= 0) { /* elements are moved, never read: any bytes */
        for (size_t i = c->in.off; i < bytes[c->in.buf]; i++) b->before[c->in.buf][i] = (unsigned char)gpt_next(rng);
    } else if (c->in.buf >= 0 && dtype_valid(c->t)) {
        draw_data(before_at(b, c->in), c->t, (int64_t)nn, c->data_kind, rng);
        if (c->value_from_data && nn) memcpy(c->value, before_at(b, c->in) + gpt_below(rng, nn) * isz, isz);
    }
    if (c->aux.buf >= 0 && c->kind == C_HISTOGRAM_EDGES && dtype_valid(c->t)) {
        /* Ascending edges of the data's kind (or, from the data's odd
         * draws, not ascending). */
        unsigned char *e = before_at(b, c->aux);
        draw_data(e, c->t, (int64_t)bins + 1, c->density % 4 ? D_SORTED : c->data_kind, rng);
        if (c->density % 4 && !edges_ascend(e, c->t, (int64_t)bins))
            for (size_t i = 0; i <= bins; i++) put(e + i * isz, c->t, (int64_t)i - 3, (double)i * 0.5 - 2.0);
    } else if (c->aux.buf == B_AUX && is_flagged(c->kind)) {
        unsigned char *f = before_at(b, c->aux);
        for (size_t i = 0; i < nn; i++)
            f[i] = gpt_below(rng, 256) < c->density ? (unsigned char)(1 + gpt_below(rng, 255)) : 0;
    }
    if (hist && c->out.buf >= 0 && (c->flags & GP_HISTOGRAM_ACCUMULATE))
        for (size_t i = 0; i < bins && c->out.off + i * 8 + 8 <= bytes[c->out.buf]; i++) {
            const uint64_t prior = gpt_below(rng, 1000);
            memcpy(before_at(b, c->out) + i * 8, &prior, 8);
        }
    for (int i = 0; i < BUFS; i++) {
        if (gpt_guarded_alloc(ctx, &b->dev[i], bytes[i]) != GP_STATUS_OK)
            gpf_violation("api: cannot allocate %zu bytes of the %s", bytes[i], buf_names[i]);
        if (gpt_guarded_poison(&b->dev[i], b->before[i], bytes[i]) != GP_STATUS_OK)
            gpf_violation("api: cannot fill the %s", buf_names[i]);
        memcpy(b->expect[i], b->before[i], bytes[i]);
    }
}

static void release(buffers *b)
{
    for (int i = 0; i < BUFS; i++) {
        gpt_guarded_free(&b->dev[i]);
        free(b->before[i]);
        free(b->expect[i]);
        free(b->got[i]);
    }
}

/* What the call's *_workspace_size query says it needs. */
static gp_status workspace_query(const api_call *c, size_t *need)
{
    switch (c->kind) {
    case C_REDUCE:
    case C_REDUCE_TO_HOST: return gp_reduce_workspace_size(ctx, c->t, c->n, c->op, c->out_t, need);
    case C_SCAN_INCLUSIVE:
    case C_SCAN_EXCLUSIVE: return gp_scan_workspace_size(ctx, c->t, c->n, c->op, c->out_t, need);
    case C_COUNT_IF: return gp_count_workspace_size(ctx, c->t, c->n, need);
    case C_HISTOGRAM_EVEN:
    case C_HISTOGRAM_EDGES: return gp_histogram_workspace_size(ctx, c->t, c->n, c->bins, need);
    default: return gp_select_workspace_size(ctx, c->t, c->n, need);
    }
}

/* Hands the context a workspace of the size c asks for (ws->ptr NULL if
 * none) and adds its rule to the verdict. */
static void give_workspace(const api_call *c, gpt_guarded *ws, verdict *v)
{
    ws->ptr = ws->base = NULL;
    if (c->kind == C_TRANSPOSE) return; /* no workspace, no query */
    size_t need = 0;
    const gp_status q = workspace_query(c, &need);
    if (q != GP_STATUS_OK && !v->nh)
        gpf_violation("api: %s's workspace query refused arguments the call must take: %s",
                      call_names[c->kind], gp_status_name(q));
    if (c->workspace == W_NONE) return;
    size_t bytes = 64; /* the query refused: any size, the call fails anyway */
    if (q == GP_STATUS_OK) {
        switch (c->workspace) {
        case W_EXACT: bytes = need; break;
        case W_SHORT: bytes = need ? need - 1 : 0; break;
        case W_HALF: bytes = need / 2; break;
        case W_EMPTY: bytes = 0; break;
        default: bytes = need + 64; break;
        }
        /* A call of n == 0 may not ask for its workspace at all. */
        if (bytes < need) (c->n > 0 ? hard : soft)(v, GP_STATUS_WORKSPACE_TOO_SMALL);
    } else {
        soft(v, GP_STATUS_WORKSPACE_TOO_SMALL);
    }
    if (gpt_guarded_alloc(ctx, ws, bytes) != GP_STATUS_OK || gpt_guarded_poison(ws, &poison, 1) != GP_STATUS_OK)
        gpf_violation("api: no %zu-byte workspace", bytes);
    if (gp_ctx_set_workspace(ctx, ws->ptr, bytes) != GP_STATUS_OK)
        gpf_violation("api: gp_ctx_set_workspace(%zu bytes): %s", bytes, gp_ctx_last_error(ctx));
}

int gpf_api(const uint8_t *data, size_t size)
{
    setup_context();
    gpt_rng rng = {fnv1a(data, size)};
    api_call c;
    decode(&c, data, size, &rng);
    buffers b;
    prepare(&c, &b, &rng);

    char what[512];
    describe(&c, what, sizeof what);
    verdict v = c.kind == C_TRANSPOSE ? transpose_model(&c)
                                      : call_model(&c, c.aux.buf >= 0 ? before_at(&b, c.aux) : NULL);
    gpt_guarded ws;
    give_workspace(&c, &ws, &v);
    /* host_out has no alignment rule (gpuprim.h): it may be off by a byte. */
    _Alignas(8) unsigned char host_out_room[16];
    unsigned char *host_out = host_out_room + c.host_out_skew;
    int64_t host_count;
    memset(host_out, poison, 8);
    memset(&host_count, poison, sizeof host_count);
    unsigned char host_out_expect[8];
    int64_t host_count_expect;
    memcpy(host_out_expect, host_out, 8);
    memcpy(&host_count_expect, &host_count, 8);

    const gp_status s = run_call(&c, &b, host_out, &host_count);
    if (ws.ptr) {
        /* A refused call writes nothing, its workspace included. */
        char why_ws[256];
        unsigned char *left = malloc(ws.bytes + 1);
        if (!left || !gpt_guarded_check(&ws, left, why_ws, sizeof why_ws))
            gpf_violation("api: %s: the workspace's guard bands: %s", call_names[c.kind], left ? why_ws : "no memory");
        for (size_t j = 0; s != GP_STATUS_OK && j < ws.bytes; j++)
            if (left[j] != poison)
                gpf_violation("api: %s refused (%s) but wrote its workspace's byte %zu", call_names[c.kind],
                              gp_status_name(s), j);
        free(left);
        if (gp_ctx_set_workspace(ctx, NULL, 0) != GP_STATUS_OK) gpf_violation("api: the workspace not taken back");
        gpt_guarded_free(&ws);
    }
    const char *name = gp_status_name(s);
    if (!strcmp(name, "UNKNOWN") || s == GP_STATUS_INTERNAL)
        gpf_violation("api: %s returned %d (%s)", what, (int)s, name);
    if (v.nh && (s == GP_STATUS_OK || !(listed(v.hard, v.nh, s) || listed(v.soft, v.ns, s))))
        gpf_violation("api: %s returned %s; the arguments call for %s%s", what, name, gp_status_name(v.hard[0]),
                      v.nh > 1 ? " or another of their faults" : "");
    if (!v.nh && s != GP_STATUS_OK && !listed(v.soft, v.ns, s))
        gpf_violation("api: %s refused valid arguments: %s (%s)", what, name, gp_ctx_last_error(ctx));

    size_t skip_off = 0, skip_bytes = 0;
    if (s == GP_STATUS_OK) {
        const unsigned char *in = c.in.buf >= 0 ? before_at(&b, c.in) : NULL;
        apply_reference(&c, &b, in, host_out_expect, &host_count_expect, &skip_off, &skip_bytes);
    }
    char why[256];
    for (int i = 0; i < BUFS; i++) {
        if (!gpt_guarded_check(&b.dev[i], b.got[i], why, sizeof why))
            gpf_violation("api: %s (%s): the %s: %s", what, name, buf_names[i], why);
    }
    if (s == GP_STATUS_OK && (c.kind == C_REDUCE || c.kind == C_SCAN_INCLUSIVE || c.kind == C_SCAN_EXCLUSIVE) &&
        c.out.buf >= 0) {
        const size_t count = c.kind == C_REDUCE ? 1 : (size_t)c.n;
        relax_results(&c, b.got[c.out.buf] + c.out.off, b.expect[c.out.buf] + c.out.off, count);
        if (skip_bytes && skip_off != SIZE_MAX)
            memcpy(b.expect[c.out.buf] + skip_off, b.got[c.out.buf] + skip_off, skip_bytes);
    }
    if (s == GP_STATUS_OK && c.kind == C_REDUCE_TO_HOST) {
        relax_results(&c, host_out, host_out_expect, 1);
        if (skip_bytes) memcpy(host_out_expect, host_out, skip_bytes);
    }
    for (int i = 0; i < BUFS; i++)
        for (size_t j = 0; j < b.bytes[i]; j++)
            if (b.got[i][j] != b.expect[i][j])
                gpf_violation("api: %s (%s): the %s's byte %zu is 0x%02x, not 0x%02x%s", what, name, buf_names[i], j,
                              b.got[i][j], b.expect[i][j], s == GP_STATUS_OK ? "" : " (a refused call wrote it)");
    if (memcmp(host_out, host_out_expect, 8) != 0)
        gpf_violation("api: %s (%s): host_out differs from the reference%s", what, name,
                      s == GP_STATUS_OK ? "" : " (a refused call wrote it)");
    if (host_count != host_count_expect)
        gpf_violation("api: %s (%s): host_count is %lld, not %lld", what, name, (long long)host_count,
                      (long long)host_count_expect);
    release(&b);
    return s == GP_STATUS_OK;
}
