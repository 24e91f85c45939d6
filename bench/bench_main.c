/* `gpuprim bench CASE[,CASE...]|all [options]`: runs the plan bench_args.c makes, case by case. */
#define _POSIX_C_SOURCE 200809L
#include "bench_args.h"
#include "bench_outputs.h"
#include "gp_bench.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* auto: cuda when a GPU is usable, else cpu. */
static gp_backend resolve_backend(gp_backend b)
{
    if (b != GP_BACKEND_AUTO) return b;
#ifdef GPUPRIM_BENCH_CUDA
    if (gp_backend_probe(GP_BACKEND_CUDA, NULL, 0) == GP_STATUS_OK) return GP_BACKEND_CUDA;
#endif
    return GP_BACKEND_CPU;
}

/* Why gp_ctx_create(b, device) failed with st (there is no context to ask):
 * the device index against what the backend has, else the probe's reason
 * where the backend is not usable (on success the probe describes the
 * backend instead: no reason), else the status's sentence. */
static void ctx_failure(gp_backend b, int device, gp_status st, char *why, size_t size)
{
    char detail[256] = "";
    if (st == GP_STATUS_INVALID_DEVICE && b == GP_BACKEND_CPU) {
        snprintf(why, size, "the cpu backend has only device 0, not %d", device);
        return;
    }
    if (st == GP_STATUS_INVALID_DEVICE) {
        const int count = gp_device_count();
        if (count <= 0) snprintf(why, size, "no CUDA device %d: this machine has none", device);
        else if (count == 1) snprintf(why, size, "no CUDA device %d: this machine has one, device 0", device);
        else snprintf(why, size, "no CUDA device %d: this machine has %d, devices 0 to %d", device, count, count - 1);
        return;
    }
    if (gp_backend_probe(b, detail, sizeof detail) != GP_STATUS_OK && detail[0]) {
        snprintf(why, size, "%s", detail);
        return;
    }
    snprintf(why, size, "%s", gp_status_string(st));
}

/* Runs one case over every op, dtype and size (2-D cases: shape); returns
 * the exit code. */
static int run_case(const gpb_case *c, gpb_env *env, const gpb_args *a, const char *prefix, gpb_report *rep)
{
    int64_t sizes[GPB_MAX_SIZES];
    int nsizes = c->default_shapes ? a->nshapes : gpb_case_sizes(a, c, sizes);
    env->opts.timing = gpb_case_timing(c, a->timing); /* the timers and the title read it */
    gpb_point pts[GPB_MAX_SIZES];
    int failed = 0;
    const int nops = c->no_op ? 1 : a->nops; /* the ops are all the same call */
    for (int io = 0; io < nops; io++) {
        for (int it = 0; it < a->ndtypes; it++) {
            gpb_spec s = {a->dtypes[it], a->ops[io], 0, 0, 0};
            char why[160] = "";
            if (s.dtype == GPB_DTYPE_C16 && !c->default_shapes) {
                printf("\n%s %s c16: skipped, c16 is an element for transpose only\n", c->name, gp_op_name(s.op));
                continue;
            }
            if (c->applicable && !c->applicable(&s, why, sizeof why)) {
                char opl[32];
                printf("\n%s %s%s: skipped, %s\n", c->name, gpb_op_label(c, s.op, opl, sizeof opl),
                       gpb_dtype_name(s.dtype), why);
                continue;
            }
            for (int k = 0; k < nsizes; k++) {
                char nb[32];
                if (c->default_shapes) {
                    s.rows = a->shapes[k][0];
                    s.cols = a->shapes[k][1];
                    s.n = s.rows * s.cols;
                } else {
                    s.n = sizes[k];
                }
                gpb_progress("%sbench %s %s %s %s: %s (%d of %d)", prefix, c->name, env->meta.backend,
                             gp_op_name(s.op), gpb_dtype_name(s.dtype), gpb_fmt_point(&s, nb, sizeof nb), k + 1,
                             nsizes);
                gpb_point *p = &pts[k];
                memset(p, 0, sizeof *p);
                p->spec = s;
                c->bytes(&s, &p->bytes_read, &p->bytes_written);
                int rc = c->measure(env, &s, p);
                if (rc == GPB_ERROR) {
                    gpb_progress_clear();
                    return GPB_ERROR;
                }
                if (rc == GPB_CHECK_FAILED) failed = 1;
                if (gpb_report_add(rep, c, p) != GPB_OK) {
                    gpb_progress_clear();
                    fprintf(stderr, "gpuprim bench: out of host memory\n");
                    return GPB_ERROR;
                }
            }
            gpb_progress_clear();
            gpb_print_table(c, env, pts, nsizes);
        }
    }
    return failed ? GPB_CHECK_FAILED : GPB_OK;
}

/* The worse of two exit codes: an error, then a failed check, then OK. */
static int worse(int x, int y) { return x == GPB_ERROR || y == GPB_ERROR ? GPB_ERROR : x > y ? x : y; }

static const char *rc_word(int rc)
{
    return rc == GPB_OK ? "ok" : rc == GPB_CHECK_FAILED ? "CHECK FAILED" : "ERROR";
}

