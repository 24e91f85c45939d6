/*
 * `gpuprim demo` (what `make demo` runs): sums of random i32 and f32 values
 * on every usable backend, each checked against a serial loop here, timed,
 * and set beside the same backend's measured copy bandwidth.
 */
#include "bench.h" /* gpb_float_tol */
#include "cli_common.h"
#include "cli_random.h"
#include "cli_timing.h"
#include "cli_values.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const cli_opt demo_opts[] = {
    {"n", 0, "N", "values per dtype, decimal or 2^K (default 2^26)"},
    {"runs", 0, "R", "timed runs per measurement, after 2 warm-ups (default 10)"},
    {"seed", 0, "S", "seed of the data (default 2026)"},
    {NULL, 0, NULL, NULL},
};

enum { DEMO_DEFAULT_LOG2_N = 26, DEMO_DEFAULT_RUNS = 10, DEMO_DEFAULT_SEED = 2026, DEMO_WARMUPS = 2 };

static const gp_dtype demo_dtypes[] = {GP_DTYPE_I32, GP_DTYPE_F32};
enum { DEMO_DTYPE_COUNT = 2, DEMO_MAX_ROWS = 8 };

/* What the serial loop in this file says the sum is. */
typedef struct demo_reference {
    int32_t i32_sum;   /* wraps like the library's i32 sum */
    double f32_sum;    /* accumulated in double: closer than any f32 order */
    double f32_abs_sum;
} demo_reference;

typedef struct demo_row {
    gp_backend backend;
    gp_dtype dtype;
    double time_s, gbs;
    cli_copy_bandwidth copy;
    unsigned char result[8];
    double reference, diff, bound; /* for f32 */
    int passed;
} demo_row;

static demo_reference serial_sum(const void *values, gp_dtype t, int64_t n)
{
    demo_reference r = {0, 0, 0};
    if (t == GP_DTYPE_I32) {
        const int32_t *v = (const int32_t *)values;
        uint32_t acc = 0; /* unsigned: wrap-around is defined */
        for (int64_t i = 0; i < n; i++) acc += (uint32_t)v[i];
        memcpy(&r.i32_sum, &acc, sizeof acc);
    } else {
        const float *v = (const float *)values;
        for (int64_t i = 0; i < n; i++) {
            r.f32_sum += v[i];
            r.f32_abs_sum += fabs(v[i]);
        }
    }
    return r;
}

static void check_row(demo_row *row, const demo_reference *ref, int64_t n)
{
    if (row->dtype == GP_DTYPE_I32) {
        int32_t got;
        memcpy(&got, row->result, sizeof got);
        row->passed = got == ref->i32_sum;
        row->reference = ref->i32_sum;
        return;
    }
    float got;
    memcpy(&got, row->result, sizeof got);
    /* The header's bound for any order, (n-1) u sum|x|, exceeds sum|x|
     * itself from 2^24 values and would check nothing. The demo holds every
     * backend to the bound the bench checks float sums against CUB with,
     * gpb_float_tol: u max(64, 2 sqrt n) sum|x|, what random rounding gives a
     * serial loop. The library's blocked and tree orders land far inside it;
     * at 2^26 values in [0, 1) a lost or doubled run of 2^17 of them does not. */
    row->reference = ref->f32_sum;
    row->bound = gpb_float_tol(GP_DTYPE_F32, GP_OP_SUM, n) * ref->f32_abs_sum;
    row->diff = fabs((double)got - ref->f32_sum);
    row->passed = row->diff <= row->bound; /* false for NaN */
}

