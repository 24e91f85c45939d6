/*
 * gp_count_if, gp_histogram_even and gp_histogram_edges against the serial
 * reference (gp_ref_count, gp_ref_histogram_*), driven by one case table:
 * every dtype, every comparison, bin counts on the kernels' boundaries (1, 2,
 * 255, 256, 257, 1024, 4096, 16384, 65536, 2^20), data patterns (uniform
 * with values outside the range, all in one bin, all outside, NaN and
 * infinities, exact boundaries and their neighbours one ulp away, random
 * bits), misaligned inputs, overwrite and accumulate modes. Outputs sit
 * between canaries and are poisoned (or pre-filled, to accumulate) before
 * each call. Then the error paths: nothing may be written when a call fails.
 */
#include "cpu_reference.h"
#include "reduce_data.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

typedef enum hkind { K_COUNT, K_EVEN, K_EDGES } hkind;
static const char *const kind_names[] = {"count", "even", "edges"};

typedef enum hpat {
    HP_UNIFORM,  /* spread over the range and a little past both ends */
    HP_ONE_BIN,  /* one value, inside the range */
    HP_OUTSIDE,  /* nothing inside the range */
    HP_SPECIAL,  /* floats: NaN, +-inf, -0.0 among uniform values */
    HP_BOUNDARY, /* range ends, bin boundaries, and one ulp (or 1) either side */
    HP_BITS,     /* random bit patterns */
    HP_COUNT
} hpat;
static const char *const pat_names[] = {"uniform", "one-bin", "outside", "special", "boundary", "bits"};

typedef struct hcase {
    hkind kind;
    gp_dtype t;
    int64_t n, bins;
    hpat pat;
    gp_cmp cmp;  /* K_COUNT */
    int offset;  /* elements into the input buffer (misaligned vectors) */
    uint64_t seed;
} hcase;

static const gp_dtype dtypes[] = {GP_DTYPE_I8,  GP_DTYPE_U8,  GP_DTYPE_I16, GP_DTYPE_U16, GP_DTYPE_I32,
                                  GP_DTYPE_U32, GP_DTYPE_I64, GP_DTYPE_U64, GP_DTYPE_F32, GP_DTYPE_F64};
static const int64_t small_bins[] = {1, 2, 255, 256, 257, 1024, 4096};
static const int64_t big_bins[] = {16384, 65536, 1 << 20};
static const int64_t hist_sizes[] = {0, 1, 33, 4097, 65537};
/* 4096 and 2^15: the CPU's blocks of 32-bit counts, and its threads. */
static const int64_t count_sizes[] = {0, 1, 31, 32, 33, 1000, 4095, 4096, 4097, 32767, 32768, 65537, (1 << 20) + 1};
enum { SLACK = 16, MAX_OFFSET = 15 };

typedef struct table {
    hcase *c;
    size_t n, cap;
} table;

/* Whether a bins-bin histogram of dtype t can have bins + 1 strictly
 * increasing edges (u8 has no 1025 distinct values). */
static bool edges_exist(gp_dtype t, int64_t bins)
{
    return gpt_is_float(t) || gpt_size(t) >= 8 || bins + 1 <= (int64_t)1 << (8 * gpt_size(t));
}

static void add(table *tb, hcase c)
{
    if (c.kind == K_EDGES && !edges_exist(c.t, c.bins)) return; /* not a case: no such input exists */
    if (tb->n == tb->cap) {
        tb->cap = tb->cap ? 2 * tb->cap : 1024;
        tb->c = realloc(tb->c, tb->cap * sizeof *tb->c);
        if (!tb->c) abort();
    }
    tb->c[tb->n++] = c;
}

static bool pattern_for(hpat p, gp_dtype t) { return p != HP_SPECIAL || gpt_is_float(t); }

static hcase mk(hkind k, gp_dtype t, int64_t n, int64_t bins, hpat p, gp_cmp cmp, int offset, uint64_t seed)
{
    hcase c = {k, t, n, bins, p, cmp, offset, 0};
    c.seed = gpt_derive(seed, (uint64_t)k * 16 + (uint64_t)t, (uint64_t)n, (uint64_t)bins * 8 + (uint64_t)p,
                        (uint64_t)cmp * 64 + (uint64_t)offset);
    return c;
}

static table build_table(uint64_t seed, bool quick)
{
    table tb = {0};
    for (size_t d = 0; d < COUNT(dtypes); d++) {
        gp_dtype t = dtypes[d];
        /* Counting: every comparison, sizes on the warp and vector edges. */
        for (size_t s = 0; s < COUNT(count_sizes); s++)
            for (int cmp = GP_CMP_LT; cmp <= GP_CMP_NE; cmp++)
                for (int p = 0; p < HP_COUNT; p++) {
                    if (!pattern_for((hpat)p, t) || (quick && p != HP_UNIFORM && p != HP_SPECIAL)) continue;
                    add(&tb, mk(K_COUNT, t, count_sizes[s], 0, (hpat)p, (gp_cmp)cmp, 0, seed));
                }
        for (int o = 1; o <= MAX_OFFSET; o += quick ? 7 : 1)
            add(&tb, mk(K_COUNT, t, 1000 + o, 0, HP_UNIFORM, GP_CMP_LT, o, seed));
        add(&tb, mk(K_COUNT, t, 3 * (1 << 22) + 7, 0, HP_UNIFORM, GP_CMP_GE, 3, seed)); /* many blocks */

        /* Histograms: every pattern on the small bin counts. */
        for (int k = K_EVEN; k <= K_EDGES; k++) {
            for (size_t b = 0; b < COUNT(small_bins); b++)
                for (size_t s = 0; s < COUNT(hist_sizes); s++)
                    for (int p = 0; p < HP_COUNT; p++) {
                        if (!pattern_for((hpat)p, t)) continue;
                        if (quick && (s % 2 || (p != HP_UNIFORM && p != HP_BOUNDARY))) continue;
                        add(&tb, mk((hkind)k, t, hist_sizes[s], small_bins[b], (hpat)p, 0, 0, seed));
                    }
            for (size_t b = 0; b < COUNT(big_bins); b++)
                for (int p = HP_UNIFORM; p <= HP_ONE_BIN; p++) {
                    add(&tb, mk((hkind)k, t, 1000, big_bins[b], (hpat)p, 0, 0, seed));
                    if (!quick && p == HP_UNIFORM) add(&tb, mk((hkind)k, t, (1 << 20) + 3, big_bins[b], (hpat)p, 0, 1, seed));
                }
            for (int o = 1; o <= MAX_OFFSET; o += quick ? 7 : 1)
                add(&tb, mk((hkind)k, t, 100 + o, 256, HP_UNIFORM, 0, o, seed));
            /* Either side of the backends' switches: the CUDA shared kernel
             * from n >= bins on, the CPU's threads from 2^15 on (with a
             * private histogram each while each gets 4 items a bin). */
            for (size_t b = 1; b < COUNT(small_bins); b++)
                for (int64_t less = 1; less >= 0; less--)
                    add(&tb, mk((hkind)k, t, small_bins[b] - less, small_bins[b], HP_UNIFORM, 0, 0, seed));
            for (int64_t less = 1; less >= 0; less--) {
                add(&tb, mk((hkind)k, t, (1 << 15) - less, 256, HP_UNIFORM, 0, 0, seed));
                add(&tb, mk((hkind)k, t, (1 << 15) - less, 4096, HP_UNIFORM, 0, 0, seed));
            }
            /* Many blocks, and rounds of shared counters flushed. */
            if (!quick)
                add(&tb, k == K_EVEN ? mk((hkind)k, t, 3 * (1 << 22) + 5, 256, HP_UNIFORM, 0, 1, seed)
                                     : mk((hkind)k, t, 3 * (1 << 22) + 5, 1024, HP_ONE_BIN, 0, 0, seed));
        }
    }
    return tb;
}

