/*
 * Selection (by flags and by comparison), partition (into one buffer and
 * into two, partition_copy) and the running-max filter against the serial
 * reference (gp_ref_select, gp_ref_partition, gp_ref_filter), driven by one
 * case table: every dtype, flag patterns
 * (none, all, alternating, random, sparse, dense, runs; flag bytes other
 * than 1), every comparison against values inside and outside the data
 * (NaN included), filter data ascending, descending, constant, random and
 * mostly ascending, with NaN and +-inf, both directions; sizes on the warp,
 * tile (4096 and 6144 elements) and look-back window (32 tiles) boundaries; inputs
 * starting 1..15 elements into their buffer. The count is read through the
 * device pointer, the host pointer or both. Outputs are exact; elements past
 * the count and the slack around the output must stay as poisoned.
 */
#include "cpu_reference.h"
#include "cpu_select_simd.h"
#include "reduce_data.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum kind {
    K_SELECT_FLAGGED,
    K_SELECT_IF,
    K_PARTITION_FLAGGED,
    K_PARTITION_IF,
    K_PARTITION_COPY_FLAGGED,
    K_PARTITION_COPY_IF,
    K_FILTER,
    K_COUNT
} kind;
static const char *const kind_names[K_COUNT] = {"select_flagged",         "select_if",           "partition_flagged",
                                                "partition_if",           "partition_copy_flagged", "partition_copy_if",
                                                "filter"};
static bool is_flagged(kind k)
{
    return k == K_SELECT_FLAGGED || k == K_PARTITION_FLAGGED || k == K_PARTITION_COPY_FLAGGED;
}
static bool is_if(kind k) { return k == K_SELECT_IF || k == K_PARTITION_IF || k == K_PARTITION_COPY_IF; }
static bool is_copy(kind k) { return k == K_PARTITION_COPY_FLAGGED || k == K_PARTITION_COPY_IF; }
static bool is_partition(kind k) { return k == K_PARTITION_FLAGGED || k == K_PARTITION_IF || is_copy(k); }

/* Flag patterns (flagged kinds). */
typedef enum fpat { F_NONE, F_ALL, F_ALT, F_RANDOM, F_SPARSE, F_DENSE, F_RUNS, F_COUNT } fpat;
static const char *const fpat_names[F_COUNT] = {"none", "all", "alternating", "random", "sparse", "dense", "runs"};

/* Filter data. */
typedef enum dpat {
    D_RANDOM,
    D_ASC,      /* all kept */
    D_DESC,     /* one kept (more where small types repeat values) */
    D_CONST,    /* all kept: >= */
    D_MOSTLY,   /* i/2 + noise */
    D_SPECIAL,  /* floats: mostly ascending with NaN, +inf, -inf inside */
    D_LEADNAN,  /* floats: NaN first, then mostly ascending */
    D_DIP,      /* a ramp to n/2, then a steeper one from the bottom: long runs of records below the maximum before */
    D_COUNT
} dpat;
static const char *const dpat_names[D_COUNT] = {"random", "ascending", "descending", "constant", "mostly-ascending",
                                                "nan-inf", "leading-nan", "dip"};

typedef struct xcase {
    kind k;
    gp_dtype t;
    int64_t n;
    int pat;        /* fpat, or dpat for the filter, or the value choice for _if */
    gp_cmp cmp;     /* _if kinds */
    bool desc;      /* filter */
    int in_off;
    int count_mode; /* 0: device count, 1: host count, 2: both */
    uint64_t seed;
} xcase;

static const gp_dtype dtypes[] = {GP_DTYPE_I8,  GP_DTYPE_U8,  GP_DTYPE_I16, GP_DTYPE_U16, GP_DTYPE_I32,
                                  GP_DTYPE_U32, GP_DTYPE_I64, GP_DTYPE_U64, GP_DTYPE_F32, GP_DTYPE_F64};
/* Warp and tile sizes +-1 (CUDA tiles: the filter's 4096 items, 2048 of
 * 8 bytes; the selections' 4096, and wide 6144 of 4 bytes, 4096 of 8
 * bytes, 8192 of 1 and 2 bytes, wider 16384 of 1 byte), the largest cluster filters (16 tiles:
 * 2^16, 2^15 for 8-byte items) +-1, a look-back window of 4-byte selection tiles + 1 (196609),
 * sizes of many tiles up to 2^20 + 1, and the CPU's AVX-512 vectors (8, 16, 32 and 64 items) +-1.
 * 16385 and 18432: on one block (GPUPRIM_MAX_RESIDENT_BLOCKS=1) a 2- or
 * 4-byte partition there has too many narrow tiles for one pass (5 > 4
 * stages) and runs it on 3 wide tiles, all a block's stages. */
static const int64_t sizes[] = {0,      1,     2,     7,      8,      9,      15,     16,     17,     31,     32,
                                33,     63,    64,    65,     255,    256,    257,    1023,
                                1024,   1025,  2047,  2049,   4095,   4096,   4097,   6143,   6144,   6145,
                                8191,   8192,  8193,  12288,  12289,  16385,  18432,  32767,  32768,  32769,
                                65535,  65536, 65537, 131071, 131073, 135169, 196609, (1 << 20) - 1, (1 << 20) + 1};
