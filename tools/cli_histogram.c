/* `gpuprim histogram`: counts of a .npy or text file in even bins or between given edges. */
#include "cli_arrays.h"
#include "cli_common.h"
#include "cli_input.h"
#include "cli_output.h"
#include "cli_plot.h"
#include "cli_values.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const cli_opt histogram_opts[] = {
    {"bins", 0, "B", "number of even bins, 1 to 2^20 (with --range)"},
    {"range", 0, "LO:HI", "the bins cover [LO, HI) (with --bins)"},
    {"edges", 0, "FILE",
     "bin edges instead: B + 1 ascending values of the input's dtype (.npy or text); the last edge is excluded"},
    {"dtype", 0, "T", "dtype of text input (default i64, or f64 if any number has '.', 'e', inf or nan)"},
    {"output", 'o', "OUT", "write the counts (u64) to OUT (.npy if the name ends so, else text) instead of the table"},
    {"plot", 0, "OUT.png", "also draw the histogram as a bar chart"},
    {NULL, 0, NULL, NULL},
};

typedef struct hist_request {
    const char *path;
    gp_dtype t;
    int64_t n, bins;
    double lower, upper; /* even bins */
    cli_array edges;     /* edges.data != NULL: bins between edges */
    uint64_t *counts;
} hist_request;

/* ------------------------------------------------------------- arguments */

/* LO and HI are read as the tool's f64 values (cli_values.h): they may
 * underflow to a subnormal or 0, but not overflow (inf must be written).
 * The range must be one the library takes: finite ends, LO < HI, and a
 * finite width HI - LO; refused here, before the input is read. */
static int parse_range(const char *text, double *lo, double *hi)
{
    if (cli_parse_range(text, lo, hi) != 0)
        return cli_usage_error("--range wants LO:HI, two numbers, e.g. --range 0:256 or --range -1.5:2.5, not '%s'",
                               text);
    char a[64], b[64];
    cli_format_double(*lo, a, sizeof a);
    cli_format_double(*hi, b, sizeof b);
    if (!isfinite(*lo) || !isfinite(*hi))
        return cli_usage_error("--range %s: %s is %s: both ends must be finite numbers", text,
                               !isfinite(*lo) ? "LO" : "HI", !isfinite(*lo) ? a : b);
    if (!(*lo < *hi))
        return cli_usage_error("--range %s: LO (%s) must be below HI (%s): the bins cover [LO, HI)", text, a, b);
    if (!isfinite(*hi - *lo))
        return cli_usage_error("--range %s: the width HI - LO overflows a double (it must be at most about 1.8e308)",
                               text);
    return CLI_EXIT_OK;
}

/* -------------------------------------------------------------- boundaries */

/* Boundary i of the bins, as a double (for the plot's labels). */
static double boundary(const void *user, int64_t i)
{
    const hist_request *r = (const hist_request *)user;
    if (!r->edges.data) return cli_even_boundary(r->lower, r->upper, r->bins, i);
    const unsigned char *e = (const unsigned char *)r->edges.data + (size_t)i * gp_dtype_size(r->t);
    char buf[64];
    return strtod(cli_format_value(e, r->t, buf, sizeof buf), NULL);
}

/* Boundary i as text: the edge in its dtype, or the even boundary. */
static const char *boundary_text(const hist_request *r, int64_t i, int json, char *buf, size_t size)
{
    if (r->edges.data) {
        const unsigned char *e = (const unsigned char *)r->edges.data + (size_t)i * gp_dtype_size(r->t);
        return json ? cli_format_value_json(e, r->t, buf, size) : cli_format_value(e, r->t, buf, size);
    }
    return cli_format_double(boundary(r, i), buf, size);
}

/* ------------------------------------------------------------------ output */

static void print_table(const hist_request *r, FILE *to)
{
    char lo[64], hi[64];
    for (int64_t b = 0; b < r->bins; b++)
        fprintf(to, "%s %s %" PRIu64 "\n", boundary_text(r, b, 0, lo, sizeof lo),
                boundary_text(r, b + 1, 0, hi, sizeof hi), r->counts[b]);
}

static void print_json(const hist_request *r, const gp_ctx *ctx, uint64_t counted, int with_counts)
{
    char buf[64];
    printf("{\"dtype\": \"%s\", \"n\": %" PRId64 ", \"bins\": %" PRId64 ", ", gp_dtype_name(r->t), r->n, r->bins);
    if (r->edges.data) {
        printf("\"edges\": [");
        for (int64_t i = 0; i <= r->bins; i++) printf("%s%s", i ? ", " : "", boundary_text(r, i, 1, buf, sizeof buf));
        printf("], ");
    } else {
        printf("\"lower\": %s, ", cli_format_double(r->lower, buf, sizeof buf));
        printf("\"upper\": %s, ", cli_format_double(r->upper, buf, sizeof buf));
    }
    printf("\"backend\": \"%s\", \"counted\": %" PRIu64, gp_backend_name(gp_ctx_backend(ctx)), counted);
    if (with_counts) {
        printf(", \"counts\": [");
        for (int64_t b = 0; b < r->bins; b++) printf("%s%" PRIu64, b ? ", " : "", r->counts[b]);
        printf("]");
    }
    printf("}\n");
}

