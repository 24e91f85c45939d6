/*
 * `gpuprim select`, `gpuprim partition` and `gpuprim stalin`: stream
 * compaction by flags or by a comparison, stable partition, and the
 * running-max filter of a .npy or text file.
 */
#include "cli_arrays.h"
#include "cli_common.h"
#include "cli_input.h"
#include "cli_output.h"
#include "cli_values.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef enum sel_kind { SEL_SELECT, SEL_PARTITION, SEL_STALIN } sel_kind;

/* The options the verbs share: how values are chosen (select keeps them,
 * partition selects them), the text dtype, the output. */
#define CHOOSE_OPTS(VERB)                                                                                      \
    {"flags", 0, "FLAGS", VERB " x[i] where FLAGS[i] is not 0 (.npy of booleans or integers, or text)"},       \
    {"if", 0, "CMP:VALUE", VERB " x where (x CMP VALUE): CMP is lt, le, gt, ge, eq or ne"}
#define DTYPE_OPT {"dtype", 0, "T", "dtype of text input (default i64, or f64 if any number has '.', 'e', inf or nan)"}
#define OUTPUT_OPT(WHAT) \
    {"output", 'o', "FILE", "where to write the " WHAT ": FILE.npy, or text for any other name (required)"}

static const cli_opt select_opts[] = {
    CHOOSE_OPTS("keep"),
    DTYPE_OPT,
    OUTPUT_OPT("result"),
    {NULL, 0, NULL, NULL},
};

static const cli_opt partition_opts[] = {
    CHOOSE_OPTS("select"),
    {"rejected", 0, "FILE", "write the rejected values here and only the selected ones to OUT"},
    DTYPE_OPT,
    OUTPUT_OPT("result"),
    {NULL, 0, NULL, NULL},
};

static const cli_opt stalin_opts[] = {
    {"descending", 0, NULL, "keep x[i] <= every element before it instead"},
    DTYPE_OPT,
    OUTPUT_OPT("survivors"),
    {NULL, 0, NULL, NULL},
};

typedef struct sel_request {
    sel_kind kind;
    gp_dtype t;
    int64_t n;
    int by_flags;   /* --flags, not --if: the pointers below are NULL when n is 0 */
    uint8_t *flags; /* host flags */
    gp_cmp cmp;
    unsigned char value[16];
    int descending;
    int split;     /* partition --rejected: gp_partition_copy_* */
    int64_t count; /* the answer */
} sel_request;

static gp_status call(gp_ctx *ctx, sel_request *r, const void *in, const uint8_t *flags, void *out, void *rejected)
{
    int64_t *c = &r->count;
    const int by_flags = r->by_flags;
    switch (r->kind) {
    case SEL_SELECT:
        return by_flags ? gp_select_flagged(ctx, in, r->t, r->n, flags, out, NULL, c)
                        : gp_select_if(ctx, in, r->t, r->n, r->cmp, r->value, out, NULL, c);
    case SEL_PARTITION:
        if (r->split)
            return by_flags ? gp_partition_copy_flagged(ctx, in, r->t, r->n, flags, out, rejected, NULL, c)
                            : gp_partition_copy_if(ctx, in, r->t, r->n, r->cmp, r->value, out, rejected, NULL, c);
        return by_flags ? gp_partition_flagged(ctx, in, r->t, r->n, flags, out, NULL, c)
                        : gp_partition_if(ctx, in, r->t, r->n, r->cmp, r->value, out, NULL, c);
    default:
        return gp_filter_running_max(ctx, in, r->t, r->n, r->descending ? GP_FILTER_DESCENDING : 0, out, NULL, c);
    }
}

/* Uploads the input (freeing the host copy) and flags, runs, brings back
 * what was written: count items, or all n for a partition (split: the
 * rejected ones from their own buffer after the selected ones, so that
 * result reads as a partition's). */
