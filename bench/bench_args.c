/* `gpuprim bench`'s options (bench_args.h): parsed, then planned per case. */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include "bench_args.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fputs("usage: gpuprim bench CASE[,CASE...]|all [options]\n"
          "cases: reduce, transpose, scan, select, select-if, partition,\n"
          "       partition-if, partition-copy, partition-copy-if, filter,\n"
          "       filter-ascending; on cuda also count, histogram, histogram-one-bin,\n"
          "       histogram-16384, histogram-2^20, histogram-edges, filter-vs-cpu;\n"
          "       all: every case of the backend\n"
          "Times gpuprim against its peer (on cuda CUB, cuBLAS for transpose, seed 002's\n"
          "pipeline for filter; on cpu a serial loop) and a streaming-read or copy ceiling\n"
          "over the same bytes, all in the same run. Several cases\n"
          "run one after the other in one process, each with its own default dtypes and\n"
          "sizes unless the options below say otherwise; the files hold every row.\n"
          "  --backend auto|cpu|cuda  backend to measure (auto: cuda when a GPU is usable)\n"
          "  --device N               CUDA device (default 0)\n"
          "  --dtype LIST             comma-separated dtypes (default: each case's own;\n"
          "                           i32,f32,f64,u8 for reduce)\n"
          "  --op LIST                comma-separated ops (default sum)\n"
          "  --min-log2 K             smallest size of the sweep, 2^K (default 10)\n"
          "  --max-log2 K             largest, reached in steps of 2 and always included\n"
          "                           (default: each case's own, 24 to 30; -1: only --sizes; with\n"
          "                           several cases it lowers each case's default, never raises it)\n"
          "  --sizes LIST             extra sizes, e.g. 1000,2^20,100000000 (they replace a\n"
          "                           case's own: filter-vs-cpu adds 10^4 to 10^7 to its sweep)\n"
          "  --shapes LIST            2-D cases (transpose): ROWSxCOLS items instead of sizes\n"
          "                           (default 1920x1080,8192x8192,16384x16384,30000x7,7x30000,\n"
          "                           on cpu 1920x1080,4096x4096,30000x7,7x30000;\n"
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

