/*
 * CPU counting and histograms.
 *
 * Count: OpenMP threads take blocks of GP_CPU_COUNT_BLOCK elements; inside a
 * block the comparison is added into a 32-bit counter in a loop the
 * compiler vectorises (the switch on the comparison sits outside it).
 *
 * Histograms: each thread counts into a private histogram, merged once at
 * the end, so threads never share a counter. 8-bit inputs count raw byte
 * values instead (256 counters, in four interleaved tables so that a run of
 * equal bytes is not one long chain of dependent increments) and map each
 * value to its bin once at the end: no per-element arithmetic at all.
 *
 * Even bins use the header's formula exactly, computed as the serial
 * reference does, behind a cheap estimate that is provably right whenever it
 * is used (even_bin below); the CUDA backend uses the same two steps, so all
 * three agree to the last count.
 */
#include <math.h>
#include <omp.h>
#include <string.h>

#include "cpu_histogram.h"

enum {
    GP_CPU_COUNT_BLOCK = 4096,           /* 32-bit partial counts, one per block */
    GP_CPU_HIST_PAR_MIN = 1 << 15,       /* below this, threads cost more than they save */
    GP_CPU_HIST_MAX_THREADS = 256,
    GP_CPU_HIST_PER_BIN = 4,             /* private histograms only when each gets >= 4 elements per bin */
    GP_CPU_BYTE_CHUNK = 1 << 30          /* 8-bit inputs: elements per round of 32-bit value counters */
};

#define GP_CPU_HIST_TYPES(X) \
    X(i8, int8_t)            \
    X(u8, uint8_t)           \
    GP_CPU_WIDE_TYPES(X)

/* The dtypes that are binned one element at a time (not 8-bit). */
#define GP_CPU_WIDE_TYPES(X) \
    X(i16, int16_t)          \
    X(u16, uint16_t)         \
    X(i32, int32_t)          \
    X(u32, uint32_t)         \
    X(i64, int64_t)          \
    X(u64, uint64_t)         \
    X(f32, float)            \
    X(f64, double)

#define GP_DT_i8 GP_DTYPE_I8
#define GP_DT_u8 GP_DTYPE_U8
#define GP_DT_i16 GP_DTYPE_I16
#define GP_DT_u16 GP_DTYPE_U16
#define GP_DT_i32 GP_DTYPE_I32
#define GP_DT_u32 GP_DTYPE_U32
#define GP_DT_i64 GP_DTYPE_I64
#define GP_DT_u64 GP_DTYPE_U64
#define GP_DT_f32 GP_DTYPE_F32
#define GP_DT_f64 GP_DTYPE_F64

/* ------------------------------------------------------------------ count */

#define GP_CPU_COUNT_RUN(OP)                                   \
    for (int64_t i = 0; i < m; i++) c += (uint32_t)(p[i] OP v); \
    break;

#define GP_CPU_DEF_COUNT(NAME, T)                                                     \
    static int64_t count_if_##NAME(const T *x, int64_t n, gp_cmp cmp, T v)                \
    {                                                                                 \
        int64_t total = 0, nblocks = (n + GP_CPU_COUNT_BLOCK - 1) / GP_CPU_COUNT_BLOCK; \
        _Pragma("omp parallel for reduction(+ : total) schedule(static) if (n >= GP_CPU_HIST_PAR_MIN)") \
        for (int64_t k = 0; k < nblocks; k++) {                                       \
            const T *p = x + k * GP_CPU_COUNT_BLOCK;                                  \
            int64_t m = n - k * GP_CPU_COUNT_BLOCK;                                   \
            if (m > GP_CPU_COUNT_BLOCK) m = GP_CPU_COUNT_BLOCK;                       \
            uint32_t c = 0;                                                           \
            switch (cmp) {                                                            \
            case GP_CMP_LT: GP_CPU_COUNT_RUN(<)                                       \
            case GP_CMP_LE: GP_CPU_COUNT_RUN(<=)                                      \
            case GP_CMP_GT: GP_CPU_COUNT_RUN(>)                                       \
            case GP_CMP_GE: GP_CPU_COUNT_RUN(>=)                                      \
            case GP_CMP_EQ: GP_CPU_COUNT_RUN(==)                                      \
            case GP_CMP_NE: GP_CPU_COUNT_RUN(!=)                                      \
            }                                                                         \
            total += c;                                                               \
        }                                                                             \
        return total;                                                                 \
    }