static const int64_t quick_sizes[] = {0, 1, 33, 4097, 6145, 16385, 65535, 135169};
/* --quick's sizes for small items only (the sanitizer runs), with the
 * largest item they are for. On one block, 12289 items of up to 4 bytes
 * are 4 narrow tiles: a partition's one pass with every stage filled
 * (1-byte ones, which the GPU check's other hooks count first, take it in
 * its part 3 run of this one size, --size 12289). 32769 bytes
 * are 5 wide tiles of 1-byte items (too few for the wider tier), which
 * longer items reach at --quick's other sizes. */
static const struct {
    int64_t n;
    size_t max_item_bytes;
} quick_item_sizes[] = {{12289, 4}, {32769, 1}};
static const int64_t mis_sizes[] = {5, 100, 4097};
enum { MAX_OFF = 15, SLACK = 16 };
/* _if value choices: an element of the data, the lowest value (floats:
 * -inf), the highest (+inf), zero, and for floats -0 and NaN. The data of
 * _if cases hold these too (sprinkle_specials): the backends turn a
 * comparison into a range, whose ends these are. */
enum { V_ELEMENT, V_LOW, V_HIGH, V_ZERO, V_NEGZERO, V_NAN, V_COUNT };
static const char *const value_names[V_COUNT] = {"element", "low", "high", "zero", "-zero", "nan"};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

typedef struct table {
    xcase *c;
    size_t n, cap;
} table;

static void add(table *tb, xcase c)
{
    if (tb->n == tb->cap) {
        tb->cap = tb->cap ? 2 * tb->cap : 1024;
        tb->c = realloc(tb->c, tb->cap * sizeof *tb->c);
        if (!tb->c) abort();
    }
    c.count_mode = (int)(tb->n % 3);
    tb->c[tb->n++] = c;
}

static void add_size(table *tb, uint64_t seed, gp_dtype t, int64_t n, int off, bool few)
{
    for (int k = 0; k < K_COUNT; k++) {
        /* partition_copy shares its paths with the other kinds: the big
         * cases' subset of patterns and values at every size */
        bool big = n > 65536 || few || is_copy((kind)k);
        uint64_t s = gpt_derive(seed, (uint64_t)t, (uint64_t)n, (uint64_t)k, (uint64_t)off);
        if (is_flagged((kind)k)) {
            for (int p = 0; p < F_COUNT; p++)
                if (!big || p == F_RANDOM || p == (int)(n % F_COUNT))
                    add(tb, (xcase){(kind)k, t, n, p, (gp_cmp)0, false, off, 0, s + (uint64_t)p});
        } else if (is_if((kind)k)) {
            for (int c = GP_CMP_LT; c <= GP_CMP_NE; c++)
                for (int v = 0; v < V_COUNT; v++) {
                    if ((v == V_NAN || v == V_NEGZERO) && !gpt_is_float(t)) continue;
                    if (big && (v != V_ELEMENT || c % 2 != (int)(n % 2))) continue;
                    add(tb, (xcase){(kind)k, t, n, v, (gp_cmp)c, false, off, 0, s + (uint64_t)(c * 4 + v)});
                }
        } else {
            for (int p = 0; p < D_COUNT; p++) {
                if ((p == D_SPECIAL || p == D_LEADNAN) && !gpt_is_float(t)) continue;
                for (int d = 0; d < 2; d++)
                    if (!big || p == D_RANDOM || p == D_MOSTLY || p == D_DIP || (p == D_SPECIAL && d == 0))
                        add(tb, (xcase){K_FILTER, t, n, p, (gp_cmp)0, d == 1, off, 0, s + (uint64_t)(p * 2 + d)});
            }
        }
    }
}

static table build_table(uint64_t seed, bool quick)
{
    table tb = {0};
    const int64_t *sz = quick ? quick_sizes : sizes;
    size_t nsz = quick ? COUNT(quick_sizes) : COUNT(sizes);
    for (size_t d = 0; d < COUNT(dtypes); d++) {
        for (size_t s = 0; s < nsz; s++) add_size(&tb, seed, dtypes[d], sz[s], 0, quick);
        for (size_t s = 0; quick && s < COUNT(quick_item_sizes); s++)
            if (gp_dtype_size(dtypes[d]) <= quick_item_sizes[s].max_item_bytes)
                add_size(&tb, seed, dtypes[d], quick_item_sizes[s].n, 0, true);
        for (size_t s = 0; s < COUNT(mis_sizes); s++)
            for (int off = quick ? 7 : 1; off <= MAX_OFF; off += quick ? 16 : 3)
                add_size(&tb, seed, dtypes[d], mis_sizes[s], off, true);
    }
    return tb;
}

/* ------------------------------------------------------------------- data */

static void put_f(void *b, gp_dtype t, int64_t i, double v)
{
    if (t == GP_DTYPE_F32) ((float *)b)[i] = (float)v;
    else ((double *)b)[i] = v;
}

/* Maps d in [lo, hi] linearly onto the integer dtype's range (floats: d). */
static void put_scaled(void *b, gp_dtype t, int64_t i, double d, double lo, double hi)
{
    if (gpt_is_float(t)) {
        put_f(b, t, i, d);
        return;
    }
    size_t sz = gpt_size(t);
    double f = hi > lo ? (d - lo) / (hi - lo) : 0;
    if (f < 0) f = 0;
    if (f > 1) f = 1;
    double range = sz == 8 ? 18446744073709551615.0 : ldexp(1.0, (int)(8 * sz)) - 1;
    uint64_t off = f >= 1 ? (sz == 8 ? UINT64_MAX : (uint64_t)range) : (uint64_t)(f * range);
    uint64_t minbits = gpt_is_signed(t) ? 1ull << (8 * sz - 1) : 0;
    uint64_t v = minbits + off;
    memcpy((char *)b + (size_t)i * sz, &v, sz); /* little-endian */
}

