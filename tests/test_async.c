/*
 * The asynchrony contract: chains of calls issued back to back without a
 * synchronisation, each reading what an earlier one wrote, checked once at
 * the end of the chain against the serial reference run on the host.
 *
 * A chain draws 4 to 12 steps over a few buffers of one context: scans
 * (in place or not, widening), selections, partitions (into one buffer or
 * two) and the filter (by flags that may be an earlier step's u8 output), counts, reductions,
 * histograms (accumulating onto an earlier one; by edges that an earlier
 * step wrote, which the call reads back on the host), transposes, copies and
 * memsets, on inputs that may start a few elements into a buffer. A later
 * step's n is the count an earlier selection will have written, known here
 * from the reference, so nothing waits for it. Where the header says a call
 * synchronises (a host count, reduce to host, a change of stream or of
 * workspace) the chain takes that too, now and then.
 *
 * On CUDA chains run on the default stream and on caller streams that do
 * not synchronise with it (cudaStreamNonBlocking); they change stream in
 * the middle (gp_ctx_set_stream); pairs of chains run on two contexts at
 * once, interleaved call by call; and stalls (a host function that sleeps
 * in the stream) hold the steps after them back, so that a launch or copy
 * the library put on another stream runs before its inputs are written.
 * Some chains hand the context a caller's workspace, which every call then
 * clears on the stream, and some change between it and the context's own
 * scratch midway.
 *
 * The host arguments a call takes by pointer (a comparison's value, a
 * scan's init, a transpose's parameters) are overwritten as soon as it
 * returns: the header says an asynchronous call has read them by then.
 * Each buffer sits between guard bands and starts poisoned; its whole
 * payload, not only what the last step wrote, must equal the host's copy.
 * A chain that does not finish (a hang) fails the run with its steps.
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep, sigaction */
#include "cpu_reference.h"
#include "reduce_data.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef GPUPRIM_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

enum {
    NBUF = 4,       /* data buffers a chain moves between */
    MAX_STEPS = 12, /* a chain's calls */
    MAX_BINS = 256,
    LOG_BYTES = 4096,
    STALL_MS = 2,
    WATCHDOG_S = 100, /* a chain takes well under a second, 3 under the sanitizers */
};

static const unsigned char POISON = 0xA5;

/* One context's chain: its buffers, their host copies and what they hold. */
typedef struct lane {
    const char *name;
    gp_ctx *ctx;
    gpt_guarded buf[NBUF], results, hist;
    unsigned char *mirror[NBUF], *results_mirror, *hist_mirror;
    gp_dtype t[NBUF];
    int64_t n[NBUF]; /* elements of t[b] a step may read from buf[b] */
    size_t cap;      /* bytes a buffer holds */
    int64_t bins;    /* the histogram's, 0 before the first */
    void *streams[3];
    int nstreams;
    void *workspace; /* a caller's, of ws_bytes: every call's most */
    size_t ws_bytes;
    gpt_rng rng;
    char log[LOG_BYTES];
    size_t log_len;
    bool broken; /* a call failed: the rest of the chain is not issued */
} lane;

/* --------------------------------------------------------------- values */

/* Element access through memcpy: values also live in byte arrays
 * (a call's value and init) without the element's alignment. */
#define GPT_AT_(T) (memcpy(&v.T, b + (size_t)i * sizeof v.T, sizeof v.T), v.T)
typedef union elem {
    int8_t i8;
    uint8_t u8;
    int16_t i16;
    uint16_t u16;
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    float f32;
    double f64;
} elem;

static int64_t get_int(const unsigned char *b, gp_dtype t, int64_t i)
{
    elem v;
    switch (t) {
    case GP_DTYPE_I8: return GPT_AT_(i8);
    case GP_DTYPE_U8: return GPT_AT_(u8);
    case GP_DTYPE_I16: return GPT_AT_(i16);
    case GP_DTYPE_U16: return GPT_AT_(u16);
    case GP_DTYPE_I32: return GPT_AT_(i32);
    case GP_DTYPE_U32: return GPT_AT_(u32);
    case GP_DTYPE_I64: return GPT_AT_(i64);
    case GP_DTYPE_U64: return (int64_t)GPT_AT_(u64);
    default: return 0;
    }
}

static double get_double(const unsigned char *b, gp_dtype t, int64_t i)
{
    elem v;
    if (t == GP_DTYPE_F32) return GPT_AT_(f32);
    if (t == GP_DTYPE_F64) return GPT_AT_(f64);
    return (double)get_int(b, t, i);
}

/* Stores v (an integer, or for floats an integer-valued or infinite double). */
static void put(unsigned char *b, gp_dtype t, int64_t i, int64_t x, double f)
{
    elem v;
    switch (t) {
    case GP_DTYPE_I8: v.i8 = (int8_t)x; break;
    case GP_DTYPE_U8: v.u8 = (uint8_t)x; break;
    case GP_DTYPE_I16: v.i16 = (int16_t)x; break;
    case GP_DTYPE_U16: v.u16 = (uint16_t)x; break;
    case GP_DTYPE_I32: v.i32 = (int32_t)x; break;
    case GP_DTYPE_U32: v.u32 = (uint32_t)x; break;
    case GP_DTYPE_I64: v.i64 = x; break;
    case GP_DTYPE_U64: v.u64 = (uint64_t)x; break;
    case GP_DTYPE_F32: v.f32 = (float)f; break;
    default: v.f64 = f; break;
    }
    memcpy(b + (size_t)i * gpt_size(t), &v, gpt_size(t));
}

/* Chain data: no NaN and no -0 anywhere (so every result is one bit
 * pattern and buffers compare bytewise), floats integer-valued with a few
 * infinities. Kinds: random bits (integers) or small values, mostly
 * ascending (the filter keeps many), small non-negative (sums stay exact). */