/* --------------------------------------------------------- dtype helpers */

/* The dtype's range, as long double (exact for every 64-bit integer). */
static long double tmin(gp_dtype t)
{
    switch (t) {
    case GP_DTYPE_I8: return INT8_MIN;
    case GP_DTYPE_I16: return INT16_MIN;
    case GP_DTYPE_I32: return INT32_MIN;
    case GP_DTYPE_I64: return (long double)INT64_MIN;
    case GP_DTYPE_F32: return -FLT_MAX;
    case GP_DTYPE_F64: return -DBL_MAX;
    default: return 0;
    }
}

static long double tmax(gp_dtype t)
{
    switch (t) {
    case GP_DTYPE_I8: return INT8_MAX;
    case GP_DTYPE_U8: return UINT8_MAX;
    case GP_DTYPE_I16: return INT16_MAX;
    case GP_DTYPE_U16: return UINT16_MAX;
    case GP_DTYPE_I32: return INT32_MAX;
    case GP_DTYPE_U32: return UINT32_MAX;
    case GP_DTYPE_I64: return (long double)INT64_MAX;
    case GP_DTYPE_U64: return (long double)UINT64_MAX;
    case GP_DTYPE_F32: return FLT_MAX;
    default: return DBL_MAX;
    }
}

/* Stores v as element i of t: integers clamped to the range and truncated
 * toward zero (the data needs any integer near v, and integral v stay
 * exact; roundl is a library call, and a slow one where long double is
 * software, as on aarch64), floats rounded to nearest (NaN and infinities
 * kept). */
static void put(void *buf, gp_dtype t, int64_t i, long double v)
{
    if (!gpt_is_float(t)) {
        long double lo = tmin(t), hi = tmax(t);
        if (v != v) v = 0;
        if (v < lo) v = lo;
        if (v > hi) v = hi;
    }
    switch (t) {
    case GP_DTYPE_I8: ((int8_t *)buf)[i] = (int8_t)v; break;
    case GP_DTYPE_U8: ((uint8_t *)buf)[i] = (uint8_t)v; break;
    case GP_DTYPE_I16: ((int16_t *)buf)[i] = (int16_t)v; break;
    case GP_DTYPE_U16: ((uint16_t *)buf)[i] = (uint16_t)v; break;
    case GP_DTYPE_I32: ((int32_t *)buf)[i] = (int32_t)v; break;
    case GP_DTYPE_U32: ((uint32_t *)buf)[i] = (uint32_t)v; break;
    case GP_DTYPE_I64: ((int64_t *)buf)[i] = (int64_t)v; break;
    case GP_DTYPE_U64: ((uint64_t *)buf)[i] = (uint64_t)v; break;
    case GP_DTYPE_F32: ((float *)buf)[i] = (float)v; break;
    case GP_DTYPE_F64: ((double *)buf)[i] = (double)v; break;
    }
}

/* The neighbour of v in t one step up (dir > 0) or down: 1 for integers,
 * one ulp of t for floats. */
static long double step(gp_dtype t, long double v, int dir)
{
    if (t == GP_DTYPE_F32) return nextafterf((float)v, dir > 0 ? INFINITY : -INFINITY);
    if (t == GP_DTYPE_F64) return nextafter((double)v, dir > 0 ? INFINITY : -INFINITY);
    return v + dir;
}

static void put_bits(void *buf, gp_dtype t, int64_t i, uint64_t bits)
{
    memcpy((unsigned char *)buf + (size_t)i * gpt_size(t), &bits, gpt_size(t)); /* little-endian */
}

/* put for a double, the per-element draws' type: exact for every dtype but
 * the 64-bit integers, whose ends a double cannot hold and which go through
 * put. Long double is software on aarch64 (IEEE quad), where put alone kept
 * the suite at 5 minutes under qemu. */
static void put_d(void *buf, gp_dtype t, int64_t i, double v)
{
    if (t == GP_DTYPE_F32) ((float *)buf)[i] = (float)v;
    else if (t == GP_DTYPE_F64) ((double *)buf)[i] = v;
    else if (gpt_size(t) == 8) put(buf, t, i, v);
    else {
        double lo = (double)tmin(t), hi = (double)tmax(t);
        if (v != v) v = 0;
        put_bits(buf, t, i, (uint64_t)(int64_t)(v < lo ? lo : v > hi ? hi : v)); /* truncated, as put */
    }
}

/* ------------------------------------------------------------ bin layouts */

/* Even bins over [lower, upper): integer ends for integer dtypes; for 8- and
 * 16-bit ones often the whole range, the common case. */
static void even_range(const hcase *c, gpt_rng *r, double *lower, double *upper)
{
    gp_dtype t = c->t;
    if (gpt_is_float(t)) {
        if (gpt_below(r, 4) == 0) {
            *lower = 0.0, *upper = 1.0;
            return;
        }
        double w = pow(10.0, (double)gpt_below(r, 7) - 3.0) * (0.5 + gpt_uniform(r));
        *lower = (gpt_uniform(r) - 0.5) * 2000.0;
        *upper = *lower + w;
        return;
    }
    if (gpt_size(t) <= 2 && gpt_below(r, 2) == 0) {
        *lower = (double)tmin(t), *upper = (double)tmax(t) + 1.0;
        return;
    }
    /* A random integer span inside the dtype (for 64-bit ones within 2^62). */
    long double lo = tmin(t), hi = tmax(t);
    if (gpt_size(t) == 8) lo = lo < -0x1p62L ? -0x1p62L : lo, hi = 0x1p62L;
    long double a = lo + floorl((hi - lo) * gpt_uniform(r)), b = lo + floorl((hi - lo) * gpt_uniform(r));
    if (gpt_below(r, 2)) b = a + 1 + gpt_below(r, 3 * (uint64_t)c->bins + 10); /* about bins wide */
    if (b > hi) b = hi;
    if (a == b) b = a + 1;
    *lower = (double)(a < b ? a : b), *upper = (double)(a < b ? b : a);
    while (*upper <= *lower) *upper = nextafter(*upper, INFINITY); /* 64-bit ends a few ulp apart */
}

