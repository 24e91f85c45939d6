/*
 * `bench reduce` on the CPU backend: gp_reduce against a plain serial loop
 * (what a C programmer writes without gpuprim) and the OpenMP read ceiling
 * over the same bytes. Output dtype = input dtype throughout.
 */
#include "bench_cpu.h"
#include "bench_rng.h"
#include "bench_serial.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------ serial loops */

typedef void (*serial_fn)(const void *in, int64_t n, void *out);

#define FOLD(NAME, T, ACC_T, INIT, STEP)                               \
    static void NAME(const void *in, int64_t n, void *out)             \
    {                                                                  \
        const T *x = in;                                               \
        ACC_T acc = INIT;                                              \
        for (int64_t i = 0; i < n; i++) acc = STEP;                    \
        *(T *)out = (T)acc;                                            \
    }

#define ARITH(D, T, A)                                                      \
    FOLD(sum_##D, T, A, (A)0, (A)(acc + (A)x[i]))                           \
    FOLD(prod_##D, T, A, (A)1, (A)(acc * (A)x[i]))                          \
    FOLD(min_##D, T, T, x[0], x[i] < acc ? x[i] : acc)                      \
    FOLD(max_##D, T, T, x[0], x[i] > acc ? x[i] : acc)
#define BITWISE(D, T, A)                                                    \
    FOLD(and_##D, T, A, (A)~(A)0, (A)(acc & (A)x[i]))                       \
    FOLD(or_##D, T, A, (A)0, (A)(acc | (A)x[i]))                            \
    FOLD(xor_##D, T, A, (A)0, (A)(acc ^ (A)x[i]))
GPB_ALL_TYPES(ARITH)
GPB_INT_TYPES(BITWISE)

static serial_fn serial_for(gp_dtype t, gp_op op) { GPB_RETURN_SERIAL_FOR_T_AND_OP(); }

/* ------------------------------------------------------------------ inputs */

/* Element i of slice s is hash(seed, s * n + i): random, never all zeros. */
static void fill(gpb_arena *a, gp_dtype t, gp_op op, int64_t n, uint64_t seed)
{
    int64_t total = (int64_t)a->nslices * n;
    size_t es = gp_dtype_size(t);
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < total; k++) {
        uint64_t h = gpb_hash64(seed, (uint64_t)k);
        unsigned char *p = a->base + (size_t)(k / n) * a->stride + (size_t)(k % n) * es;
        gpb_put_input(p, t, op, h);
    }
}

/* Float sums and products need a reference better than the serial loop
 * (an f32 loop stalls once the sum is 2^25 times the inputs): a
 * compensated double sum, a long double product. */
static void float_reference(const void *in, gp_dtype t, gp_op op, int64_t n, void *out)
{
    int f32 = t == GP_DTYPE_F32;
    if (op == GP_OP_PROD) {
        long double p = 1;
        for (int64_t i = 0; i < n; i++) p *= f32 ? ((const float *)in)[i] : ((const double *)in)[i];
        if (f32) *(float *)out = (float)p;
        else *(double *)out = (double)p;
        return;
    }
    double s = 0, c = 0; /* Neumaier */
    for (int64_t i = 0; i < n; i++) {
        double x = f32 ? ((const float *)in)[i] : ((const double *)in)[i];
        double u = s + x;
        c += fabs(s) >= fabs(x) ? (s - u) + x : (x - u) + s;
        s = u;
    }
    if (f32) *(float *)out = (float)(s + c);
    else *(double *)out = s + c;
}

/* -------------------------------------------------------- implementations */

typedef struct calls {
    gp_ctx *ctx;
    gpb_spec s;
    serial_fn serial;
    size_t bytes;
    unsigned char out[16];
} calls;

static int call_gpuprim(void *self, const void *in)
{
    calls *c = self;
    gp_status st = gp_reduce(c->ctx, in, c->s.dtype, c->s.n, c->s.op, c->out, c->s.dtype);
    if (st == GP_STATUS_OK) return GPB_OK;
    fprintf(stderr, "gpuprim bench: gp_reduce(%s, n = %lld, %s) on cpu failed: %s\n", gp_dtype_name(c->s.dtype),
            (long long)c->s.n, gp_op_name(c->s.op), gpb_status_why(c->ctx, st));
    return GPB_ERROR;
}

static int call_serial(void *self, const void *in)
{
    calls *c = self;
    c->serial(in, c->s.n, c->out);
    return GPB_OK;
}

/* Runs gp_reduce on slice 0 and compares with `want`; loud on a mismatch. */
static int check(calls *c, const gpb_arena *a, const void *want, const char *when, gpb_point *pt)
{
    memset(c->out, 0xA5, sizeof c->out); /* poison: an unwritten result fails */
    if (call_gpuprim(c, a->base) != GPB_OK) return GPB_ERROR;
    char why[160], nb[32];
    if (gpb_check_scalar(c->s.dtype, c->s.op, c->s.n, c->out, want, why, sizeof why)) return GPB_OK;
    fprintf(stderr, "CHECK FAILED: reduce %s %s n = %s on cpu (%s): %s\n", gp_op_name(c->s.op),
            gp_dtype_name(c->s.dtype), gpb_fmt_n(c->s.n, nb, sizeof nb), when, why);
    pt->check_failed = 1;
    return GPB_CHECK_FAILED;
}

/* ------------------------------------------------------------------- case */

static int applicable(const gpb_spec *s, char *why, size_t size)
{
    if (serial_for(s->dtype, s->op)) return 1;
    snprintf(why, size, "%s is not defined on %s", gp_op_name(s->op), gp_dtype_name(s->dtype));
    return 0;
}

static void bytes(const gpb_spec *s, double *rd, double *wr)
{
    *rd = (double)s->n * (double)gp_dtype_size(s->dtype);
    *wr = (double)gp_dtype_size(s->dtype);
}

static int measure(gpb_env *env, const gpb_spec *s, gpb_point *pt)
{
    const size_t es = gp_dtype_size(s->dtype);
    size_t in_bytes;
    if (!gpb_point_fits(pt, s->n, es, "host", &in_bytes)) return GPB_OK;
    calls c = {env->ctx, *s, serial_for(s->dtype, s->op), in_bytes, {0}};
    gpb_arena a;
    if (gpb_cpu_arena_alloc(env, &a, c.bytes, pt->note, sizeof pt->note) != GPB_OK) return GPB_ERROR;
    if (!a.base) return GPB_OK;
    fill(&a, s->dtype, s->op, s->n, env->opts.seed);

    unsigned char want[16];
    int exact = s->dtype != GP_DTYPE_F32 && s->dtype != GP_DTYPE_F64;
    if (exact || s->op == GP_OP_MIN || s->op == GP_OP_MAX) c.serial(a.base, s->n, want);
    else float_reference(a.base, s->dtype, s->op, s->n, want);

    int failed = 0, rc = GPB_OK;
    int supported = gp_supports(env->ctx, GP_PRIM_REDUCE, s->op, s->dtype, s->dtype);
    if (!supported)
        snprintf(pt->note, sizeof pt->note, "gpuprim: no %s %s reduction on cpu", gp_op_name(s->op),
                 gp_dtype_name(s->dtype));
    if (supported) rc = gpb_keep_going(check(&c, &a, want, "before timing", pt), &failed);
    size_t rd = c.bytes;
    gpb_impl impls[3] = {{supported ? call_gpuprim : NULL, &c}, {call_serial, &c}, {gpb_cpu_read_ceiling, &rd}};
    gpb_time t[3];
    if (rc == GPB_OK) rc = gpb_cpu_time(env, &a, impls, 3, t);
    if (rc == GPB_OK) pt->subject = t[0], pt->peer = t[1], pt->ceiling = t[2];
    /* Again after the timed runs: a result that moves is a race. */
    if (rc == GPB_OK && supported) rc = gpb_keep_going(check(&c, &a, want, "after timing", pt), &failed);
    gpb_cpu_arena_free(&a);
    return rc == GPB_OK && failed ? GPB_CHECK_FAILED : rc;
}

const gpb_case gpb_reduce_cpu = {
    .name = "reduce",
    .backend = GP_BACKEND_CPU,
    .subject = "gpuprim",
    .peer = "serial",
    .ceiling = "omp-read-ceiling",
    .about = "out dtype = in dtype (integers wrap); peer: plain serial loop; check: exact, float sum/prod "
             "vs a precise reference (bounds in bench.h)",
    .default_max_log2 = 27, /* 2^27 f64 is 1 GiB: enough on the 2-core machine */
    .targets = {0, 0, 0, 0, 0, 0, 0}, /* the targets are for the GPU */
    .applicable = applicable,
    .bytes = bytes,
    .measure = measure,
};