static void fill_filter(void *buf, gp_dtype t, int64_t n, dpat p, uint64_t seed)
{
    gpt_rng r = {seed};
    switch (p) {
    case D_RANDOM: gpt_fill(buf, t, n, PAT_RANDOM, false, seed); return;
    case D_ASC: gpt_fill(buf, t, n, PAT_ASC, false, seed); return;
    case D_DESC: gpt_fill(buf, t, n, PAT_DESC, false, seed); return;
    case D_CONST: gpt_fill(buf, t, n, PAT_CONST, false, seed); return;
    case D_DIP:
        for (int64_t i = 0; i < n; i++) put_scaled(buf, t, i, i < n / 2 ? (double)i : 2.0 * (i - n / 2), 0, (double)n);
        return;
    default: break;
    }
    for (int64_t i = 0; i < n; i++)
        put_scaled(buf, t, i, (double)i / 2 + 8 * gpt_uniform(&r) - 4, -4, (double)n / 2 + 4);
    if (p == D_SPECIAL && n > 0) {
        for (int k = 0; k < 3; k++) {
            put_f(buf, t, (int64_t)gpt_below(&r, (uint64_t)n), NAN);
            put_f(buf, t, (int64_t)gpt_below(&r, (uint64_t)n), -INFINITY);
        }
        put_f(buf, t, n - 1 - (int64_t)gpt_below(&r, (uint64_t)(n < 8 ? n : 8)), INFINITY);
        if (gpt_next(&r) & 1) put_f(buf, t, 0, -INFINITY);
    }
    if (p == D_LEADNAN)
        for (int64_t i = 0; i < n && i < 3; i++) put_f(buf, t, i, NAN);
}

static void fill_flags(uint8_t *f, int64_t n, fpat p, uint64_t seed)
{
    gpt_rng r = {seed};
    int64_t run = 0;
    uint8_t cur = 0;
    for (int64_t i = 0; i < n; i++) {
        /* Any non-zero byte selects: use several. */
        uint8_t on = (uint8_t)(1 + gpt_below(&r, 255));
        switch (p) {
        case F_NONE: f[i] = 0; break;
        case F_ALL: f[i] = on; break;
        case F_ALT: f[i] = i % 2 ? 0 : on; break;
        case F_RANDOM: f[i] = gpt_next(&r) & 1 ? on : 0; break;
        case F_SPARSE: f[i] = gpt_below(&r, 100) == 0 ? on : 0; break;
        case F_DENSE: f[i] = gpt_below(&r, 100) == 0 ? 0 : on; break;
        default:
            if (run == 0) run = 1 + (int64_t)gpt_below(&r, 3000), cur = !cur;
            run--;
            f[i] = cur ? on : 0;
            break;
        }
    }
}

/* --------------------------------------------------------------- running */

typedef struct bufs {
    unsigned char *host_in, *host_ref, *host_out;
    uint8_t *host_flags;
    unsigned char *dev_in;
    uint8_t *dev_flags;
    gpt_guarded out;   /* the output with SLACK poisoned elements either side */
    gpt_guarded count; /* one int64_t in the context's space */
} bufs;

static const unsigned char POISON = 0xA5;

static void describe(const xcase *c, long k, char *s, size_t size)
{
    const char *pat = c->k == K_FILTER ? dpat_names[c->pat] : is_if(c->k) ? value_names[c->pat] : fpat_names[c->pat];
    snprintf(s, size, "case %ld: %s %s n=%" PRId64 " %s%s%s%s%s in_off=%d count_mode=%d seed=0x%016" PRIx64, k,
             kind_names[c->k], gp_dtype_name(c->t), c->n, c->cmp ? "value=" : "", pat, c->cmp ? " cmp=" : "",
             c->cmp ? gp_cmp_name(c->cmp) : "",
             c->desc ? " descending" : "", c->in_off, c->count_mode, c->seed);
}

/* The lowest (high = false) or highest value of dtype t into v[0]: floats
 * the infinities. */
static void put_extreme(void *v, gp_dtype t, bool high)
{
    size_t sz = gpt_size(t);
    if (gpt_is_float(t)) {
        put_f(v, t, 0, high ? INFINITY : -INFINITY);
        return;
    }
    unsigned char *b = v;
    memset(b, high ? 0xff : 0, sz);
    if (gpt_is_signed(t)) b[sz - 1] = high ? 0x7f : 0x80; /* little-endian */
}

/* The comparison value for an _if case. */
static void make_value(const xcase *c, const unsigned char *in, unsigned char *v)
{
    size_t sz = gpt_size(c->t);
    gpt_rng r = {c->seed ^ 0xfeed};
    memset(v, 0, 16);
    switch (c->pat) {
    case V_NAN: put_f(v, c->t, 0, NAN); break;
    case V_LOW: put_extreme(v, c->t, false); break;
    case V_HIGH: put_extreme(v, c->t, true); break;
    case V_ZERO: break;
    case V_NEGZERO: put_f(v, c->t, 0, -0.0); break;
    default:
        if (c->n > 0) memcpy(v, in + gpt_below(&r, (uint64_t)c->n) * sz, sz);
        break;
    }
}

