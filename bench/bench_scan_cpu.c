/*
 * Scan, selection and partition on the CPU backend, each against the
 * serial loop a C programmer would write without gpuprim, and the OpenMP
 * copy of as many bytes as the primitive must move (read + written):
 *   scan          gp_scan_inclusive (out dtype = in dtype)  vs a running loop
 *   select        gp_select_flagged (u8 flags, about half)  vs a branchless keep loop
 *   select-if     gp_select_if(x < middle)                  vs the same with the compare
 *   partition     gp_partition_flagged                      vs count, then one placing pass
 *   partition-if  gp_partition_if(x < middle)               vs the same with the compare
 *   partition-copy, partition-copy-if  gp_partition_copy_*  vs one pass placing each item in one of two buffers
 * Checked before and after timing against serial references: exact for
 * integers, min and max, float sums and products within gpb_float_tol of a
 * double (f32) or long double (f64) running value; the output is poisoned
 * and a guard band past it (for a selection, all of out past the count)
 * must stay so.
 */
#include "bench_cpu.h"
#include "bench_rng.h"
#include "bench_serial.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { GUARD = 256, POISON = 0xA5 }; /* bytes past the output */

enum kind { K_SCAN, K_SELECT, K_SELECT_IF, K_PARTITION, K_PARTITION_IF, K_PARTITION_COPY, K_PARTITION_COPY_IF };
static const char *const kind_names[] = {"scan",         "select",         "select-if",        "partition",
                                         "partition-if", "partition-copy", "partition-copy-if"};

static int by_flags(enum kind k) { return k == K_SELECT || k == K_PARTITION || k == K_PARTITION_COPY; }
static int is_copy(enum kind k) { return k == K_PARTITION_COPY || k == K_PARTITION_COPY_IF; }
static int is_partition(enum kind k) { return k == K_PARTITION || k == K_PARTITION_IF || is_copy(k); }

/* ----------------------------------------------------------- serial scans */

typedef void (*scan_fn)(const void *in, int64_t n, void *out);

#define RUNNING(NAME, T, ACC_T, STEP)                                 \
    static void NAME(const void *in, int64_t n, void *out)            \
    {                                                                 \
        const T *x = in;                                              \
        T *y = out;                                                   \
        ACC_T acc = (ACC_T)x[0];                                      \
        y[0] = x[0];                                                  \
        for (int64_t i = 1; i < n; i++) y[i] = (T)(acc = STEP);       \
    }
