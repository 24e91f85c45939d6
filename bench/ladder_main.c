/* `gpuprim ladder NAME [options]`: the run, the report and its files (options: ladder_args.c). */
#define _POSIX_C_SOURCE 200809L
#include "bench_outputs.h"
#include "gp_bench.h"
#include "ladder.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ----------------------------------------------------------------- report */

struct gpl_report {
    gpl_row *v;
    int n, cap;
};

int gpl_report_add(gpl_report *rep, const gpl_row *r)
{
    if (rep->n == rep->cap) {
        int cap = rep->cap ? 2 * rep->cap : 64;
        gpl_row *v = realloc(rep->v, (size_t)cap * sizeof *v);
        if (!v) {
            fprintf(stderr, "gpuprim ladder: out of host memory\n");
            return GPB_ERROR;
        }
        rep->v = v, rep->cap = cap;
    }
    rep->v[rep->n++] = *r;
    return GPB_OK;
}

void gpl_row_init(gpl_row *r, const char *section, const char *rung, const char *config, int64_t n)
{
    memset(r, 0, sizeof *r);
    snprintf(r->section, sizeof r->section, "%s", section ? section : "");
    snprintf(r->rung, sizeof r->rung, "%s", rung ? rung : "");
    snprintf(r->config, sizeof r->config, "%s", config ? config : "");
    r->n = n;
    r->pct_peak = r->pct_ceiling = r->ratio = NAN;
    r->check = GPL_CHECK_NONE;
}

double gpl_gbs(const gpl_row *r)
{
    return r->bytes > 0 && r->t.measured && r->t.med_us > 0 ? r->bytes / (r->t.med_us * 1e3) : NAN;
}

static const char *check_name(gpl_check c)
{
    switch (c) {
    case GPL_CHECK_OK: return "ok";
    case GPL_CHECK_WRONG: return "WRONG";
    case GPL_CHECK_RACY: return "racy";
    default: return "-";
    }
}

static void put_num(int width, int decimals, double v)
{
    if (isnan(v)) printf(" %*s", width, "-");
    else printf(" %*.*f", width, decimals, v);
}

void gpl_print_rows(const char *title, const gpl_row *rows, int nrows)
{
    int has_peak = 0, has_ceil = 0, has_ratio = 0, has_cfg = 0;
    for (int i = 0; i < nrows; i++) {
        has_peak |= !isnan(rows[i].pct_peak);
        has_ceil |= !isnan(rows[i].pct_ceiling);
        has_ratio |= !isnan(rows[i].ratio);
        has_cfg |= rows[i].config[0] != 0;
    }
    printf("\n%s\n", title);
    printf("%-22s", "implementation");
    if (has_cfg) printf(" %-14s", "config");
    printf(" %12s %12s %9s", "n", "time us", "GB/s");
    if (has_peak) printf(" %6s", "%peak");
    if (has_ceil) printf(" %6s", "%ceil");
    if (has_ratio) printf(" %8s", "ratio");
    printf(" %6s\n", "check");
    for (int i = 0; i < nrows; i++) {
        const gpl_row *r = &rows[i];
        char nb[40];
        if (r->rows > 0) snprintf(nb, sizeof nb, "%lldx%lld", (long long)r->rows, (long long)r->cols);
        else gpb_fmt_n(r->n, nb, sizeof nb);
        printf("%-22s", r->rung);
        if (has_cfg) printf(" %-14s", r->config);
        printf(" %12s", nb);
        put_num(12, 2, r->t.measured ? r->t.med_us : NAN);
        put_num(9, 1, gpl_gbs(r));
        if (has_peak) put_num(6, 1, r->pct_peak);
        if (has_ceil) put_num(6, 1, r->pct_ceiling);
        if (has_ratio) put_num(8, 2, r->ratio);
        printf(" %6s", check_name(r->check));
        if (r->note[0]) printf("  %s", r->note);
        printf("\n");
    }
    fflush(stdout);
}

double gpl_peak_gbs(const gpb_env *env)
{
    gp_device_info d;
    if (gp_device_get_info(env->opts.device, &d) != GP_STATUS_OK) return 0;
    return d.peak_bandwidth_gbs;
}

/* ------------------------------------------------------------------ files */