/* A few of the values a comparison's range ends on, at random places of
 * _if data: both extremes and zero; for floats also -0 and NaN. */
static void sprinkle_specials(unsigned char *in, gp_dtype t, int64_t n, uint64_t seed)
{
    gpt_rng r = {seed ^ 0x5eed};
    size_t sz = gpt_size(t);
    unsigned char v[16];
    for (int k = 0; k < 2 && n > 0; k++)
        for (int which = 0; which < 5; which++) {
            if (which >= 3 && !gpt_is_float(t)) break;
            memset(v, 0, sizeof v);
            if (which < 2) put_extreme(v, t, which == 1);
            else if (which == 3) put_f(v, t, 0, -0.0);
            else if (which == 4) put_f(v, t, 0, NAN);
            memcpy(in + gpt_below(&r, (uint64_t)n) * sz, v, sz);
        }
}

static gp_status call(gpt *t, const xcase *c, const void *din, const uint8_t *dflags, const void *value, void *dout,
                      void *drej, int64_t *dcount, int64_t *hcount)
{
    switch (c->k) {
    case K_PARTITION_COPY_FLAGGED:
        return gp_partition_copy_flagged(t->ctx, din, c->t, c->n, dflags, dout, drej, dcount, hcount);
    case K_PARTITION_COPY_IF:
        return gp_partition_copy_if(t->ctx, din, c->t, c->n, c->cmp, value, dout, drej, dcount, hcount);
    case K_SELECT_FLAGGED: return gp_select_flagged(t->ctx, din, c->t, c->n, dflags, dout, dcount, hcount);
    case K_SELECT_IF: return gp_select_if(t->ctx, din, c->t, c->n, c->cmp, value, dout, dcount, hcount);
    case K_PARTITION_FLAGGED: return gp_partition_flagged(t->ctx, din, c->t, c->n, dflags, dout, dcount, hcount);
    case K_PARTITION_IF: return gp_partition_if(t->ctx, din, c->t, c->n, c->cmp, value, dout, dcount, hcount);
    default:
        return gp_filter_running_max(t->ctx, din, c->t, c->n, c->desc ? GP_FILTER_DESCENDING : 0, dout, dcount,
                                     hcount);
    }
}

