/* Reduction test data and expectations: see reduce_data.h. */
#include "reduce_data.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const pattern_names[PAT_COUNT] = {"random", "const", "ascending", "descending", "intval",
                                                     "positive", "nan", "+inf", "-inf", "+inf-inf",
                                                     "zeros", "+0,-0", "-0,+0"};

const char *gpt_pattern_name(gpt_pattern p) { return p < PAT_COUNT ? pattern_names[p] : "?"; }
bool gpt_pattern_for(gpt_pattern p, gp_dtype t) { return p <= PAT_DESC || gpt_is_float(t); }

bool gpt_is_float(gp_dtype t) { return t == GP_DTYPE_F32 || t == GP_DTYPE_F64; }
bool gpt_is_signed(gp_dtype t)
{
    return t == GP_DTYPE_I8 || t == GP_DTYPE_I16 || t == GP_DTYPE_I32 || t == GP_DTYPE_I64;
}

size_t gpt_size(gp_dtype t)
{
    switch (t) {
    case GP_DTYPE_I8: case GP_DTYPE_U8: return 1;
    case GP_DTYPE_I16: case GP_DTYPE_U16: return 2;
    case GP_DTYPE_I32: case GP_DTYPE_U32: case GP_DTYPE_F32: return 4;
    case GP_DTYPE_I64: case GP_DTYPE_U64: case GP_DTYPE_F64: return 8;
    }
    return 0;
}

bool gpt_widening_ok(gp_dtype in_t, gp_dtype out_t)
{
    if (!gpt_size(in_t) || !gpt_size(out_t)) return false;
    return gpt_is_float(in_t) == gpt_is_float(out_t) && gpt_is_signed(in_t) == gpt_is_signed(out_t) &&
           gpt_size(out_t) >= gpt_size(in_t);
}

bool gpt_op_defined(gp_op op, gp_dtype t)
{
    if (!gpt_size(t) || op < GP_OP_SUM || op > GP_OP_XOR) return false;
    return op <= GP_OP_MAX || !gpt_is_float(t);
}

bool gpt_header_valid(gp_primitive prim, gp_op op, gp_dtype in_t, gp_dtype out_t)
{
    switch (prim) {
    case GP_PRIM_REDUCE:
    case GP_PRIM_SCAN: return gpt_op_defined(op, in_t) && gpt_widening_ok(in_t, out_t);
    case GP_PRIM_SELECT:
    case GP_PRIM_PARTITION:
    case GP_PRIM_FILTER:
    case GP_PRIM_TRANSPOSE: /* every dtype's size is a valid element size */
    case GP_PRIM_COUNT:
    case GP_PRIM_HISTOGRAM: return op == 0 && gpt_size(in_t) && out_t == in_t;
    }
    return false;
}

const char *gpt_prim_name(gp_primitive prim)
{
    static const char *const names[] = {"?",         "reduce",    "scan",  "select",   "partition",
                                        "filter",    "transpose", "count", "histogram"};
    return prim >= GP_PRIM_REDUCE && prim <= GP_PRIM_HISTOGRAM ? names[prim] : "?";
}

bool gpt_supported(gpt *t, gp_primitive prim, gp_op op, gp_dtype in_t, gp_dtype out_t, const char *desc)
{
    if (gp_supports(t->ctx, prim, op, in_t, out_t)) return true;
    if (!gpt_header_valid(prim, op, in_t, out_t)) {
        gpt_skip(t);
        return false;
    }
    const char *on = gp_op_name(op), *in = gp_dtype_name(in_t), *out = gp_dtype_name(out_t);
    gpt_fail(t, "%s: gp_supports(%s, %s, %s -> %s) = 0 on the %s backend, but gpuprim.h documents it as valid",
             desc, gpt_prim_name(prim), on ? on : "op 0", in ? in : "?", out ? out : "?", gp_backend_name(t->backend));
    return false;
}

/* ------------------------------------------------------------ element access */

