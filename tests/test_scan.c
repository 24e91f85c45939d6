/*
 * gp_scan_inclusive and gp_scan_exclusive against the serial reference
 * gp_ref_scan, driven by one case table: every dtype, every op defined on
 * it, every output dtype it may widen into, inclusive and exclusive (with
 * the identity or a given init), in place, sizes on the warp, block and
 * tile boundaries (the CUDA tiles are 4096 elements, 8192 for 1-byte
 * inputs and for the pipelined scan of 4-byte inputs, which takes 4096 of
 * 8 bytes; a look-back window is 32 tiles), and inputs and outputs starting
 * 1..15 elements into their buffers. Outputs sit between canaries, with
 * poisoned slack either side that must stay untouched.
 *
 * Integers and float min/max compare exactly; float sums of integer-valued
 * data are exact; other float sums must lie within the header's bound of
 * the prefix's true sum, and products within twice a product's bound of
 * the serial one (float_ok).
 */
#include "cpu_reference.h"
#include "reduce_data.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct scase {
    gp_dtype in_t, out_t;
    gp_op op;
    int64_t n;
    gpt_pattern pat;
    bool exclusive;
    bool with_init; /* exclusive only: a given init instead of the identity */
    bool in_place;  /* out == in (out_t == in_t) */
    int in_off, out_off;
    uint64_t seed;
} scase;

static const gp_dtype dtypes[] = {GP_DTYPE_I8,  GP_DTYPE_U8,  GP_DTYPE_I16, GP_DTYPE_U16, GP_DTYPE_I32,
                                  GP_DTYPE_U32, GP_DTYPE_I64, GP_DTYPE_U64, GP_DTYPE_F32, GP_DTYPE_F64};
static const gp_op ops[] = {GP_OP_SUM, GP_OP_PROD, GP_OP_MIN, GP_OP_MAX, GP_OP_AND, GP_OP_OR, GP_OP_XOR};

/* Warp and block sizes +-1, the CUDA tiles (4096; 8192 for 1-byte inputs
 * and the pipelined 4-byte scan) +-1, the largest cluster scans (8 or 16
 * blocks: 2^15, 2^16, 2^17 for 1-byte inputs) +-1, one look-back window of
 * 32 tiles +-1 tile (135169; 270337 for 8192-element tiles), the CPU's
 * serial limit (2^15) and blocks, and 2^20 +- 1. */
static const int64_t sizes[] = {0,     1,     2,     31,     32,     33,     255,    256,    257,    1023,  1024,
                                1025,  2047,  2049,  4095,   4096,   4097,   8191,   8192,   8193,   12289, 32767,
                                32768, 32769, 65535, 65536,  65537,  131071, 131073, 135169, 270337, (1 << 20) - 1,
                                (1 << 20) + 1};
/* Sizes that also run for every widening, in place and misaligned; in
 * --quick (the sanitizers' runs) 1, 33 and 8193, at least two tiles. */
static const int64_t some_sizes[] = {1, 33, 1025, 4097, 8193, 135169};
static const int64_t quick_some_sizes[] = {1, 33, 8193};
static const int64_t quick_sizes[] = {0, 1, 33, 4097, 8193, 65535, 135169};
enum { MAX_OFF = 15, SLACK = 16 };

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

typedef struct table {
    scase *c;
    size_t n, cap;
} table;

static void add(table *tb, scase c)
{
    if (tb->n == tb->cap) {
        tb->cap = tb->cap ? 2 * tb->cap : 1024;
        tb->c = realloc(tb->c, tb->cap * sizeof *tb->c);
        if (!tb->c) abort();
    }
    tb->c[tb->n++] = c;
}

static bool quick_mode; /* --quick: for compute-sanitizer runs */

/* Which output dtypes a group of cases takes. */
typedef enum outs { OUT_SAME, OUT_SAME_AND_WIDEST, OUT_ALL } outs;

/* All ops on one input: inclusive, exclusive with the identity, exclusive
 * with an init. Cases on the same (dtype, size, pattern, offset) share
 * their data, except float products, which draw their own (prodsafe). */