static void run_case(gpt *t, long k, const xcase *c, bufs *b)
{
    char desc[320], why[512] = "";
    describe(c, k, desc, sizeof desc);
    gp_primitive prim = c->k == K_FILTER ? GP_PRIM_FILTER : is_partition(c->k) ? GP_PRIM_PARTITION : GP_PRIM_SELECT;
    if (!gpt_supported(t, prim, (gp_op)0, c->t, c->t, desc)) return;
    size_t sz = gpt_size(c->t);
    unsigned char *hin = b->host_in + (size_t)c->in_off * sz;
    bool flagged = is_flagged(c->k);
    unsigned char value[16];
    const uint8_t *ref_flags = NULL;
    if (c->k == K_FILTER) {
        fill_filter(hin, c->t, c->n, (dpat)c->pat, c->seed);
    } else {
        gpt_fill(hin, c->t, c->n, PAT_RANDOM, false, c->seed);
        if (!flagged) sprinkle_specials(hin, c->t, c->n, c->seed);
        if (flagged) fill_flags(b->host_flags + c->in_off, c->n, (fpat)c->pat, c->seed ^ 0xf1a6);
        ref_flags = flagged ? b->host_flags + c->in_off : NULL;
    }
    make_value(c, hin, value);
    int64_t want;
    switch (c->k) {
    case K_FILTER: want = gp_ref_filter(hin, c->t, c->n, c->desc, b->host_ref); break;
    case K_PARTITION_FLAGGED:
    case K_PARTITION_IF:
    case K_PARTITION_COPY_FLAGGED:
    case K_PARTITION_COPY_IF: want = gp_ref_partition(hin, c->t, c->n, ref_flags, c->cmp, value, b->host_ref); break;
    default: want = gp_ref_select(hin, c->t, c->n, ref_flags, c->cmp, value, b->host_ref); break;
    }
    /* What the call writes, in elements from the region's start, and from
     * where in the reference: out after SLACK poisoned elements; a
     * partition_copy's out_rejected SLACK elements past room for n in out. */
    const bool copy = is_copy(c->k);
    const int64_t rej_at = SLACK + c->n + SLACK;
    struct {
        const char *name;
        int64_t at, from, len;
    } span[2] = {{copy ? "out_selected" : "out", SLACK, 0, is_partition(c->k) && !copy ? c->n : want},
                 {"out_rejected", rej_at, want, copy ? c->n - want : 0}};

    size_t region = (size_t)(copy ? rej_at + c->n + SLACK : c->n + 2 * SLACK) * sz;
    memset(b->host_out, POISON, region);
    gp_status s = gp_copy_from_host(t->ctx, b->out.ptr, b->host_out, region);
    if (s == GP_STATUS_OK) s = gp_copy_from_host(t->ctx, b->dev_in, b->host_in, (size_t)(c->in_off + c->n) * sz);
    if (s == GP_STATUS_OK && flagged)
        s = gp_copy_from_host(t->ctx, b->dev_flags, b->host_flags, (size_t)(c->in_off + c->n));
    if (s == GP_STATUS_OK) s = gpt_guarded_poison(&b->count, &POISON, 1);
    if (s != GP_STATUS_OK) {
        gpt_fail(t, "%s: uploading gave %s", desc, gp_status_name(s));
        return;
    }
    unsigned char *dout = b->out.ptr + (size_t)SLACK * sz, *drej = copy ? b->out.ptr + (size_t)rej_at * sz : NULL;
    const unsigned char *din = b->dev_in + (size_t)c->in_off * sz;
    const uint8_t *dflags = flagged ? b->dev_flags + c->in_off : NULL;
    if (c->n == 0 && (k & 1)) din = NULL, dout = NULL, drej = NULL, dflags = NULL; /* allowed when n == 0 */
    int64_t host_count = -12345;
    int64_t *dcount = c->count_mode != 1 ? (int64_t *)b->count.ptr : NULL;
    int64_t *hcount = c->count_mode != 0 ? &host_count : NULL;
    s = call(t, c, din, dflags, value, dout, drej, dcount, hcount);

    bool ok = s == GP_STATUS_OK;
    if (!ok) snprintf(why, sizeof why, "returned %s (%s)", gp_status_name(s), gp_ctx_last_error(t->ctx));
    int64_t dev_count = -1;
    char detail[256];
    if (ok && dcount) {
        if (!gpt_guarded_check(&b->count, &dev_count, detail, sizeof detail)) {
            snprintf(why, sizeof why, "count: %s", detail);
            ok = false;
        } else if (dev_count != want) {
            snprintf(why, sizeof why, "*count = %" PRId64 ", want %" PRId64, dev_count, want);
            ok = false;
        }
    }
    if (ok && hcount && host_count != want) {
        snprintf(why, sizeof why, "*host_count = %" PRId64 ", want %" PRId64, host_count, want);
        ok = false;
    }
    if (ok && (s = gp_copy_to_host(t->ctx, b->host_out, b->out.ptr, region)) != GP_STATUS_OK) {
        snprintf(why, sizeof why, "reading the output back gave %s", gp_status_name(s));
        ok = false;
    }
    for (int p = 0; ok && p < 2; p++) {
        const unsigned char *got = b->host_out + (size_t)span[p].at * sz, *ref = b->host_ref + (size_t)span[p].from * sz;
        if (memcmp(got, ref, (size_t)span[p].len * sz) == 0) continue;
        int64_t i = 0;
        while (memcmp(got + (size_t)i * sz, ref + (size_t)i * sz, sz) == 0) i++;
        char g[64], w[64];
        gpt_format(c->t, got + (size_t)i * sz, g, sizeof g);
        gpt_format(c->t, ref + (size_t)i * sz, w, sizeof w);
        snprintf(why, sizeof why, "%s[%" PRId64 "] = %s, want %s (count %" PRId64 ")", span[p].name, i, g, w, want);
        ok = false;
    }
    /* Nothing is written around the outputs, nor past their last items:
     * the gaps before span 0, between the spans, and after span 1 (which
     * starts at the region's end but for partition_copy). */
    const size_t gap[3][2] = {{0, (size_t)span[0].at * sz},
                              {(size_t)(span[0].at + span[0].len) * sz, (size_t)span[1].at * sz},
                              {(size_t)(span[1].at + span[1].len) * sz, region}};
    for (int g = 0; ok && g < 3; g++)
        for (size_t i = gap[g][0]; ok && i < gap[g][1]; i++)
            if (b->host_out[i] != POISON) {
                snprintf(why, sizeof why, "byte %zu of the output region changed (%s from byte %zu, %" PRId64
                         " items written; out_rejected from byte %zu)", i, span[0].name, gap[0][1], span[0].len,
                         gap[1][1]);
                ok = false;
            }
    if (ok) { /* the inputs are const */
        const size_t len = (size_t)(c->in_off + c->n);
        ok = gpt_unchanged(t->ctx, b->dev_in, b->host_in, len * sz, "input", why, sizeof why);
        if (ok && flagged) ok = gpt_unchanged(t->ctx, b->dev_flags, b->host_flags, len, "flags", why, sizeof why);
    }
    if (ok) gpt_pass(t);
    else gpt_fail(t, "%s: %s", desc, why);
}

/* ------------------------------------------------------------ error paths */

