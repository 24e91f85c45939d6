/*
 * `bench filter` and `bench filter-ascending` on the CPU backend:
 * gp_filter_running_max against seed 002's CPU loop (ladder_stalin_cpu.c),
 * and the OpenMP read ceiling (the filter reads its input once). int32, the
 * seed's type. Checked exactly against the serial reference, with the output
 * poisoned and a guard band past it, before and after timing.
 */
#include "bench_cpu.h"
#include "ladder_stalin_cpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { GUARD = 64, POISON = 0xA5 }; /* int32 elements past the output */
enum { DISTINCT = 64 };              /* different inputs among the slices */

typedef struct calls {
    gp_ctx *ctx;
    int64_t n;
    int32_t *out; /* n + GUARD */
    int64_t count;
} calls;

static int call_gpuprim(void *self, const void *in)
{
    calls *c = self;
    gp_status st = gp_filter_running_max(c->ctx, in, GP_DTYPE_I32, c->n, 0, c->out, NULL, &c->count);
    if (st == GP_STATUS_OK) return GPB_OK;
    fprintf(stderr, "gpuprim bench: gp_filter_running_max(i32, n = %lld) on cpu failed: %s\n", (long long)c->n,
            gpb_status_why(c->ctx, st));
    return GPB_ERROR;
}

static int call_article(void *self, const void *in)
{
    calls *c = self;
    c->count = gpl_stalin_cpu_article(in, c->n, c->out);
    return GPB_OK;
}

/* gp on slice 0 against the reference: the count, the survivors, and the
 * guard band still poisoned. */
static int check(calls *c, const int32_t *in, const int32_t *want, int64_t kept, const char *what,
                 const char *when, gpb_point *pt)
{
    memset(c->out, POISON, (size_t)(c->n + GUARD) * sizeof *c->out);
    c->count = -1;
    if (call_gpuprim(c, in) != GPB_OK) return GPB_ERROR;
    int ok = c->count == kept && !memcmp(c->out, want, (size_t)kept * sizeof *want);
    const unsigned char *g = (const unsigned char *)(c->out + c->n);
    for (size_t i = 0; ok && i < GUARD * sizeof *c->out; i++) ok = g[i] == POISON;
    if (ok) return GPB_OK;
    char nb[32];
    fprintf(stderr, "CHECK FAILED: %s i32 n = %s on cpu (%s): kept %lld, the reference %lld (or the survivors or "
            "the guard band differ)\n", what, gpb_fmt_n(c->n, nb, sizeof nb), when, (long long)c->count,
            (long long)kept);
    pt->check_failed = 1;
    return GPB_CHECK_FAILED;
}

static int measure_pattern(gpb_env *env, const gpb_spec *s, gpb_point *pt, int pattern, const char *what)
{
    size_t in_bytes; /* the output, n + GUARD items, then fits too */
    if (!gpb_point_fits(pt, s->n, sizeof(int32_t), "host", &in_bytes)) return GPB_OK;
    gpb_arena a;
    if (gpb_cpu_arena_alloc(env, &a, in_bytes, pt->note, sizeof pt->note) != GPB_OK) return GPB_ERROR;
    if (!a.base) return GPB_OK;
    /* DISTINCT inputs, copied round the slices: slices of one input would let
     * the branch predictor learn a small input's survivors (seed 002's loop
     * branches on each), and a fill per slice costs a thread team each, of
     * which tiny inputs would need millions. */
    for (size_t k = 0; k < a.nslices; k++) {
        unsigned char *slice = a.base + k * a.stride;
        if (k < DISTINCT) gpl_stalin_fill((int32_t *)slice, s->n, pattern, env->opts.seed + k);
        else memcpy(slice, a.base + (k % DISTINCT) * a.stride, in_bytes);
    }
    calls c = {env->ctx, s->n, malloc((size_t)(s->n + GUARD) * sizeof(int32_t)), 0};
    int32_t *want = malloc(in_bytes ? in_bytes : 1);
    int rc = GPB_OK, failed = 0;
    if (!c.out || !want) {
        snprintf(pt->note, sizeof pt->note, "skipped: no host memory for the outputs");
        goto done;
    }
    const int32_t *in = (const int32_t *)a.base;
    int64_t kept = gpl_stalin_reference(in, s->n, want);
    rc = gpb_keep_going(check(&c, in, want, kept, what, "before timing", pt), &failed);
    gpb_impl impls[3] = {{call_gpuprim, &c}, {call_article, &c}, {gpb_cpu_read_ceiling, &in_bytes}};
    gpb_time t[3];
    if (rc == GPB_OK) rc = gpb_cpu_time(env, &a, impls, 3, t);
    if (rc == GPB_OK) pt->subject = t[0], pt->peer = t[1], pt->ceiling = t[2];
    if (rc == GPB_OK) rc = gpb_keep_going(check(&c, in, want, kept, what, "after timing", pt), &failed);
done:
    free(c.out);
    free(want);
    gpb_cpu_arena_free(&a);
    return rc == GPB_OK && failed ? GPB_CHECK_FAILED : rc;
}

static int measure_random(gpb_env *env, const gpb_spec *s, gpb_point *pt)
{
    return measure_pattern(env, s, pt, 0, "filter");
}

static int measure_ascending(gpb_env *env, const gpb_spec *s, gpb_point *pt)
{
    return measure_pattern(env, s, pt, 1, "filter-ascending");
}

static int applicable(const gpb_spec *s, char *why, size_t size)
{
    if (s->dtype == GP_DTYPE_I32) return 1;
    snprintf(why, size, "the peer, seed 002's loop, is int32 only");
    return 0;
}

static void bytes(const gpb_spec *s, double *rd, double *wr)
{
    *rd = (double)s->n * sizeof(int32_t);
    *wr = 0; /* survivors: about ln n of random data */
}

const gpb_case gpb_filter_cpu = {
    .name = "filter",
    .backend = GP_BACKEND_CPU,
    .subject = "gpuprim",
    .peer = "seed-002-loop",
    .ceiling = "omp-read-ceiling",
    .about = "gp_filter_running_max on random data; peer: seed 002's CPU loop (one thread, element by element); "
             "bytes: the input read once; check: exact, output poisoned, guard band",
    .default_max_log2 = 26,
    .targets = {0, 0, 0, 0, 0, 0, 0}, /* the targets are for the GPU */
    .applicable = applicable,
    .bytes = bytes,
    .measure = measure_random,
    .default_dtypes = "i32",
    .no_op = 1,
};

const gpb_case gpb_filter_ascending_cpu = {
    .name = "filter-ascending",
    .backend = GP_BACKEND_CPU,
    .subject = "gpuprim",
    .peer = "seed-002-loop",
    .ceiling = "omp-read-ceiling",
    .about = "as filter, on mostly ascending data: element i is i/2 + noise in [-4, 4), about 2 in 5 kept",
    .default_max_log2 = 26,
    .targets = {0, 0, 0, 0, 0, 0, 0},
    .applicable = applicable,
    .bytes = bytes,
    .measure = measure_ascending,
    .default_dtypes = "i32",
    .no_op = 1,
};