static int select_on_ctx(gp_ctx *ctx, cli_array *a, sel_request *r, void *result)
{
    size_t sz = gp_dtype_size(r->t), bytes = (size_t)r->n * sz;
    void *in = NULL, *out = NULL, *flags = NULL, *rejected = NULL;
    int rc = cli_ctx_malloc(ctx, &in, bytes, "the input");
    if (rc == CLI_EXIT_OK) rc = cli_ctx_malloc(ctx, &out, bytes, "the result");
    if (rc == CLI_EXIT_OK && r->split) rc = cli_ctx_malloc(ctx, &rejected, bytes, "the rejected values");
    if (rc == CLI_EXIT_OK && r->by_flags) rc = cli_ctx_malloc(ctx, &flags, (size_t)r->n, "the flags");
    gp_status s = GP_STATUS_OK;
    if (rc == CLI_EXIT_OK && (s = gp_copy_from_host(ctx, in, a->data, bytes)) != GP_STATUS_OK)
        rc = cli_gp_error(ctx, s, "copying %zu bytes of input into the context failed", bytes);
    cli_array_free(a);
    if (rc == CLI_EXIT_OK && flags && (s = gp_copy_from_host(ctx, flags, r->flags, (size_t)r->n)) != GP_STATUS_OK)
        rc = cli_gp_error(ctx, s, "copying the flags into the context failed");
    if (rc == CLI_EXIT_OK && (s = call(ctx, r, in, flags, out, rejected)) != GP_STATUS_OK)
        rc = cli_gp_error(ctx, s, "%s of %" PRId64 " %s values failed",
                          r->kind == SEL_STALIN ? "the running-max filter" : r->kind == SEL_PARTITION ? "partition"
                                                                                                      : "selection",
                          r->n, gp_dtype_name(r->t));
    int64_t written = r->kind == SEL_PARTITION && !r->split ? r->n : r->count;
    if (rc == CLI_EXIT_OK && written > 0 &&
        (s = gp_copy_to_host(ctx, result, out, (size_t)written * sz)) != GP_STATUS_OK)
        rc = cli_gp_error(ctx, s, "copying the result back failed");
    if (rc == CLI_EXIT_OK && r->split && r->n > r->count &&
        (s = gp_copy_to_host(ctx, (char *)result + (size_t)r->count * sz, rejected, (size_t)(r->n - r->count) * sz)) !=
            GP_STATUS_OK)
        rc = cli_gp_error(ctx, s, "copying the rejected values back failed");
    gp_free(ctx, rejected);
    gp_free(ctx, flags);
    gp_free(ctx, out);
    gp_free(ctx, in);
    return rc;
}

static void print_json(const sel_request *r, const gp_ctx *ctx, const char *path, const char *rejected_path)
{
    char v[64];
    printf("{\"dtype\": \"%s\", \"n\": %" PRId64 ", ", gp_dtype_name(r->t), r->n);
    if (r->kind == SEL_STALIN) printf("\"descending\": %s, ", r->descending ? "true" : "false");
    else if (r->by_flags) printf("\"by\": \"flags\", ");
    else printf("\"cmp\": \"%s\", \"value\": %s, ", gp_cmp_name(r->cmp), cli_format_value_json(r->value, r->t, v, sizeof v));
    printf("\"backend\": \"%s\", \"%s\": %" PRId64 ", \"output\": ", gp_backend_name(gp_ctx_backend(ctx)),
           r->kind == SEL_STALIN ? "survivors" : "selected", r->count);
    cli_json_string(stdout, path);
    if (rejected_path) {
        printf(", \"rejected\": %" PRId64 ", \"rejected_output\": ", r->n - r->count);
        cli_json_string(stdout, rejected_path);
    }
    printf("}\n");
}