/* bins + 1 strictly ascending edges of t (as long double and stored in
 * `edges`), or false if t has too few values. */
static bool make_edges(const hcase *c, gpt_rng *r, void *edges, long double *e)
{
    gp_dtype t = c->t;
    int64_t m = c->bins + 1;
    if (!gpt_is_float(t)) {
        long double lo = tmin(t), hi = tmax(t);
        if (gpt_size(t) == 8) lo = lo < -0x1p62L ? -0x1p62L : lo, hi = 0x1p62L;
        if (!edges_exist(t, c->bins)) return false;
        long double span = hi - lo + 1;
        long double avg = floorl(span / (long double)m);
        if (avg > 1000) avg = 1 + (long double)gpt_below(r, 1000);
        long double room = span - avg * (long double)m; /* free values to start from */
        long double v = lo + floorl(room * gpt_uniform(r));
        for (int64_t i = 0; i < m; i++) {
            e[i] = v;
            v += 1 + (long double)gpt_below(r, (uint64_t)avg);
        }
    } else {
        bool infinite_ends = c->pat == HP_BOUNDARY && m >= 3;
        long double v = (gpt_uniform(r) - 0.5) * 200.0, w = 0.001 + 10.0 * gpt_uniform(r);
        for (int64_t i = 0; i < m; i++) {
            long double x = v;
            if (t == GP_DTYPE_F32) x = (float)x;
            else x = (double)x;
            if (i > 0 && x <= e[i - 1]) x = step(t, e[i - 1], 1);
            e[i] = x;
            v += w * (0.1 + gpt_uniform(r)) / (long double)m * 8;
        }
        if (c->pat == HP_BOUNDARY && e[0] < 0 && e[m - 1] > 0) { /* 0.0 as an edge, for -0.0 data */
            for (int64_t i = 1; i < m - 1; i++)
                if (e[i - 1] < 0 && e[i + 1] > 0) {
                    e[i] = 0;
                    break;
                }
        }
        if (infinite_ends) e[0] = -INFINITY, e[m - 1] = INFINITY;
    }
    for (int64_t i = 0; i < m; i++) put(edges, t, i, e[i]);
    return true;
}

/* A draw over [flo, flo + w) and an eighth of w beyond each end. */
static double spread(gpt_rng *r, double flo, double w) { return flo - w / 8 + w * 1.25 * gpt_uniform(r); }

/* The data of a histogram case, over [lo, hi) (the range or the outer edges);
 * `marks` are the bin boundaries the boundary pattern probes. */
static void fill_hist(const hcase *c, gpt_rng *r, void *x, long double lo, long double hi, const long double *marks,
                      int64_t nmarks)
{
    gp_dtype t = c->t;
    long double w = hi - lo;
    if (w != w || w > 1e300L || w < 0) w = 1000; /* infinite edges */
    long double flo = isinf(lo) ? -500.0L : lo, fhi = isinf(hi) ? 500.0L : hi;
    long double one = flo + (fhi - flo) * 0.37L;
    const double dw = (double)w, dflo = (double)flo; /* the draws that need not be exact, in double */
    for (int64_t i = 0; i < c->n; i++) {
        long double v;
        switch (c->pat) {
        case HP_ONE_BIN:
            if (i) { /* element 0's bytes again */
                memcpy((unsigned char *)x + (size_t)i * gpt_size(t), x, gpt_size(t));
                continue;
            }
            v = one;
            break;
        case HP_OUTSIDE:
            v = gpt_below(r, 2) ? flo - 1 - w * gpt_uniform(r) : fhi + w * gpt_uniform(r);
            if (!gpt_is_float(t) && v < tmin(t)) v = fhi + 1; /* no room below: go above */
            if (!gpt_is_float(t) && v > tmax(t)) v = flo - 1;
            break;
        case HP_SPECIAL: {
            static const double sp[] = {NAN, INFINITY, -INFINITY, -0.0, 0.0};
            bool special = gpt_below(r, 3) == 0;
            put_d(x, t, i, special ? sp[gpt_below(r, COUNT(sp))] : spread(r, dflo, dw));
            continue;
        }
        case HP_BOUNDARY: {
            long double m = marks[gpt_below(r, (uint64_t)nmarks)];
            int d = (int)gpt_below(r, 3) - 1;
            v = d ? step(t, m, d) : m;
            if (gpt_is_float(t) && gpt_below(r, 16) == 0) v = -0.0L;
            break;
        }
        case HP_BITS: put_bits(x, t, i, gpt_next(r)); continue;
        default: put_d(x, t, i, spread(r, dflo, dw)); continue;
        }
        put(x, t, i, v);
    }
}

/* ------------------------------------------------------------------ state */

typedef struct bufs {
    unsigned char *host, *dev; /* the input image: offset + n + SLACK elements */
    size_t cap;
    void *host_edges, *dev_edges;
    long double *e;
    uint64_t *ref, *got, *prefill;
    size_t hist_cap; /* bins the three host arrays hold */
} bufs;

static void describe(const hcase *c, long k, char *s, size_t size)
{
    snprintf(s, size, "case %ld: %s %s n=%" PRId64 " bins=%" PRId64 " pattern=%s%s%s offset=%d data_seed=0x%016" PRIx64,
             k, kind_names[c->kind], gp_dtype_name(c->t), c->n, c->bins, pat_names[c->pat],
             c->kind == K_COUNT ? " cmp=" : "", c->kind == K_COUNT ? gp_cmp_name(c->cmp) : "", c->offset, c->seed);
}

/* The bytes of the input with the slack either side. */
static size_t image_bytes(const hcase *c) { return (size_t)(c->offset + c->n + SLACK) * gpt_size(c->t); }

/* Fills the slack around the input with values that would change any
 * result if read (NaN for floats, random bits for integers), the input
 * itself by `fill`, and uploads the image. */
static gp_status upload(gpt *t, bufs *b, const hcase *c)
{
    size_t bytes = image_bytes(c);
    gpt_rng r = {c->seed ^ 0x51ac};
    for (int64_t i = 0; i < c->offset + c->n + SLACK; i++) {
        if (i == c->offset) i += c->n;
        if (i >= c->offset + c->n + SLACK) break;
        if (gpt_is_float(c->t)) put(b->host, c->t, i, NAN);
        else put_bits(b->host, c->t, i, gpt_next(&r));
    }
    return gp_copy_from_host(t->ctx, b->dev, b->host, bytes);
}

/* ------------------------------------------------------------------ count */