static int write_csv(const gpl_report *rep, const char *ladder, const gpb_meta *m, const gpb_opts *o, FILE *f)
{
    fputs("ladder,section,rung,config,n,rows,cols,runs,time_us,min_us,max_us,bytes,gbs,pct_peak,pct_ceiling,"
          "ratio,check,note,device,driver,runtime,peer_version,gpuprim_version,commit,build_flags,date\n",
          f);
    for (int i = 0; i < rep->n; i++) {
        const gpl_row *r = &rep->v[i];
        gpb_csv_str(f, ladder), fputc(',', f);
        gpb_csv_str(f, r->section), fputc(',', f);
        gpb_csv_str(f, r->rung), fputc(',', f);
        gpb_csv_str(f, r->config);
        fprintf(f, ",%lld,%lld,%lld,%d,", (long long)r->n, (long long)r->rows, (long long)r->cols,
                r->t.measured ? o->runs : 0);
        gpb_csv_num(f, r->t.measured ? r->t.med_us : NAN), fputc(',', f);
        gpb_csv_num(f, r->t.measured ? r->t.min_us : NAN), fputc(',', f);
        gpb_csv_num(f, r->t.measured ? r->t.max_us : NAN), fputc(',', f);
        gpb_csv_num(f, r->bytes > 0 ? r->bytes : NAN), fputc(',', f);
        gpb_csv_num(f, gpl_gbs(r)), fputc(',', f);
        gpb_csv_num(f, r->pct_peak), fputc(',', f);
        gpb_csv_num(f, r->pct_ceiling), fputc(',', f);
        gpb_csv_num(f, r->ratio), fputc(',', f);
        fprintf(f, "%s,", check_name(r->check));
        const char *fields[] = {r->note, m->device, m->driver, m->runtime, m->peer_version,
                                m->gpuprim_version, m->commit, m->build_flags, m->date};
        for (size_t j = 0; j < sizeof fields / sizeof *fields; j++) {
            if (j) fputc(',', f);
            gpb_csv_str(f, fields[j]);
        }
        fputc('\n', f);
    }
    return ferror(f) ? GPB_ERROR : GPB_OK;
}


static void json_num(FILE *f, const char *key, double v)
{
    fprintf(f, ", \"%s\": ", key);
    if (isnan(v) || isinf(v)) fputs("null", f);
    else fprintf(f, "%.6g", v);
}

static int write_json(const gpl_report *rep, const char *ladder, const gpb_meta *m, const gpb_opts *o, FILE *f)
{
    const char *keys[] = {"ladder", "device", "driver", "runtime", "peer_version", "gpuprim_version", "commit",
                          "build_flags", "date"};
    const char *vals[] = {ladder, m->device, m->driver, m->runtime, m->peer_version, m->gpuprim_version,
                          m->commit, m->build_flags, m->date};
    fputs("{\n  \"meta\": {", f);
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        fprintf(f, "%s\n    \"%s\": ", k ? "," : "", keys[k]);
        gpb_json_str(f, vals[k]);
    }
    fprintf(f, ",\n    \"parallelism\": %d, \"runs\": %d, \"warmup\": %d, \"seed\": %llu\n  },\n  \"rows\": [",
            m->parallelism, o->runs, o->warmup, (unsigned long long)o->seed);
    for (int i = 0; i < rep->n; i++) {
        const gpl_row *r = &rep->v[i];
        fputs(i ? ",\n    {\"section\": " : "\n    {\"section\": ", f);
        gpb_json_str(f, r->section);
        fputs(", \"rung\": ", f), gpb_json_str(f, r->rung);
        fputs(", \"config\": ", f), gpb_json_str(f, r->config);
        fprintf(f, ", \"n\": %lld", (long long)r->n);
        if (r->rows > 0) fprintf(f, ", \"rows\": %lld, \"cols\": %lld", (long long)r->rows, (long long)r->cols);
        json_num(f, "time_us", r->t.measured ? r->t.med_us : NAN);
        json_num(f, "min_us", r->t.measured ? r->t.min_us : NAN);
        json_num(f, "max_us", r->t.measured ? r->t.max_us : NAN);
        json_num(f, "bytes", r->bytes > 0 ? r->bytes : NAN);
        json_num(f, "gbs", gpl_gbs(r));
        json_num(f, "pct_peak", r->pct_peak);
        json_num(f, "pct_ceiling", r->pct_ceiling);
        json_num(f, "ratio", r->ratio);
        fprintf(f, ", \"check\": \"%s\", \"note\": ", check_name(r->check));
        gpb_json_str(f, r->note);
        fputc('}', f);
    }
    fputs("\n  ]\n}\n", f);
    return ferror(f) ? GPB_ERROR : GPB_OK;
}