/* Times the sum and the copy of the same bytes on one backend. */
static int run_backend(gp_backend b, const void *host, gp_dtype t, int64_t n, int runs, demo_row *row)
{
    size_t bytes = (size_t)n * gp_dtype_size(t);
    gp_ctx *ctx = NULL;
    void *in = NULL, *out = NULL, *copy_dst = NULL;
    int rc = cli_open_ctx(b, 0, &ctx);
    if (rc == CLI_EXIT_OK) rc = cli_ctx_malloc(ctx, &in, bytes, "the input");
    if (rc == CLI_EXIT_OK) rc = cli_ctx_malloc(ctx, &out, gp_dtype_size(t), "the result");
    if (rc == CLI_EXIT_OK) rc = cli_ctx_malloc(ctx, &copy_dst, bytes, "the copy destination");
    gp_status s = GP_STATUS_OK;
    if (rc == CLI_EXIT_OK) {
        s = gp_copy_from_host(ctx, in, host, bytes);
        if (s != GP_STATUS_OK) rc = cli_gp_error(ctx, s, "copying %zu bytes of input into the context failed", bytes);
    }
    double times[CLI_MAX_RUNS];
    for (int i = 0; rc == CLI_EXIT_OK && i < DEMO_WARMUPS + runs; i++) {
        double t0 = cli_now();
        s = gp_reduce(ctx, in, t, n, GP_OP_SUM, out, t);
        if (s == GP_STATUS_OK) s = gp_ctx_synchronize(ctx);
        if (i >= DEMO_WARMUPS) times[i - DEMO_WARMUPS] = cli_now() - t0;
        if (s != GP_STATUS_OK) rc = cli_gp_error(ctx, s, "sum of %" PRId64 " %s values failed", n, gp_dtype_name(t));
    }
    if (rc == CLI_EXIT_OK) {
        s = gp_reduce_to_host(ctx, in, t, n, GP_OP_SUM, row->result, t);
        if (s != GP_STATUS_OK) rc = cli_gp_error(ctx, s, "sum of %" PRId64 " %s values failed", n, gp_dtype_name(t));
    }
    if (rc == CLI_EXIT_OK) rc = cli_time_copy(ctx, copy_dst, in, bytes, DEMO_WARMUPS, runs, &row->copy);
    if (rc == CLI_EXIT_OK) {
        row->time_s = cli_median(times, runs);
        row->gbs = row->time_s > 0 ? (double)bytes / row->time_s * 1e-9 : 0;
    }
    if (ctx) {
        gp_free(ctx, in);
        gp_free(ctx, out);
        gp_free(ctx, copy_dst);
    }
    gp_ctx_free(ctx);
    return rc;
}

static void describe_n(int64_t n, char *buf, size_t size)
{
    int log2 = -1;
    for (int k = 0; k < 63; k++)
        if (n == (int64_t)1 << k) log2 = k;
    if (log2 >= 10)
        snprintf(buf, size, "2^%d = %" PRId64, log2, n);
    else
        snprintf(buf, size, "%" PRId64, n);
}

static void print_text(const demo_row *rows, int count)
{
    printf("\nbackend  dtype    time (ms)      GB/s  copy GB/s  of copy  result and check\n");
    for (int i = 0; i < count; i++) {
        const demo_row *r = &rows[i];
        char value[64];
        cli_format_value(r->result, r->dtype, value, sizeof value);
        printf("%-8s %-5s %12.3f %9.2f %10.2f %7.1f%%  %s", gp_backend_name(r->backend), gp_dtype_name(r->dtype),
               r->time_s * 1e3, r->gbs, r->copy.median_gbs,
               r->copy.median_gbs > 0 ? 100.0 * r->gbs / r->copy.median_gbs : 0.0, value);
        if (r->dtype == GP_DTYPE_I32 && r->passed)
            printf(" (exact: the serial loop agrees)\n");
        else if (r->dtype == GP_DTYPE_I32)
            printf(" (FAILED: the serial loop says %.0f)\n", r->reference);
        else
            printf(" (%s: |result - serial| = %.3g %s bound %.3g)\n", r->passed ? "checked" : "FAILED", r->diff,
                   r->passed ? "<=" : "exceeds", r->bound);
    }
    printf("\nGB/s: the n x 4 input bytes read / median time (host clock around gp_ctx_synchronize).\n"
           "copy GB/s: gp_copy of the same bytes on the same backend, read + written counted.\n");
}

static void print_json(const demo_row *rows, int count, int64_t n, uint64_t seed, int runs, const char *note,
                       int passed)
{
    printf("{\"n\": %" PRId64 ", \"seed\": %" PRIu64 ", \"runs\": %d, \"note\": ", n, seed, runs);
    cli_json_string(stdout, note ? note : "");
    printf(", \"results\": [");
    for (int i = 0; i < count; i++) {
        const demo_row *r = &rows[i];
        char value[64];
        printf("%s{\"backend\": \"%s\", \"dtype\": \"%s\", \"time_ms\": %.6f, \"gbs\": %.3f, \"copy_gbs\": %.3f, "
               "\"share_of_copy\": %.4f, \"result\": %s, \"reference\": %.17g, \"check\": \"%s\", \"passed\": %s}",
               i ? ", " : "", gp_backend_name(r->backend), gp_dtype_name(r->dtype), r->time_s * 1e3, r->gbs,
               r->copy.median_gbs, r->copy.median_gbs > 0 ? r->gbs / r->copy.median_gbs : 0.0,
               cli_format_value_json(r->result, r->dtype, value, sizeof value), r->reference,
               r->dtype == GP_DTYPE_I32 ? "exact" : "bound", r->passed ? "true" : "false");
    }
    printf("], \"passed\": %s}\n", passed ? "true" : "false");
}