int gp_bench_main(int argc, char **argv)
{
    gpb_args a;
    int prc = gpb_parse_args(argc, argv, &a);
    if (prc == GPB_HELP_SHOWN) return GPB_OK;
    if (prc != GPB_OK) return GPB_ERROR;
    gp_backend b = resolve_backend(a.backend);
    const gpb_case *sel[GPB_MAX_CASES];
    static gpb_args per_case[GPB_MAX_CASES];
    int nsel;
    if (gpb_plan(&a, b, sel, per_case, &nsel) != GPB_OK) return GPB_ERROR;
    if (a.plot && !gpb_plot_available()) {
        fprintf(stderr, "gpuprim bench: --plot: this gpuprim was built without libpng, so it cannot write PNG "
                        "plots\n");
        return GPB_ERROR;
    }

    enum { CSV, JSON, PLOT, OUTPUTS };
    gpb_output out[OUTPUTS] = {{"--csv", a.csv, {0}}, {"--json", a.json, {0}}, {"--plot", a.plot, {0}}};
    if (gpb_outputs_open(out, OUTPUTS) != GPB_OK) return GPB_ERROR;

    gpb_env env;
    memset(&env, 0, sizeof env);
    env.opts = (gpb_opts){b, a.run.device, a.run.runs, a.run.warmup, a.run.seed, a.timing};
    gp_status st = gp_ctx_create(&env.ctx, b, a.run.device);
    if (st != GP_STATUS_OK) {
        char why[320];
        ctx_failure(b, a.run.device, st, why, sizeof why);
        fprintf(stderr, "gpuprim bench: gp_ctx_create(%s, device %d) failed: %s: %s\n", gp_backend_name(b),
                a.run.device, gp_status_name(st), why);
        gpb_outputs_abort(out, OUTPUTS);
        return GPB_ERROR;
    }
    const gpb_runtime *rt = &gpb_cpu_runtime;
#ifdef GPUPRIM_BENCH_CUDA
    if (b == GP_BACKEND_CUDA) rt = &gpb_cuda_runtime;
#endif
    snprintf(env.meta.backend, sizeof env.meta.backend, "%s", gp_backend_name(b));
    gpb_meta_common(&env.meta);
    int rc = rt->init(&env);
    gpb_report *rep = rc == GPB_OK ? gpb_report_new() : NULL;
    if (rc == GPB_OK && !rep) rc = GPB_ERROR;
    if (rc == GPB_OK) {
        char names[512] = "";
        for (int i = 0; i < nsel; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? "," : "", sel[i]->name);
        printf("gpuprim bench %s: %s, %s backend, gpuprim %s, commit %s\n", names, env.meta.device,
               env.meta.backend, env.meta.gpuprim_version, env.meta.commit);
        int case_rc[GPB_MAX_CASES];
        double case_s[GPB_MAX_CASES];
        for (int i = 0; i < nsel; i++) {
            char prefix[32] = "";
            if (nsel > 1) {
                snprintf(prefix, sizeof prefix, "[%d/%d] ", i + 1, nsel);
                printf("\n==== case %s (%d of %d)\n", sel[i]->name, i + 1, nsel);
            }
            double t0 = gpb_now_us();
            /* A case that fails does not stop the others. */
            case_rc[i] = run_case(sel[i], &env, &per_case[i], prefix, rep);
            case_s[i] = (gpb_now_us() - t0) * 1e-6;
            rc = worse(rc, case_rc[i]);
        }
        env.opts.timing = a.timing; /* run_case set it per case */
        if (nsel > 1) {
            printf("\nbench summary (%s):\n", env.meta.device);
            for (int i = 0; i < nsel; i++)
                printf("  %-18s %-12s %7.1f s\n", sel[i]->name, rc_word(case_rc[i]), case_s[i]);
        }
        if (rc == GPB_CHECK_FAILED)
            fprintf(stderr, "\ngpuprim bench: CHECK FAILED: gpuprim gave wrong results (lines above)\n");
        /* The files are written whatever happened: they mark failed checks,
         * and an error leaves out only what it stopped. */
        const gpb_meta *m = &env.meta;
        const gpb_opts *o = &env.opts;
        if (a.csv && gpb_output_finish(&out[CSV], gpb_write_csv(rep, m, o, gpb_output_stream(&out[CSV]))) != GPB_OK)
            rc = GPB_ERROR;
        if (a.json && gpb_output_finish(&out[JSON], gpb_write_json(rep, m, o, gpb_output_stream(&out[JSON]))) != GPB_OK)
            rc = GPB_ERROR;
        if (a.plot && gpb_output_finish(&out[PLOT], gpb_write_plot(rep, m, o, gpb_output_stream(&out[PLOT]))) != GPB_OK)
            rc = GPB_ERROR;
        rt->fini(&env);
    } else {
        gpb_outputs_abort(out, OUTPUTS);
    }
    gpb_report_free(rep);
    gp_ctx_free(env.ctx);
    return rc;
}