static void run_count(gpt *t, long k, const hcase *c, bufs *b)
{
    char desc[320];
    describe(c, k, desc, sizeof desc);
    gpt_rng r = {c->seed};
    void *x = b->host + (size_t)c->offset * gpt_size(c->t);
    double lower, upper;
    even_range(c, &r, &lower, &upper);
    long double marks[2] = {lower, upper};
    fill_hist(c, &r, x, lower, upper, marks, 2);
    /* The constant: an element of the data (so EQ finds some), else special. */
    unsigned char value[8] = {0};
    if (c->n > 0 && gpt_below(&r, 4) != 0) memcpy(value, (unsigned char *)x + gpt_below(&r, (uint64_t)c->n) * gpt_size(c->t), gpt_size(c->t));
    else if (gpt_is_float(c->t)) put(value, c->t, 0, gpt_below(&r, 2) ? NAN : -INFINITY);
    else put(value, c->t, 0, gpt_below(&r, 2) ? tmin(c->t) : tmax(c->t));
    gp_status s = upload(t, b, c);
    if (s != GP_STATUS_OK) {
        gpt_fail(t, "%s: uploading the input gave %s", desc, gp_status_name(s));
        return;
    }
    const void *din = c->n ? b->dev + (size_t)c->offset * gpt_size(c->t) : NULL;
    int64_t ref = gp_ref_count(x, c->t, c->n, c->cmp, value);

    gpt_guarded g;
    if (gpt_guarded_alloc(t->ctx, &g, sizeof(int64_t)) != GP_STATUS_OK) {
        gpt_fail(t, "%s: could not allocate the count", desc);
        return;
    }
    const int64_t poison = (int64_t)0xA5A5A5A5A5A5A5A5ull;
    char why[256] = "";
    int64_t got = poison, host = poison;
    bool ok = gpt_guarded_poison(&g, &poison, sizeof poison) == GP_STATUS_OK;
    s = gp_count_if(t->ctx, din, c->t, c->n, c->cmp, value, (int64_t *)g.ptr, &host);
    if (s != GP_STATUS_OK) snprintf(why, sizeof why, "gp_count_if returned %s", gp_status_name(s));
    else if (!gpt_guarded_check(&g, &got, why, sizeof why)) {
    } else if (got != ref || host != ref)
        snprintf(why, sizeof why, "count %" PRId64 ", host_count %" PRId64 ", expected %" PRId64, got, host, ref);
    ok = ok && !why[0];
    /* Each output alone. */
    if (ok) {
        got = poison;
        gpt_guarded_poison(&g, &poison, sizeof poison);
        s = gp_count_if(t->ctx, din, c->t, c->n, c->cmp, value, (int64_t *)g.ptr, NULL);
        if (s != GP_STATUS_OK || !gpt_guarded_check(&g, &got, why, sizeof why) || got != ref)
            ok = false, snprintf(why + strlen(why), sizeof why - strlen(why), " count only: %s, %" PRId64,
                                 gp_status_name(s), got);
    }
    if (ok) {
        host = poison;
        s = gp_count_if(t->ctx, din, c->t, c->n, c->cmp, value, NULL, &host);
        if (s != GP_STATUS_OK || host != ref)
            ok = false, snprintf(why, sizeof why, "host_count only: %s, %" PRId64 " expected %" PRId64,
                                 gp_status_name(s), host, ref);
    }
    gpt_guarded_free(&g);
    /* The input and its slack are const. */
    if (ok) ok = gpt_unchanged(t->ctx, b->dev, b->host, image_bytes(c), "input or its slack", why, sizeof why);
    if (ok) gpt_pass(t);
    else gpt_fail(t, "%s: %s", desc, why);
}

/* -------------------------------------------------------------- histograms */

static bool hist_matches(const uint64_t *got, const uint64_t *want, int64_t bins, char *why, size_t size)
{
    for (int64_t i = 0; i < bins; i++)
        if (got[i] != want[i]) {
            snprintf(why, size, "bin %" PRId64 " holds %" PRIu64 ", expected %" PRIu64, i, got[i], want[i]);
            return false;
        }
    return true;
}

/* One call into a guarded histogram pre-filled with `pre` (poison or the
 * counts to add to); checks the status, the canaries and every bin. */
static bool call_hist(gpt *t, const hcase *c, bufs *b, const void *din, double lower, double upper, unsigned flags,
                      const uint64_t *pre, const uint64_t *want, char *why, size_t size)
{
    gpt_guarded g;
    size_t hb = (size_t)c->bins * sizeof(uint64_t);
    if (gpt_guarded_alloc(t->ctx, &g, hb) != GP_STATUS_OK) {
        snprintf(why, size, "could not allocate the histogram");
        return false;
    }
    bool ok = false;
    gp_status s = gpt_guarded_poison(&g, pre, hb);
    if (s == GP_STATUS_OK)
        s = c->kind == K_EVEN ? gp_histogram_even(t->ctx, din, c->t, c->n, c->bins, lower, upper, (uint64_t *)g.ptr, flags)
                              : gp_histogram_edges(t->ctx, din, c->t, c->n, c->bins, b->dev_edges, (uint64_t *)g.ptr, flags);
    const char *mode = flags ? "accumulate" : "overwrite";
    if (s != GP_STATUS_OK) snprintf(why, size, "%s: returned %s (%s)", mode, gp_status_name(s), gp_ctx_last_error(t->ctx));
    else if (!gpt_guarded_check(&g, b->got, why, size)) {
    } else if (hist_matches(b->got, want, c->bins, why, size)) ok = true;
    if (!ok && s == GP_STATUS_OK) {
        char tmp[256];
        snprintf(tmp, sizeof tmp, "%s: %s", mode, why);
        snprintf(why, size, "%s", tmp);
    }
    gpt_guarded_free(&g);
    return ok;
}