static int run_demo(const cli_args *args)
{
    int64_t n = (int64_t)1 << DEMO_DEFAULT_LOG2_N, runs = DEMO_DEFAULT_RUNS;
    uint64_t seed = DEMO_DEFAULT_SEED;
    const char *n_text = cli_get(args, "n"), *runs_text = cli_get(args, "runs"), *seed_text = cli_get(args, "seed");
    int rc = CLI_EXIT_OK;
    if (n_text) rc = cli_parse_int64_option(n_text, "--n", 1, INT64_MAX / 8, &n);
    if (rc == CLI_EXIT_OK && runs_text) rc = cli_parse_int64_option(runs_text, "--runs", 1, CLI_MAX_RUNS, &runs);
    if (rc == CLI_EXIT_OK && seed_text) rc = cli_parse_uint64_option(seed_text, "--seed", &seed);
    if (rc != CLI_EXIT_OK) return rc;

    /* Which backends: all usable ones for auto, else the one asked for. */
    gp_backend backends[2];
    int nb = 0;
    char detail[512], note[700] = "";
    if (args->backend != GP_BACKEND_CUDA) backends[nb++] = GP_BACKEND_CPU;
    if (args->backend != GP_BACKEND_CPU) {
        gp_status p = gp_backend_probe(GP_BACKEND_CUDA, detail, sizeof detail);
        if (p == GP_STATUS_OK)
            backends[nb++] = GP_BACKEND_CUDA;
        else if (args->backend == GP_BACKEND_CUDA)
            return cli_error("the cuda backend is not usable here: %s", detail[0] ? detail : gp_status_string(p));
        else
            snprintf(note, sizeof note, "CUDA backend: not usable here (%s); running the CPU backend only",
                     detail[0] ? detail : gp_status_string(p));
    }

    size_t bytes = (size_t)n * sizeof(int32_t);
    void *host = cli_host_malloc(bytes, "the input values");
    if (!host) return CLI_EXIT_FAILURE;
    if (!args->json) {
        char size[64];
        describe_n(n, size, sizeof size);
        printf("gpuprim demo: sum of %s random values per dtype (seed %" PRIu64 "), median of %d runs after %d "
               "warm-ups\n",
               size, seed, (int)runs, DEMO_WARMUPS);
        if (note[0]) printf("%s\n", note);
    }

    demo_row rows[DEMO_MAX_ROWS];
    int count = 0, all_passed = 1;
    for (int d = 0; d < DEMO_DTYPE_COUNT && rc == CLI_EXIT_OK; d++) {
        gp_dtype t = demo_dtypes[d];
        /* i32: every bit pattern (the sum wraps); f32: [0, 1). */
        cli_fill_spec spec = {t, CLI_DIST_UNIFORM, n, {0}};
        cli_rng rng;
        cli_rng_seed(&rng, seed + (uint64_t)d);
        cli_fill(&spec, &rng, 0, (size_t)n, host);
        demo_reference ref = serial_sum(host, t, n);
        for (int k = 0; k < nb && rc == CLI_EXIT_OK; k++) {
            demo_row *row = &rows[count];
            memset(row, 0, sizeof *row);
            row->backend = backends[k];
            row->dtype = t;
            rc = run_backend(backends[k], host, t, n, (int)runs, row);
            if (rc != CLI_EXIT_OK) break;
            check_row(row, &ref, n);
            if (!row->passed) {
                char got[64];
                all_passed = 0;
                cli_error("%s %s sum check failed: got %s, the serial loop says %.17g", gp_backend_name(row->backend),
                          gp_dtype_name(t), cli_format_value(row->result, t, got, sizeof got), row->reference);
            }
            count++;
        }
    }
    free(host);
    if (rc != CLI_EXIT_OK) return rc;
    if (args->json)
        print_json(rows, count, n, seed, (int)runs, note, all_passed);
    else
        print_text(rows, count);
    return all_passed ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
}

const cli_verb cli_verb_demo = {
    .name = "demo",
    .summary = "sum 2^26 random i32 and f32 values on every usable backend, checked and timed",
    .synopsis = "[--n N] [--runs R] [--seed S]",
    .details =
        "Each sum is checked against a serial loop in the tool: i32 exactly (wrapping like the\n"
        "library), f32 within 2^-24 x max(64, 2 sqrt n) x sum |x| (the bench's bound). Times are\n"
        "medians of the timed runs with a host clock around gp_ctx_synchronize; GB/s is the 4n\n"
        "input bytes over that time, set beside gp_copy of the same bytes on the same backend\n"
        "(read + write counted).\n"
        "--backend auto runs every usable backend; cpu or cuda runs that one. Exits 1 if any\n"
        "check fails.\n",
    .opts = demo_opts,
    .min_positional = 0,
    .max_positional = 0,
    .run = run_demo,
};