int gp_ladder_main(int argc, char **argv)
{
    gpl_args a;
    int prc = gpl_parse_args(argc, argv, &a);
    if (prc == GPB_HELP_SHOWN) return GPB_OK;
    if (prc != GPB_OK) return GPB_ERROR;
    int known;
    const gpl_ladder *l = gpl_find_ladder(a.name, &known);
    if (!l && !known) return gpb_usage_error("ladder", "unknown ladder '%s'", a.name);
    enum { CSV, JSON, OUTPUTS };
    gpb_output out[OUTPUTS] = {{"--csv", a.csv, {0}}, {"--json", a.json, {0}}};
    if (gpb_outputs_open(out, OUTPUTS) != GPB_OK) return GPB_ERROR;
    if (!l) {
        gpb_outputs_abort(out, OUTPUTS);
        fprintf(stderr, "gpuprim ladder: the %s ladder runs on the GPU; this build has no CUDA backend\n", a.name);
        return GPB_ERROR;
    }

    gpb_env env;
    memset(&env, 0, sizeof env);
    /* timing: unused, the ladders time their kernels with their own events */
    env.opts = (gpb_opts){.backend = GP_BACKEND_CUDA, .device = a.run.device, .runs = a.run.runs,
                          .warmup = a.run.warmup, .seed = a.run.seed, .timing = GPB_TIMING_EVENTS};
    gp_status st = gp_ctx_create(&env.ctx, GP_BACKEND_CUDA, a.run.device);
    if (st != GP_STATUS_OK) {
        char detail[256] = "";
        gp_backend_probe(GP_BACKEND_CUDA, detail, sizeof detail);
        fprintf(stderr, "gpuprim ladder: no usable GPU (device %d): %s%s%s\n", a.run.device, gp_status_name(st),
                detail[0] ? ": " : "", detail);
        gpb_outputs_abort(out, OUTPUTS);
        return GPB_ERROR;
    }
    /* Only CUDA builds have ladders (l != NULL), so the runtime is there. */
    snprintf(env.meta.backend, sizeof env.meta.backend, "cuda");
    gpb_meta_common(&env.meta);
    int rc = GPB_ERROR;
#ifdef GPUPRIM_BENCH_CUDA
    rc = gpb_cuda_runtime.init(&env);
#endif
    if (rc == GPB_OK) {
        gpl_report rep = {0};
        printf("gpuprim ladder %s: %s, gpuprim %s, commit %s%s\n", l->name, env.meta.device,
               env.meta.gpuprim_version, env.meta.commit, a.o.check_only ? " (checks only)" : "");
        rc = l->run(&env, &a.o, &rep);
        if (rc == GPB_CHECK_FAILED)
            fprintf(stderr, "\ngpuprim ladder: CHECK FAILED: a rung gave a wrong answer (lines above)\n");
        const gpb_meta *m = &env.meta;
        const gpb_opts *o = &env.opts;
        if (rc != GPB_ERROR && a.csv &&
            gpb_output_finish(&out[CSV], write_csv(&rep, l->name, m, o, gpb_output_stream(&out[CSV]))) != GPB_OK)
            rc = GPB_ERROR;
        if (rc != GPB_ERROR && a.json &&
            gpb_output_finish(&out[JSON], write_json(&rep, l->name, m, o, gpb_output_stream(&out[JSON]))) != GPB_OK)
            rc = GPB_ERROR;
        free(rep.v);
#ifdef GPUPRIM_BENCH_CUDA
        gpb_cuda_runtime.fini(&env);
#endif
    }
    gpb_outputs_abort(out, OUTPUTS); /* those an error left unwritten */
    gp_ctx_free(env.ctx);
    return rc;
}