/* Element i of b, by memcpy: b may be any caller's bytes, such as the init
 * field of gp_scan_args, which sits at an odd offset. */
static void put_bits(void *b, size_t size, int64_t i, uint64_t v)
{
    unsigned char *at = (unsigned char *)b + (size_t)i * size;
    switch (size) {
    case 1: { uint8_t x = (uint8_t)v; memcpy(at, &x, 1); break; }
    case 2: { uint16_t x = (uint16_t)v; memcpy(at, &x, 2); break; }
    case 4: { uint32_t x = (uint32_t)v; memcpy(at, &x, 4); break; }
    default: memcpy(at, &v, 8); break;
    }
}

static uint64_t get_bits(const void *b, size_t size, int64_t i)
{
    const unsigned char *at = (const unsigned char *)b + (size_t)i * size;
    switch (size) {
    case 1: { uint8_t x; memcpy(&x, at, 1); return x; }
    case 2: { uint16_t x; memcpy(&x, at, 2); return x; }
    case 4: { uint32_t x; memcpy(&x, at, 4); return x; }
    default: { uint64_t x; memcpy(&x, at, 8); return x; }
    }
}

static void put_f(void *b, gp_dtype t, int64_t i, double v)
{
    if (t == GP_DTYPE_F32) {
        const float x = (float)v;
        memcpy((unsigned char *)b + (size_t)i * 4, &x, 4);
    } else {
        memcpy((unsigned char *)b + (size_t)i * 8, &v, 8);
    }
}

static double get_f(const void *b, gp_dtype t, int64_t i)
{
    if (t == GP_DTYPE_F32) {
        float x;
        memcpy(&x, (const unsigned char *)b + (size_t)i * 4, 4);
        return (double)x;
    }
    double x;
    memcpy(&x, (const unsigned char *)b + (size_t)i * 8, 8);
    return x;
}

/* ------------------------------------------------------------------ integers */

static void fill_int(void *buf, gp_dtype t, int64_t n, gpt_pattern p, gpt_rng *r)
{
    size_t size = gpt_size(t);
    unsigned bits = (unsigned)(8 * size);
    uint64_t range = bits == 64 ? UINT64_MAX : (1ull << bits) - 1;
    /* Ascending runs over the whole range, from the type's minimum (in two's
     * complement bits) at i = 0 to its maximum at i = n - 1. */
    uint64_t minbits = gpt_is_signed(t) ? 1ull << (bits - 1) : 0;
    uint64_t c = gpt_next(r);
    for (int64_t i = 0; i < n; i++) {
        uint64_t off = 0;
        if (p == PAT_ASC || p == PAT_DESC) {
            int64_t j = p == PAT_ASC ? i : n - 1 - i;
            if (j == n - 1) off = range;
            else if (bits < 64) off = (uint64_t)j * range / (uint64_t)(n - 1);
            else off = (uint64_t)j * (range / (uint64_t)(n - 1));
        }
        uint64_t v = p == PAT_RANDOM ? gpt_next(r) : p == PAT_CONST ? c : minbits + off;
        put_bits(buf, size, i, v);
    }
}

/* -------------------------------------------------------------------- floats */

static double sign(gpt_rng *r, double v) { return gpt_next(r) & 1 ? -v : v; }