static void error_paths(gpt *t, bufs *b)
{
    gp_ctx *ctx = t->ctx;
    const int64_t n = 100;
    int32_t *din = (int32_t *)b->dev_in, *dout = (int32_t *)b->out.ptr;
    uint8_t *df = b->dev_flags;
    int64_t *dc = (int64_t *)b->count.ptr, hc = -7;
    int32_t v = 5;
    int32_t *drej = dout + 2 * n; /* partition_copy's out_rejected */
    const size_t watched = (size_t)3 * n * 4; /* out, a gap, out_rejected */
    memset(b->host_out, POISON, watched);
    gp_status s = gp_copy_from_host(ctx, dout, b->host_out, watched);
    if (s == GP_STATUS_OK) s = gpt_guarded_poison(&b->count, &POISON, 1);
    GPT_CHECK(t, s == GP_STATUS_OK, "upload: %s", gp_status_name(s));
    struct {
        const char *what;
        gp_status got, want;
    } e[] = {
        {"ctx NULL", gp_select_flagged(NULL, din, GP_DTYPE_I32, n, df, dout, dc, NULL), GP_STATUS_NULL_POINTER},
        {"in NULL", gp_select_flagged(ctx, NULL, GP_DTYPE_I32, n, df, dout, dc, NULL), GP_STATUS_NULL_POINTER},
        {"out NULL", gp_partition_if(ctx, din, GP_DTYPE_I32, n, GP_CMP_LT, &v, NULL, dc, NULL), GP_STATUS_NULL_POINTER},
        {"flags NULL", gp_partition_flagged(ctx, din, GP_DTYPE_I32, n, NULL, dout, dc, NULL), GP_STATUS_NULL_POINTER},
        {"value NULL", gp_select_if(ctx, din, GP_DTYPE_I32, n, GP_CMP_LT, NULL, dout, dc, NULL), GP_STATUS_NULL_POINTER},
        {"no count", gp_select_if(ctx, din, GP_DTYPE_I32, n, GP_CMP_LT, &v, dout, NULL, NULL), GP_STATUS_NULL_POINTER},
        {"filter no count", gp_filter_running_max(ctx, din, GP_DTYPE_I32, n, 0, dout, NULL, NULL),
         GP_STATUS_NULL_POINTER},
        {"n < 0", gp_select_if(ctx, din, GP_DTYPE_I32, -5, GP_CMP_LT, &v, dout, dc, NULL), GP_STATUS_INVALID_SIZE},
        {"filter n < 0", gp_filter_running_max(ctx, din, GP_DTYPE_I32, -1, 0, dout, dc, &hc), GP_STATUS_INVALID_SIZE},
        {"n huge", gp_select_flagged(ctx, din, GP_DTYPE_I32, INT64_MAX, df, dout, dc, NULL), GP_STATUS_INVALID_SIZE},
        {"bad dtype", gp_select_flagged(ctx, din, (gp_dtype)77, n, df, dout, dc, NULL), GP_STATUS_INVALID_DTYPE},
        {"filter bad dtype", gp_filter_running_max(ctx, din, (gp_dtype)0, n, 0, dout, dc, NULL),
         GP_STATUS_INVALID_DTYPE},
        {"bad cmp", gp_select_if(ctx, din, GP_DTYPE_I32, n, (gp_cmp)0, &v, dout, dc, NULL), GP_STATUS_INVALID_ARGUMENT},
        {"bad cmp 7", gp_partition_if(ctx, din, GP_DTYPE_I32, n, (gp_cmp)7, &v, dout, dc, NULL),
         GP_STATUS_INVALID_ARGUMENT},
        {"bad filter flag", gp_filter_running_max(ctx, din, GP_DTYPE_I32, n, 2, dout, dc, NULL),
         GP_STATUS_INVALID_ARGUMENT},
        {"out overlaps in", gp_select_flagged(ctx, dout, GP_DTYPE_I32, n, df, dout + 3, dc, NULL),
         GP_STATUS_INVALID_ARGUMENT},
        {"out is in", gp_filter_running_max(ctx, dout, GP_DTYPE_I32, n, 0, dout, dc, NULL), GP_STATUS_INVALID_ARGUMENT},
        {"out overlaps flags", gp_partition_flagged(ctx, din, GP_DTYPE_I32, n, (const uint8_t *)(dout + 10), dout, dc,
                                                    NULL),
         GP_STATUS_INVALID_ARGUMENT},
        {"count in out", gp_select_if(ctx, din, GP_DTYPE_I32, n, GP_CMP_LT, &v, dout, (int64_t *)(dout + 8), NULL),
         GP_STATUS_INVALID_ARGUMENT},
        {"copy: out_rejected NULL", gp_partition_copy_if(ctx, din, GP_DTYPE_I32, n, GP_CMP_LT, &v, dout, NULL, dc, NULL),
         GP_STATUS_NULL_POINTER},
        {"copy: out_selected NULL", gp_partition_copy_flagged(ctx, din, GP_DTYPE_I32, n, df, NULL, drej, dc, NULL),
         GP_STATUS_NULL_POINTER},
        {"copy: flags NULL", gp_partition_copy_flagged(ctx, din, GP_DTYPE_I32, n, NULL, dout, drej, dc, NULL),
         GP_STATUS_NULL_POINTER},
        {"copy: bad cmp", gp_partition_copy_if(ctx, din, GP_DTYPE_I32, n, (gp_cmp)9, &v, dout, drej, dc, NULL),
         GP_STATUS_INVALID_ARGUMENT},
        {"copy: out_rejected overlaps out_selected",
         gp_partition_copy_flagged(ctx, din, GP_DTYPE_I32, n, df, dout, dout + n - 1, dc, NULL), GP_STATUS_INVALID_ARGUMENT},
        {"copy: out_rejected is out_selected", gp_partition_copy_if(ctx, din, GP_DTYPE_I32, n, GP_CMP_LT, &v, dout, dout,
                                                                    dc, NULL),
         GP_STATUS_INVALID_ARGUMENT},
        {"copy: out_rejected overlaps in", gp_partition_copy_if(ctx, drej, GP_DTYPE_I32, n, GP_CMP_LT, &v, dout,
                                                                drej + n / 2, dc, NULL),
         GP_STATUS_INVALID_ARGUMENT},
        {"copy: out_rejected overlaps flags",
         gp_partition_copy_flagged(ctx, din, GP_DTYPE_I32, n, (const uint8_t *)(drej + 3), dout, drej, dc, NULL),
         GP_STATUS_INVALID_ARGUMENT},
        {"copy: out_rejected off its element size",
         gp_partition_copy_if(ctx, din, GP_DTYPE_I32, n, GP_CMP_LT, &v, dout, (char *)drej + 2, dc, NULL),
         GP_STATUS_INVALID_ARGUMENT},
        {"copy: count in out_rejected",
         gp_partition_copy_if(ctx, din, GP_DTYPE_I32, n, GP_CMP_LT, &v, dout, drej, (int64_t *)(drej + 4), NULL),
         GP_STATUS_INVALID_ARGUMENT},
        {"copy: n < 0", gp_partition_copy_flagged(ctx, din, GP_DTYPE_I32, -1, df, dout, drej, dc, NULL),
         GP_STATUS_INVALID_SIZE},
    };
    for (size_t i = 0; i < COUNT(e); i++)
        GPT_CHECK(t, e[i].got == e[i].want, "%s: got %s, want %s", e[i].what, gp_status_name(e[i].got),
                  gp_status_name(e[i].want));
    unsigned char *back = malloc(watched);
    int64_t cback = 0;
    char why[256];
    if (!back) abort();
    s = gp_copy_to_host(ctx, back, dout, watched);
    GPT_CHECK(t, s == GP_STATUS_OK && memcmp(back, b->host_out, watched) == 0,
              "a failed call wrote to an output (%s)", gp_status_name(s));
    GPT_CHECK(t, gpt_guarded_check(&b->count, &cback, why, sizeof why) && memcmp(&cback, "\xA5\xA5\xA5\xA5\xA5\xA5\xA5\xA5", 8) == 0,
              "a failed call wrote the count");
    GPT_CHECK(t, hc == -7, "a failed call wrote the host count");
    free(back);

    /* The workspace query; a caller's workspace one byte short fails before
     * writing, the exact size works, repeatedly, alternating with scratch. */
    const int64_t big = 300001;
    size_t need = 0;
    s = gp_select_workspace_size(ctx, (gp_dtype)0, big, &need);
    GPT_CHECK(t, s == GP_STATUS_INVALID_DTYPE, "gp_select_workspace_size bad dtype: %s", gp_status_name(s));
    s = gp_select_workspace_size(ctx, GP_DTYPE_F32, big, &need);
    GPT_CHECK(t, s == GP_STATUS_OK, "gp_select_workspace_size: %s", gp_status_name(s));
    if (s != GP_STATUS_OK || need == 0) return;
    void *ws = NULL;
    float *h = malloc((size_t)big * 4), *r = malloc((size_t)big * 4), *g = malloc((size_t)big * 4);
    uint8_t *hf = malloc((size_t)big);
    float *dbig = NULL, *dbo = NULL;
    uint8_t *dbf = NULL;
    if (!h || !r || !g || !hf || gp_malloc(ctx, &ws, need) != GP_STATUS_OK ||
        gp_malloc(ctx, (void **)&dbig, (size_t)big * 4) != GP_STATUS_OK ||
        gp_malloc(ctx, (void **)&dbo, (size_t)big * 4) != GP_STATUS_OK || gp_malloc(ctx, (void **)&dbf, (size_t)big) != GP_STATUS_OK)
        abort();
    fill_filter(h, GP_DTYPE_F32, big, D_MOSTLY, t->seed);
    fill_flags(hf, big, F_RANDOM, t->seed);
    gp_copy_from_host(ctx, dbig, h, (size_t)big * 4);
    gp_copy_from_host(ctx, dbf, hf, (size_t)big);
    float fv = (float)(big / 4);
    s = gp_ctx_set_workspace(ctx, ws, need - 1);
    GPT_CHECK(t, s == GP_STATUS_OK, "gp_ctx_set_workspace: %s", gp_status_name(s));
    memset(g, POISON, (size_t)big * 4);
    gp_copy_from_host(ctx, dbo, g, (size_t)big * 4);
    s = gp_filter_running_max(ctx, dbig, GP_DTYPE_F32, big, 0, dbo, NULL, &hc);
    GPT_CHECK(t, s == GP_STATUS_WORKSPACE_TOO_SMALL, "filter one byte short: %s", gp_status_name(s));
    s = gp_partition_flagged(ctx, dbig, GP_DTYPE_F32, big, dbf, dbo, NULL, &hc);
    GPT_CHECK(t, s == GP_STATUS_WORKSPACE_TOO_SMALL, "partition one byte short: %s", gp_status_name(s));
    gp_copy_to_host(ctx, g, dbo, (size_t)big * 4);
    GPT_CHECK(t, ((unsigned char *)g)[0] == POISON, "a call short of workspace wrote to the output");
    for (int rep = 0; rep < 4; rep++) {
        bool own = rep % 2 == 0; /* the caller's workspace, then the context's scratch */
        gp_ctx_set_workspace(ctx, own ? ws : NULL, own ? need : 0);
        for (int kk = 0; kk < 3; kk++) {
            int64_t w;
            if (kk == 0) {
                w = gp_ref_filter(h, GP_DTYPE_F32, big, false, r);
                s = gp_filter_running_max(ctx, dbig, GP_DTYPE_F32, big, 0, dbo, NULL, &hc);
            } else if (kk == 1) {
                w = gp_ref_partition(h, GP_DTYPE_F32, big, hf, (gp_cmp)0, NULL, r);
                s = gp_partition_flagged(ctx, dbig, GP_DTYPE_F32, big, dbf, dbo, NULL, &hc);
            } else {
                w = gp_ref_select(h, GP_DTYPE_F32, big, NULL, GP_CMP_GT, &fv, r);
                s = gp_select_if(ctx, dbig, GP_DTYPE_F32, big, GP_CMP_GT, &fv, dbo, NULL, &hc);
            }
            gp_copy_to_host(ctx, g, dbo, (size_t)big * 4);
            int64_t nw = kk == 1 ? big : w;
            GPT_CHECK(t, s == GP_STATUS_OK && hc == w && memcmp(g, r, (size_t)nw * 4) == 0,
                      "%s workspace, call %d, rep %d: %s, count %" PRId64 " want %" PRId64, own ? "caller's" : "context",
                      kk, rep, gp_status_name(s), hc, w);
        }
    }
    gp_ctx_set_workspace(ctx, NULL, 0);
    gp_free(ctx, dbig), gp_free(ctx, dbo), gp_free(ctx, dbf), gp_free(ctx, ws);
    free(h), free(r), free(g), free(hf);
}