static void add_ops(table *tb, uint64_t seed, gp_dtype t, int64_t n, gpt_pattern pat, outs which, bool in_place,
                    int in_off, int out_off)
{
    for (size_t o = 0; o < COUNT(ops); o++) {
        if (!gpt_op_defined(ops[o], t)) continue;
        uint64_t data_seed = gpt_derive(seed, (uint64_t)t, (uint64_t)n, (uint64_t)pat * 64 + (uint64_t)in_off,
                                        gpt_is_float(t) && ops[o] == GP_OP_PROD);
        for (size_t d = 0; d < COUNT(dtypes); d++) {
            gp_dtype out_t = dtypes[d];
            if (!gpt_widening_ok(t, out_t) || (in_place && out_t != t)) continue;
            if (which == OUT_SAME && out_t != t) continue;
            if (which == OUT_SAME_AND_WIDEST && out_t != t && gpt_size(out_t) != 8) continue;
            /* Past 2^16 elements (and in --quick) one mode per (op, output)
             * keeps the run short. */
            for (int mode = 0; mode < 3; mode++)
                if ((n <= 65536 && !quick_mode) || (int)((o + d) % 3) == mode)
                    add(tb, (scase){t, out_t, ops[o], n, pat, mode > 0, mode == 2, in_place, in_off, out_off,
                                    data_seed});
        }
    }
}

/* Zeros whose sign flips: MIN and MAX must order them in every width. */
static bool flips_sign(int p) { return p == PAT_PZ_NZ || p == PAT_NZ_PZ; }

static table build_table(uint64_t seed, bool quick)
{
    table tb = {0};
    quick_mode = quick;
    const int64_t *sz = quick ? quick_sizes : sizes;
    size_t nsz = quick ? COUNT(quick_sizes) : COUNT(sizes);
    const int64_t *some = quick ? quick_some_sizes : some_sizes;
    size_t nsome = quick ? COUNT(quick_some_sizes) : COUNT(some_sizes);
    for (size_t d = 0; d < COUNT(dtypes); d++) {
        gp_dtype t = dtypes[d];
        /* Integer-valued floats keep every prefix sum exact. */
        gpt_pattern exact = gpt_is_float(t) ? PAT_INTVAL : PAT_RANDOM;
        for (size_t s = 0; s < nsz; s++) {
            add_ops(&tb, seed, t, sz[s], PAT_RANDOM, OUT_SAME_AND_WIDEST, false, 0, 0);
            if (gpt_is_float(t)) add_ops(&tb, seed, t, sz[s], PAT_INTVAL, OUT_SAME_AND_WIDEST, false, 0, 0);
            /* Past a look-back window, positive data: there sum|x| == |sum|,
             * so a lost or repeated stretch cannot hide under the bound. */
            if (gpt_is_float(t) && sz[s] > 135169 && !quick)
                add_ops(&tb, seed, t, sz[s], PAT_POS, OUT_SAME_AND_WIDEST, false, 0, 0);
        }
        /* --quick runs under the sanitizers with 5 resident blocks: there
         * scans of 20 wide tiles (32 KiB) + 1 item take the wide kernel
         * (packed for 1- and 2-byte items, cuda_scan_bytes.cuh), its last
         * tile partial: its whole segments leave by bulk stores, the last
         * one by the 16-byte stores; in place too. */
        if (quick) {
            const int64_t wide = 20 * (32768 / (int64_t)gpt_size(t)) + 1;
            add_ops(&tb, seed, t, wide, PAT_RANDOM, OUT_SAME, false, 0, 0);
            add_ops(&tb, seed, t, wide, PAT_RANDOM, OUT_SAME, true, 0, 0);
            /* and the zeros' order across a look-back window (135169) */
            for (int p = PAT_PZ_NZ; gpt_is_float(t) && p <= PAT_NZ_PZ; p++)
                add_ops(&tb, seed, t, 135169, (gpt_pattern)p, OUT_SAME_AND_WIDEST, false, 0, 0);
        }
        for (size_t s = 0; s < nsome; s++) {
            int64_t n = some[s];
            for (int p = 0; p < PAT_COUNT; p++)
                if (p != PAT_RANDOM && p != PAT_INTVAL && gpt_pattern_for((gpt_pattern)p, t))
                    add_ops(&tb, seed, t, n, (gpt_pattern)p, flips_sign(p) ? OUT_SAME_AND_WIDEST : OUT_SAME, false, 0,
                            0);
            add_ops(&tb, seed, t, n, exact, OUT_ALL, false, 0, 0);
            add_ops(&tb, seed, t, n, PAT_RANDOM, OUT_SAME, true, 0, 0);
            add_ops(&tb, seed, t, n, exact, OUT_SAME, true, 3, 3);
            for (int off = 1; off <= MAX_OFF; off += quick ? 7 : 2)
                add_ops(&tb, seed, t, n, exact, OUT_SAME_AND_WIDEST, false, off, (off * 7) % (MAX_OFF + 1));
        }
    }
    return tb;
}