static void fill(unsigned char *b, gp_dtype t, int64_t n, int kind, gpt_rng *r)
{
    for (int64_t i = 0; i < n; i++) {
        int64_t v;
        if (kind == 0) v = gpt_is_float(t) ? (int64_t)gpt_below(r, 2001) - 1000 : (int64_t)gpt_next(r);
        else if (kind == 1) v = i / 2 + (int64_t)gpt_below(r, 7) - 3;
        else v = (int64_t)gpt_below(r, 5);
        double f = (double)v;
        if (f == 0) f = 0; /* +0 */
        put(b, t, i, v, f);
    }
    if (gpt_is_float(t) && kind != 2 && n > 0 && gpt_below(r, 3) == 0)
        for (int k = 0; k < 3; k++)
            put(b, t, (int64_t)gpt_below(r, (uint64_t)n), 0, gpt_below(r, 2) ? INFINITY : -INFINITY);
}

/* Whether a float sum of the m elements at p (plus init) is exact in out_t
 * in any order: every value finite and integer, and the sum of their
 * magnitudes below 2^mantissa. */
static bool float_sum_exact(const unsigned char *p, gp_dtype t, int64_t m, double init, gp_dtype out_t)
{
    double limit = out_t == GP_DTYPE_F32 ? 0x1p24 : 0x1p53, s = fabs(init);
    for (int64_t i = 0; i < m; i++) {
        double x = get_double(p, t, i);
        if (!isfinite(x) || x != floor(x)) return false;
        s += fabs(x);
        if (s >= limit) return false;
    }
    return true;
}

/* A wider dtype of the same kind, or t itself. */
static gp_dtype widen(gp_dtype t, gpt_rng *r)
{
    static const gp_dtype s[] = {GP_DTYPE_I8, GP_DTYPE_I16, GP_DTYPE_I32, GP_DTYPE_I64};
    static const gp_dtype u[] = {GP_DTYPE_U8, GP_DTYPE_U16, GP_DTYPE_U32, GP_DTYPE_U64};
    if (gpt_below(r, 2) == 0) return t;
    if (t == GP_DTYPE_F32) return GP_DTYPE_F64;
    for (int i = 0; i < 3; i++) {
        if (t == s[i]) return s[i + 1 + (int)gpt_below(r, (uint64_t)(3 - i))];
        if (t == u[i]) return u[i + 1 + (int)gpt_below(r, (uint64_t)(3 - i))];
    }
    return t;
}

/* ------------------------------------------------------------------ log */

#if defined(__GNUC__)
#define GPT_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define GPT_PRINTF(f, a)
#endif

/* Appends to buf (cap bytes, *len of them used), cut short where it is full. */
static void vappend(char *buf, size_t cap, size_t *len, const char *fmt, va_list ap)
{
    if (*len >= cap - 1) return;
    const int k = vsnprintf(buf + *len, cap - *len, fmt, ap);
    if (k > 0) *len += (size_t)k < cap - *len ? (size_t)k : cap - 1 - *len;
}

/* One more piece of the chain's log. */
static void note(lane *L, const char *fmt, ...) GPT_PRINTF(2, 3);
static void note(lane *L, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vappend(L->log, LOG_BYTES, &L->log_len, fmt, ap);
    va_end(ap);
}

static void failed_call(gpt *t, lane *L, const char *what, gp_status s)
{
    gpt_fail(t, "%s: %s returned %s (%s)\n  chain:%s", L->name, what, gp_status_name(s),
             gp_ctx_last_error(L->ctx), L->log);
    L->broken = true;
}

/* -------------------------------------------------------------- a step */

/*
 * A chain is planned whole before any of it is issued: planning draws each
 * call's arguments, runs the serial reference on the host copies and keeps
 * what a synchronising call must return. Issuing then makes the calls back
 * to back, with no host work between them but the clobbering of their host
 * arguments, so the GPU runs behind the host and each call's work still
 * waits on the one before when it is launched: where a launch did not wait
 * for it on the stream, the two race.
 */
typedef enum call_kind {
    K_SCAN, K_SELECT_FLAGGED, K_SELECT_IF, K_PARTITION_FLAGGED, K_PARTITION_IF, K_FILTER, K_COUNT, K_REDUCE,
    K_REDUCE_TO_HOST, K_HISTOGRAM, K_HISTOGRAM_EDGES, K_TRANSPOSE, K_COPY, K_MEMSET, K_SET_STREAM, K_STALL,
    K_SET_WORKSPACE, K_PARTITION_COPY /* by flags where flags_buf >= 0, else by comparison */
} call_kind;

/* What the call reads: buffer b from element off, m elements of t. */
typedef struct span {
    int b;
    int64_t off, m;
    gp_dtype t;
} span;

typedef struct call {
    call_kind kind;
    span in;
    int dst, flags_buf; /* flags_buf: a u8 buffer for the flagged kinds, the edges' for K_HISTOGRAM_EDGES */
    int dst2;           /* K_PARTITION_COPY's rejected items */
    gp_dtype out_t;
    gp_op op;
    gp_cmp cmp;
    bool exclusive, give_init, host; /* host: the count goes to the host too (synchronises) */
    unsigned flags;                  /* the filter's, the histogram's */
    _Alignas(8) unsigned char value[8]; /* gpuprim.h: pointers to elements are aligned */
    _Alignas(8) unsigned char init[8];
    int64_t bins;
    double lo, hi;
    gp_transpose_params tp;
    int byte;     /* gp_memset's value */
    void *stream; /* K_SET_STREAM's */
    bool ws_on;   /* K_SET_WORKSPACE: the caller's workspace, else the context's scratch */
    int64_t want_count;
    _Alignas(8) unsigned char want[8]; /* K_REDUCE_TO_HOST's result */
} call;

/* Picks a buffer with at least one element, or -1. */
static int pick_source(lane *L)
{
    int b = (int)gpt_below(&L->rng, NBUF);
    for (int k = 0; k < NBUF; k++, b = (b + 1) % NBUF)
        if (L->n[b] > 0) return b;
    return -1;
}

/* A comparison value: one of the source's elements, or a small one. */
static void pick_value(lane *L, gp_dtype t, const unsigned char *src, int64_t m, unsigned char *v)
{
    const int64_t small = (int64_t)gpt_below(&L->rng, 9) - 4;
    if (m > 0 && gpt_below(&L->rng, 3) != 0)
        memcpy(v, src + (size_t)gpt_below(&L->rng, (uint64_t)m) * gpt_size(t), gpt_size(t));
    else put(v, t, 0, small, small == 0 ? 0.0 : (double)small);
}