static void run_hist(gpt *t, long k, const hcase *c, bufs *b)
{
    char desc[320], why[320] = "";
    describe(c, k, desc, sizeof desc);
    gpt_rng r = {c->seed};
    void *x = b->host + (size_t)c->offset * gpt_size(c->t);
    double lower = 0, upper = 0;
    long double lo, hi;
    int64_t nmarks = 0;
    long double *marks = b->e; /* edges, or the even boundaries */
    if (c->kind == K_EDGES) {
        if (!make_edges(c, &r, b->host_edges, b->e)) { /* build_table leaves such cases out */
            gpt_fail(t, "%s: the dtype has fewer than bins + 1 values", desc);
            return;
        }
        lo = b->e[0], hi = b->e[c->bins];
        nmarks = c->bins + 1;
    } else {
        even_range(c, &r, &lower, &upper);
        lo = lower, hi = upper;
        for (int64_t i = 0; i <= c->bins; i++) marks[nmarks++] = lower + (upper - lower) * (double)i / (double)c->bins;
    }
    fill_hist(c, &r, x, lo, hi, marks, nmarks);
    gp_status s = upload(t, b, c);
    if (s == GP_STATUS_OK && c->kind == K_EDGES)
        s = gp_copy_from_host(t->ctx, b->dev_edges, b->host_edges, (size_t)(c->bins + 1) * gpt_size(c->t));
    if (s != GP_STATUS_OK) {
        gpt_fail(t, "%s: uploading gave %s", desc, gp_status_name(s));
        return;
    }
    const void *din = c->n ? b->dev + (size_t)c->offset * gpt_size(c->t) : NULL;
    if (c->kind == K_EVEN) gp_ref_histogram_even(x, c->t, c->n, c->bins, lower, upper, b->ref, 0);
    else gp_ref_histogram_edges(x, c->t, c->n, c->bins, b->host_edges, b->ref, 0);

    /* Overwrite: the poison must go from every bin. */
    for (int64_t i = 0; i < c->bins; i++) b->prefill[i] = 0xA5A5A5A5A5A5A5A5ull;
    bool ok = call_hist(t, c, b, din, lower, upper, 0, b->prefill, b->ref, why, sizeof why);
    /* Accumulate: onto random counts. */
    if (ok) {
        for (int64_t i = 0; i < c->bins; i++) b->prefill[i] = gpt_next(&r) >> 24;
        uint64_t *want = b->e ? (uint64_t *)b->e : NULL; /* reuse: marks are no longer needed */
        for (int64_t i = 0; i < c->bins; i++) want[i] = b->prefill[i] + b->ref[i];
        ok = call_hist(t, c, b, din, lower, upper, GP_HISTOGRAM_ACCUMULATE, b->prefill, want, why, sizeof why);
    }
    /* The input, its slack and the edges are const. */
    if (ok) ok = gpt_unchanged(t->ctx, b->dev, b->host, image_bytes(c), "input or its slack", why, sizeof why);
    if (ok && c->kind == K_EDGES)
        ok = gpt_unchanged(t->ctx, b->dev_edges, b->host_edges, (size_t)(c->bins + 1) * gpt_size(c->t), "edges", why,
                           sizeof why);
    if (ok) gpt_pass(t);
    else gpt_fail(t, "%s: %s", desc, why);
}

/* ------------------------------------------------------ integers in even bins */

/* Integers L .. L + span - 1 in `span / d` even bins over [L, L + span):
 * v must land in bin (v - L) / d, counted here in integers, not by the
 * formula. The product before the quotient (gpuprim.h) is what makes
 * this hold: divided first, 15 of [0, 22) in 22 bins came to 14.999...
 * and fell in bin 14. The reference is held to the same answer. */
static void run_integer_bins(gpt *t)
{
    static const int64_t spans[] = {3, 7, 10, 22, 49, 100, 255, 999, 1000, 4097};
    static const int64_t steps[] = {1, 2, 3, 7};
    static const gp_dtype types[] = {GP_DTYPE_I16, GP_DTYPE_I32, GP_DTYPE_U32, GP_DTYPE_F32, GP_DTYPE_F64};
    const int64_t most = 3 * 4097;
    void *x = malloc((size_t)most * 8), *dx = NULL, *dh = NULL;
    uint64_t *want = malloc(4097 * 8), *got = malloc(4097 * 8), *ref = malloc(4097 * 8);
    if (!x || !want || !got || !ref || gp_malloc(t->ctx, &dx, (size_t)most * 8) != GP_STATUS_OK ||
        gp_malloc(t->ctx, &dh, 4097 * 8) != GP_STATUS_OK) {
        gpt_fail(t, "integer bins: could not allocate");
        goto done;
    }
    gpt_rng r = {gpt_derive(t->seed, 0x1b, 0, 0, 0)};
    for (size_t si = 0; si < sizeof spans / sizeof spans[0]; si++)
        for (size_t di = 0; di < sizeof steps / sizeof steps[0]; di++)
            for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
                const int64_t span = spans[si], d = steps[di], bins = span / d;
                const gp_dtype ty = types[ti];
                if (span % d != 0) continue;
                /* Below zero where the dtype has it, else from 1000. */
                const int64_t lower = ty == GP_DTYPE_U32 ? 1000 : -(span / 2) - (int64_t)gpt_below(&r, 1000);
                if ((long double)lower + span > tmax(ty)) continue;
                /* Every integer once, then as many at random. */
                const int64_t n = 2 * span;
                for (int64_t b = 0; b < bins; b++) want[b] = 0;
                for (int64_t i = 0; i < n; i++) {
                    const int64_t v = i < span ? i : (int64_t)gpt_below(&r, (uint64_t)span);
                    put(x, ty, i, (long double)(lower + v));
                    want[v / d]++;
                }
                const double lo = (double)lower, hi = (double)(lower + span);
                gp_ref_histogram_even(x, ty, n, bins, lo, hi, ref, 0);
                gp_status s = gp_copy_from_host(t->ctx, dx, x, (size_t)n * gpt_size(ty));
                if (s == GP_STATUS_OK) s = gp_histogram_even(t->ctx, dx, ty, n, bins, lo, hi, (uint64_t *)dh, 0);
                if (s == GP_STATUS_OK) s = gp_copy_to_host(t->ctx, got, dh, (size_t)bins * 8);
                char why[160] = "";
                bool ok = s == GP_STATUS_OK && hist_matches(got, want, bins, why, sizeof why);
                GPT_CHECK(t, ok, "integers %lld .. %lld of %s in %lld bins: %s %s", (long long)lower,
                          (long long)(lower + span - 1), gp_dtype_name(ty), (long long)bins, gp_status_name(s), why);
                ok = hist_matches(ref, want, bins, why, sizeof why);
                GPT_CHECK(t, ok, "the reference, integers %lld .. %lld of %s in %lld bins: %s", (long long)lower,
                          (long long)(lower + span - 1), gp_dtype_name(ty), (long long)bins, why);
            }
done:
    gp_free(t->ctx, dx);
    gp_free(t->ctx, dh);
    free(x);
    free(want);
    free(got);
    free(ref);
}

/* -------------------------------------------------------------- error paths */

/* A poisoned histogram must come back untouched from a failing call. */
#define EXPECT_FAIL(t, g, status, call, what)                                                          \
    do {                                                                                               \
        gpt_guarded_poison(&(g), poison, sizeof poison);                                              \
        gp_status st_ = (call);                                                                        \
        uint64_t back_[4];                                                                             \
        char w_[256] = "";                                                                             \
        bool intact_ = gpt_guarded_check(&(g), back_, w_, sizeof w_) && memcmp(back_, poison, sizeof back_) == 0; \
        GPT_CHECK(t, st_ == (status) && intact_, "%s: got %s (expected %s)%s%s", what, gp_status_name(st_), \
                  gp_status_name(status), intact_ ? "" : ", output written: ", w_);                    \
    } while (0)