#define ARITH(D, T, A)                                               \
    RUNNING(sum_##D, T, A, (A)(acc + (A)x[i]))                       \
    RUNNING(prod_##D, T, A, (A)(acc * (A)x[i]))                      \
    RUNNING(min_##D, T, T, x[i] < acc ? x[i] : acc)                  \
    RUNNING(max_##D, T, T, x[i] > acc ? x[i] : acc)
#define BITWISE(D, T, A)                                             \
    RUNNING(and_##D, T, A, (A)(acc & (A)x[i]))                       \
    RUNNING(or_##D, T, A, (A)(acc | (A)x[i]))                        \
    RUNNING(xor_##D, T, A, (A)(acc ^ (A)x[i]))
GPB_ALL_TYPES(ARITH)
GPB_INT_TYPES(BITWISE)

static scan_fn scan_for(gp_dtype t, gp_op op) { GPB_RETURN_SERIAL_FOR_T_AND_OP(); }

static int is_float(gp_dtype t) { return t == GP_DTYPE_F32 || t == GP_DTYPE_F64; }

/* Float sums and products: a serial loop in the dtype drifts (an f32 sum
 * stalls once it is 2^25 times its inputs), so the reference runs in
 * double for f32 and long double for f64. Element i: the value at i. */
static long double float_at(const void *x, gp_dtype t, int64_t i)
{
    return t == GP_DTYPE_F32 ? ((const float *)x)[i] : ((const double *)x)[i];
}

static int check_float_scan(const void *got, const void *in, gp_dtype t, gp_op op, int64_t n, int64_t *bad)
{
    const double tol = gpb_float_tol(t, op, n);
    long double acc = op == GP_OP_PROD ? 1 : 0;
    for (int64_t i = 0; i < n; i++) {
        long double x = float_at(in, t, i);
        acc = op == GP_OP_PROD ? acc * x : acc + x;
        long double want = t == GP_DTYPE_F32 ? (long double)(double)acc : acc;
        long double g = float_at(got, t, i);
        if (!(fabsl(g - want) <= tol * fabsl(want))) {
            *bad = i;
            return 0;
        }
    }
    return 1;
}

/* ------------------------------------------------------ serial selections */

/* What a C programmer writes: branchless keeps (every item stored, the
 * count advanced by the flag, so no branch to mispredict on random flags),
 * and a stable partition as a count, then one pass placing each item with
 * a branch, which random flags mispredict half the time: a weak peer (a
 * branchless one must keep its two stores from clobbering each other).
 * Into two buffers (y, z) it needs no count: one pass with the branch. */
#define SELECTIONS(D, T, A)                                                                  \
    static int64_t keep_flags_##D(const T *x, const uint8_t *f, int64_t n, T *y)             \
    {                                                                                        \
        int64_t k = 0;                                                                       \
        for (int64_t i = 0; i < n; i++) y[k] = x[i], k += f[i] != 0;                         \
        return k;                                                                            \
    }                                                                                        \
    static int64_t keep_below_##D(const T *x, T mid, int64_t n, T *y)                        \
    {                                                                                        \
        int64_t k = 0;                                                                       \
        for (int64_t i = 0; i < n; i++) y[k] = x[i], k += x[i] < mid;                        \
        return k;                                                                            \
    }                                                                                        \
    static int64_t part_flags_##D(const T *x, const uint8_t *f, int64_t n, T *y)             \
    {                                                                                        \
        int64_t kept = 0, k = 0, r = 0;                                                      \
        for (int64_t i = 0; i < n; i++) kept += f[i] != 0;                                   \
        for (int64_t i = 0; i < n; i++) {                                                    \
            if (f[i]) y[k++] = x[i];                                                         \
            else y[kept + r++] = x[i];                                                       \
        }                                                                                    \
        return kept;                                                                         \
    }                                                                                        \
    static int64_t part_below_##D(const T *x, T mid, int64_t n, T *y)                        \
    {                                                                                        \
        int64_t kept = 0, k = 0, r = 0;                                                      \
        for (int64_t i = 0; i < n; i++) kept += x[i] < mid;                                  \
        for (int64_t i = 0; i < n; i++) {                                                    \
            if (x[i] < mid) y[k++] = x[i];                                                   \
            else y[kept + r++] = x[i];                                                       \
        }                                                                                    \
        return kept;                                                                         \
    }                                                                                        \
    static int64_t split_flags_##D(const T *x, const uint8_t *f, int64_t n, T *y, T *z)      \
    {                                                                                        \
        int64_t k = 0, r = 0;                                                                \
        for (int64_t i = 0; i < n; i++) {                                                    \
            if (f[i]) y[k++] = x[i];                                                         \
            else z[r++] = x[i];                                                              \
        }                                                                                    \
        return k;                                                                            \
    }                                                                                        \
    static int64_t split_below_##D(const T *x, T mid, int64_t n, T *y, T *z)                 \
    {                                                                                        \
        int64_t k = 0, r = 0;                                                                \
        for (int64_t i = 0; i < n; i++) {                                                    \
            if (x[i] < mid) y[k++] = x[i];                                                   \
            else z[r++] = x[i];                                                              \
        }                                                                                    \
        return k;                                                                            \
    }                                                                                        \
    static int64_t serial_##D(enum kind k, const void *x, const uint8_t *f, const void *mid, int64_t n, void *y, \
                              void *z)                                                       \
    {                                                                                        \
        switch (k) {                                                                         \
        case K_SELECT: return keep_flags_##D(x, f, n, y);                                    \
        case K_SELECT_IF: return keep_below_##D(x, *(const T *)mid, n, y);                   \
        case K_PARTITION: return part_flags_##D(x, f, n, y);                                 \
        case K_PARTITION_COPY: return split_flags_##D(x, f, n, y, z);                        \
        case K_PARTITION_COPY_IF: return split_below_##D(x, *(const T *)mid, n, y, z);       \
        default: return part_below_##D(x, *(const T *)mid, n, y);                            \
        }                                                                                    \
    }
GPB_ALL_TYPES(SELECTIONS)

typedef int64_t (*select_fn)(enum kind k, const void *x, const uint8_t *f, const void *mid, int64_t n, void *y,
                             void *z);

static select_fn select_for(gp_dtype t)
{
#define SELECT_CASE(D, T, A) \
    case GP_DTYPE_##D: return serial_##D;
    switch (t) {
        GPB_ALL_TYPES(SELECT_CASE)
    default: break;
    }
    return NULL;
}

/* The middle of the inputs' range, so that about half are below it. */
static void middle_of(gp_dtype t, void *mid)
{
    switch (t) {
    case GP_DTYPE_F32: *(float *)mid = 0.5f; break;
    case GP_DTYPE_F64: *(double *)mid = 0.5; break;
    case GP_DTYPE_U8: *(uint8_t *)mid = 0x80; break;
    case GP_DTYPE_U16: *(uint16_t *)mid = 0x8000; break;
    case GP_DTYPE_U32: *(uint32_t *)mid = 0x80000000u; break;
    case GP_DTYPE_U64: *(uint64_t *)mid = 0x8000000000000000ull; break;
    default: memset(mid, 0, 8); break; /* signed: 0 */
    }
}

/* ------------------------------------------------------------------ inputs */

/* A slice: the items, then (by flags) n flags from the 16-byte boundary
 * after them. Item i of slice s is hash(seed, s n + i); its flag is a bit
 * of another hash of it, so about half are set. DISTINCT slices are drawn,
 * the rest copied round them: hashing the whole arena (4 x the last-level
 * cache) took over a second a point. */
enum { DISTINCT = 16 };

static size_t flags_offset(gp_dtype t, int64_t n) { return gpb_round_up((size_t)n * gp_dtype_size(t), 16); }

static void fill(gpb_arena *a, const gpb_spec *s, int flags, uint64_t seed)
{
    const gp_dtype t = s->dtype;
    const size_t drawn = a->nslices < DISTINCT ? a->nslices : DISTINCT;
    const int64_t n = s->n, total = (int64_t)drawn * n;
    const size_t es = gp_dtype_size(t), fo = flags_offset(t, n);
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < total; k++) {
        const uint64_t h = gpb_hash64(seed, (uint64_t)k);
        unsigned char *slice = a->base + (size_t)(k / n) * a->stride, *p = slice + (size_t)(k % n) * es;
        gpb_put_input(p, t, s->op, h);
        if (flags) slice[fo + (size_t)(k % n)] = (uint8_t)(gpb_hash64(~seed, (uint64_t)k) >> 63);
    }
    for (size_t k = drawn; k < a->nslices; k++)
        memcpy(a->base + k * a->stride, a->base + (k % drawn) * a->stride, a->slice_bytes);
}

/* -------------------------------------------------------- implementations */

typedef struct calls {
    gp_ctx *ctx;
    enum kind k;
    gpb_spec s;
    size_t flags_at;
    unsigned char mid[8];
    unsigned char *out;      /* n items + GUARD bytes */
    unsigned char *rejected; /* partition_copy's second output, as out; else NULL */
    int64_t count;
} calls;

static int call_gpuprim(void *self, const void *in)
{
    calls *c = self;
    const gp_dtype t = c->s.dtype;
    const uint8_t *f = (const uint8_t *)in + c->flags_at;
    gp_status st;
    switch (c->k) {
    case K_SCAN: st = gp_scan_inclusive(c->ctx, in, t, c->s.n, c->s.op, c->out, t); break;
    case K_SELECT: st = gp_select_flagged(c->ctx, in, t, c->s.n, f, c->out, &c->count, NULL); break;
    case K_SELECT_IF: st = gp_select_if(c->ctx, in, t, c->s.n, GP_CMP_LT, c->mid, c->out, &c->count, NULL); break;
    case K_PARTITION: st = gp_partition_flagged(c->ctx, in, t, c->s.n, f, c->out, &c->count, NULL); break;
    case K_PARTITION_COPY:
        st = gp_partition_copy_flagged(c->ctx, in, t, c->s.n, f, c->out, c->rejected, &c->count, NULL);
        break;
    case K_PARTITION_COPY_IF:
        st = gp_partition_copy_if(c->ctx, in, t, c->s.n, GP_CMP_LT, c->mid, c->out, c->rejected, &c->count, NULL);
        break;
    default: st = gp_partition_if(c->ctx, in, t, c->s.n, GP_CMP_LT, c->mid, c->out, &c->count, NULL); break;
    }
    if (st == GP_STATUS_OK) return GPB_OK;
    fprintf(stderr, "gpuprim bench: %s %s n = %lld on cpu failed: %s\n", kind_names[c->k], gp_dtype_name(t),
            (long long)c->s.n, gpb_status_why(c->ctx, st));
    return GPB_ERROR;
}

static int call_serial(void *self, const void *in)
{
    calls *c = self;
    if (c->k == K_SCAN) scan_for(c->s.dtype, c->s.op)(in, c->s.n, c->out);
    else
        c->count = select_for(c->s.dtype)(c->k, in, (const uint8_t *)in + c->flags_at, c->mid, c->s.n, c->out,
                                          c->rejected);
    return GPB_OK;
}

/* buf[written..end) must still hold the poison; else why says where. */
static void guard_intact(const unsigned char *buf, size_t written, size_t end, const char *name, char *why,
                         size_t why_size)
{
    for (size_t i = written; i < end; i++)
        if (buf[i] != POISON) {
            snprintf(why, why_size, "wrote byte %zu of %s, past the %zu bytes it may write", i, name, written);
            return;
        }
}

/* gpuprim on slice 0 against `want` (want_count items; a scan, n; a
 * partition_copy, the one-buffer partition's n split between its two
 * outputs), the outputs poisoned first and their guard bands checked after. */
static int check(calls *c, const void *in, const void *want, int64_t want_count, const char *when, gpb_point *pt)
{
    const gp_dtype t = c->s.dtype;
    const size_t es = gp_dtype_size(t), out_bytes = (size_t)c->s.n * es;
    memset(c->out, POISON, out_bytes + GUARD);
    if (c->rejected) memset(c->rejected, POISON, out_bytes + GUARD);
    c->count = -1;
    if (call_gpuprim(c, in) != GPB_OK) return GPB_ERROR;
    char why[160] = "";
    int64_t bad = -1;
    if (c->k == K_SCAN) {
        int exact = !is_float(t) || c->s.op == GP_OP_MIN || c->s.op == GP_OP_MAX;
        if (exact ? memcmp(c->out, want, out_bytes) != 0 : !check_float_scan(c->out, in, t, c->s.op, c->s.n, &bad))
            snprintf(why, sizeof why, "%s", exact ? "the outputs differ from the serial loop's"
                                                  : "an output is off the precise running value");
    } else if (c->count != want_count) {
        snprintf(why, sizeof why, "counted %lld, the serial loop %lld", (long long)c->count, (long long)want_count);
    } else if (memcmp(c->out, want, (size_t)(is_partition(c->k) && !is_copy(c->k) ? c->s.n : want_count) * es)) {
        snprintf(why, sizeof why, "the items differ from the serial loop's");
    } else if (is_copy(c->k) &&
               memcmp(c->rejected, (const char *)want + (size_t)want_count * es, (size_t)(c->s.n - want_count) * es)) {
        snprintf(why, sizeof why, "the rejected items differ from the serial loop's");
    }
    /* A selection writes out[0..count) only (gpuprim.h), a partition_copy
     * also rejected[0..n - count): the rest of each is guarded too. */
    const int whole = c->k == K_SCAN || (is_partition(c->k) && !is_copy(c->k)) || c->count != want_count;
    const size_t written = whole ? out_bytes : (size_t)want_count * es;
    if (!why[0]) guard_intact(c->out, written, out_bytes + GUARD, "out", why, sizeof why);
    if (!why[0] && c->rejected)
        guard_intact(c->rejected, whole ? out_bytes : out_bytes - written, out_bytes + GUARD, "the rejected output",
                     why, sizeof why);
    if (!why[0]) return GPB_OK;
    char nb[32];
    fprintf(stderr, "CHECK FAILED: %s %s%s%s n = %s on cpu (%s): %s", kind_names[c->k],
            c->k == K_SCAN ? gp_op_name(c->s.op) : "", c->k == K_SCAN ? " " : "", gp_dtype_name(t),
            gpb_fmt_n(c->s.n, nb, sizeof nb), when, why);
    if (bad >= 0) fprintf(stderr, " (first at %lld)", (long long)bad);
    fputc('\n', stderr);
    pt->check_failed = 1;
    return GPB_CHECK_FAILED;
}

/* ------------------------------------------------------------------- cases */

static void bytes_of(enum kind k, const gpb_spec *s, double *rd, double *wr)
{
    const double items = (double)s->n * (double)gp_dtype_size(s->dtype);
    *rd = items + (by_flags(k) ? (double)s->n : 0);
    *wr = k == K_SCAN || is_partition(k) ? items : items / 2; /* selections keep about half */
}

static int measure(enum kind k, gpb_env *env, const gpb_spec *s, gpb_point *pt)
{
    const gp_dtype t = s->dtype;
    const size_t es = gp_dtype_size(t);
    /* The items and their flags; the outputs, the reference and the copy
     * are each at most that, plus a guard band. */
    size_t slice;
    if (!gpb_point_fits(pt, s->n, es + (by_flags(k) ? 1 : 0), "host", &slice)) return GPB_OK;
    const size_t fo = flags_offset(t, s->n);
    gpb_arena a;
    if (gpb_cpu_arena_alloc(env, &a, fo + (by_flags(k) ? (size_t)s->n : 0), pt->note, sizeof pt->note) != GPB_OK)
        return GPB_ERROR;
    if (!a.base) return GPB_OK;
    calls c = {env->ctx, k, *s, fo, {0}, malloc((size_t)s->n * es + GUARD), NULL, 0};
    if (is_copy(k)) c.rejected = malloc((size_t)s->n * es + GUARD);
    void *want = malloc((size_t)s->n * es + 1);
    double rd, wr;
    bytes_of(k, s, &rd, &wr);
    gpb_copy_job copy = {(size_t)((rd + wr) / 2), malloc((size_t)((rd + wr) / 2) + 1)};
    int failed = 0, rc = GPB_OK;
    if (!c.out || !want || !copy.dst || (is_copy(k) && !c.rejected)) {
        snprintf(pt->note, sizeof pt->note, "skipped: no host memory for the outputs");
        goto done;
    }
    fill(&a, s, by_flags(k), env->opts.seed);
    middle_of(t, c.mid);
    int64_t want_count = s->n;
    if (k == K_SCAN) scan_for(t, s->op)(a.base, s->n, want);
    else { /* a partition_copy's want: the one-buffer partition's */
        const enum kind one = k == K_PARTITION_COPY ? K_PARTITION : k == K_PARTITION_COPY_IF ? K_PARTITION_IF : k;
        want_count = select_for(t)(one, a.base, a.base + fo, c.mid, s->n, want, NULL);
    }

    const gp_primitive prim = k == K_SCAN ? GP_PRIM_SCAN : is_partition(k) ? GP_PRIM_PARTITION : GP_PRIM_SELECT;
    int supported = gp_supports(env->ctx, prim, k == K_SCAN ? s->op : 0, t, t);
    if (!supported)
        snprintf(pt->note, sizeof pt->note, "gpuprim: no %s of %s on cpu", kind_names[k], gp_dtype_name(t));
    if (supported) rc = gpb_keep_going(check(&c, a.base, want, want_count, "before timing", pt), &failed);
    gpb_impl impls[3] = {{supported ? call_gpuprim : NULL, &c}, {call_serial, &c}, {gpb_cpu_copy_ceiling, &copy}};
    gpb_time tm[3];
    if (rc == GPB_OK) rc = gpb_cpu_time(env, &a, impls, 3, tm);
    if (rc == GPB_OK) pt->subject = tm[0], pt->peer = tm[1], pt->ceiling = tm[2];
    /* Again after the timed runs: a result that moves is a race. */
    if (rc == GPB_OK && supported) rc = gpb_keep_going(check(&c, a.base, want, want_count, "after timing", pt), &failed);
done:
    free(c.out);
    free(c.rejected);
    free(want);
    free(copy.dst);
    gpb_cpu_arena_free(&a);
    return rc == GPB_OK && failed ? GPB_CHECK_FAILED : rc;
}

static int applicable_scan(const gpb_spec *s, char *why, size_t size)
{
    if (scan_for(s->dtype, s->op)) return 1;
    snprintf(why, size, "%s is not defined on %s", gp_op_name(s->op), gp_dtype_name(s->dtype));
    return 0;
}

static int applicable_select(const gpb_spec *s, char *why, size_t size)
{
    if (select_for(s->dtype)) return 1;
    snprintf(why, size, "no serial loop for %s", gp_dtype_name(s->dtype));
    return 0;
}

#define KIND_FNS(K, k)                                                                                         \
    static void bytes_##k(const gpb_spec *s, double *rd, double *wr) { bytes_of(K, s, rd, wr); }               \
    static int measure_##k(gpb_env *env, const gpb_spec *s, gpb_point *pt) { return measure(K, env, s, pt); }
KIND_FNS(K_SCAN, scan)
KIND_FNS(K_SELECT, select)
KIND_FNS(K_SELECT_IF, select_if)
KIND_FNS(K_PARTITION, partition)
KIND_FNS(K_PARTITION_IF, partition_if)
KIND_FNS(K_PARTITION_COPY, partition_copy)
KIND_FNS(K_PARTITION_COPY_IF, partition_copy_if)

#define CPU_CASE(k, NAME, PEER, ABOUT, APPLICABLE, DTYPES, NO_OP)                                          \
    const gpb_case gpb_##k##_cpu = {                                                                         \
        .name = NAME,                                                                                        \
        .backend = GP_BACKEND_CPU,                                                                           \
        .subject = "gpuprim",                                                                                \
        .peer = PEER,                                                                                        \
        .ceiling = "omp-copy-ceiling",                                                                       \
        .about = ABOUT,                                                                                      \
        .default_max_log2 = 26,                                                                              \
        .targets = {0, 0, 0, 0, 0, 0, 0}, /* the issue's targets are for the GPU */                          \
        .applicable = APPLICABLE,                                                                            \
        .bytes = bytes_##k,                                                                                  \
        .measure = measure_##k,                                                                              \
        .default_dtypes = DTYPES,                                                                            \
        .no_op = NO_OP,                                                                                      \
    };

CPU_CASE(scan, "scan", "serial",
         "gp_scan_inclusive, out dtype = in dtype (integers wrap); peer: a serial running loop; ceiling: an OpenMP "
         "copy of n items; check: exact, float sum/prod vs a precise running value (bounds in bench.h)",
         applicable_scan, NULL, 0)
CPU_CASE(select, "select", "serial",
         "gp_select_flagged, u8 flags, about half set; peer: a serial branchless keep loop; bytes: n items + n "
         "flags read, n/2 items written; ceiling: an OpenMP copy of as many bytes; check: exact, guard band",
         applicable_select, "i32,i64,f32,u8", 1)
CPU_CASE(select_if, "select-if", "serial",
         "gp_select_if(x < middle), about half pass; peer: a serial branchless keep loop; bytes: n read, n/2 "
         "written; check: exact, guard band",
         applicable_select, "i32,i64,f32,u8", 1)
CPU_CASE(partition, "partition", "serial",
         "gp_partition_flagged, u8 flags, about half set; peer: a serial count, then one placing pass; bytes: n "
         "items + n flags read, n items written; check: exact, guard band",
         applicable_select, "i32,i64,f32,u8", 1)
CPU_CASE(partition_if, "partition-if", "serial",
         "gp_partition_if(x < middle); peer: a serial count, then one placing pass; bytes: n read, n written "
         "(it must read them twice); check: exact, guard band",
         applicable_select, "i32,i64,f32,u8", 1)
CPU_CASE(partition_copy, "partition-copy", "serial",
         "gp_partition_copy_flagged (selected and rejected items into two buffers), u8 flags, about half set; peer: "
         "one serial pass placing each item in one buffer or the other; bytes: n items + n flags read, n written; "
         "check: exact, guard bands",
         applicable_select, "i32,i64,f32,u8", 1)
CPU_CASE(partition_copy_if, "partition-copy-if", "serial",
         "gp_partition_copy_if(x < middle) into two buffers; peer: one serial pass placing each item in one buffer "
         "or the other; bytes: n read, n written; check: exact, guard bands",
         applicable_select, "i32,i64,f32,u8", 1)