static span pick_span(lane *L, int b)
{
    span s = {b, 0, L->n[b], L->t[b]};
    if (s.m > 1 && gpt_below(&L->rng, 3) == 0) {
        s.off = (int64_t)gpt_below(&L->rng, s.m < 16 ? (uint64_t)s.m : 16u);
        s.m -= s.off;
        if (gpt_below(&L->rng, 2)) s.m -= (int64_t)gpt_below(&L->rng, (uint64_t)s.m);
    }
    return s;
}

static unsigned char *dev_at(lane *L, span s) { return L->buf[s.b].ptr + (size_t)s.off * gpt_size(s.t); }
static unsigned char *host_at(lane *L, span s) { return L->mirror[s.b] + (size_t)s.off * gpt_size(s.t); }

static const gp_op int_ops[] = {GP_OP_SUM, GP_OP_PROD, GP_OP_MIN, GP_OP_MAX, GP_OP_AND, GP_OP_OR, GP_OP_XOR};

/* Selections, partitions and the filter (choice 0, 1, 2; 3: a partition
 * into two buffers, the rejected items into dst2, neither the input's nor
 * dst): by flags (a u8 buffer other than the outputs, with at least m
 * elements; it may be the input) or by comparison. */
static void plan_select(lane *L, call *c, int choice)
{
    c->flags_buf = -1;
    c->dst2 = -1;
    if (choice == 3) {
        c->dst2 = (c->dst + 1) % NBUF;
        if (c->dst2 == c->in.b) c->dst2 = (c->dst2 + 1) % NBUF;
    }
    for (int b = 0; b < NBUF && choice != 2; b++)
        if (b != c->dst && b != c->dst2 && L->t[b] == GP_DTYPE_U8 && L->n[b] >= c->in.m && gpt_below(&L->rng, 2))
            c->flags_buf = b;
    const bool flagged = c->flags_buf >= 0;
    c->kind = choice == 0 ? (flagged ? K_SELECT_FLAGGED : K_SELECT_IF)
              : choice == 1 ? (flagged ? K_PARTITION_FLAGGED : K_PARTITION_IF)
              : choice == 2 ? K_FILTER
                            : K_PARTITION_COPY;
    pick_value(L, c->in.t, host_at(L, c->in), c->in.m, c->value);
    c->cmp = (gp_cmp)(1 + gpt_below(&L->rng, 6));
    c->flags = gpt_below(&L->rng, 2) ? GP_FILTER_DESCENDING : 0;
    const uint8_t *hflags = flagged ? L->mirror[c->flags_buf] : NULL;
    unsigned char *out = L->mirror[c->dst];
    const unsigned char *in = host_at(L, c->in);
    if (c->kind == K_FILTER) c->want_count = gp_ref_filter(in, c->in.t, c->in.m, c->flags != 0, out);
    else if (choice == 0) c->want_count = gp_ref_select(in, c->in.t, c->in.m, hflags, c->cmp, c->value, out);
    else if (choice == 1) c->want_count = gp_ref_partition(in, c->in.t, c->in.m, hflags, c->cmp, c->value, out);
    else {
        c->want_count =
            gp_ref_partition_copy(in, c->in.t, c->in.m, hflags, c->cmp, c->value, out, L->mirror[c->dst2]);
        L->t[c->dst2] = c->in.t;
        L->n[c->dst2] = c->in.m - c->want_count;
    }
    L->t[c->dst] = c->in.t;
    L->n[c->dst] = choice == 1 ? c->in.m : c->want_count;
}

static void plan_scan(lane *L, call *c)
{
    c->kind = K_SCAN;
    c->out_t = widen(c->in.t, &L->rng);
    if (c->out_t == c->in.t && c->in.off == 0 && gpt_below(&L->rng, 3) == 0) c->dst = c->in.b; /* in place */
    c->exclusive = gpt_below(&L->rng, 2);
    c->give_init = c->exclusive && gpt_below(&L->rng, 4) != 0;
    const int64_t init = (int64_t)gpt_below(&L->rng, 7) - 3;
    put(c->init, c->out_t, 0, init, init == 0 ? 0.0 : (double)init);
    if (!gpt_is_float(c->in.t)) c->op = int_ops[gpt_below(&L->rng, 7)];
    else if (float_sum_exact(host_at(L, c->in), c->in.t, c->in.m, 3, c->out_t) && gpt_below(&L->rng, 2))
        c->op = GP_OP_SUM;
    else c->op = gpt_below(&L->rng, 2) ? GP_OP_MIN : GP_OP_MAX;
    gp_ref_scan(host_at(L, c->in), c->in.t, c->in.m, c->op, c->exclusive, c->give_init ? c->init : NULL,
                L->mirror[c->dst], c->out_t);
    L->t[c->dst] = c->out_t;
    L->n[c->dst] = c->in.m;
}

/* A reduction into the step's result slot, or to the host. */
static void plan_reduce(lane *L, call *c, int step, bool to_host)
{
    c->kind = to_host ? K_REDUCE_TO_HOST : K_REDUCE;
    c->out_t = widen(c->in.t, &L->rng);
    if (!gpt_is_float(c->in.t)) c->op = int_ops[gpt_below(&L->rng, 7)];
    else c->op = float_sum_exact(host_at(L, c->in), c->in.t, c->in.m, 0, c->out_t) ? GP_OP_SUM : GP_OP_MAX;
    gp_ref_reduce(host_at(L, c->in), c->in.t, c->in.m, c->op, to_host ? c->want : L->results_mirror + step * 8,
                  c->out_t);
}

/* A count into the step's result slot, or to the host. */
static void plan_count(lane *L, call *c, int step, bool host)
{
    c->kind = K_COUNT;
    c->host = host;
    pick_value(L, c->in.t, host_at(L, c->in), c->in.m, c->value);
    c->cmp = (gp_cmp)(1 + gpt_below(&L->rng, 6));
    c->want_count = gp_ref_count(host_at(L, c->in), c->in.t, c->in.m, c->cmp, c->value);
    if (!host) memcpy(L->results_mirror + step * 8, &c->want_count, 8);
}