static int run_kind(const cli_args *args, sel_kind kind)
{
    sel_request r;
    memset(&r, 0, sizeof r);
    r.kind = kind;
    const char *flags_path = kind == SEL_STALIN ? NULL : cli_get(args, "flags");
    const char *test = kind == SEL_STALIN ? NULL : cli_get(args, "if");
    const char *dtype = cli_get(args, "dtype"), *path = cli_get(args, "output"), *value_text = NULL;
    const char *rejected_path = kind == SEL_PARTITION ? cli_get(args, "rejected") : NULL;
    r.descending = kind == SEL_STALIN && cli_get(args, "descending") != NULL;
    r.split = rejected_path != NULL;
    if (kind != SEL_STALIN && !flags_path == !test)
        return cli_usage_error("give exactly one of --flags FLAGS and --if CMP:VALUE");
    if (!path) return cli_usage_error("-o FILE is required");
    if (flags_path && !strcmp(flags_path, "-") && !strcmp(args->positional[0], "-"))
        return cli_usage_error("--flags and FILE both say standard input ('-'): one of them must be a file");
    if (rejected_path && cli_outputs_collide(rejected_path, path))
        return cli_usage_error("--rejected %s and -o %s name the same file: each needs its own", rejected_path, path);
    const char *output_names[] = {"-o", "--rejected"}, *output_paths[] = {path, rejected_path};
    FILE *report = stdout;
    int rc = cli_check_stdout_outputs(args->json, 2, output_names, output_paths, &report);
    if (rc != CLI_EXIT_OK) return rc;
    rc = test ? cli_parse_if_option(test, &r.cmp, &value_text) : CLI_EXIT_OK;
    gp_dtype text_dtype = (gp_dtype)0;
    if (rc == CLI_EXIT_OK && dtype) rc = cli_parse_dtype_option(dtype, "--dtype", &text_dtype);
    if (rc != CLI_EXIT_OK) return rc;

    cli_array a;
    rc = cli_load_array(args->positional[0], text_dtype, &a);
    if (rc != CLI_EXIT_OK) return rc;
    r.t = a.dtype;
    r.n = a.n;
    char err[200];
    if (test && cli_parse_value(value_text, r.t, r.value, err, sizeof err) != 0) {
        cli_array_free(&a);
        return cli_usage_error("--if: VALUE must be of the input's dtype (%s): %s", gp_dtype_name(r.t), err);
    }
    int64_t nflags = 0;
    if (flags_path) {
        r.by_flags = 1;
        rc = cli_load_flags(flags_path, &r.flags, &nflags);
        if (rc == CLI_EXIT_OK && nflags != r.n)
            rc = cli_error("%s has %" PRId64 " flags but %s has %" PRId64 " values: they must match", flags_path,
                           nflags, args->positional[0], r.n);
        if (rc != CLI_EXIT_OK) {
            free(r.flags);
            cli_array_free(&a);
            return rc;
        }
    }

    gp_ctx *ctx = NULL;
    void *result = NULL;
    rc = cli_open_ctx(args->backend, 0, &ctx);
    if (rc == CLI_EXIT_OK && !(result = cli_host_malloc(r.n ? (size_t)r.n * gp_dtype_size(r.t) : 1, "the result")))
        rc = CLI_EXIT_FAILURE;
    if (rc == CLI_EXIT_OK) rc = select_on_ctx(ctx, &a, &r, result);
    if (rc == CLI_EXIT_OK && r.split)
        rc = cli_save_array_pair(path, result, r.count, rejected_path,
                                 (char *)result + (size_t)r.count * gp_dtype_size(r.t), r.n - r.count, r.t);
    else if (rc == CLI_EXIT_OK)
        rc = cli_save_array(path, result, r.t, kind == SEL_PARTITION ? r.n : r.count);
    if (rc == CLI_EXIT_OK) {
        if (args->json) print_json(&r, ctx, path, rejected_path);
        else fprintf(report, "%" PRId64 "\n", r.count); /* stderr where an output goes to stdout */
    }
    free(result);
    free(r.flags);
    cli_array_free(&a);
    gp_ctx_free(ctx);
    return rc;
}