static void run_errors(gpt *t)
{
    gp_ctx *ctx = t->ctx;
    int32_t hx[64];
    for (int i = 0; i < 64; i++) hx[i] = i - 20;
    float fe[5] = {0, 1, 2, 3, 4};
    int32_t *in = NULL;
    void *edges = NULL;
    gpt_guarded g;
    if (gp_malloc(ctx, (void **)&in, sizeof hx) != GP_STATUS_OK || gp_malloc(ctx, &edges, 64) != GP_STATUS_OK ||
        gpt_guarded_alloc(ctx, &g, 4 * sizeof(uint64_t)) != GP_STATUS_OK) {
        gpt_fail(t, "errors: could not allocate");
        return;
    }
    gp_copy_from_host(ctx, in, hx, sizeof hx);
    static const uint64_t poison[4] = {0xA5A5A5A5A5A5A5A5ull, 0xA5A5A5A5A5A5A5A5ull, 0xA5A5A5A5A5A5A5A5ull,
                                       0xA5A5A5A5A5A5A5A5ull};
    uint64_t *h = (uint64_t *)g.ptr;
    int32_t v = 3;
    int64_t hc = 0;

    /* Counting. */
    GPT_CHECK(t, gp_count_if(NULL, in, GP_DTYPE_I32, 64, GP_CMP_LT, &v, NULL, &hc) == GP_STATUS_NULL_POINTER, "count: ctx NULL");
    EXPECT_FAIL(t, g, GP_STATUS_NULL_POINTER, gp_count_if(ctx, in, GP_DTYPE_I32, 64, GP_CMP_LT, NULL, (int64_t *)h, NULL), "count: value NULL");
    GPT_CHECK(t, gp_count_if(ctx, in, GP_DTYPE_I32, 64, GP_CMP_LT, &v, NULL, NULL) == GP_STATUS_NULL_POINTER, "count: no output");
    EXPECT_FAIL(t, g, GP_STATUS_NULL_POINTER, gp_count_if(ctx, NULL, GP_DTYPE_I32, 64, GP_CMP_LT, &v, (int64_t *)h, NULL), "count: in NULL");
    EXPECT_FAIL(t, g, GP_STATUS_INVALID_SIZE, gp_count_if(ctx, in, GP_DTYPE_I32, -1, GP_CMP_LT, &v, (int64_t *)h, NULL), "count: n < 0");
    EXPECT_FAIL(t, g, GP_STATUS_INVALID_DTYPE, gp_count_if(ctx, in, (gp_dtype)99, 64, GP_CMP_LT, &v, (int64_t *)h, NULL), "count: bad dtype");
    EXPECT_FAIL(t, g, GP_STATUS_INVALID_ARGUMENT, gp_count_if(ctx, in, GP_DTYPE_I32, 64, (gp_cmp)0, &v, (int64_t *)h, NULL), "count: cmp 0");
    EXPECT_FAIL(t, g, GP_STATUS_INVALID_ARGUMENT, gp_count_if(ctx, in, GP_DTYPE_I32, 64, (gp_cmp)7, &v, (int64_t *)h, NULL), "count: cmp 7");
    EXPECT_FAIL(t, g, GP_STATUS_INVALID_ARGUMENT, gp_count_if(ctx, (char *)in + 1, GP_DTYPE_I32, 8, GP_CMP_LT, &v, (int64_t *)h, NULL), "count: misaligned in");
    GPT_CHECK(t, gp_count_if(ctx, in, GP_DTYPE_I32, 64, GP_CMP_LT, &v, (int64_t *)(in + 4), NULL) == GP_STATUS_INVALID_ARGUMENT, "count: count inside the input");
    hc = -1;
    GPT_CHECK(t, gp_count_if(ctx, NULL, GP_DTYPE_I32, 0, GP_CMP_NE, &v, NULL, &hc) == GP_STATUS_OK && hc == 0, "count: n = 0 gives %" PRId64, hc);

    /* Even histograms. */
    EXPECT_FAIL(t, g, GP_STATUS_NULL_POINTER, gp_histogram_even(ctx, NULL, GP_DTYPE_I32, 64, 4, 0, 4, h, 0), "even: in NULL");
    GPT_CHECK(t, gp_histogram_even(ctx, in, GP_DTYPE_I32, 64, 4, 0, 4, NULL, 0) == GP_STATUS_NULL_POINTER, "even: hist NULL");
    GPT_CHECK(t, gp_histogram_even(NULL, in, GP_DTYPE_I32, 64, 4, 0, 4, h, 0) == GP_STATUS_NULL_POINTER, "even: ctx NULL");
    EXPECT_FAIL(t, g, GP_STATUS_INVALID_SIZE, gp_histogram_even(ctx, in, GP_DTYPE_I32, -5, 4, 0, 4, h, 0), "even: n < 0");
    EXPECT_FAIL(t, g, GP_STATUS_INVALID_SIZE, gp_histogram_even(ctx, in, GP_DTYPE_I32, 64, 0, 0, 4, h, 0), "even: 0 bins");
    EXPECT_FAIL(t, g, GP_STATUS_INVALID_SIZE, gp_histogram_even(ctx, in, GP_DTYPE_I32, 64, (1 << 20) + 1, 0, 4, h, 0), "even: 2^20 + 1 bins");
    EXPECT_FAIL(t, g, GP_STATUS_INVALID_DTYPE, gp_histogram_even(ctx, in, (gp_dtype)0, 64, 4, 0, 4, h, 0), "even: dtype 0");
    EXPECT_FAIL(t, g, GP_STATUS_INVALID_ARGUMENT, gp_histogram_even(ctx, in, GP_DTYPE_I32, 64, 4, 4, 4, h, 0), "even: lower == upper");
    EXPECT_FAIL(t, g, GP_STATUS_INVALID_ARGUMENT, gp_histogram_even(ctx, in, GP_DTYPE_I32, 64, 4, 5, 4, h, 0), "even: lower > upper");
    EXPECT_FAIL(t, g, GP_STATUS_INVALID_ARGUMENT, gp_histogram_even(ctx, in, GP_DTYPE_I32, 64, 4, NAN, 4, h, 0), "even: NaN lower");
    EXPECT_FAIL(t, g, GP_STATUS_INVALID_ARGUMENT, gp_histogram_even(ctx, in, GP_DTYPE_I32, 64, 4, 0, INFINITY, h, 0), "even: infinite upper");
    EXPECT_FAIL(t, g, GP_STATUS_INVALID_ARGUMENT, gp_histogram_even(ctx, in, GP_DTYPE_I32, 64, 4, -DBL_MAX, DBL_MAX, h, 0), "even: width overflows");
    EXPECT_FAIL(t, g, GP_STATUS_INVALID_ARGUMENT, gp_histogram_even(ctx, in, GP_DTYPE_I32, 64, 4, 0, 4, h, 2), "even: unknown flag");
    EXPECT_FAIL(t, g, GP_STATUS_INVALID_ARGUMENT, gp_histogram_even(ctx, (char *)in + 2, GP_DTYPE_I32, 8, 4, 0, 4, h, 0), "even: misaligned in");
    GPT_CHECK(t, gp_histogram_even(ctx, in, GP_DTYPE_I32, 64, 4, 0, 4, (uint64_t *)(in + 2), 0) == GP_STATUS_INVALID_ARGUMENT, "even: hist inside the input");
    GPT_CHECK(t, gp_histogram_even(ctx, in, GP_DTYPE_I32, 64, 4, 0, 4, (uint64_t *)((char *)h + 4), 0) == GP_STATUS_INVALID_ARGUMENT, "even: hist misaligned");

    /* n = 0: overwrite clears, accumulate keeps. */
    uint64_t back[4];
    char w[256];
    gpt_guarded_poison(&g, poison, sizeof poison);
    gp_status s = gp_histogram_even(ctx, NULL, GP_DTYPE_I32, 0, 4, 0, 4, h, 0);
    GPT_CHECK(t, s == GP_STATUS_OK && gpt_guarded_check(&g, back, w, sizeof w) && !back[0] && !back[1] && !back[2] && !back[3],
              "even: n = 0 must clear the bins (%s)", gp_status_name(s));
    gpt_guarded_poison(&g, poison, sizeof poison);
    s = gp_histogram_even(ctx, NULL, GP_DTYPE_I32, 0, 4, 0, 4, h, GP_HISTOGRAM_ACCUMULATE);
    GPT_CHECK(t, s == GP_STATUS_OK && gpt_guarded_check(&g, back, w, sizeof w) && memcmp(back, poison, sizeof back) == 0,
              "even: n = 0 accumulating must keep the bins (%s)", gp_status_name(s));

    /* Edges. */
    gp_copy_from_host(ctx, edges, fe, sizeof fe);
    EXPECT_FAIL(t, g, GP_STATUS_NULL_POINTER, gp_histogram_edges(ctx, in, GP_DTYPE_F32, 16, 4, NULL, h, 0), "edges: edges NULL");
    float bad[][5] = {{0, 1, 1, 3, 4}, {0, 2, 1, 3, 4}, {0, 1, NAN, 3, 4}, {NAN, 1, 2, 3, 4}, {0, 1, 2, 3, -INFINITY}};
    for (size_t i = 0; i < COUNT(bad); i++) {
        gp_copy_from_host(ctx, edges, bad[i], sizeof bad[i]);
        char what[64];
        snprintf(what, sizeof what, "edges: unordered edges %zu", i);
        EXPECT_FAIL(t, g, GP_STATUS_INVALID_ARGUMENT, gp_histogram_edges(ctx, in, GP_DTYPE_F32, 16, 4, edges, h, 0), what);
    }
    gp_copy_from_host(ctx, edges, fe, sizeof fe);
    EXPECT_FAIL(t, g, GP_STATUS_INVALID_ARGUMENT, gp_histogram_edges(ctx, in, GP_DTYPE_F32, 16, 4, (char *)edges + 2, h, 0), "edges: misaligned edges");
    EXPECT_FAIL(t, g, GP_STATUS_INVALID_ARGUMENT, gp_histogram_edges(ctx, in, GP_DTYPE_F32, 16, 4, edges, h, 4), "edges: unknown flag");
    GPT_CHECK(t, gp_histogram_edges(ctx, in, GP_DTYPE_F32, 16, 2, edges, (uint64_t *)edges, 0) == GP_STATUS_INVALID_ARGUMENT, "edges: hist over the edges");

    /* Workspace: too small fails before writing; exactly enough works. */
    size_t ws = 0;
    GPT_CHECK(t, gp_histogram_workspace_size(ctx, GP_DTYPE_I32, 64, 4, &ws) == GP_STATUS_OK, "workspace size");
    GPT_CHECK(t, gp_histogram_workspace_size(ctx, GP_DTYPE_I32, 64, 0, &ws) == GP_STATUS_INVALID_SIZE, "workspace size: 0 bins");
    GPT_CHECK(t, gp_histogram_workspace_size(ctx, GP_DTYPE_I32, 64, 4, NULL) == GP_STATUS_NULL_POINTER, "workspace size: NULL");
    GPT_CHECK(t, gp_count_workspace_size(ctx, GP_DTYPE_I32, 64, NULL) == GP_STATUS_NULL_POINTER, "count workspace size: NULL");
    GPT_CHECK(t, gp_count_workspace_size(ctx, GP_DTYPE_I32, -1, &ws) == GP_STATUS_INVALID_SIZE, "count workspace size: n < 0");
    GPT_CHECK(t, gp_count_workspace_size(ctx, (gp_dtype)0, 64, &ws) == GP_STATUS_INVALID_DTYPE, "count workspace size: dtype 0");
    for (size_t tt = 0; tt < COUNT(dtypes); tt++) {
        int64_t n = 1 << 20;
        gp_dtype dt = dtypes[tt];
        size_t bytes = (size_t)n * gpt_size(dt);
        void *big = NULL, *user = NULL;
        unsigned char *hbig = malloc(bytes);
        uint64_t want[256], b4[256];
        if (!hbig || gp_histogram_workspace_size(ctx, dt, n, 256, &ws) != GP_STATUS_OK ||
            gp_malloc(ctx, &big, bytes) != GP_STATUS_OK) {
            gpt_fail(t, "workspace: setup for %s", gp_dtype_name(dt));
            free(hbig);
            continue;
        }
        gpt_rng r = {t->seed + tt};
        for (int64_t i = 0; i < n; i++) put(hbig, dt, i, (long double)gpt_below(&r, 300));
        gp_copy_from_host(ctx, big, hbig, bytes);
        gp_ref_histogram_even(hbig, dt, n, 256, 0, 256, want, 0);
        gpt_guarded gw;
        gpt_guarded_alloc(ctx, &gw, sizeof want);
        if (ws > 0) {
            gp_malloc(ctx, &user, ws);
            gp_ctx_set_workspace(ctx, user, ws - 1);
            gpt_guarded_poison(&gw, poison, sizeof poison);
            s = gp_histogram_even(ctx, big, dt, n, 256, 0, 256, (uint64_t *)gw.ptr, 0);
            bool intact = gpt_guarded_check(&gw, b4, w, sizeof w) && b4[0] == poison[0] && b4[255] == poison[0];
            GPT_CHECK(t, s == GP_STATUS_WORKSPACE_TOO_SMALL && intact, "workspace one byte short (%s): %s",
                      gp_dtype_name(dt), gp_status_name(s));
        }
        gp_ctx_set_workspace(ctx, user, user ? ws : 0);
        /* Canaries and poison again: with no workspace (CUDA) nothing above wrote them. */
        gpt_guarded_poison(&gw, poison, sizeof poison);
        s = gp_histogram_even(ctx, big, dt, n, 256, 0, 256, (uint64_t *)gw.ptr, 0);
        bool good = s == GP_STATUS_OK && gpt_guarded_check(&gw, b4, w, sizeof w);
        GPT_CHECK(t, good && memcmp(b4, want, sizeof want) == 0, "exact workspace of %zu bytes (%s): %s", ws,
                  gp_dtype_name(dt), gp_status_name(s));
        gp_ctx_set_workspace(ctx, NULL, 0);
        gpt_guarded_free(&gw);
        gp_free(ctx, user);

        /* The count's workspace the same way (on CUDA a partial count a
         * block when several count; none on the CPU). */
        unsigned char value[8];
        put(value, dt, 0, 150);
        const int64_t c_want = gp_ref_count(hbig, dt, n, GP_CMP_LT, value);
        int64_t c_got = -1;
        size_t cws = 0;
        void *cuser = NULL;
        GPT_CHECK(t, gp_count_workspace_size(ctx, dt, n, &cws) == GP_STATUS_OK, "count workspace size (%s)",
                  gp_dtype_name(dt));
        if (cws > 0 && gp_malloc(ctx, &cuser, cws) == GP_STATUS_OK) {
            gp_ctx_set_workspace(ctx, cuser, cws - 1);
            s = gp_count_if(ctx, big, dt, n, GP_CMP_LT, value, NULL, &c_got);
            GPT_CHECK(t, s == GP_STATUS_WORKSPACE_TOO_SMALL && c_got == -1,
                      "count, workspace one byte short (%s): %s, count %lld", gp_dtype_name(dt), gp_status_name(s),
                      (long long)c_got);
        }
        gp_ctx_set_workspace(ctx, cuser, cuser ? cws : 0);
        s = gp_count_if(ctx, big, dt, n, GP_CMP_LT, value, NULL, &c_got);
        GPT_CHECK(t, s == GP_STATUS_OK && c_got == c_want, "count, exact workspace of %zu bytes (%s): %s, %lld of %lld",
                  cws, gp_dtype_name(dt), gp_status_name(s), (long long)c_got, (long long)c_want);
        gp_ctx_set_workspace(ctx, NULL, 0);
        gp_free(ctx, cuser);
        gp_free(ctx, big);
        free(hbig);
    }
    gpt_guarded_free(&g);
    gp_free(ctx, edges);
    gp_free(ctx, in);
}

