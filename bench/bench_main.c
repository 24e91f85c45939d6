/* `gpuprim bench CASE[,CASE...]|all [options]`: options, the case table, the sweep. */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"
#include "gp_bench.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const gpb_case gpb_reduce_cpu, gpb_transpose_cpu, gpb_filter_cpu, gpb_filter_ascending_cpu, gpb_scan_cpu,
    gpb_select_cpu, gpb_select_if_cpu, gpb_partition_cpu, gpb_partition_if_cpu;
#ifdef GPUPRIM_BENCH_CUDA
extern const gpb_case gpb_reduce_cuda, gpb_transpose_cuda;
extern const gpb_case gpb_count_cuda, gpb_histogram_cuda, gpb_histogram_one_bin_cuda, gpb_histogram_wide_bins_cuda,
    gpb_histogram_many_bins_cuda, gpb_histogram_edges_cuda;
extern const gpb_case gpb_scan_cuda, gpb_select_cuda, gpb_select_if_cuda, gpb_partition_cuda,
    gpb_partition_if_cuda, gpb_filter_cuda, gpb_filter_ascending_cuda, gpb_filter_vs_cpu_cuda;
#endif

/* Every case this build has; a new primitive adds its line here. */
static const gpb_case *const cases[] = {
    &gpb_reduce_cpu,
    &gpb_transpose_cpu,
    &gpb_filter_cpu,
    &gpb_filter_ascending_cpu,
    &gpb_scan_cpu,
    &gpb_select_cpu,
    &gpb_select_if_cpu,
    &gpb_partition_cpu,
    &gpb_partition_if_cpu,
#ifdef GPUPRIM_BENCH_CUDA
    &gpb_reduce_cuda,
    &gpb_transpose_cuda,
    &gpb_count_cuda,
    &gpb_histogram_cuda,
    &gpb_histogram_one_bin_cuda,
    &gpb_histogram_wide_bins_cuda,
    &gpb_histogram_many_bins_cuda,
    &gpb_histogram_edges_cuda,
    &gpb_scan_cuda,
    &gpb_select_cuda,
    &gpb_select_if_cuda,
    &gpb_partition_cuda,
    &gpb_partition_if_cuda,
    &gpb_filter_cuda,
    &gpb_filter_ascending_cuda,
    &gpb_filter_vs_cpu_cuda,
#endif
};
enum { NCASES = sizeof cases / sizeof cases[0] };

enum { MAX_LIST = 64, MAX_SIZES = MAX_LIST + 22 }; /* --sizes plus the sweep 2^0..2^40 */
enum { HELP_SHOWN = -1 }; /* parse_args: --help printed, exit 0 */

typedef struct args {
    const char *case_name;
    gp_backend backend;
    int device, runs, warmup, timing; /* timing: --hold, a gpb_timing */
    unsigned long long seed;
    gp_dtype dtypes[MAX_LIST];
    int ndtypes;
    gp_op ops[MAX_LIST];
    int nops;
    int min_log2, max_log2; /* max_log2 < 0: the case's default */
    int64_t sizes[MAX_LIST];
    int nsizes;
    int64_t shapes[MAX_LIST][2]; /* --shapes, for 2-D cases */
    int nshapes;
    int dtypes_given;
    const char *csv, *json, *plot;
} args;