GP_CPU_HIST_TYPES(GP_CPU_DEF_COUNT)

size_t gp_cpu_count_workspace(const gp_ctx *ctx, const gp_count_args *a) { return 0; }

#define GP_CPU_COUNT_CASE(NAME, T)                                    \
    case GP_DT_##NAME: {                                              \
        T v;                                                          \
        memcpy(&v, a->value, sizeof v);                               \
        *a->count = count_if_##NAME((const T *)a->in, a->n, a->cmp, v);  \
        return GP_STATUS_OK;                                          \
    }

gp_status gp_cpu_count(gp_ctx *ctx, const gp_count_args *a, void *ws)
{
    switch (a->t) {
        GP_CPU_HIST_TYPES(GP_CPU_COUNT_CASE)
    }
    return gp_set_error(ctx, GP_STATUS_INTERNAL, "gp_cpu_count: dtype %d", (int)a->t);
}

/* ------------------------------------------------------------ bin formulas */

typedef struct even_p {
    double lower, upper, width, scale, fbins;
    int64_t bins;
} even_p;

static even_p even_params(const gp_histogram_args *a)
{
    even_p p = {a->lower, a->upper, a->upper - a->lower, 0.0, (double)a->bins, a->bins};
    p.scale = p.fbins / p.width;
    return p;
}

/*
 * The bin of x: floor((x - lower) * bins / width) in double (the quotient
 * first where the product overflows), clamped to bins - 1, or -1 outside
 * [lower, upper) and for NaN.
 *
 * The quotient costs a division; the estimate a = d * (bins / width) costs a
 * multiplication. With u = 2^-53 each of the two results is within 2u of the
 * real d * bins / width in relative terms, so |a - f| <= 4u * bins(1 + u)
 * < 2^-30 for bins <= 2^20, whenever a and the quotient are normal numbers.
 * (bins / width is subnormal only for bins <= 3, where its 2^-50 relative
 * error still gives |a - f| < 2^-47; when it overflows, a is inf or NaN.)
 * So if a lies more than EPS = 2^-26 from every integer, floor(f) ==
 * floor(a): the estimate is used. Otherwise (a near an integer, a tiny, a
 * not finite) the formula itself decides. Nothing here can contract into an
 * FMA: the exact path is a subtraction, a multiplication and a division.
 */
#define GP_CPU_EVEN_EPS 0x1p-26

static inline int64_t even_bin(double x, const even_p *p)
{
    if (!(x >= p->lower && x < p->upper)) return -1;
    double d = x - p->lower;
    double a = d * p->scale;
    if (a >= 0.0 && a < p->fbins) { /* false for NaN */
        int64_t k = (int64_t)a;
        double fr = a - (double)k;
        if (fr > GP_CPU_EVEN_EPS && fr < 1.0 - GP_CPU_EVEN_EPS) return k;
    }
    double scaled = d * p->fbins; /* past DBL_MAX only for d near it: then the quotient first */
    double f = isfinite(scaled) ? scaled / p->width : d / p->width * p->fbins; /* >= 0, finite: d <= width */
    int64_t k = (int64_t)f;
    return k < p->bins ? k : p->bins - 1;
}

/* The b with e[b] <= x < e[b+1], or -1 outside [e[0], e[bins]) and for NaN.
 * The candidate range [lo, lo + len) halves each step; when the probe is
 * above x it keeps len - half >= half candidates, a superset of the answer's
 * half, so the loop has no data-dependent length. */