/* Whether element i of b is below element j, compared in t. */
static bool below(const unsigned char *b, gp_dtype t, int64_t i, int64_t j)
{
    if (gpt_is_float(t)) return get_double(b, t, i) < get_double(b, t, j);
    if (t == GP_DTYPE_U64) return (uint64_t)get_int(b, t, i) < (uint64_t)get_int(b, t, j);
    return get_int(b, t, i) < get_int(b, t, j);
}

/* Edges for a histogram of t: the strictly ascending start of a buffer of
 * t (an earlier step's output, which the call must wait for: it checks the
 * edges on the host), 2 to MAX_BINS + 1 of them; false if none has two. */
static bool pick_edges(lane *L, call *c)
{
    const int first = (int)gpt_below(&L->rng, NBUF);
    for (int k = 0; k < NBUF; k++) {
        const int b = (first + k) % NBUF;
        int64_t e = 1;
        while (L->t[b] == c->in.t && e < L->n[b] && e <= MAX_BINS && below(L->mirror[b], c->in.t, e - 1, e)) e++;
        if (e < 2) continue;
        c->flags_buf = b;
        c->bins = 1 + (int64_t)gpt_below(&L->rng, (uint64_t)(e - 1));
        return true;
    }
    return false;
}

/* Over a range from a sample of the data, or (half the time, where a
 * buffer has them) between edges; onto the last histogram (same bins) half
 * the time. */
static void plan_histogram(lane *L, call *c)
{
    const bool acc = L->bins > 0 && gpt_below(&L->rng, 2);
    c->flags = acc ? GP_HISTOGRAM_ACCUMULATE : 0;
    c->kind = K_HISTOGRAM;
    if (gpt_below(&L->rng, 2) && pick_edges(L, c) && (!acc || c->bins == L->bins)) {
        c->kind = K_HISTOGRAM_EDGES;
        gp_ref_histogram_edges(host_at(L, c->in), c->in.t, c->in.m, c->bins, L->mirror[c->flags_buf],
                               (uint64_t *)L->hist_mirror, c->flags);
        L->bins = c->bins;
        return;
    }
    c->bins = acc ? L->bins : 1 + (int64_t)gpt_below(&L->rng, MAX_BINS);
    c->lo = c->hi = 0;
    for (int i = 0; i < 64; i++) {
        const double x = get_double(host_at(L, c->in), c->in.t, (int64_t)gpt_below(&L->rng, (uint64_t)c->in.m));
        if (isfinite(x) && x < c->lo) c->lo = x;
        if (isfinite(x) && x > c->hi) c->hi = x;
    }
    if (!(c->hi > c->lo)) c->hi = c->lo + 1;
    gp_ref_histogram_even(host_at(L, c->in), c->in.t, c->in.m, c->bins, c->lo, c->hi, (uint64_t *)L->hist_mirror,
                          c->flags);
    L->bins = c->bins;
}

/* The m elements as a dense rows x cols matrix (rows drawn, the last
 * m % rows left out), transposed or flipped by random flags. */
static void plan_transpose(lane *L, call *c)
{
    c->kind = K_TRANSPOSE;
    memset(&c->tp, 0, sizeof c->tp);
    c->tp.elem_size = gpt_size(c->in.t);
    const uint64_t most = (uint64_t)1 << gpt_below(&L->rng, 13); /* rows of every order up to 4096 */
    c->tp.rows = 1 + (int64_t)gpt_below(&L->rng, (uint64_t)c->in.m < most ? (uint64_t)c->in.m : most);
    c->tp.cols = c->in.m / c->tp.rows;
    c->tp.flags = (unsigned)gpt_below(&L->rng, 8);
    gp_ref_transpose(host_at(L, c->in), L->mirror[c->dst], &c->tp);
    L->t[c->dst] = c->in.t;
    L->n[c->dst] = c->tp.rows * c->tp.cols;
}

static void plan_copy_or_set(lane *L, call *c, bool set)
{
    static const unsigned char bytes[] = {0x00, 0x01, 0x3f, 0x40, 0x41}; /* no NaN in any float dtype */
    c->kind = set ? K_MEMSET : K_COPY;
    c->byte = bytes[gpt_below(&L->rng, sizeof bytes)];
    const size_t size = (size_t)c->in.m * gpt_size(c->in.t);
    if (set) memset(L->mirror[c->dst], c->byte, size);
    else memcpy(L->mirror[c->dst], host_at(L, c->in), size);
    L->t[c->dst] = c->in.t;
    L->n[c->dst] = c->in.m;
}

/* Draws step number `step` and runs its reference; false when no buffer
 * has elements to read. */
static bool plan(lane *L, call *c, int step)
{
    memset(c, 0, sizeof *c);
    const int src = pick_source(L);
    if (src < 0) return false;
    c->in = pick_span(L, src);
    c->dst = (src + 1 + (int)gpt_below(&L->rng, NBUF - 1)) % NBUF;
    switch (gpt_below(&L->rng, L->nstreams > 1 ? 16 : 14)) { /* stalls (14, 15) on CUDA only */
    case 0:
    case 1: plan_scan(L, c); break;
    case 2:
    case 3: plan_select(L, c, 0); break;
    case 4: plan_select(L, c, gpt_below(&L->rng, 2) ? 1 : 3); break; /* into one buffer or two */
    case 5:
    case 6: plan_select(L, c, 2); break;
    case 7: plan_count(L, c, step, false); break;
    case 8: plan_reduce(L, c, step, false); break;
    case 9: plan_histogram(L, c); break;
    case 10: plan_transpose(L, c); break;
    case 11: plan_copy_or_set(L, c, gpt_below(&L->rng, 2)); break;
    case 12: plan_copy_or_set(L, c, false); break;
    case 14:
    case 15: c->kind = K_STALL; break;
    default:
        /* A call that synchronises: a host count, reduce to host, a
         * change of workspace (between the caller's and the context's
         * scratch) or of stream (the next steps run on the other one). */
        switch (gpt_below(&L->rng, L->nstreams > 1 ? 5 : 4)) {
        case 0:
            c->host = true;
            plan_select(L, c, gpt_below(&L->rng, 2) ? 0 : 2);
            break;
        case 1: plan_reduce(L, c, step, true); break;
        case 2: plan_count(L, c, step, true); break;
        case 3:
            c->kind = K_SET_WORKSPACE;
            c->ws_on = L->ws_bytes > 0 && gpt_below(&L->rng, 2);
            break;
        default:
            c->kind = K_SET_STREAM;
            c->stream = L->streams[gpt_below(&L->rng, (uint64_t)L->nstreams)];
            break;
        }
    }
    if (c->kind == K_SELECT_FLAGGED || c->kind == K_SELECT_IF || c->kind == K_PARTITION_FLAGGED ||
        c->kind == K_PARTITION_IF || c->kind == K_FILTER || c->kind == K_PARTITION_COPY)
        memcpy(L->results_mirror + step * 8, &c->want_count, 8);
    return true;
}