static int run_select(const cli_args *args) { return run_kind(args, SEL_SELECT); }
static int run_partition(const cli_args *args) { return run_kind(args, SEL_PARTITION); }
static int run_stalin(const cli_args *args) { return run_kind(args, SEL_STALIN); }

#define GP_CLI_SELECT_INPUT                                                                   \
    "FILE is read as `gpuprim reduce` reads it ('-' is standard input). OUT is a .npy file\n" \
    "when its name ends in .npy, else text with one number a line. '-' is standard output\n" \
    "(one output at most, not with --json); the count then goes to stderr.\n"

const cli_verb cli_verb_select = {
    .name = "select",
    .summary = "keep the values of a .npy or text file that are flagged or compare true",
    .synopsis = "(--flags FLAGS | --if CMP:VALUE) [--dtype T] FILE -o OUT",
    .details = GP_CLI_SELECT_INPUT
        "Writes the kept values to OUT in their input order and prints how many were kept.\n"
        "FLAGS has one flag per value (a .npy of booleans or integers, or text integers; not\n"
        "zero keeps). --if compares in the input's dtype, by IEEE 754 rules: NaN compares false\n"
        "with everything, except ne. With --json, one object: {\"dtype\", \"n\", \"by\" or \"cmp\"\n"
        "and \"value\", \"backend\", \"selected\", \"output\"}.\n\n"
        "examples:\n"
        "  gpuprim select --if ge:0 x.npy -o nonnegative.npy\n"
        "  gpuprim select --flags mask.npy x.npy -o kept.txt\n",
    .opts = select_opts,
    .min_positional = 1,
    .max_positional = 1,
    .run = run_select,
};

const cli_verb cli_verb_partition = {
    .name = "partition",
    .summary = "stable partition of a .npy or text file: flagged (or true) values first",
    .synopsis = "(--flags FLAGS | --if CMP:VALUE) [--rejected REJ] [--dtype T] FILE -o OUT",
    .details = GP_CLI_SELECT_INPUT
        "Writes to OUT every value: the selected ones first, then the rejected ones, each in\n"
        "their input order (CUB's DevicePartition reverses the rejected part; gpuprim does not),\n"
        "and prints how many were selected. With --rejected, OUT gets the selected values only\n"
        "and REJ the rejected ones, in the same orders (gp_partition_copy_*, which on CUDA reads\n"
        "the input once); the two files are written both or neither. Flags and comparisons as\n"
        "in `gpuprim select`; --json prints the same object, with \"rejected\" and\n"
        "\"rejected_output\" after --rejected.\n\n"
        "examples:\n"
        "  gpuprim partition --if lt:0.5 x.npy -o split.npy\n"
        "  gpuprim partition --flags mask.npy x.npy -o kept.npy --rejected dropped.npy\n",
    .opts = partition_opts,
    .min_positional = 1,
    .max_positional = 1,
    .run = run_partition,
};

const cli_verb cli_verb_stalin = {
    .name = "stalin",
    .summary = "the running-max filter (\"Stalin sort\") of a .npy or text file",
    .synopsis = "[--descending] [--dtype T] FILE -o OUT",
    .details = GP_CLI_SELECT_INPUT
        "Keeps x[i] when x[i] >= every value before it, so the survivors ascend (with\n"
        "--descending, <=, and they descend); equal values survive, and so does the first\n"
        "value that is not NaN. NaN never survives and does not move the running maximum\n"
        "(or minimum). Writes the survivors to OUT and prints how many there are. With\n"
        "--json, one object: {\"dtype\", \"n\", \"descending\", \"backend\", \"survivors\",\n"
        "\"output\"}.\n\n"
        "example:\n"
        "  printf '4\\n8\\n6\\n8\\n12\\n2\\n12\\n19\\n' | gpuprim stalin - -o kept.txt   # 6: 4 8 8 12 12 19\n",
    .opts = stalin_opts,
    .min_positional = 1,
    .max_positional = 1,
    .run = run_stalin,
};