int main(int argc, char **argv)
{
    gpt t;
    gpt_init(&t, argc, argv);
    table tb = build_table(t.seed, t.quick);
    printf("%zu cases\n", tb.n);
    if (t.backend == GP_BACKEND_CPU) {
        const char *asked = getenv("GPUPRIM_CPU_SIMD");
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) /* as GP_CPU_SIMD_X86 */
        const char *hint = "GPUPRIM_CPU_SIMD=0 takes the scalar loops, =avx2[-masked|-buffered] the AVX2 path";
#elif defined(__aarch64__) && defined(__ARM_NEON) /* as GP_CPU_SIMD_NEON */
        const char *hint = "GPUPRIM_CPU_SIMD=0 takes the scalar loops";
#else
        const char *hint = "the SIMD paths are x86's and Arm's; this architecture has none";
#endif
        printf("cpu selections: %s (%s)\n", gp_cpu_select_path(), hint);
        /* A run for the AVX2 path on a CPU without AVX2 would test the scalar loops under its name. */
        if (asked && strncmp(asked, "avx2", 4) == 0 && strncmp(gp_cpu_select_path(), "avx2", 4) != 0) {
            printf("skipped: GPUPRIM_CPU_SIMD=%s, but this CPU has no AVX2\n", asked);
            return 77;
        }
        /* avx512 is the library's default choice, named so that a CPU that
         * cannot take that path says so here rather than test another. */
        if (asked && strcmp(asked, "avx512") == 0 && strcmp(gp_cpu_select_path(), "avx512") != 0) {
            printf("skipped: the AVX-512 path needs AVX-512 F, BW, VL and VBMI2 (and BMI2, POPCNT), which this CPU "
                   "lacks (it takes %s)\n", gp_cpu_select_path());
            return 77;
        }
    }
    int64_t max_n = 0;
    for (size_t i = 0; i < tb.n; i++)
        if (tb.c[i].n + tb.c[i].in_off > max_n) max_n = tb.c[i].n + tb.c[i].in_off;
    size_t cap = 2 * (size_t)max_n + 3 * SLACK; /* room for partition_copy's two outputs */
    bufs b = {0};
    b.host_in = malloc(cap * 8);
    b.host_ref = malloc(cap * 8);
    b.host_out = malloc(cap * 8);
    b.host_flags = malloc(cap);
    if (!b.host_in || !b.host_ref || !b.host_out || !b.host_flags ||
        gp_malloc(t.ctx, (void **)&b.dev_in, cap * 8) != GP_STATUS_OK ||
        gp_malloc(t.ctx, (void **)&b.dev_flags, cap) != GP_STATUS_OK ||
        gpt_guarded_alloc(t.ctx, &b.out, cap * 8) != GP_STATUS_OK ||
        gpt_guarded_alloc(t.ctx, &b.count, 8) != GP_STATUS_OK) {
        gpt_fail(&t, "could not allocate the test buffers");
        return gpt_finish(&t);
    }
    memset(b.host_in, 0x3c, cap * 8); /* the slack before an offset input */
    memset(b.host_flags, 0, cap);
    gpt_guarded_poison(&b.out, &POISON, 1);
    for (size_t i = 0; i < tb.n; i++)
        if (gpt_selected(&t, (long)i) && gpt_size_selected(&t, tb.c[i].n)) run_case(&t, (long)i, &tb.c[i], &b);
    if (gpt_whole_run(&t)) error_paths(&t, &b);
    char why[256];
    GPT_CHECK(&t, gpt_guarded_check(&b.out, NULL, why, sizeof why), "%s", why);

    gpt_guarded_free(&b.out);
    gpt_guarded_free(&b.count);
    gp_free(t.ctx, b.dev_in);
    gp_free(t.ctx, b.dev_flags);
    free(b.host_in), free(b.host_ref), free(b.host_out), free(b.host_flags);
    free(tb.c);
    return gpt_finish(&t);
}