static const char *const kind_names[] = {
    "gp_scan", "gp_select_flagged", "gp_select_if", "gp_partition_flagged", "gp_partition_if",
    "gp_filter_running_max", "gp_count_if", "gp_reduce", "gp_reduce_to_host", "gp_histogram_even",
    "gp_histogram_edges", "gp_transpose_ex", "gp_copy", "gp_memset", "gp_ctx_set_stream", "a stall",
    "gp_ctx_set_workspace", "gp_partition_copy"};

/* One line of the chain's log. */
static void describe(lane *L, const call *c, int step)
{
    note(L, "\n    %d: %s", step, kind_names[c->kind]);
    if (c->kind == K_SET_STREAM) {
        note(L, " to %s", c->stream ? "a caller's stream" : "the default stream");
        return;
    }
    if (c->kind == K_SET_WORKSPACE) {
        note(L, " to %s", c->ws_on ? "the caller's" : "none (the context's scratch)");
        return;
    }
    if (c->kind == K_STALL) {
        note(L, " of %d ms on the stream", STALL_MS);
        return;
    }
    note(L, " buf%d+%" PRId64 " n=%" PRId64 " %s", c->in.b, c->in.off, c->in.m, gp_dtype_name(c->in.t));
    char v[64];
    gpt_format(c->in.t, c->value, v, sizeof v);
    switch (c->kind) {
    case K_SCAN:
        note(L, " %s %s -> buf%d %s%s", c->exclusive ? "exclusive" : "inclusive", gp_op_name(c->op), c->dst,
             gp_dtype_name(c->out_t), c->give_init ? ", init given" : "");
        break;
    case K_SELECT_FLAGGED:
    case K_PARTITION_FLAGGED: note(L, " flags buf%d -> buf%d", c->flags_buf, c->dst); break;
    case K_SELECT_IF:
    case K_PARTITION_IF: note(L, " %s %s -> buf%d", gp_cmp_name(c->cmp), v, c->dst); break;
    case K_FILTER: note(L, " %s -> buf%d", c->flags ? "descending" : "ascending", c->dst); break;
    case K_PARTITION_COPY:
        if (c->flags_buf >= 0) note(L, "_flagged flags buf%d", c->flags_buf);
        else note(L, "_if %s %s", gp_cmp_name(c->cmp), v);
        note(L, " -> buf%d, rejected -> buf%d", c->dst, c->dst2);
        break;
    case K_COUNT: note(L, " %s %s", gp_cmp_name(c->cmp), v); break;
    case K_REDUCE:
    case K_REDUCE_TO_HOST: note(L, " %s -> %s", gp_op_name(c->op), gp_dtype_name(c->out_t)); break;
    case K_HISTOGRAM:
        note(L, " %" PRId64 " bins over [%.17g, %.17g)%s", c->bins, c->lo, c->hi, c->flags ? ", accumulating" : "");
        break;
    case K_HISTOGRAM_EDGES:
        note(L, " %" PRId64 " bins, edges in buf%d%s", c->bins, c->flags_buf, c->flags ? ", accumulating" : "");
        break;
    case K_TRANSPOSE:
        note(L, " as %" PRId64 " x %" PRId64 ", flags %u -> buf%d", c->tp.rows, c->tp.cols, c->tp.flags, c->dst);
        break;
    case K_MEMSET: note(L, " bytes of buf%d set to 0x%02x", c->dst, c->byte); break;
    default: note(L, " -> buf%d", c->dst); break;
    }
    if (c->host) note(L, ", host count");
    if (c->kind == K_SCAN && c->dst == c->in.b) note(L, ", in place");
}

/*
 * A stall: the context's stream waits STALL_MS on the host (a host function
 * in the stream), so the steps after it queue up behind it. A launch or copy
 * the library put on another stream, or made without waiting for the
 * stream, overtakes it and meets its inputs unwritten; with the work ahead
 * still running instead, it would mostly trail that work's writes and pass.
 */
#ifdef GPUPRIM_HAVE_CUDA
static void CUDART_CB sleep_on_stream(void *unused)
{
    (void)unused;
    const struct timespec ts = {0, STALL_MS * 1000000L};
    nanosleep(&ts, NULL);
}
#endif

static gp_status stall(gp_ctx *ctx)
{
#ifdef GPUPRIM_HAVE_CUDA
    if (cudaLaunchHostFunc((cudaStream_t)gp_ctx_stream(ctx), sleep_on_stream, NULL) == cudaSuccess)
        return GP_STATUS_OK;
#endif
    (void)ctx;
    return GP_STATUS_DEVICE_ERROR;
}