/* Every allocation a histogram call makes fails in turn: the call reports
 * it and writes nothing, and nothing leaks. */
static void run_alloc_failures(gpt *t)
{
    static const uint64_t poison[4] = {0xA5A5A5A5A5A5A5A5ull, 0xA5A5A5A5A5A5A5A5ull, 0xA5A5A5A5A5A5A5A5ull,
                                       0xA5A5A5A5A5A5A5A5ull};
    enum { N = 1 << 16 };
    static uint16_t data[N];
    for (int i = 0; i < N; i++) data[i] = (uint16_t)(i * 7);
    uint16_t e[5] = {0, 100, 1000, 20000, 65535};
    for (long fail = 1; fail < 64; fail++) {
        gpt_counter cnt;
        gp_ctx *ctx;
        if (gpt_counted_ctx(&cnt, t->backend, &ctx) != GP_STATUS_OK) {
            gpt_fail(t, "alloc failures: context");
            return;
        }
        void *in = NULL, *edges = NULL;
        gpt_guarded g;
        gp_malloc(ctx, &in, sizeof data);
        gp_malloc(ctx, &edges, sizeof e);
        gpt_guarded_alloc(ctx, &g, sizeof poison);
        gp_copy_from_host(ctx, in, data, sizeof data);
        gp_copy_from_host(ctx, edges, e, sizeof e);
        gpt_guarded_poison(&g, poison, sizeof poison);
        cnt.fail_at = cnt.calls + fail;
        gp_status s = gp_histogram_edges(ctx, in, GP_DTYPE_U16, N, 4, edges, (uint64_t *)g.ptr, 0);
        if (s == GP_STATUS_OK) s = gp_histogram_even(ctx, in, GP_DTYPE_U16, N, 4, 0, 65536, (uint64_t *)g.ptr, GP_HISTOGRAM_ACCUMULATE);
        cnt.fail_at = 0;
        uint64_t back[4];
        char w[256] = "";
        bool checked = gpt_guarded_check(&g, back, w, sizeof w);
        bool done = s == GP_STATUS_OK;
        if (done) {
            uint64_t want[4];
            gp_ref_histogram_edges(data, GP_DTYPE_U16, N, 4, e, want, 0);
            gp_ref_histogram_even(data, GP_DTYPE_U16, N, 4, 0, 65536, want, GP_HISTOGRAM_ACCUMULATE);
            GPT_CHECK(t, checked && memcmp(back, want, sizeof want) == 0, "alloc failures: result after %ld", fail);
        } else {
            GPT_CHECK(t, (s == GP_STATUS_OUT_OF_MEMORY || s == GP_STATUS_DEVICE_OUT_OF_MEMORY) && checked &&
                             memcmp(back, poison, sizeof back) == 0,
                      "alloc failure %ld: %s, output %s", fail, gp_status_name(s),
                      checked && memcmp(back, poison, sizeof back) == 0 ? "intact" : "written");
        }
        gpt_guarded_free(&g);
        gp_free(ctx, edges);
        gp_free(ctx, in);
        gp_ctx_free(ctx);
        GPT_CHECK(t, gpt_outstanding(&cnt) == 0, "alloc failure %ld: %ld allocations leaked", fail, gpt_outstanding(&cnt));
        if (done) break;
    }
}