/* ----------------------------------------------------------------- checks */

static double get_f(const void *b, gp_dtype t, int64_t i)
{
    return t == GP_DTYPE_F32 ? (double)((const float *)b)[i] : ((const double *)b)[i];
}

/*
 * Element i of a float scan: NaN and inf must match; MIN and MAX exact,
 * the sign of a zero included; sums of integer values below 2^mantissa
 * and products of units exact.
 * Other sums: within gamma(terms - 1) sum|x| of the prefix's true sum
 * (`sum`, compensated), the header's bound for any order. The CPU scan's
 * chains are up to a quarter of a block long (cpu_scan.c: 8 runs, each
 * totalled then rescanned), so no tighter bound holds for all sizes; 4 u
 * |sum| allows a final rounding to t and the compensated sum's last bits.
 * Products: within 2 gamma(terms) |ref| of the serial reference.
 * `terms` counts the values combined (init included).
 */
static bool float_ok(gp_op op, gp_dtype t, double g, double r, int64_t terms, long double sum, long double sum_abs,
                     bool all_int, bool unit)
{
    if (isnan(r) || isnan(g) || isinf(r) || isinf(g)) return isnan(r) ? isnan(g) : g == r;
    if (op == GP_OP_MIN || op == GP_OP_MAX) return g == r && signbit(g) == signbit(r); /* -0 < +0 */
    if (terms <= 1) return g == r;
    long double p = t == GP_DTYPE_F32 ? 0x1p24L : 0x1p53L, bound, exact;
    if (op == GP_OP_SUM) { /* against the precise sum, not the serial one */
        if (all_int && sum_abs < p) return g == r;
        long double u = gpt_unit_roundoff(t);
        bound = gpt_gamma(t, terms - 1) * sum_abs * 1.0001L + 4 * u * fabsl(sum);
        exact = sum;
    } else {
        if (unit) return g == r;
        bound = 2 * gpt_gamma(t, terms) * fabsl((long double)r) * 1.0001L;
        exact = r;
    }
    bound += t == GP_DTYPE_F32 ? FLT_MIN : DBL_MIN; /* results near zero */
    return fabsl((long double)g - exact) <= bound;
}

/* Compares n outputs; on the first mismatch describes it in `why`. */
static bool outputs_ok(const scase *c, const void *in, const void *init, const unsigned char *got,
                       const unsigned char *ref, char *why, size_t size)
{
    size_t osz = gpt_size(c->out_t);
    if (!gpt_is_float(c->out_t)) {
        if (memcmp(got, ref, (size_t)c->n * osz) == 0) return true;
        for (int64_t i = 0; i < c->n; i++)
            if (memcmp(got + (size_t)i * osz, ref + (size_t)i * osz, osz) != 0) {
                char a[64], b[64];
                gpt_format(c->out_t, got + (size_t)i * osz, a, sizeof a);
                gpt_format(c->out_t, ref + (size_t)i * osz, b, sizeof b);
                snprintf(why, size, "out[%" PRId64 "] = %s, want %s (exact)", i, a, b);
                return false;
            }
        return true;
    }
    /* Running facts of the prefix: its sum, sum |x|, all integers, all units. */
    gpt_ksum sum = {0, 0};
    long double sum_abs = 0;
    bool all_int = true, unit = true;
    int64_t terms = 0;
    if (c->exclusive) {
        double v = get_f(init, c->out_t, 0);
        if (isfinite(v)) gpt_ksum_add(&sum, v), sum_abs += fabs(v), all_int = v == floor(v), unit = v == 0 || fabs(v) == 1;
        terms = 1;
    }
    for (int64_t i = 0; i < c->n; i++) {
        if (!c->exclusive) {
            double x = get_f(in, c->in_t, i);
            if (isfinite(x))
                gpt_ksum_add(&sum, x), sum_abs += fabs(x), all_int = all_int && x == floor(x),
                                       unit = unit && (x == 0 || fabs(x) == 1);
            terms++;
        }
        double g = get_f(got, c->out_t, i), r = get_f(ref, c->out_t, i);
        long double s = gpt_ksum_value(&sum);
        if (!float_ok(c->op, c->out_t, g, r, terms, s, sum_abs, all_int, unit)) {
            snprintf(why, size, "out[%" PRId64 "] = %.17g, want %.17g (true sum %.17Lg; %" PRId64 " terms, sum|x| %.6Lg)",
                     i, g, r, s, terms, sum_abs);
            return false;
        }
        if (c->exclusive) {
            double x = get_f(in, c->in_t, i);
            if (isfinite(x))
                gpt_ksum_add(&sum, x), sum_abs += fabs(x), all_int = all_int && x == floor(x),
                                       unit = unit && (x == 0 || fabs(x) == 1);
            terms++;
        }
    }
    return true;
}