/* Makes the call. Its host arguments are copies, clobbered once it returns. */
static void issue(gpt *t, lane *L, const call *c, int step)
{
    if (L->broken) return;
    _Alignas(8) unsigned char value[8];
    _Alignas(8) unsigned char init[8];
    gp_transpose_params tp = c->tp;
    memcpy(value, c->value, sizeof value);
    memcpy(init, c->init, sizeof init);
    const void *in = dev_at(L, c->in);
    void *out = L->buf[c->dst].ptr;
    const uint8_t *flags = c->flags_buf >= 0 ? L->buf[c->flags_buf].ptr : NULL;
    int64_t *count = (int64_t *)(L->results.ptr + step * 8), host_count = -1, *hc = c->host ? &host_count : NULL;
    unsigned char host_out[8];
    const gp_dtype d = c->in.t;
    const int64_t m = c->in.m;
    gp_status s = GP_STATUS_OK;
    switch (c->kind) {
    case K_SCAN:
        s = c->exclusive ? gp_scan_exclusive(L->ctx, in, d, m, c->op, c->give_init ? init : NULL, out, c->out_t)
                         : gp_scan_inclusive(L->ctx, in, d, m, c->op, out, c->out_t);
        break;
    case K_SELECT_FLAGGED: s = gp_select_flagged(L->ctx, in, d, m, flags, out, count, hc); break;
    case K_SELECT_IF: s = gp_select_if(L->ctx, in, d, m, c->cmp, value, out, count, hc); break;
    case K_PARTITION_FLAGGED: s = gp_partition_flagged(L->ctx, in, d, m, flags, out, count, hc); break;
    case K_PARTITION_IF: s = gp_partition_if(L->ctx, in, d, m, c->cmp, value, out, count, hc); break;
    case K_FILTER: s = gp_filter_running_max(L->ctx, in, d, m, c->flags, out, count, hc); break;
    case K_PARTITION_COPY: {
        void *rejected = L->buf[c->dst2].ptr;
        s = flags ? gp_partition_copy_flagged(L->ctx, in, d, m, flags, out, rejected, count, hc)
                  : gp_partition_copy_if(L->ctx, in, d, m, c->cmp, value, out, rejected, count, hc);
        break;
    }
    case K_COUNT: s = gp_count_if(L->ctx, in, d, m, c->cmp, value, c->host ? NULL : count, hc); break;
    case K_REDUCE: s = gp_reduce(L->ctx, in, d, m, c->op, count, c->out_t); break;
    case K_REDUCE_TO_HOST: s = gp_reduce_to_host(L->ctx, in, d, m, c->op, host_out, c->out_t); break;
    case K_HISTOGRAM:
        s = gp_histogram_even(L->ctx, in, d, m, c->bins, c->lo, c->hi, (uint64_t *)L->hist.ptr, c->flags);
        break;
    case K_HISTOGRAM_EDGES:
        s = gp_histogram_edges(L->ctx, in, d, m, c->bins, flags, (uint64_t *)L->hist.ptr, c->flags);
        break;
    case K_TRANSPOSE: s = gp_transpose_ex(L->ctx, in, out, &tp); break;
    case K_COPY: s = gp_copy(L->ctx, out, in, (size_t)m * gpt_size(d)); break;
    case K_MEMSET: s = gp_memset(L->ctx, out, c->byte, (size_t)m * gpt_size(d)); break;
    case K_SET_STREAM: s = gp_ctx_set_stream(L->ctx, c->stream); break;
    case K_STALL: s = stall(L->ctx); break;
    case K_SET_WORKSPACE:
        s = gp_ctx_set_workspace(L->ctx, c->ws_on ? L->workspace : NULL, c->ws_on ? L->ws_bytes : 0);
        break;
    }
    memset(value, 0x5A, sizeof value);
    memset(init, 0x5A, sizeof init);
    memset(&tp, 0x5A, sizeof tp);
    if (s != GP_STATUS_OK) {
        failed_call(t, L, kind_names[c->kind], s);
        return;
    }
    if (c->host)
        GPT_CHECK(t, host_count == c->want_count,
                  "%s: step %d's host count is %" PRId64 ", want %" PRId64 "\n  chain:%s", L->name, step, host_count,
                  c->want_count, L->log);
    if (c->kind == K_REDUCE_TO_HOST)
        GPT_CHECK(t, memcmp(host_out, c->want, gpt_size(c->out_t)) == 0, "%s: step %d's result differs\n  chain:%s",
                  L->name, step, L->log);
}

/* --------------------------------------------------------------- chains */

static const gp_dtype dtypes[] = {GP_DTYPE_I8,  GP_DTYPE_U8,  GP_DTYPE_I16, GP_DTYPE_U16, GP_DTYPE_I32,
                                  GP_DTYPE_U32, GP_DTYPE_I64, GP_DTYPE_U64, GP_DTYPE_F32, GP_DTYPE_F64};

/* The most workspace any step of a chain of up to max_n elements can ask. */
static size_t workspace_needed(gp_ctx *ctx, int64_t max_n)
{
    size_t most = 0, b = 0;
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++) {
        const gp_dtype d = dtypes[i];
        for (gp_dtype o = GP_DTYPE_I8; o <= GP_DTYPE_F64; o++) {
            if (!gpt_widening_ok(d, o)) continue;
            for (gp_op op = GP_OP_SUM; op <= GP_OP_XOR; op++) {
                if (!gpt_op_defined(op, d)) continue;
                if (gp_scan_workspace_size(ctx, d, max_n, op, o, &b) == GP_STATUS_OK && b > most) most = b;
                if (gp_reduce_workspace_size(ctx, d, max_n, op, o, &b) == GP_STATUS_OK && b > most) most = b;
            }
        }
        if (gp_select_workspace_size(ctx, d, max_n, &b) == GP_STATUS_OK && b > most) most = b;
        if (gp_count_workspace_size(ctx, d, max_n, &b) == GP_STATUS_OK && b > most) most = b;
        if (gp_histogram_workspace_size(ctx, d, max_n, MAX_BINS, &b) == GP_STATUS_OK && b > most) most = b;
    }
    return most;
}

/* Frees the chain's buffers; the context goes back to its own scratch and
 * the default stream. */
static void chain_end(gpt *t, lane *L)
{
    for (int b = 0; b < NBUF; b++)
        if (L->buf[b].base) gpt_guarded_free(&L->buf[b]);
    gp_status s = gp_ctx_set_workspace(L->ctx, NULL, 0);
    if (s == GP_STATUS_OK) s = gp_ctx_set_stream(L->ctx, NULL);
    if (s != GP_STATUS_OK) failed_call(t, L, "resetting the context", s);
}

/* Starts a chain: n elements of a random dtype in buffer 0 (and a u8 array
 * in buffer 1, for flags), the rest poisoned; a caller's workspace or not. */