/* Writes the counts into f, opened here for `path`; the caller commits it
 * with the plot (cli_outfile_commit_pair). */
static int write_counts(const hist_request *r, const char *path, cli_outfile *f)
{
    int rc = cli_outfile_open(f, path);
    return rc == CLI_EXIT_OK ? cli_write_array(f, path, r->counts, GP_DTYPE_U64, r->bins) : rc;
}

/* ------------------------------------------------------------------ running */

/* Uploads the input (freeing the host copy) and the edges, runs, copies back. */
static int histogram_on_ctx(gp_ctx *ctx, cli_array *a, hist_request *r)
{
    size_t bytes = (size_t)r->n * gp_dtype_size(r->t), ebytes = (size_t)(r->bins + 1) * gp_dtype_size(r->t);
    size_t hbytes = (size_t)r->bins * sizeof(uint64_t);
    void *in = NULL, *edges = NULL, *hist = NULL;
    int rc = cli_ctx_malloc(ctx, &in, bytes, "the input");
    if (rc == CLI_EXIT_OK) rc = cli_ctx_malloc(ctx, &hist, hbytes, "the histogram");
    if (rc == CLI_EXIT_OK && r->edges.data) rc = cli_ctx_malloc(ctx, &edges, ebytes, "the edges");
    gp_status s = GP_STATUS_OK;
    if (rc == CLI_EXIT_OK && (s = gp_copy_from_host(ctx, in, a->data, bytes)) != GP_STATUS_OK)
        rc = cli_gp_error(ctx, s, "copying %zu bytes of input into the context failed", bytes);
    cli_array_free(a); /* halve the peak */
    if (rc == CLI_EXIT_OK && edges && (s = gp_copy_from_host(ctx, edges, r->edges.data, ebytes)) != GP_STATUS_OK)
        rc = cli_gp_error(ctx, s, "copying the edges into the context failed");
    if (rc == CLI_EXIT_OK) {
        s = edges ? gp_histogram_edges(ctx, in, r->t, r->n, r->bins, edges, hist, 0)
                  : gp_histogram_even(ctx, in, r->t, r->n, r->bins, r->lower, r->upper, hist, 0);
        if (s != GP_STATUS_OK)
            rc = cli_gp_error(ctx, s, "the histogram of %" PRId64 " %s values failed", r->n, gp_dtype_name(r->t));
    }
    if (rc == CLI_EXIT_OK && (s = gp_copy_to_host(ctx, r->counts, hist, hbytes)) != GP_STATUS_OK)
        rc = cli_gp_error(ctx, s, "copying the counts back failed");
    gp_free(ctx, edges);
    gp_free(ctx, hist);
    gp_free(ctx, in);
    return rc;
}

/* Loads the edges with the input's dtype and sets the bin count from them. */
static int load_edges(const char *path, hist_request *r)
{
    /* Text is read in the input's dtype; a .npy file (by its name or its
     * magic, as any input) holds its own, compared here. */
    int rc = cli_load_array_any(path, r->t, &r->edges);
    if (rc != CLI_EXIT_OK) return rc;
    const char *name = strcmp(path, "-") ? path : "<stdin>";
    if (r->edges.dtype != r->t)
        return cli_error("--edges: %s holds %s values, the input is %s: the edges must have the input's dtype", name,
                         gp_dtype_name(r->edges.dtype), gp_dtype_name(r->t));
    if (r->edges.n < 2 || r->edges.n > (1 << 20) + 1)
        return cli_error("--edges: %s has %" PRId64 " edge%s; 2 to 2^20 + 1 edges make 1 to 2^20 bins", name,
                         r->edges.n, r->edges.n == 1 ? "" : "s");
    r->bins = r->edges.n - 1;
    return CLI_EXIT_OK;
}