/* One value as the pattern draws it (see gpt_fill). */
static double draw(gpt_rng *r, gp_dtype t, int64_t n, gpt_pattern p, bool prodsafe)
{
    if (prodsafe) {
        if (n > 64) return p == PAT_POS ? 1.0 : sign(r, 1.0);
        if (p == PAT_INTVAL) return sign(r, (double)(1 + gpt_below(r, 2)));
        double v = 0.5 + 1.5 * gpt_uniform(r);
        return p == PAT_POS ? v : sign(r, v);
    }
    if (p == PAT_INTVAL) {
        /* |x| <= M with n * M below 2^24 (f32) or 2^53 (f64): every partial
         * sum in any order is an integer the output holds exactly. */
        int64_t cap = t == GP_DTYPE_F32 ? (1ll << 24) - 1 : (1ll << 53) - 1;
        int64_t m = n > 0 ? cap / n : cap;
        if (m < 1) m = 1;
        if (m > (1ll << 40)) m = 1ll << 40;
        return (double)((int64_t)gpt_below(r, (uint64_t)(2 * m + 1)) - m);
    }
    double v = ldexp(1.0 + gpt_uniform(r), (int)gpt_below(r, 13) - 6);
    return p == PAT_POS ? v : sign(r, v);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* First, last or anywhere: NaN and inf at the ends catch loops that skip them. */
static int64_t special_index(gpt_rng *r, int64_t n)
{
    switch (gpt_below(r, 3)) {
    case 0: return 0;
    case 1: return n - 1;
    default: return (int64_t)gpt_below(r, (uint64_t)n);
    }
}

static void fill_float(void *buf, gp_dtype t, int64_t n, gpt_pattern p, bool prodsafe, gpt_rng *r)
{
    if (n == 0) return;
    double c = draw(r, t, n, p, prodsafe);
    if ((p == PAT_ASC || p == PAT_DESC) && !prodsafe) {
        /* lo + i h is monotone, and rounding to f32 keeps it so. */
        double h = ldexp(0.5 + gpt_uniform(r), -3), lo = -h * (double)n * gpt_uniform(r) + c;
        for (int64_t i = 0; i < n; i++) put_f(buf, t, i, lo + (double)(p == PAT_ASC ? i : n - 1 - i) * h);
        return;
    }
    if (p == PAT_ZEROS) {
        for (int64_t i = 0; i < n; i++) put_f(buf, t, i, (gpt_next(r) & 1) ? -0.0 : 0.0);
        return;
    }
    /* A rule that keeps the earlier of equal operands leaves the first sign
     * to the end, so a kernel path that does not order the zeros shows. */
    if (p == PAT_PZ_NZ || p == PAT_NZ_PZ) {
        const int64_t flip = n > 0 ? (int64_t)gpt_below(r, (uint64_t)n) : 0;
        const double first = p == PAT_PZ_NZ ? 0.0 : -0.0;
        for (int64_t i = 0; i < n; i++) put_f(buf, t, i, i < flip ? first : -first);
        return;
    }
    if (p == PAT_ASC || p == PAT_DESC) { /* prodsafe: sort the draws */
        double *v = malloc((size_t)n * sizeof *v);
        if (!v) abort();
        for (int64_t i = 0; i < n; i++) v[i] = draw(r, t, n, p, true);
        qsort(v, (size_t)n, sizeof *v, cmp_double);
        for (int64_t i = 0; i < n; i++) put_f(buf, t, i, v[p == PAT_ASC ? i : n - 1 - i]);
        free(v);
        return;
    }
    for (int64_t i = 0; i < n; i++) put_f(buf, t, i, p == PAT_CONST ? c : draw(r, t, n, p, prodsafe));
    if (p == PAT_RANDOM && prodsafe && n > 64 && (gpt_next(r) & 1)) put_f(buf, t, (int64_t)gpt_below(r, (uint64_t)n), 0.0);
    if (p == PAT_NAN) put_f(buf, t, special_index(r, n), NAN);
    if (p == PAT_PINF || p == PAT_INFS) put_f(buf, t, special_index(r, n), INFINITY);
    if (p == PAT_NINF || p == PAT_INFS) {
        int64_t k = special_index(r, n);
        if (p == PAT_INFS && n > 1 && isinf(get_f(buf, t, k))) k = (k + 1) % n; /* keep the +inf */
        put_f(buf, t, k, -INFINITY);
    }
}

void gpt_fill(void *buf, gp_dtype t, int64_t n, gpt_pattern p, bool prodsafe, uint64_t seed)
{
    gpt_rng r = {seed};
    if (gpt_is_float(t)) fill_float(buf, t, n, p, prodsafe, &r);
    else fill_int(buf, t, n, p, &r);
}

void gpt_ksum_add(gpt_ksum *k, long double x)
{
    long double s = k->hi + x;
    k->lo += fabsl(k->hi) >= fabsl(x) ? (k->hi - s) + x : (x - s) + k->hi;
    k->hi = s;
}

void gpt_facts_of(const void *buf, gp_dtype t, int64_t n, gpt_facts *f)
{
    gpt_ksum sum = {0, 0};
    f->sum_abs = f->sum = 0;
    f->all_int = f->unit = f->small_pow2 = true;
    if (!gpt_is_float(t)) return;
    for (int64_t i = 0; i < n; i++) {
        double x = get_f(buf, t, i), a = fabs(x);
        if (!isfinite(x)) continue;
        gpt_ksum_add(&sum, x);
        f->sum_abs += a;
        f->all_int = f->all_int && a == floor(a);
        f->unit = f->unit && (a == 0 || a == 1);
        f->small_pow2 = f->small_pow2 && (a == 0 || a == 0.5 || a == 1 || a == 2);
    }
    f->sum = gpt_ksum_value(&sum);
}

/* ------------------------------------------------------------- expectations */

void gpt_format(gp_dtype t, const void *v, char *s, size_t size)
{
    if (gpt_is_float(t)) {
        snprintf(s, size, "%.17g", get_f(v, t, 0));
        return;
    }
    size_t sz = gpt_size(t);
    uint64_t b = get_bits(v, sz, 0);
    if (gpt_is_signed(t)) {
        unsigned sh = (unsigned)(64 - 8 * sz);
        int64_t sv = (int64_t)(b << sh) >> sh; /* sign-extend */
        snprintf(s, size, "0x%0*" PRIx64 " (%" PRId64 ")", (int)(2 * sz), b, sv);
    } else {
        snprintf(s, size, "0x%0*" PRIx64 " (%" PRIu64 ")", (int)(2 * sz), b, b);
    }
}

long double gpt_unit_roundoff(gp_dtype t) { return t == GP_DTYPE_F32 ? FLT_EPSILON / 2 : DBL_EPSILON / 2; }

/* gamma(k) = k u / (1 - k u): the relative error bound of k roundings. */
long double gpt_gamma(gp_dtype t, int64_t k)
{
    long double ku = (long double)k * gpt_unit_roundoff(t);
    return ku < 0.5L ? ku / (1 - ku) : INFINITY;
}

/*
 * A sum in a tree of depth h (no element goes through more than h
 * roundings) is within gamma(h) sum|x| of the true sum, whatever the order;
 * the header promises h <= n - 1, useless past n u ~ 1 (f32 at 5.8M
 * elements: 1.05 sum|x|). Both backends sum much shallower trees:
 * - CPU (cpu_reduce.c): a block of 4096 in 16 lanes, 256 (+15 tail) each,
 *   the lanes combined in 15 steps, then one step a block along a thread's
 *   chunk (<= n/4096), then one a thread (<= 255): <= 542 + n/4096;
 * - CUDA (cuda_reduce.cu): a thread folds its vectors serially, at most
 *   n/2 vectors (f64) over 1024 threads even on a one-SM grid (a few more
 *   where a grid reads segments), plus the unroll, 2 lane-tree and 2 edge
 *   steps, 9 in block_reduce and under 25 finishing the grid: about
 *   n/2048 + 42.
 * 1024 + n/1024 is at least either, and twice the CPU's from n = 2^17;
 * gpt_result_ok doubles gamma again.
 */
int64_t gpt_sum_depth(int64_t n)
{
    int64_t cap = 1024 + n / 1024;
    return n - 1 < cap ? n - 1 : cap;
}

bool gpt_result_ok(gp_op op, gp_dtype out_t, int64_t n, const gpt_facts *f, const void *got,
                   const void *ref, char *why, size_t why_size)
{
    char gs[64], rs[64];
    gpt_format(out_t, got, gs, sizeof gs);
    gpt_format(out_t, ref, rs, sizeof rs);
    if (!gpt_is_float(out_t)) {
        if (memcmp(got, ref, gpt_size(out_t)) == 0) return true;
        snprintf(why, why_size, "got %s, want %s (exact)", gs, rs);
        return false;
    }
    double g = get_f(got, out_t, 0), r = get_f(ref, out_t, 0);
    if (isnan(r) || isnan(g) || isinf(r) || isinf(g)) {
        if (isnan(r) ? isnan(g) : g == r) return true;
        snprintf(why, why_size, "got %s, want %s (NaN and inf must match)", gs, rs);
        return false;
    }
    bool minmax = op == GP_OP_MIN || op == GP_OP_MAX;
    if (minmax && g == r && signbit(g) != signbit(r)) {
        snprintf(why, why_size, "got %s, want %s (MIN and MAX order the zeros, -0 < +0)", gs, rs);
        return false;
    }
    bool exact = minmax || n <= 1;
    long double bound = 0, want = r;
    long double p = out_t == GP_DTYPE_F32 ? 0x1p24L : 0x1p53L;
    if (op == GP_OP_SUM) {
        /* Against the true sum: the serial reference's own error at large n
         * is as large as the bound once was. 4 u |sum| covers a final
         * rounding to out_t and the compensated sum's last bits. */
        long double u = gpt_unit_roundoff(out_t);
        exact = exact || (f->all_int && f->sum_abs < p);
        want = f->sum;
        bound = 2 * gpt_gamma(out_t, gpt_sum_depth(n)) * f->sum_abs * 1.0001L + 4 * u * fabsl(f->sum);
    } else if (op == GP_OP_PROD) {
        exact = exact || f->unit || (f->small_pow2 && n <= 100); /* 2^100 is within f32 range */
        bound = 2 * gpt_gamma(out_t, n) * fabsl((long double)r) * 1.0001L;
    }
    bound += out_t == GP_DTYPE_F32 ? FLT_MIN : DBL_MIN; /* absorbs subnormal noise */
    long double err = fabsl((long double)g - want);
    if (exact ? g == r : err <= bound) return true;
    if (exact) snprintf(why, why_size, "got %s, want %s (exact)", gs, rs);
    else snprintf(why, why_size, "got %s, want %.17Lg (serial %s): |error| %.3Lg > bound %.3Lg", gs, want, rs, err,
                  bound);
    return false;
}

void gpt_identity(gp_op op, gp_dtype out_t, void *out)
{
    size_t sz = gpt_size(out_t);
    unsigned bits = (unsigned)(8 * sz);
    uint64_t ones = bits == 64 ? UINT64_MAX : (1ull << bits) - 1;
    uint64_t smax = ones >> 1, smin = 1ull << (bits - 1);
    if (gpt_is_float(out_t)) {
        double v = op == GP_OP_PROD ? 1 : op == GP_OP_MIN ? INFINITY : op == GP_OP_MAX ? -INFINITY : 0;
        put_f(out, out_t, 0, v);
        return;
    }
    bool s = gpt_is_signed(out_t);
    uint64_t v = 0;
    switch (op) {
    case GP_OP_PROD: v = 1; break;
    case GP_OP_AND: v = ones; break;
    case GP_OP_MIN: v = s ? smax : ones; break;
    case GP_OP_MAX: v = s ? smin : 0; break;
    default: v = 0; break;
    }
    put_bits(out, sz, 0, v);
}

void gpt_poison_for(gp_dtype out_t, const void *expected, void *poison)
{
    size_t sz = gpt_size(out_t);
    if (gpt_is_float(out_t) && !isnan(get_f(expected, out_t, 0))) {
        if (out_t == GP_DTYPE_F32) put_bits(poison, 4, 0, 0x7fa5a5a5u); /* a NaN */
        else put_bits(poison, 8, 0, 0x7ff5a5a5a5a5a5a5ull);
        return;
    }
    memset(poison, 0xA5, sz); /* finite for floats, so a NaN result must be written */
    if (memcmp(poison, expected, sz) == 0) memset(poison, 0x5A, sz);
}