static bool chain_start(gpt *t, lane *L, int64_t n, uint64_t seed)
{
    L->rng = gpt_rng_at(seed, 0);
    L->broken = false;
    L->bins = 0;
    L->log_len = 0;
    L->log[0] = 0;
    L->cap = (size_t)(n > 0 ? n : 1) * 8; /* n never grows, and no dtype is wider than 8 bytes */
    for (int b = 0; b < NBUF; b++) {
        memset(L->mirror[b], POISON, L->cap);
        L->n[b] = 0;
        L->t[b] = GP_DTYPE_U8;
    }
    memset(L->results_mirror, POISON, L->results.bytes);
    memset(L->hist_mirror, POISON, L->hist.bytes);
    const gp_dtype d = dtypes[gpt_below(&L->rng, sizeof dtypes / sizeof dtypes[0])];
    const int kind = (int)gpt_below(&L->rng, 3);
    fill(L->mirror[0], d, n, kind, &L->rng);
    L->t[0] = d;
    L->n[0] = n;
    const unsigned density = (unsigned)gpt_below(&L->rng, 257);
    for (int64_t i = 0; i < n; i++) L->mirror[1][i] = gpt_below(&L->rng, 256) < density ? (uint8_t)(1 + i % 3) : 0;
    L->t[1] = GP_DTYPE_U8;
    L->n[1] = n;
    void *stream = L->streams[gpt_below(&L->rng, (uint64_t)L->nstreams)];
    const bool ws = L->ws_bytes > 0 && gpt_below(&L->rng, 4) == 0;
    note(L, "\n    seed %" PRIu64 ": %" PRId64 " %s (%s data) in buf0, flags of density %u/256 in buf1, %s stream%s",
         seed, n, gp_dtype_name(d), kind == 0 ? "random" : kind == 1 ? "mostly ascending" : "small", density,
         stream ? "a caller's" : "the default", ws ? ", a caller's workspace" : "");
    gp_status s = GP_STATUS_OK;
    for (int b = 0; b < NBUF && s == GP_STATUS_OK; b++) s = gpt_guarded_alloc(L->ctx, &L->buf[b], L->cap);
    if (s == GP_STATUS_OK) s = gp_ctx_set_stream(L->ctx, stream);
    if (s == GP_STATUS_OK) s = gp_ctx_set_workspace(L->ctx, ws ? L->workspace : NULL, ws ? L->ws_bytes : 0);
    for (int b = 0; b < NBUF && s == GP_STATUS_OK; b++) s = gpt_guarded_poison(&L->buf[b], &POISON, 1);
    if (s == GP_STATUS_OK) s = gpt_guarded_poison(&L->results, &POISON, 1);
    if (s == GP_STATUS_OK) s = gpt_guarded_poison(&L->hist, &POISON, 1);
    for (int b = 0; b < 2 && s == GP_STATUS_OK; b++) s = gp_copy_from_host(L->ctx, L->buf[b].ptr, L->mirror[b], L->cap);
    if (s != GP_STATUS_OK) {
        failed_call(t, L, "setting up the chain", s);
        chain_end(t, L);
        return false;
    }
    return true;
}

static void check_buffer(gpt *t, lane *L, gpt_guarded *g, const unsigned char *want, const char *what,
                         unsigned char *got)
{
    char why[256];
    if (!gpt_guarded_check(g, got, why, sizeof why)) {
        gpt_fail(t, "%s: %s: %s\n  chain:%s", L->name, what, why, L->log);
        return;
    }
    size_t i = 0;
    while (i < g->bytes && got[i] == want[i]) i++;
    GPT_CHECK(t, i == g->bytes, "%s: %s differs from the reference first at byte %zu (0x%02x, want 0x%02x)\n  chain:%s",
              L->name, what, i, i < g->bytes ? got[i] : 0, i < g->bytes ? want[i] : 0, L->log);
}

/* Waits for the chain, then checks every buffer whole against its host copy. */
static void chain_check(gpt *t, lane *L, unsigned char *scratch)
{
    gp_status s = gp_ctx_synchronize(L->ctx);
    if (s != GP_STATUS_OK) {
        failed_call(t, L, "gp_ctx_synchronize", s);
        chain_end(t, L);
        return;
    }
    char what[32];
    for (int b = 0; b < NBUF; b++) {
        snprintf(what, sizeof what, "buf%d", b);
        check_buffer(t, L, &L->buf[b], L->mirror[b], what, scratch);
    }
    check_buffer(t, L, &L->results, L->results_mirror, "the counts and results", scratch);
    check_buffer(t, L, &L->hist, L->hist_mirror, "the histogram", scratch);
    chain_end(t, L);
}

/* The host copies hold the largest chain; the device buffers are each
 * chain's own (chain_start). */
static bool lane_init(gpt *t, lane *L, const char *name, gp_ctx *ctx, size_t cap, size_t ws_bytes)
{
    memset(L, 0, sizeof *L);
    L->name = name;
    L->ctx = ctx;
    L->nstreams = 1; /* the default stream; caller streams are added on CUDA */
    bool ok = true;
    for (int b = 0; b < NBUF; b++) ok = ok && (L->mirror[b] = malloc(cap)) != NULL;
    ok = ok && gpt_guarded_alloc(ctx, &L->results, MAX_STEPS * 8) == GP_STATUS_OK;
    ok = ok && gpt_guarded_alloc(ctx, &L->hist, MAX_BINS * 8) == GP_STATUS_OK;
    ok = ok && (L->results_mirror = malloc(MAX_STEPS * 8)) && (L->hist_mirror = malloc(MAX_BINS * 8));
    ok = ok && (ws_bytes == 0 || gp_malloc(ctx, &L->workspace, ws_bytes) == GP_STATUS_OK);
    L->ws_bytes = ws_bytes;
    if (!ok) gpt_fail(t, "%s: could not allocate the chain's buffers", name);
    return ok;
}

static void lane_free(lane *L)
{
    for (int b = 0; b < NBUF; b++) free(L->mirror[b]);
    if (L->results.base) gpt_guarded_free(&L->results);
    if (L->hist.base) gpt_guarded_free(&L->hist);
    free(L->results_mirror);
    free(L->hist_mirror);
    if (L->workspace) gp_free(L->ctx, L->workspace);
}

/* A chain's length: sizes around the tile (4096 elements, 8192 of 1 byte)
 * and look-back window (32 tiles) boundaries, small ones, and large ones
 * up to max_n. */