/* --------------------------------------------------------------- running */

typedef struct bufs {
    unsigned char *host_in, *host_ref, *host_out, *dev_in;
    gpt_guarded out; /* n + 2 SLACK elements of up to 8 bytes, in the context's space */
    size_t cap;      /* elements */
} bufs;

static void describe(const scase *c, long k, char *s, size_t size)
{
    snprintf(s, size,
             "case %ld: scan %s %s %s->%s n=%" PRId64 " pattern=%s%s in_off=%d out_off=%d data_seed=0x%016" PRIx64, k,
             c->exclusive ? (c->with_init ? "exclusive(init)" : "exclusive") : "inclusive", gp_op_name(c->op),
             gp_dtype_name(c->in_t), gp_dtype_name(c->out_t), c->n, gpt_pattern_name(c->pat),
             c->in_place ? " in-place" : "", c->in_off, c->out_off, c->seed);
}

/* An init the reference and the library both take: a value from the
 * input's own distribution (integer-valued or a unit where the float
 * checks need exactness to stay decidable). */
static void make_init(const scase *c, const unsigned char *in, unsigned char *init)
{
    size_t osz = gpt_size(c->out_t);
    gpt_rng r = {c->seed ^ 0x1417};
    memset(init, 0, 16);
    if (!gpt_is_float(c->out_t)) {
        for (size_t b = 0; b < osz; b++) init[b] = (unsigned char)gpt_next(&r);
        return;
    }
    double v;
    if (c->op == GP_OP_PROD) v = gpt_next(&r) & 1 ? 1.0 : -1.0;
    else if (c->op == GP_OP_SUM) v = (double)((int)gpt_below(&r, 17) - 8);
    else v = c->n > 0 ? get_f(in, c->in_t, (int64_t)gpt_below(&r, (uint64_t)c->n)) : 0.5;
    if (isnan(v)) v = 0.25;
    if (c->out_t == GP_DTYPE_F32) {
        float f = (float)v;
        memcpy(init, &f, 4);
    } else {
        memcpy(init, &v, 8);
    }
}

static const unsigned char POISON = 0xA5;