#define GP_CPU_DEF_EDGE_BIN(NAME, T)                                          \
    static inline int64_t edge_bin_##NAME(T x, const T *e, int64_t bins)      \
    {                                                                         \
        if (!(e[0] <= x && x < e[bins])) return -1;                           \
        int64_t lo = 0, len = bins;                                           \
        while (len > 1) {                                                     \
            int64_t half = len / 2;                                           \
            if (e[lo + half] <= x) lo += half;                                \
            len -= half;                                                      \
        }                                                                     \
        return lo;                                                            \
    }
GP_CPU_HIST_TYPES(GP_CPU_DEF_EDGE_BIN)

/* ------------------------------------------------------- thread partitions */

static bool is_byte(gp_dtype t) { return t == GP_DTYPE_I8 || t == GP_DTYPE_U8; }

/* Threads for a histogram: one for small inputs; private histograms only
 * while each thread has a few elements per bin to count (else zeroing and
 * merging them costs more than the counting). */
static int hist_threads(gp_dtype t, int64_t n, int64_t bins)
{
    if (n < GP_CPU_HIST_PAR_MIN) return 1;
    int nt = omp_get_max_threads();
    if (nt > GP_CPU_HIST_MAX_THREADS) nt = GP_CPU_HIST_MAX_THREADS;
    if (!is_byte(t)) {
        int64_t by_bins = n / (bins * GP_CPU_HIST_PER_BIN);
        if (by_bins < nt) nt = by_bins < 1 ? 1 : (int)by_bins;
    }
    return nt < 1 ? 1 : nt;
}

/* 8-bit: 256 value totals per thread. Others: a private histogram per
 * thread, none when one thread counts straight into hist. */
size_t gp_cpu_histogram_workspace(const gp_ctx *ctx, gp_dtype t, int64_t n, int64_t bins)
{
    int nt = hist_threads(t, n, bins);
    if (is_byte(t)) return (size_t)nt * 256 * sizeof(uint64_t);
    return nt > 1 ? (size_t)nt * (size_t)bins * sizeof(uint64_t) : 0;
}

/* The [lo, lo + len) share of n for thread t of nt. */
static void share(int64_t n, int t, int nt, int64_t *lo, int64_t *len)
{
    *lo = n / nt * t + (t < n % nt ? t : n % nt);
    *len = n / nt + (t < n % nt ? 1 : 0);
}

/* ------------------------------------------------------------ 8-bit inputs */

/* tot[v] = the number of bytes equal to v. */
static void count_bytes(const uint8_t *x, int64_t n, uint64_t *tot)
{
    uint32_t c[4][256];
    memset(tot, 0, 256 * sizeof *tot);
    for (int64_t i0 = 0; i0 < n; i0 += GP_CPU_BYTE_CHUNK) {
        int64_t m = n - i0 < GP_CPU_BYTE_CHUNK ? n - i0 : GP_CPU_BYTE_CHUNK;
        const uint8_t *p = x + i0;
        memset(c, 0, sizeof c);
        int64_t i = 0;
        for (; i + 4 <= m; i += 4) {
            c[0][p[i]]++;
            c[1][p[i + 1]]++;
            c[2][p[i + 2]]++;
            c[3][p[i + 3]]++;
        }
        for (; i < m; i++) c[0][p[i]]++;
        for (int v = 0; v < 256; v++) tot[v] += (uint64_t)c[0][v] + c[1][v] + c[2][v] + c[3][v];
    }
}

static void clear(uint64_t *h, int64_t bins)
{
    memset(h, 0, (size_t)bins * sizeof *h);
}