static int run_histogram(const cli_args *args)
{
    hist_request r;
    memset(&r, 0, sizeof r);
    r.path = args->positional[0];
    const char *bins = cli_get(args, "bins"), *range = cli_get(args, "range"), *edges = cli_get(args, "edges");
    const char *dtype = cli_get(args, "dtype"), *out = cli_get(args, "output"), *plot = cli_get(args, "plot");
    if (edges && (bins || range)) return cli_usage_error("give either --edges or --bins with --range, not both");
    if (edges && !strcmp(edges, "-") && !strcmp(r.path, "-"))
        return cli_usage_error("--edges and FILE both say standard input ('-'): one of them must be a file");
    if (!edges && (!bins || !range))
        return cli_usage_error("give --bins B with --range LO:HI (even bins), or --edges FILE");
    if (out && plot && cli_outputs_collide(plot, out))
        return cli_usage_error("--plot %s and -o %s name the same file: each needs its own", plot, out);
    const char *output_names[] = {"-o", "--plot"}, *output_paths[] = {out, plot};
    FILE *report = stdout;
    int rc = cli_check_stdout_outputs(args->json, 2, output_names, output_paths, &report);
    if (rc != CLI_EXIT_OK) return rc;
    if (!edges) rc = cli_parse_int64_option(bins, "--bins", 1, 1 << 20, &r.bins);
    if (rc == CLI_EXIT_OK && !edges) rc = parse_range(range, &r.lower, &r.upper);
    gp_dtype text_dtype = (gp_dtype)0;
    if (rc == CLI_EXIT_OK && dtype) rc = cli_parse_dtype_option(dtype, "--dtype", &text_dtype);
    if (rc == CLI_EXIT_OK && plot && !cli_plot_available())
        rc = cli_error("--plot: this gpuprim was built without libpng, so it cannot write PNG plots");
    if (rc != CLI_EXIT_OK) return rc;

    cli_array a;
    rc = cli_load_array(r.path, text_dtype, &a);
    if (rc != CLI_EXIT_OK) return rc;
    r.t = a.dtype;
    r.n = a.n;
    if (edges) rc = load_edges(edges, &r);
    if (rc == CLI_EXIT_OK && !(r.counts = cli_host_malloc((size_t)r.bins * sizeof *r.counts, "the counts")))
        rc = CLI_EXIT_FAILURE;

    gp_ctx *ctx = NULL;
    if (rc == CLI_EXIT_OK) rc = cli_open_ctx(args->backend, 0, &ctx);
    if (rc == CLI_EXIT_OK) rc = histogram_on_ctx(ctx, &a, &r);
    uint64_t counted = 0;
    for (int64_t b = 0; rc == CLI_EXIT_OK && b < r.bins; b++) counted += r.counts[b];
    /* Both files or neither: each is written under its temporary name, then both are renamed. */
    cli_outfile counts_file, plot_file;
    memset(&counts_file, 0, sizeof counts_file);
    memset(&plot_file, 0, sizeof plot_file);
    if (rc == CLI_EXIT_OK && out) rc = write_counts(&r, out, &counts_file);
    if (rc == CLI_EXIT_OK && plot && (rc = cli_outfile_open(&plot_file, plot)) == CLI_EXIT_OK) {
        char title[160];
        const char *slash = strrchr(r.path, '/');
        snprintf(title, sizeof title, "%s: %" PRId64 " %s values, %" PRIu64 " in %" PRId64 " bins",
                 strcmp(r.path, "-") ? (slash ? slash + 1 : r.path) : "stdin", r.n, gp_dtype_name(r.t), counted, r.bins);
        cli_plot p = {r.counts, r.bins, boundary, &r, title};
        rc = cli_plot_write_png(&p, &plot_file);
    }
    if (rc == CLI_EXIT_OK) rc = cli_outfile_commit_pair(&counts_file, &plot_file);
    else cli_outfile_abort(&counts_file); /* the plot's file, if opened, is aborted already */
    if (rc == CLI_EXIT_OK) {
        if (args->json) print_json(&r, ctx, counted, !out);
        else if (!out) print_table(&r, report); /* stderr where the plot goes to stdout */
    }
    free(r.counts);
    cli_array_free(&r.edges);
    cli_array_free(&a);
    gp_ctx_free(ctx);
    return rc;
}

const cli_verb cli_verb_histogram = {
    .name = "histogram",
    .summary = "count the values of a .npy or text file in bins; print, save or plot the counts",
    .synopsis = "(--bins B --range LO:HI | --edges FILE) [--dtype T] [-o OUT] [--plot OUT.png] FILE",
    .details =
        "FILE is read as `gpuprim reduce` reads it ('-' is standard input).\n\n"
        "Even bins: x falls in bin floor((x - LO) / (HI - LO) * B), computed in double, for\n"
        "LO <= x < HI. Edges: bin i holds edges[i] <= x < edges[i+1], compared in the input's\n"
        "dtype; the edges must ascend strictly. Values outside the bins, and NaN, are not\n"
        "counted.\n\n"
        "Prints one line per bin: its lower and upper boundary and its count. With -o the\n"
        "counts (u64) go to OUT instead; with --plot also a bar chart (bins merged by sums\n"
        "when they outnumber the pixels); the two files are written both or neither. With\n"
        "--json, one object: {\"dtype\", \"n\", \"bins\", \"lower\" and \"upper\" or \"edges\",\n"
        "\"backend\", \"counted\", \"counts\"} (no \"counts\" with -o).\n\n"
        "One output at most may go to standard output ('-'), and not with --json; the table\n"
        "then goes to stderr (--plot - with no -o).\n\n"
        "The last edge is excluded (bins are half-open), so with --edges the largest value\n"
        "of an integer dtype (255 for u8) cannot be counted: use a wider dtype, or even bins.\n\n"
        "examples:\n"
        "  gpuprim gen --dtype u8 --n 1000000 -o bytes.npy\n"
        "  gpuprim histogram --bins 16 --range 0:256 --plot bytes.png bytes.npy\n"
        "  printf '0\\n10\\n100\\n1000\\n' > e.txt; gpuprim histogram --edges e.txt data.txt\n",
    .opts = histogram_opts,
    .min_positional = 1,
    .max_positional = 1,
    .run = run_histogram,
};