static void run_case(gpt *t, long k, const scase *c, bufs *b)
{
    char desc[320], why[512] = "";
    describe(c, k, desc, sizeof desc);
    if (!gpt_supported(t, GP_PRIM_SCAN, c->op, c->in_t, c->out_t, desc)) return;
    size_t isz = gpt_size(c->in_t), osz = gpt_size(c->out_t);
    unsigned char *hin = b->host_in + (size_t)c->in_off * isz;
    gpt_fill(hin, c->in_t, c->n, c->pat, c->op == GP_OP_PROD && gpt_is_float(c->in_t), c->seed);
    unsigned char init[16];
    make_init(c, hin, init);
    const void *init_arg = c->exclusive && c->with_init ? init : NULL;
    if (c->exclusive && !c->with_init) gpt_identity(c->op, c->out_t, init);
    gp_ref_scan(hin, c->in_t, c->n, c->op, c->exclusive, init_arg, b->host_ref, c->out_t);

    /* The output region: SLACK poisoned elements, then the output at
     * out_off, then poison to the end. In place: the input is copied there. */
    size_t region = (size_t)(c->n + 2 * SLACK) * 8;
    memset(b->host_out, POISON, region);
    int out_off = c->in_place ? c->in_off : c->out_off;
    unsigned char *hout = b->host_out + (size_t)out_off * osz;
    if (c->in_place) memcpy(hout, hin, (size_t)c->n * isz);
    gp_status s = gp_copy_from_host(t->ctx, b->out.ptr, b->host_out, region);
    if (s == GP_STATUS_OK && !c->in_place) s = gp_copy_from_host(t->ctx, b->dev_in, b->host_in, (size_t)(c->in_off + c->n) * isz);
    if (s != GP_STATUS_OK) {
        gpt_fail(t, "%s: uploading gave %s", desc, gp_status_name(s));
        return;
    }
    unsigned char *dout = b->out.ptr + (size_t)out_off * osz;
    const unsigned char *din = c->in_place ? dout : b->dev_in + (size_t)c->in_off * isz;
    if (c->n == 0 && (k & 1)) din = NULL, dout = NULL; /* both may be NULL when n == 0 */
    if (c->exclusive) s = gp_scan_exclusive(t->ctx, din, c->in_t, c->n, c->op, init_arg, dout, c->out_t);
    else s = gp_scan_inclusive(t->ctx, din, c->in_t, c->n, c->op, dout, c->out_t);

    bool ok = s == GP_STATUS_OK;
    if (!ok) snprintf(why, sizeof why, "returned %s (%s)", gp_status_name(s), gp_ctx_last_error(t->ctx));
    if (ok && (s = gp_copy_to_host(t->ctx, b->host_out, b->out.ptr, region)) != GP_STATUS_OK) {
        snprintf(why, sizeof why, "reading the output back gave %s", gp_status_name(s));
        ok = false;
    }
    /* The slack either side of the output is untouched. */
    for (size_t i = 0; ok && i < region; i++) {
        size_t lo = (size_t)out_off * osz, hi = lo + (size_t)c->n * osz;
        if ((i < lo || i >= hi) && b->host_out[i] != POISON) {
            snprintf(why, sizeof why, "a byte %s the output changed (%llu bytes from it)", i < lo ? "before" : "after",
                     (unsigned long long)(i < lo ? lo - i : i - hi + 1));
            ok = false;
        }
    }
    if (ok) ok = outputs_ok(c, hin, init, hout, b->host_ref, why, sizeof why);
    /* The input is const: it and its slack are as uploaded. */
    if (ok && !c->in_place)
        ok = gpt_unchanged(t->ctx, b->dev_in, b->host_in, (size_t)(c->in_off + c->n) * isz, "input", why, sizeof why);
    if (ok) gpt_pass(t);
    else gpt_fail(t, "%s: %s", desc, why);
}

/* ------------------------------------------------------------ error paths */