static void usage(FILE *f)
{
    fputs("usage: gpuprim bench CASE[,CASE...]|all [options]\n"
          "cases: reduce, transpose, scan, select, select-if, partition,\n"
          "       partition-if, filter, filter-ascending; on cuda also count,\n"
          "       histogram, histogram-one-bin, histogram-16384, histogram-2^20,\n"
          "       histogram-edges, filter-vs-cpu; all: every case of the backend\n"
          "Times gpuprim against its peer (CUB on cuda, a serial loop on cpu) and a\n"
          "streaming-read or copy ceiling over the same bytes, all in the same run. Several cases\n"
          "run one after the other in one process, each with its own default dtypes and\n"
          "sizes unless the options below say otherwise; the files hold every row.\n"
          "  --backend auto|cpu|cuda  backend to measure (auto: cuda when a GPU is usable)\n"
          "  --device N               CUDA device (default 0)\n"
          "  --dtype LIST             comma-separated dtypes (default i32,f32,f64,u8)\n"
          "  --op LIST                comma-separated ops (default sum)\n"
          "  --min-log2 K             smallest size of the sweep, 2^K (default 10)\n"
          "  --max-log2 K             largest, reached in steps of 2 and always included\n"
          "                           (default 30 on cuda, 27 on cpu; -1: only --sizes; with\n"
          "                           several cases it lowers each case's default, never raises it)\n"
          "  --sizes LIST             extra sizes, e.g. 1000,2^20,100000000 (they replace a\n"
          "                           case's own: filter-vs-cpu adds 10^4 to 10^7 to its sweep)\n"
          "  --shapes LIST            2-D cases (transpose): ROWSxCOLS items instead of sizes\n"
          "                           (default 1920x1080,8192x8192,16384x16384,30000x7,7x30000;\n"
          "                           transpose's dtypes: u8,u16,f32,f64,c16, c16 = 16 bytes)\n"
          "  --runs N                 timed calls per implementation and size (default 20)\n"
          "  --warmup N               untimed calls before them (default 3)\n"
          "  --hold on|off            CUDA timing: on (default) holds the stream until a call\n"
          "                           is queued, so the events time the GPU's work alone (the\n"
          "                           method of NVIDIA's nvbench); off also times the host's\n"
          "                           launch latency, which the GPU idles through at small n\n"
          "  --seed N                 input seed (default 1)\n"
          "  --csv FILE, --json FILE  also write the results for programs\n"
          "  --plot FILE.png          also draw GB/s against n (log axes), one panel per\n"
          "                           case, op and dtype, all on one page (needs libpng)\n"
          "Exit status: 0, 1 if gpuprim disagreed with the peer (CHECK FAILED) in any case,\n"
          "2 on a usage error or if any case hit a runtime error (the other cases still\n"
          "run, and the files hold what was measured). Missed targets do not change it.\n",
          f);
}

static int bad(const char *fmt, const char *what) { return gpb_usage_error("bench", fmt, what); }

/* Splits a comma list; each item goes through `item`. */
static int parse_list(const char *opt, const char *s, int *count, int (*item)(const char *, int, void *), void *dst)
{
    char token[GPB_LIST_CHARS], msg[160];
    const gpb_list_status st = gpb_split_list(s, MAX_LIST, item, dst, count, token, sizeof token);
    if (st == GPB_LIST_BAD_ITEM) {
        fprintf(stderr, "gpuprim bench: %s: cannot parse '%s'\n", opt, token);
        return GPB_ERROR;
    }
    if (st != GPB_LIST_OK) {
        snprintf(msg, sizeof msg, "%s: %s", opt, gpb_list_problem(st));
        return bad("%s", msg);
    }
    return GPB_OK;
}

static int dtype_item(const char *s, int i, void *dst)
{
    if (!strcmp(s, "c16")) {
        ((gp_dtype *)dst)[i] = GPB_DTYPE_C16;
        return 1;
    }
    return gp_dtype_from_name(s, &((gp_dtype *)dst)[i]) == GP_STATUS_OK;
}

/* "ROWSxCOLS", both >= 1. */
static int shape_item(const char *s, int i, void *dst)
{
    long long r, c;
    char buf[64];
    const char *x = strchr(s, 'x');
    if (!x || x == s || (size_t)(x - s) >= sizeof buf) return 0;
    snprintf(buf, sizeof buf, "%.*s", (int)(x - s), s);
    if (!gpb_parse_int(buf, 1, INT64_C(1) << 31, &r) || !gpb_parse_int(x + 1, 1, INT64_C(1) << 31, &c)) return 0;
    ((int64_t(*)[2])dst)[i][0] = r;
    ((int64_t(*)[2])dst)[i][1] = c;
    return 1;
}
static int op_item(const char *s, int i, void *dst) { return gp_op_from_name(s, &((gp_op *)dst)[i]) == GP_STATUS_OK; }
static int size_item(const char *s, int i, void *dst) { return gpb_parse_size(s, &((int64_t *)dst)[i]); }