/* A comma list of at most GPB_MAX_LIST items, each through `item`. */
static int parse_list(const char *opt, const char *s, int *count, int (*item)(const char *, int, void *), void *dst)
{
    return gpb_parse_list("bench", opt, s, GPB_MAX_LIST, item, dst, count);
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

/* gpuprim takes at most GP_MAX_ELEMENTS items: a larger size (below) or
 * shape is a usage error here, before any byte count is made of it. */
static int check_shapes(const int64_t (*shapes)[2], int n)
{
    for (int i = 0; i < n; i++) {
        const int64_t items = shapes[i][0] * shapes[i][1]; /* each at most 2^31: no overflow */
        if (items <= GP_MAX_ELEMENTS) continue;
        char nb[32], msg[200];
        snprintf(msg, sizeof msg,
                 "--shapes: %lldx%lld has %s items, above GP_MAX_ELEMENTS, the most gpuprim takes (2^60 - 1)",
                 (long long)shapes[i][0], (long long)shapes[i][1], gpb_fmt_n(items, nb, sizeof nb));
        return bad("%s", msg);
    }
    return GPB_OK;
}

/* The bench's own options (gpb_command's take). */
static int take_option(const char *name, const char *val, void *ctx)
{
    gpb_args *a = ctx;
    long long v;
    if (!strcmp(name, "--backend")) {
        if (gp_backend_from_name(val, &a->backend) != GP_STATUS_OK) return bad("unknown backend '%s'", val);
    } else if (!strcmp(name, "--dtype")) {
        a->dtypes_given = 1;
        return parse_list(name, val, &a->ndtypes, dtype_item, a->dtypes);
    } else if (!strcmp(name, "--shapes")) {
        if (parse_list(name, val, &a->nshapes, shape_item, a->shapes) != GPB_OK) return GPB_ERROR;
        return check_shapes((const int64_t(*)[2])a->shapes, a->nshapes);
    } else if (!strcmp(name, "--op")) {
        a->ops_given = 1;
        return parse_list(name, val, &a->nops, op_item, a->ops);
    } else if (!strcmp(name, "--sizes")) {
        a->sweep_given = 1;
        if (parse_list(name, val, &a->nsizes, size_item, a->sizes) != GPB_OK) return GPB_ERROR;
        return gpb_sizes_at_most("bench", a->sizes, a->nsizes, GP_MAX_ELEMENTS,
                                 "GP_MAX_ELEMENTS, the most items gpuprim takes (2^60 - 1)");
    } else if (!strcmp(name, "--min-log2")) {
        a->sweep_given = 1;
        if (!gpb_parse_int(val, 0, 40, &v)) return bad("bad --min-log2 '%s' (0..40)", val);
        a->min_log2 = (int)v;
    } else if (!strcmp(name, "--max-log2")) {
        a->sweep_given = 1;
        if (!gpb_parse_int(val, -1, 40, &v)) return bad("bad --max-log2 '%s' (-1..40)", val);
        a->max_log2 = v < 0 ? -2 : (int)v; /* -2: explicitly no sweep */
    } else if (!strcmp(name, "--hold")) {
        if (strcmp(val, "on") && strcmp(val, "off")) return bad("bad --hold '%s' (on or off)", val);
        a->timing = !strcmp(val, "on") ? GPB_TIMING_HELD : GPB_TIMING_EVENTS;
    } else if (!strcmp(name, "--csv")) {
        a->csv = val;
    } else if (!strcmp(name, "--json")) {
        a->json = val;
    } else if (!strcmp(name, "--plot")) {
        a->plot = val;
    }
    return GPB_OK;
}

int gpb_parse_args(int argc, char **argv, gpb_args *a)
{
    static const char *const known[] = {"--backend", "--device", "--dtype", "--op",   "--sizes",
                                        "--min-log2", "--max-log2", "--runs", "--warmup", "--seed",
                                        "--csv",     "--json",   "--shapes", "--plot", "--hold"};
    static const gpb_command bench = {"bench", known, sizeof known / sizeof known[0], NULL, usage, take_option};
    *a = (gpb_args){.backend = GP_BACKEND_AUTO, .timing = GPB_TIMING_HELD, .min_log2 = 10, .max_log2 = -1};
    a->dtypes[0] = GP_DTYPE_I32, a->dtypes[1] = GP_DTYPE_F32, a->dtypes[2] = GP_DTYPE_F64;
    a->dtypes[3] = GP_DTYPE_U8, a->ndtypes = 4;
    a->ops[0] = GP_OP_SUM, a->nops = 1;
    int no_flag;
    return gpb_parse_command(&bench, argc, argv, &a->case_name, &no_flag, &a->run, a);
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* The sweep's top, log2: --max-log2, else the case's default; -2 (--max-log2
 * -1) means no sweep. */
static int sweep_max_log2(const gpb_args *a, const gpb_case *c)
{
    return a->max_log2 == -1 ? c->default_max_log2 : a->max_log2;
}

int gpb_case_sizes(const gpb_args *a, const gpb_case *c, int64_t *out)
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
static int case_lists(const gpb_case *c, gpb_args *a)
{
    if (c->default_sizes && a->nsizes == 0 && a->max_log2 != -2) {
        int64_t extra[GPB_MAX_LIST];
        int nextra = 0;
        if (parse_list("default sizes", c->default_sizes, &nextra, size_item, extra) != GPB_OK) return GPB_ERROR;
        const int max = sweep_max_log2(a, c);
        for (int i = 0; i < nextra; i++)
            if (extra[i] >= INT64_C(1) << a->min_log2 && extra[i] <= INT64_C(1) << max)
                a->sizes[a->nsizes++] = extra[i];
    }
    if (c->default_dtypes && !a->dtypes_given &&
        parse_list("default dtypes", c->default_dtypes, &a->ndtypes, dtype_item, a->dtypes) != GPB_OK)
        return GPB_ERROR;
    if (c->default_shapes && a->nshapes == 0 &&
        parse_list("default shapes", c->default_shapes, &a->nshapes, shape_item, a->shapes) != GPB_OK)
        return GPB_ERROR;
    return GPB_OK;
}

/* The cases named by `spec` ("all", or a comma list) for backend b, in the
 * order given (all: the table's); GPB_ERROR (printed) for a name unknown or
 * not built for b. */
static int select_cases(const char *spec, gp_backend b, const gpb_case **out, int *count)
{
    *count = 0;
    const char *differs = gpb_cuda_case_names_differ();
    if (differs) { /* the build's fault, not the command's: no usage hint */
        fprintf(stderr, "gpuprim bench: internal error: gpb_cuda_case_names has '%s' where the table's CUDA case "
                        "differs (bench_cases.c)\n", differs);
        return GPB_ERROR;
    }
    if (!strcmp(spec, "all")) {
        for (int i = 0; i < gpb_ncases; i++)
            if (gpb_cases[i]->backend == b) out[(*count)++] = gpb_cases[i];
        if (*count == 0) return bad("no cases for the %s backend in this build", gp_backend_name(b));
        return GPB_OK;
    }
    char buf[GPB_LIST_CHARS];
    const size_t len = strlen(spec);
    if (len >= sizeof buf) return bad("%s", "the list of cases is too long");
    if (gpb_list_has_empty_item(spec, len))
        return bad("%s", "the list of cases has an empty item (two commas in a row, or a comma at an end)");
    snprintf(buf, sizeof buf, "%s", spec);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        const gpb_case *c = NULL;
        int on_cpu = 0, on_cuda = 0; /* the backends the name has a case for, built or not */
        for (int i = 0; i < gpb_ncases; i++) {
            if (strcmp(gpb_cases[i]->name, tok)) continue;
            on_cpu |= gpb_cases[i]->backend == GP_BACKEND_CPU;
            on_cuda |= gpb_cases[i]->backend == GP_BACKEND_CUDA;
            if (gpb_cases[i]->backend == b) c = gpb_cases[i];
        }
#ifndef GPUPRIM_BENCH_CUDA
        for (int i = 0; i < gpb_ncuda_case_names; i++) on_cuda |= !strcmp(gpb_cuda_case_names[i], tok);
#endif
        if (!on_cpu && !on_cuda) return bad("unknown case '%s'", tok);
        if (!c && b == GP_BACKEND_CPU) {
#ifdef GPUPRIM_BENCH_CUDA
            fprintf(stderr, "gpuprim bench: %s is a CUDA-only case (run it with --backend cuda)\n", tok);
#else
            fprintf(stderr, "gpuprim bench: %s is a CUDA-only case, and this gpuprim was built without CUDA\n", tok);
#endif
            return GPB_ERROR;
        }
        if (!c && on_cuda) { /* CUDA asked of a build without it */
            fprintf(stderr, "gpuprim bench: no %s bench for the %s backend in this build (built without CUDA)\n", tok,
                    gp_backend_name(b));
            return GPB_ERROR;
        }
        if (!c) {
            fprintf(stderr, "gpuprim bench: %s is a CPU-only case (run it with --backend cpu)\n", tok);
            return GPB_ERROR;
        }
        if (*count == GPB_MAX_CASES) return bad("%s", "too many cases");
        out[(*count)++] = c;
    }
    if (*count == 0) return bad("%s", "no case named");
    return GPB_OK;
}

int gpb_plan(const gpb_args *a, gp_backend b, const gpb_case **sel, gpb_args *per_case, int *nsel)
{
    if (select_cases(a->case_name, b, sel, nsel) != GPB_OK) return GPB_ERROR;
    /* An option that none of the cases reads would be dropped unseen. */
    int with_op = 0, one_d = 0, two_d = 0;
    for (int i = 0; i < *nsel; i++) {
        with_op |= !sel[i]->no_op;
        one_d |= !sel[i]->default_shapes;
        two_d |= sel[i]->default_shapes != NULL;
    }
    if (a->ops_given && !with_op)
        return *nsel > 1 ? bad("--op: none of %s takes an op", a->case_name)
                         : bad("--op: %s takes no op", a->case_name);
    if (a->nshapes > 0 && !two_d)
        return *nsel > 1 ? bad("--shapes: none of %s is 2-D (transpose takes shapes)", a->case_name)
                         : bad("--shapes: %s is not 2-D (transpose takes shapes)", a->case_name);
    if (a->sweep_given && !one_d)
        return bad("--sizes, --min-log2, --max-log2: %s takes --shapes instead", a->case_name);
    /* Every case's lists are checked here, before anything runs. */
    for (int i = 0; i < *nsel; i++) {
        int64_t sizes[GPB_MAX_SIZES];
        per_case[i] = *a;
        /* With several cases --max-log2 lowers each case's own top, never
         * raises it: filter-vs-cpu stays at 2^24 in `all --max-log2 28`. */
        if (*nsel > 1 && a->max_log2 > sel[i]->default_max_log2) per_case[i].max_log2 = sel[i]->default_max_log2;
        if (case_lists(sel[i], &per_case[i]) != GPB_OK) return GPB_ERROR;
        if (!sel[i]->default_shapes && gpb_case_sizes(&per_case[i], sel[i], sizes) == 0)
            return bad("%s", "no sizes to run (check --min-log2, --max-log2, --sizes)");
    }
    return GPB_OK;
}