/* Each bad call fails with its status and leaves the output as it was. */
static void error_paths(gpt *t, bufs *b)
{
    gp_ctx *ctx = t->ctx;
    int32_t *din = (int32_t *)b->dev_in;
    int32_t *dout = (int32_t *)b->out.ptr;
    const int64_t n = 100;
    memset(b->host_out, POISON, (size_t)n * 8);
    gp_status s = gp_copy_from_host(ctx, dout, b->host_out, (size_t)n * 8);
    GPT_CHECK(t, s == GP_STATUS_OK, "upload: %s", gp_status_name(s));
    struct {
        const char *what;
        gp_status got, want;
    } e[] = {
        {"ctx NULL", gp_scan_inclusive(NULL, din, GP_DTYPE_I32, n, GP_OP_SUM, dout, GP_DTYPE_I32), GP_STATUS_NULL_POINTER},
        {"in NULL", gp_scan_inclusive(ctx, NULL, GP_DTYPE_I32, n, GP_OP_SUM, dout, GP_DTYPE_I32), GP_STATUS_NULL_POINTER},
        {"out NULL", gp_scan_exclusive(ctx, din, GP_DTYPE_I32, n, GP_OP_SUM, NULL, NULL, GP_DTYPE_I32),
         GP_STATUS_NULL_POINTER},
        {"n < 0", gp_scan_inclusive(ctx, din, GP_DTYPE_I32, -1, GP_OP_SUM, dout, GP_DTYPE_I32), GP_STATUS_INVALID_SIZE},
        {"n huge", gp_scan_inclusive(ctx, din, GP_DTYPE_I32, INT64_MAX, GP_OP_SUM, dout, GP_DTYPE_I32),
         GP_STATUS_INVALID_SIZE},
        {"bad in dtype", gp_scan_inclusive(ctx, din, (gp_dtype)99, n, GP_OP_SUM, dout, GP_DTYPE_I32),
         GP_STATUS_INVALID_DTYPE},
        {"bad out dtype", gp_scan_inclusive(ctx, din, GP_DTYPE_I32, n, GP_OP_SUM, dout, (gp_dtype)0),
         GP_STATUS_INVALID_DTYPE},
        {"bad op", gp_scan_inclusive(ctx, din, GP_DTYPE_I32, n, (gp_op)42, dout, GP_DTYPE_I32), GP_STATUS_INVALID_OP},
        {"xor on f32", gp_scan_inclusive(ctx, din, GP_DTYPE_F32, n, GP_OP_XOR, dout, GP_DTYPE_F32),
         GP_STATUS_UNSUPPORTED_OP},
        {"narrowing", gp_scan_inclusive(ctx, din, GP_DTYPE_I32, n, GP_OP_SUM, dout, GP_DTYPE_I16),
         GP_STATUS_UNSUPPORTED_DTYPE},
        {"cross kind", gp_scan_inclusive(ctx, din, GP_DTYPE_I32, n, GP_OP_SUM, dout, GP_DTYPE_U64),
         GP_STATUS_UNSUPPORTED_DTYPE},
        {"in place widening", gp_scan_inclusive(ctx, dout, GP_DTYPE_I32, n, GP_OP_SUM, dout, GP_DTYPE_I64),
         GP_STATUS_INVALID_ARGUMENT},
        {"partial overlap", gp_scan_inclusive(ctx, dout, GP_DTYPE_I32, n, GP_OP_SUM, dout + 1, GP_DTYPE_I32),
         GP_STATUS_INVALID_ARGUMENT},
    };
    for (size_t i = 0; i < COUNT(e); i++)
        GPT_CHECK(t, e[i].got == e[i].want, "%s: got %s, want %s", e[i].what, gp_status_name(e[i].got),
                  gp_status_name(e[i].want));
    unsigned char *back = malloc((size_t)n * 8);
    if (!back) abort();
    s = gp_copy_to_host(ctx, back, dout, (size_t)n * 8);
    GPT_CHECK(t, s == GP_STATUS_OK && memcmp(back, b->host_out, (size_t)n * 8) == 0,
              "a failed call wrote to the output (%s)", gp_status_name(s));
    free(back);

    /* n == 0 with NULL pointers is fine and writes nothing. */
    s = gp_scan_inclusive(ctx, NULL, GP_DTYPE_F64, 0, GP_OP_MAX, NULL, GP_DTYPE_F64);
    GPT_CHECK(t, s == GP_STATUS_OK, "n == 0 with NULL pointers: %s", gp_status_name(s));

    /* The workspace query, and a caller's workspace: too small fails before
     * writing, the exact size works. */
    const int64_t big = 300000;
    size_t need = 0;
    s = gp_scan_workspace_size(ctx, GP_DTYPE_I32, big, GP_OP_SUM, GP_DTYPE_I64, &need);
    GPT_CHECK(t, s == GP_STATUS_OK, "gp_scan_workspace_size: %s", gp_status_name(s));
    s = gp_scan_workspace_size(ctx, GP_DTYPE_I32, big, GP_OP_SUM, GP_DTYPE_I16, &need);
    GPT_CHECK(t, s == GP_STATUS_UNSUPPORTED_DTYPE, "gp_scan_workspace_size narrowing: %s", gp_status_name(s));
    s = gp_scan_workspace_size(ctx, GP_DTYPE_I32, big, GP_OP_SUM, GP_DTYPE_I32, &need);
    if (s != GP_STATUS_OK || need == 0) return; /* nothing more to test on this backend */
    void *ws = NULL;
    if (gp_malloc(ctx, &ws, need) != GP_STATUS_OK) {
        gpt_fail(t, "could not allocate a %zu-byte workspace", need);
        return;
    }
    int32_t *h = malloc((size_t)big * 4), *r = malloc((size_t)big * 4), *g = malloc((size_t)big * 4);
    int32_t *dbig = NULL, *dbo = NULL;
    if (!h || !r || !g || gp_malloc(ctx, (void **)&dbig, (size_t)big * 4) != GP_STATUS_OK ||
        gp_malloc(ctx, (void **)&dbo, (size_t)big * 4) != GP_STATUS_OK)
        abort();
    gpt_fill(h, GP_DTYPE_I32, big, PAT_RANDOM, false, t->seed);
    gp_ref_scan(h, GP_DTYPE_I32, big, GP_OP_SUM, false, NULL, r, GP_DTYPE_I32);
    memset(g, POISON, (size_t)big * 4);
    gp_copy_from_host(ctx, dbig, h, (size_t)big * 4);
    gp_copy_from_host(ctx, dbo, g, (size_t)big * 4);
    s = gp_ctx_set_workspace(ctx, ws, need - 1);
    GPT_CHECK(t, s == GP_STATUS_OK, "gp_ctx_set_workspace: %s", gp_status_name(s));
    s = gp_scan_inclusive(ctx, dbig, GP_DTYPE_I32, big, GP_OP_SUM, dbo, GP_DTYPE_I32);
    GPT_CHECK(t, s == GP_STATUS_WORKSPACE_TOO_SMALL, "one byte short: %s", gp_status_name(s));
    gp_copy_to_host(ctx, g, dbo, (size_t)big * 4);
    GPT_CHECK(t, ((unsigned char *)g)[0] == POISON, "a call short of workspace wrote to the output");
    for (int rep = 0; rep < 3; rep++) { /* repeated: statuses of one call must not confuse the next */
        gp_ctx_set_workspace(ctx, ws, need);
        s = gp_scan_inclusive(ctx, dbig, GP_DTYPE_I32, big, GP_OP_SUM, dbo, GP_DTYPE_I32);
        GPT_CHECK(t, s == GP_STATUS_OK, "with the exact workspace: %s", gp_status_name(s));
        gp_copy_to_host(ctx, g, dbo, (size_t)big * 4);
        GPT_CHECK(t, memcmp(g, r, (size_t)big * 4) == 0, "the scan in a caller's workspace is wrong (rep %d)", rep);
        /* Alternate with the context's own scratch. */
        gp_ctx_set_workspace(ctx, NULL, 0);
        memset(g, POISON, (size_t)big * 4);
        gp_copy_from_host(ctx, dbo, g, (size_t)big * 4);
        s = gp_scan_inclusive(ctx, dbig, GP_DTYPE_I32, big, GP_OP_SUM, dbo, GP_DTYPE_I32);
        gp_copy_to_host(ctx, g, dbo, (size_t)big * 4);
        GPT_CHECK(t, s == GP_STATUS_OK && memcmp(g, r, (size_t)big * 4) == 0,
                  "the scan after a caller's workspace is wrong (%s, rep %d)", gp_status_name(s), rep);
    }
    gp_ctx_set_workspace(ctx, NULL, 0);
    gp_free(ctx, dbig);
    gp_free(ctx, dbo);
    gp_free(ctx, ws);
    free(h), free(r), free(g);
}