static int parse_args(int argc, char **argv, args *a)
{
    *a = (args){.backend = GP_BACKEND_AUTO, .runs = 20, .warmup = 3, .timing = GPB_TIMING_HELD, .seed = 1, .min_log2 = 10,
                .max_log2 = -1};
    a->dtypes[0] = GP_DTYPE_I32, a->dtypes[1] = GP_DTYPE_F32, a->dtypes[2] = GP_DTYPE_F64;
    a->dtypes[3] = GP_DTYPE_U8, a->ndtypes = 4;
    a->ops[0] = GP_OP_SUM, a->nops = 1;
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        if (!strcmp(opt, "-h") || !strcmp(opt, "--help")) {
            usage(stdout);
            return HELP_SHOWN;
        }
        if (opt[0] != '-') {
            if (a->case_name) return bad("unexpected argument '%s'", opt);
            a->case_name = opt;
            continue;
        }
        /* --opt=value or --opt value */
        static const char *const known[] = {"--backend", "--device", "--dtype", "--op", "--sizes",
                                            "--min-log2", "--max-log2", "--runs", "--warmup", "--seed",
                                            "--csv", "--json", "--shapes", "--plot", "--hold"};
        char name[64], why[128];
        const char *val;
        if (!gpb_option(argc, argv, &i, known, sizeof known / sizeof *known, name, sizeof name, &val, why,
                        sizeof why))
            return bad("%s", why);
        long long v;
        int rc = GPB_OK;
        if (!strcmp(name, "--backend")) {
            if (gp_backend_from_name(val, &a->backend) != GP_STATUS_OK) return bad("unknown backend '%s'", val);
        } else if (!strcmp(name, "--device")) {
            if (!gpb_parse_int(val, 0, 1024, &v)) return bad("bad --device '%s'", val);
            a->device = (int)v;
        } else if (!strcmp(name, "--dtype")) {
            rc = parse_list(name, val, &a->ndtypes, dtype_item, a->dtypes);
            a->dtypes_given = 1;
        } else if (!strcmp(name, "--shapes")) {
            rc = parse_list(name, val, &a->nshapes, shape_item, a->shapes);
        } else if (!strcmp(name, "--op")) {
            rc = parse_list(name, val, &a->nops, op_item, a->ops);
        } else if (!strcmp(name, "--sizes")) {
            rc = parse_list(name, val, &a->nsizes, size_item, a->sizes);
        } else if (!strcmp(name, "--min-log2")) {
            if (!gpb_parse_int(val, 0, 40, &v)) return bad("bad --min-log2 '%s' (0..40)", val);
            a->min_log2 = (int)v;
        } else if (!strcmp(name, "--max-log2")) {
            if (!gpb_parse_int(val, -1, 40, &v)) return bad("bad --max-log2 '%s' (-1..40)", val);
            a->max_log2 = v < 0 ? -2 : (int)v; /* -2: explicitly no sweep */
        } else if (!strcmp(name, "--runs")) {
            if (!gpb_parse_int(val, 1, 100000, &v)) return bad("bad --runs '%s'", val);
            a->runs = (int)v;
        } else if (!strcmp(name, "--warmup")) {
            if (!gpb_parse_int(val, 0, 100000, &v)) return bad("bad --warmup '%s'", val);
            a->warmup = (int)v;
        } else if (!strcmp(name, "--hold")) {
            if (strcmp(val, "on") && strcmp(val, "off")) return bad("bad --hold '%s' (on or off)", val);
            a->timing = !strcmp(val, "on") ? GPB_TIMING_HELD : GPB_TIMING_EVENTS;
        } else if (!strcmp(name, "--seed")) {
            if (!gpb_parse_int(val, 0, INT64_MAX, &v)) return bad("bad --seed '%s'", val);
            a->seed = (unsigned long long)v;
        } else if (!strcmp(name, "--csv")) {
            a->csv = val;
        } else if (!strcmp(name, "--json")) {
            a->json = val;
        } else if (!strcmp(name, "--plot")) {
            a->plot = val;
        }
        if (rc != GPB_OK) return rc;
    }
    if (!a->case_name) {
        usage(stderr);
        return GPB_ERROR;
    }
    return GPB_OK;
}