static int64_t chain_n(gpt_rng *r, int64_t max_n)
{
    static const int64_t edges[] = {1, 31, 4095, 4096, 4097, 8193, 131073, 262145};
    int64_t n;
    switch (gpt_below(r, 3)) {
    case 0: n = edges[gpt_below(r, sizeof edges / sizeof edges[0])]; break;
    case 1: n = 1 + (int64_t)gpt_below(r, 5000); break;
    default: n = max_n / 2 + (int64_t)gpt_below(r, (uint64_t)(max_n / 2)); break;
    }
    return n < max_n ? n : max_n;
}

/* ----------------------------------------------------------------- main */

/* Launches on a wrong stream may hang rather than mismatch: two at once on
 * one look-back arena each wait for the other's tiles. The watchdog turns
 * a chain that has not finished after WATCHDOG_S into a failure that prints
 * the chain, written beforehand, since the handler may only write(). */
static char watchdog_text[2 * LOG_BYTES + 512];
static size_t watchdog_len;

static void watchdog_fired(int sig)
{
    (void)sig;
    const ssize_t w = write(STDOUT_FILENO, watchdog_text, watchdog_len);
    (void)w;
    _exit(1);
}

static void watchdog_note(const char *fmt, ...) GPT_PRINTF(1, 2);
static void watchdog_note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vappend(watchdog_text, sizeof watchdog_text, &watchdog_len, fmt, ap);
    va_end(ap);
}

static void watchdog_arm(const gpt *t, long k, const lane *a, const lane *b)
{
    watchdog_len = 0;
    watchdog_note("FAIL: chain %ld did not finish in %d s: a hang (backend %s, seed = %" PRIu64 ")\n", k, WATCHDOG_S,
                  gp_backend_name(t->backend), t->seed);
    watchdog_note("  %s's chain:%s\n", a->name, a->log);
    if (b) watchdog_note("  %s's chain:%s\n", b->name, b->log);
    watchdog_note("reproduce with: %s --backend %s --seed %" PRIu64 " --case %ld\n", t->name,
                  gp_backend_name(t->backend), t->seed, k);
    fflush(stdout); /* what is printed so far, before the handler's write */
    alarm(WATCHDOG_S);
}

int main(int argc, char **argv)
{
    gpt t;
    gpt_init(&t, argc, argv);
    const bool cuda = t.backend == GP_BACKEND_CUDA;
    /* The CPU backend is synchronous: its chains check the same reference
     * on the same steps, in less time. */
    const int64_t max_n = t.quick ? 20000 : cuda ? (int64_t)1 << 21 : (int64_t)1 << 17;
    const int chains = t.quick ? 12 : cuda ? 48 : 24, pairs = t.quick ? 6 : cuda ? 24 : 8;
    const size_t cap = (size_t)max_n * 8;
    struct sigaction on_alarm;
    memset(&on_alarm, 0, sizeof on_alarm);
    on_alarm.sa_handler = watchdog_fired;
    sigaction(SIGALRM, &on_alarm, NULL);

    gp_ctx *other = NULL;
    gp_status s = gp_ctx_create(&other, t.backend, 0);
    if (s != GP_STATUS_OK) {
        gpt_fail(&t, "could not create a second context: %s", gp_status_name(s));
        return gpt_finish(&t);
    }
    const size_t ws_bytes = workspace_needed(t.ctx, max_n);
    lane a, b;
    unsigned char *scratch = malloc(cap > MAX_BINS * 8 ? cap : MAX_BINS * 8);
    bool ok = scratch && lane_init(&t, &a, "context 1", t.ctx, cap, ws_bytes) &&
              lane_init(&t, &b, "context 2", other, cap, ws_bytes);
#ifdef GPUPRIM_HAVE_CUDA
    cudaStream_t st[3] = {0};
    if (ok && cuda) {
        for (int i = 0; i < 3; i++)
            if (cudaStreamCreateWithFlags(&st[i], cudaStreamNonBlocking) != cudaSuccess) ok = false;
        if (!ok) gpt_fail(&t, "cudaStreamCreateWithFlags failed");
        a.streams[1] = st[0], a.streams[2] = st[1], a.nstreams = 3;
        b.streams[1] = st[2], b.nstreams = 2;
    }
#endif
    printf("%d chains on one context, %d pairs on two, up to %" PRId64 " elements, %d to %d steps; workspace %zu "
           "bytes\n",
           chains, pairs, max_n, 4, MAX_STEPS, ws_bytes);
    long k = 0;
    call *ca = malloc(MAX_STEPS * sizeof *ca), *cb = malloc(MAX_STEPS * sizeof *cb);
    if (!ca || !cb) ok = false;
    for (int c = 0; ok && c < chains + pairs; c++, k++) {
        if (!gpt_selected(&t, k)) continue;
        const bool pair = c >= chains;
        gpt_rng r = gpt_rng_at(gpt_derive(t.seed, (uint64_t)c, 0, 0, 0), 0);
        const int64_t n = chain_n(&r, max_n), m = chain_n(&r, max_n);
        const int steps = 4 + (int)gpt_below(&r, MAX_STEPS - 3);
        const uint64_t seed_a = gpt_next(&r), seed_b = gpt_next(&r);
        if (!chain_start(&t, &a, n, seed_a)) continue;
        if (pair && !chain_start(&t, &b, m, seed_b)) {
            chain_end(&t, &a);
            continue;
        }
        int na = 0, nb = 0;
        while (na < steps && plan(&a, &ca[na], na)) describe(&a, &ca[na], na), na++;
        while (pair && nb < steps && plan(&b, &cb[nb], nb)) describe(&b, &cb[nb], nb), nb++;
        watchdog_arm(&t, k, &a, pair ? &b : NULL);
        for (int i = 0; i < na || i < nb; i++) {
            if (i < na) issue(&t, &a, &ca[i], i);
            if (i < nb) issue(&t, &b, &cb[i], i);
        }
        chain_check(&t, &a, scratch);
        if (pair) chain_check(&t, &b, scratch);
        alarm(0);
    }
    free(ca);
    free(cb);
    lane_free(&a);
    lane_free(&b);
    free(scratch);
#ifdef GPUPRIM_HAVE_CUDA
    for (int i = 0; i < 3; i++)
        if (st[i]) cudaStreamDestroy(st[i]);
#endif
    gp_ctx_free(other);
    return gpt_finish(&t);
}