int main(int argc, char **argv)
{
    gpt t;
    gpt_init(&t, argc, argv);
    table tb = build_table(t.seed, t.quick);
    printf("%zu cases\n", tb.n);

    int64_t max_n = 0;
    for (size_t i = 0; i < tb.n; i++)
        if (tb.c[i].n > max_n) max_n = tb.c[i].n;
    bufs b = {0};
    b.cap = (size_t)max_n + 2 * SLACK;
    b.host_in = malloc(b.cap * 8);
    b.host_ref = malloc(b.cap * 8);
    b.host_out = malloc(b.cap * 8);
    if (!b.host_in || !b.host_ref || !b.host_out || gp_malloc(t.ctx, (void **)&b.dev_in, b.cap * 8) != GP_STATUS_OK ||
        gpt_guarded_alloc(t.ctx, &b.out, b.cap * 8) != GP_STATUS_OK) {
        gpt_fail(&t, "could not allocate the test buffers");
        return gpt_finish(&t);
    }
    gpt_guarded_poison(&b.out, &POISON, 1);
    for (size_t i = 0; i < tb.n; i++)
        if (gpt_selected(&t, (long)i)) run_case(&t, (long)i, &tb.c[i], &b);
    if (t.only_case < 0) error_paths(&t, &b);
    /* Far stray writes: the canaries around the whole output buffer. */
    char why[256];
    GPT_CHECK(&t, gpt_guarded_check(&b.out, NULL, why, sizeof why), "%s", why);

    gpt_guarded_free(&b.out);
    gp_free(t.ctx, b.dev_in);
    free(b.host_in), free(b.host_ref), free(b.host_out);
    free(tb.c);
    return gpt_finish(&t);
}