static gp_backend resolve_backend(gp_backend b)
{
    if (b != GP_BACKEND_AUTO) return b;
#ifdef GPUPRIM_BENCH_CUDA
    if (gp_backend_probe(GP_BACKEND_CUDA, NULL, 0) == GP_STATUS_OK) return GP_BACKEND_CUDA;
#endif
    return GP_BACKEND_CPU;
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* The sweep's top, log2: --max-log2, else the case's default; -2 (--max-log2
 * -1) means no sweep. */
static int sweep_max_log2(const args *a, const gpb_case *c)
{
    return a->max_log2 == -1 ? c->default_max_log2 : a->max_log2;
}

/* The sweep 2^min, 2^(min+2), ... up to and including 2^max, plus the extra
 * sizes, sorted, unique. */
static int make_sizes(const args *a, const gpb_case *c, int64_t *out)
{
    int max = sweep_max_log2(a, c);
    int n = 0;
    for (int e = a->min_log2; e <= max; e += 2) out[n++] = INT64_C(1) << e;
    if (max >= a->min_log2 && (max - a->min_log2) % 2) out[n++] = INT64_C(1) << max; /* the top always runs */
    for (int i = 0; i < a->nsizes; i++) out[n++] = a->sizes[i];
    qsort(out, (size_t)n, sizeof *out, cmp_i64);
    int u = 0;
    for (int i = 0; i < n; i++)
        if (u == 0 || out[u - 1] != out[i]) out[u++] = out[i];
    return u;
}

/* A case's shapes, dtypes and extra sizes: from the command line, else the
 * case's defaults (its strings parse: they are part of the build). Default
 * extra sizes join only the case's own sweep, and only inside its range. */
static int case_lists(const gpb_case *c, args *a)
{
    if (c->default_sizes && a->nsizes == 0 && a->max_log2 != -2) {
        int64_t extra[MAX_LIST];
        int nextra = 0;
        if (parse_list("default sizes", c->default_sizes, &nextra, size_item, extra) != GPB_OK) return GPB_ERROR;
        const int max = sweep_max_log2(a, c);
        for (int i = 0; i < nextra; i++)
            if (extra[i] >= INT64_C(1) << a->min_log2 && extra[i] <= INT64_C(1) << max) a->sizes[a->nsizes++] = extra[i];
    }
    if (c->default_dtypes && !a->dtypes_given &&
        parse_list("default dtypes", c->default_dtypes, &a->ndtypes, dtype_item, a->dtypes) != GPB_OK)
        return GPB_ERROR;
    if (c->default_shapes && a->nshapes == 0 &&
        parse_list("default shapes", c->default_shapes, &a->nshapes, shape_item, a->shapes) != GPB_OK)
        return GPB_ERROR;
    return GPB_OK;
}

/* Runs one case over every op, dtype and size (2-D cases: shape); returns
 * the exit code. */
static int run_case(const gpb_case *c, gpb_env *env, const args *a, const char *prefix, gpb_report *rep)
{
    int64_t sizes[MAX_SIZES];
    int nsizes = c->default_shapes ? a->nshapes : make_sizes(a, c, sizes);
    env->opts.timing = gpb_case_timing(c, a->timing); /* the timers and the title read it */
    gpb_point pts[MAX_SIZES];
    int failed = 0;
    for (int io = 0; io < a->nops; io++) {
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

/* The cases named by `spec` ("all", or a comma list) for backend b, in the
 * order given (all: the table's); GPB_ERROR (printed) for a name unknown or
 * not built for b. */
static int select_cases(const char *spec, gp_backend b, const gpb_case **out, int *count)
{
    *count = 0;
    if (!strcmp(spec, "all")) {
        for (int i = 0; i < NCASES; i++)
            if (cases[i]->backend == b) out[(*count)++] = cases[i];
        if (*count == 0) return bad("no cases for the %s backend in this build", gp_backend_name(b));
        return GPB_OK;
    }
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", spec);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        const gpb_case *c = NULL;
        int known = 0;
        for (int i = 0; i < NCASES; i++) {
            if (strcmp(cases[i]->name, tok)) continue;
            known = 1;
            if (cases[i]->backend == b) c = cases[i];
        }
        if (!known) return bad("unknown case '%s'", tok);
        if (!c) {
            fprintf(stderr, "gpuprim bench: no %s bench for the %s backend in this build%s\n", tok,
                    gp_backend_name(b), b == GP_BACKEND_CUDA ? " (built without CUDA)" : "");
            return GPB_ERROR;
        }
        if (*count == NCASES) return bad("%s", "too many cases");
        out[(*count)++] = c;
    }
    if (*count == 0) return bad("%s", "no case named");
    return GPB_OK;
}

/* The worse of two exit codes: an error, then a failed check, then OK. */
static int worse(int x, int y) { return x == GPB_ERROR || y == GPB_ERROR ? GPB_ERROR : x > y ? x : y; }

static const char *rc_word(int rc)
{
    return rc == GPB_OK ? "ok" : rc == GPB_CHECK_FAILED ? "CHECK FAILED" : "ERROR";
}

int gp_bench_main(int argc, char **argv)
{
    args a;
    int prc = parse_args(argc, argv, &a);
    if (prc == HELP_SHOWN) return GPB_OK;
    if (prc != GPB_OK) return GPB_ERROR;
    gp_backend b = resolve_backend(a.backend);
    const gpb_case *sel[NCASES];
    int nsel;
    if (select_cases(a.case_name, b, sel, &nsel) != GPB_OK) return GPB_ERROR;
    if (a.plot && !gpb_plot_available()) {
        fprintf(stderr, "gpuprim bench: --plot: this gpuprim was built without libpng, so it cannot write PNG "
                        "plots\n");
        return GPB_ERROR;
    }

    /* Every case's lists are checked before anything runs. */
    static args per_case[NCASES];
    for (int i = 0; i < nsel; i++) {
        int64_t sizes[MAX_SIZES];
        per_case[i] = a;
        /* With several cases --max-log2 lowers each case's own top, never
         * raises it: filter-vs-cpu stays at 2^24 in `all --max-log2 28`. */
        if (nsel > 1 && a.max_log2 > sel[i]->default_max_log2) per_case[i].max_log2 = sel[i]->default_max_log2;
        if (case_lists(sel[i], &per_case[i]) != GPB_OK) return GPB_ERROR;
        if (!sel[i]->default_shapes && make_sizes(&per_case[i], sel[i], sizes) == 0)
            return bad("%s", "no sizes to run (check --min-log2, --max-log2, --sizes)");
    }

    gpb_env env;
    memset(&env, 0, sizeof env);
    env.opts = (gpb_opts){b, a.device, a.runs, a.warmup, a.seed, a.timing};
    gp_status st = gp_ctx_create(&env.ctx, b, a.device);
    if (st != GP_STATUS_OK) {
        char detail[256] = "";
        gp_backend_probe(b, detail, sizeof detail);
        fprintf(stderr, "gpuprim bench: gp_ctx_create(%s, device %d) failed: %s%s%s\n", gp_backend_name(b),
                a.device, gp_status_name(st), detail[0] ? ": " : "", detail);
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
        int case_rc[NCASES];
        double case_s[NCASES];
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
            for (int i = 0; i < nsel; i++) printf("  %-18s %-12s %7.1f s\n", sel[i]->name, rc_word(case_rc[i]), case_s[i]);
        }
        if (rc == GPB_CHECK_FAILED)
            fprintf(stderr, "\ngpuprim bench: CHECK FAILED: gpuprim gave wrong results (lines above)\n");
        /* The files are written whatever happened: they mark failed checks,
         * and an error leaves out only what it stopped. */
        if (a.csv && gpb_write_csv(rep, &env.meta, &env.opts, a.csv) != GPB_OK) rc = GPB_ERROR;
        if (a.json && gpb_write_json(rep, &env.meta, &env.opts, a.json) != GPB_OK) rc = GPB_ERROR;
        if (a.plot && gpb_write_plot(rep, &env.meta, &env.opts, a.plot) != GPB_OK) rc = GPB_ERROR;
        rt->fini(&env);
    }
    gpb_report_free(rep);
    gp_ctx_free(env.ctx);
    return rc;
}