int main(int argc, char **argv)
{
    gpt t;
    gpt_init(&t, argc, argv);
    table tb = build_table(t.seed, t.quick);
    printf("%zu cases\n", tb.n);

    bufs b = {0};
    int64_t max_n = 0, max_bins = 1;
    for (size_t i = 0; i < tb.n; i++) {
        if (tb.c[i].n + tb.c[i].offset > max_n) max_n = tb.c[i].n + tb.c[i].offset;
        if (tb.c[i].bins > max_bins) max_bins = tb.c[i].bins;
    }
    b.cap = (size_t)(max_n + SLACK) * 8;
    b.hist_cap = (size_t)max_bins;
    b.host = malloc(b.cap);
    b.host_edges = malloc((b.hist_cap + 1) * 8);
    b.e = malloc((b.hist_cap + 1) * sizeof *b.e);
    b.ref = malloc(b.hist_cap * 8);
    b.got = malloc(b.hist_cap * 8);
    b.prefill = malloc(b.hist_cap * 8);
    if (!b.host || !b.host_edges || !b.e || !b.ref || !b.got || !b.prefill ||
        gp_malloc(t.ctx, (void **)&b.dev, b.cap) != GP_STATUS_OK ||
        gp_malloc(t.ctx, &b.dev_edges, (b.hist_cap + 1) * 8) != GP_STATUS_OK) {
        gpt_fail(&t, "could not allocate the test buffers");
        return gpt_finish(&t);
    }
    for (size_t i = 0; i < tb.n; i++) {
        if (!gpt_selected(&t, (long)i)) continue;
        if (tb.c[i].kind == K_COUNT) run_count(&t, (long)i, &tb.c[i], &b);
        else run_hist(&t, (long)i, &tb.c[i], &b);
    }
    if (t.only_case < 0) {
        run_integer_bins(&t);
        run_errors(&t);
        run_alloc_failures(&t);
    }
    gp_free(t.ctx, b.dev);
    gp_free(t.ctx, b.dev_edges);
    free(b.host), free(b.host_edges), free(b.e), free(b.ref), free(b.got), free(b.prefill);
    free(tb.c);
    return gpt_finish(&t);
}