static gp_status histogram_bytes(const gp_histogram_args *a, uint64_t *ws)
{
    int nt = hist_threads(a->t, a->n, a->bins), used = 1;
    const uint8_t *x = (const uint8_t *)a->in;
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        int t = omp_get_thread_num(), tn = omp_get_num_threads();
        int64_t lo, len;
        share(a->n, t, tn, &lo, &len);
        count_bytes(x + lo, len, ws + (size_t)t * 256);
        if (t == 0) used = tn;
    }
    for (int t = 1; t < used; t++)
        for (int v = 0; v < 256; v++) ws[v] += ws[(size_t)t * 256 + v];

    if (!a->accumulate) clear(a->hist, a->bins);
    even_p p = even_params(a);
    for (int v = 0; v < 256; v++) {
        if (!ws[v]) continue;
        int64_t b;
        if (a->t == GP_DTYPE_U8) {
            uint8_t u = (uint8_t)v;
            b = a->edges ? edge_bin_u8(u, (const uint8_t *)a->edges, a->bins) : even_bin((double)u, &p);
        } else {
            int8_t s = (int8_t)(uint8_t)v;
            b = a->edges ? edge_bin_i8(s, (const int8_t *)a->edges, a->bins) : even_bin((double)s, &p);
        }
        if (b >= 0) a->hist[b] += ws[v];
    }
    return GP_STATUS_OK;
}

/* ----------------------------------------------------------- other inputs */

#define GP_CPU_DEF_HIST(NAME, T)                                                                  \
    static void bin_##NAME(const T *x, int64_t n, const gp_histogram_args *a, const even_p *p,    \
                             uint64_t *h)                                                         \
    {                                                                                             \
        if (a->edges) {                                                                           \
            const T *e = (const T *)a->edges;                                                     \
            for (int64_t i = 0; i < n; i++) {                                                     \
                int64_t b = edge_bin_##NAME(x[i], e, a->bins);                                    \
                if (b >= 0) h[b]++;                                                               \
            }                                                                                     \
        } else {                                                                                  \
            for (int64_t i = 0; i < n; i++) {                                                     \
                int64_t b = even_bin((double)x[i], p);                                            \
                if (b >= 0) h[b]++;                                                               \
            }                                                                                     \
        }                                                                                         \
    }
GP_CPU_WIDE_TYPES(GP_CPU_DEF_HIST)

/* Counts x[lo, lo + len) of the input into h. */
static void count_range(const gp_histogram_args *a, const even_p *p, int64_t lo, int64_t len, uint64_t *h)
{
#define GP_CPU_HIST_CASE(NAME, T) \
    case GP_DT_##NAME: bin_##NAME((const T *)a->in + lo, len, a, p, h); break;
    switch (a->t) {
        GP_CPU_WIDE_TYPES(GP_CPU_HIST_CASE)
    default: break;
    }
#undef GP_CPU_HIST_CASE
}

gp_status gp_cpu_histogram(gp_ctx *ctx, const gp_histogram_args *a, void *ws)
{
    if (a->n == 0) { /* in may be NULL: no pointer arithmetic on it */
        if (!a->accumulate) clear(a->hist, a->bins);
        return GP_STATUS_OK;
    }
    if (is_byte(a->t)) return histogram_bytes(a, (uint64_t *)ws);
    even_p p = even_params(a);
    int nt = hist_threads(a->t, a->n, a->bins);
    if (nt == 1) {
        if (!a->accumulate) clear(a->hist, a->bins);
        count_range(a, &p, 0, a->n, a->hist);
        return GP_STATUS_OK;
    }
    uint64_t *priv = (uint64_t *)ws;
    int64_t bins = a->bins;
#pragma omp parallel num_threads(nt)
    {
        int t = omp_get_thread_num(), tn = omp_get_num_threads();
        int64_t lo, len;
        share(a->n, t, tn, &lo, &len);
        uint64_t *h = priv + (size_t)t * (size_t)bins;
        clear(h, bins);
        count_range(a, &p, lo, len, h);
#pragma omp barrier
#pragma omp for schedule(static)
        for (int64_t b = 0; b < bins; b++) {
            uint64_t s = a->accumulate ? a->hist[b] : 0;
            for (int u = 0; u < tn; u++) s += priv[(size_t)u * (size_t)bins + b];
            a->hist[b] = s;
        }
    }
    return GP_STATUS_OK;
}
