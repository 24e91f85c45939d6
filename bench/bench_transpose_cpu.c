/*
 * `bench transpose` on the CPU backend: gp_transpose of dense rows x cols
 * matrices against the plain serial double loop a C programmer writes, and
 * against an OpenMP copy of the same bytes (the ceiling: a transpose reads
 * and writes as much as a copy). Checked byte for byte against the loop.
 */
#include "bench_cpu.h"
#include "bench_rng.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct point_ctx {
    gpb_env *env;
    const gpb_spec *s;
    size_t e, bytes;
    unsigned char *out;
} point_ctx;

/* out[j][i] = in[i][j], element by element, in input order. */
#define SERIAL(E, T)                                                                    \
    static void serial_##E(const void *in, void *out, int64_t rows, int64_t cols)       \
    {                                                                                   \
        const T *a = in;                                                                \
        T *b = out;                                                                     \
        for (int64_t i = 0; i < rows; i++)                                              \
            for (int64_t j = 0; j < cols; j++) b[j * rows + i] = a[i * cols + j];       \
    }
typedef struct e16 {
    uint64_t lo, hi;
} e16;
SERIAL(1, uint8_t)
SERIAL(2, uint16_t)
SERIAL(4, uint32_t)
SERIAL(8, uint64_t)
SERIAL(16, e16)

static void serial(size_t e, const void *in, void *out, int64_t rows, int64_t cols)
{
    switch (e) {
    case 1: serial_1(in, out, rows, cols); break;
    case 2: serial_2(in, out, rows, cols); break;
    case 4: serial_4(in, out, rows, cols); break;
    case 8: serial_8(in, out, rows, cols); break;
    default: serial_16(in, out, rows, cols); break;
    }
}

static int gp_call(void *self, const void *in)
{
    point_ctx *c = self;
    gp_status st = gp_transpose(c->env->ctx, in, c->out, c->e, c->s->rows, c->s->cols);
    if (st == GP_STATUS_OK) return GPB_OK;
    fprintf(stderr, "gpuprim bench: gp_transpose(%s, %lld x %lld) on cpu failed: %s\n", gpb_dtype_name(c->s->dtype),
            (long long)c->s->rows, (long long)c->s->cols, gpb_status_why(c->env->ctx, st));
    return GPB_ERROR;
}

static int peer_call(void *self, const void *in)
{
    point_ctx *c = self;
    serial(c->e, in, c->out, c->s->rows, c->s->cols);
    return GPB_OK;
}

/* Each thread copies one contiguous share; one thread below 256 KiB. */
static int copy_call(void *self, const void *in)
{
    point_ctx *c = self;
    int nt = c->bytes < ((size_t)256 << 10) ? 1 : omp_get_max_threads();
#pragma omp parallel num_threads(nt)
    {
        size_t t = (size_t)omp_get_thread_num(), k = (size_t)omp_get_num_threads();
        size_t lo = c->bytes / k * t, hi = t + 1 == k ? c->bytes : c->bytes / k * (t + 1);
        memcpy(c->out + lo, (const unsigned char *)in + lo, hi - lo);
    }
    return GPB_OK;
}

static void fill(gpb_arena *a, size_t bytes, uint64_t seed)
{
    for (size_t s = 0; s < a->nslices; s++) {
        unsigned char *p = a->base + s * a->stride;
#pragma omp parallel for schedule(static)
        for (int64_t w = 0; w < (int64_t)(bytes / 8); w++) {
            uint64_t h = gpb_hash64(seed, s * bytes + (uint64_t)w);
            memcpy(p + 8 * w, &h, 8);
        }
        for (size_t i = bytes / 8 * 8; i < bytes; i++) p[i] = (unsigned char)gpb_hash64(seed ^ 1, s * bytes + i);
    }
}

static int measure(gpb_env *env, const gpb_spec *s, gpb_point *pt)
{
    const size_t e = gpb_dtype_size(s->dtype);
    size_t bytes; /* n = rows x cols, each of e bytes */
    if (!gpb_point_fits(pt, s->n, e, "host", &bytes)) return GPB_OK;
    point_ctx c = {env, s, e, bytes, NULL};
    gpb_arena a = {0};
    if (gpb_cpu_arena_alloc(env, &a, c.bytes, pt->note, sizeof pt->note) != GPB_OK) return GPB_ERROR;
    if (!a.base) return GPB_OK;
    unsigned char *want = malloc(c.bytes ? c.bytes : 1);
    c.out = malloc(c.bytes ? c.bytes : 1);
    int rc = GPB_OK;
    if (!want || !c.out) {
        snprintf(pt->note, sizeof pt->note, "skipped: no host memory for the outputs");
        goto done;
    }
    fill(&a, c.bytes, env->opts.seed);
    serial(c.e, a.base, want, s->rows, s->cols);
    for (int pass = 0; pass < 2 && rc != GPB_ERROR; pass++) {
        /* Before and after timing: poisoned, then exact against the loop. */
        memset(c.out, 0xA5, c.bytes);
        if (gp_call(&c, a.base) != GPB_OK) {
            rc = GPB_ERROR;
        } else if (memcmp(c.out, want, c.bytes) != 0) {
            fprintf(stderr, "CHECK FAILED: transpose %s %lld x %lld on cpu (%s timing) differs from the serial loop\n",
                    gpb_dtype_name(s->dtype), (long long)s->rows, (long long)s->cols, pass ? "after" : "before");
            pt->check_failed = 1;
            rc = GPB_CHECK_FAILED;
        }
        if (pass == 0 && rc != GPB_ERROR) {
            gpb_impl impls[3] = {{gp_call, &c}, {peer_call, &c}, {copy_call, &c}};
            gpb_time t[3];
            int trc = gpb_cpu_time(env, &a, impls, 3, t);
            if (trc != GPB_OK) rc = trc;
            else pt->subject = t[0], pt->peer = t[1], pt->ceiling = t[2];
        }
    }
done:
    free(want);
    free(c.out);
    gpb_cpu_arena_free(&a);
    return rc;
}

static int applicable(const gpb_spec *s, char *why, size_t size)
{
    size_t e = gpb_dtype_size(s->dtype);
    if (e == 1 || e == 2 || e == 4 || e == 8 || e == 16) return 1;
    snprintf(why, size, "not an element size of transpose");
    return 0;
}

static void bytes(const gpb_spec *s, double *rd, double *wr)
{
    *rd = *wr = (double)s->n * (double)gpb_dtype_size(s->dtype);
}

const gpb_case gpb_transpose_cpu = {
    "transpose",
    GP_BACKEND_CPU,
    "gpuprim",
    "serial-loop",
    "omp-copy",
    "dense rows x cols -> cols x rows; peer: the serial double loop; ceiling: an OpenMP copy of the same "
    "bytes; checked byte for byte against the loop; c16 = 16-byte elements",
    0,
    {0, 0, 0, 0, 0, 0, 0},
    applicable,
    bytes,
    measure,
    "1920x1080,4096x4096,30000x7,7x30000",
    "u8,u16,f32,f64,c16",
    1, /* no op: titles leave it out */
    0,
    NULL,
};
