/* `gpuprim scan`: the inclusive or exclusive prefix scan of a .npy or text file. */
#include "cli_arrays.h"
#include "cli_common.h"
#include "cli_input.h"
#include "cli_values.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const cli_opt scan_opts[] = {
    {"op", 0, "OP", "sum, prod, min, max, and, or, xor (required)"},
    {"exclusive", 0, NULL, "exclusive scan: out[i] combines the elements before i (default: inclusive)"},
    {"init", 0, "V", "the exclusive scan's first value (default: the op's identity); needs --exclusive"},
    {"out-dtype", 0, "T", "dtype of the result: the input's (default) or a wider one of the same kind"},
    {"dtype", 0, "T", "dtype of text input (default i64, or f64 if any number has '.', 'e', inf or nan)"},
    {"output", 'o', "FILE", "where to write the result: FILE.npy, or text for any other name (required)"},
    {NULL, 0, NULL, NULL},
};

typedef struct scan_request {
    gp_op op;
    int exclusive, has_init;
    unsigned char init[16];
    gp_dtype in_t, out_t;
    int64_t n;
} scan_request;

/* Uploads the input (freeing the host copy), scans, brings the result back. */
static int scan_on_ctx(gp_ctx *ctx, cli_array *a, const scan_request *r, void *result)
{
    size_t in_bytes = (size_t)r->n * gp_dtype_size(r->in_t), out_bytes = (size_t)r->n * gp_dtype_size(r->out_t);
    void *in = NULL, *out = NULL;
    int rc = cli_ctx_malloc(ctx, &in, in_bytes, "the input");
    /* Scanned in place when the dtype stays: half the device memory. */
    if (rc == CLI_EXIT_OK && r->out_t != r->in_t) rc = cli_ctx_malloc(ctx, &out, out_bytes, "the result");
    if (rc == CLI_EXIT_OK && !out) out = in;
    gp_status s = GP_STATUS_OK;
    if (rc == CLI_EXIT_OK && (s = gp_copy_from_host(ctx, in, a->data, in_bytes)) != GP_STATUS_OK)
        rc = cli_gp_error(ctx, s, "copying %zu bytes of input into the context failed", in_bytes);
    cli_array_free(a);
    if (rc == CLI_EXIT_OK) {
        s = r->exclusive ? gp_scan_exclusive(ctx, in, r->in_t, r->n, r->op, r->has_init ? r->init : NULL, out, r->out_t)
                         : gp_scan_inclusive(ctx, in, r->in_t, r->n, r->op, out, r->out_t);
        if (s != GP_STATUS_OK)
            rc = cli_gp_error(ctx, s, "the %s scan of %" PRId64 " %s values failed", gp_op_name(r->op), r->n,
                              gp_dtype_name(r->in_t));
    }
    if (rc == CLI_EXIT_OK && (s = gp_copy_to_host(ctx, result, out, out_bytes)) != GP_STATUS_OK)
        rc = cli_gp_error(ctx, s, "copying the result back failed");
    if (out != in) gp_free(ctx, out);
    gp_free(ctx, in);
    return rc;
}

static int run_scan(const cli_args *args)
{
    scan_request r;
    memset(&r, 0, sizeof r);
    const char *op = cli_get(args, "op");
    const char *init = cli_get(args, "init"), *path = cli_get(args, "output");
    r.exclusive = cli_get(args, "exclusive") != NULL;
    if (!op) return cli_usage_error("--op is required (valid: %s)", cli_op_list());
    if (!path) return cli_usage_error("-o FILE is required");
    if (init && !r.exclusive) return cli_usage_error("--init is for the exclusive scan: add --exclusive");
    const char *output_names[] = {"-o"}, *output_paths[] = {path};
    int rc = cli_check_stdout_outputs(args->json, 1, output_names, output_paths, NULL);
    if (rc != CLI_EXIT_OK) return rc;
    cli_array a;
    rc = cli_load_op_input(args, &r.op, &r.out_t, &a);
    if (rc != CLI_EXIT_OK) return rc;
    r.in_t = a.dtype;
    r.n = a.n;
    char err[200];
    if (init && cli_parse_value(init, r.out_t, r.init, err, sizeof err) != 0) {
        cli_array_free(&a);
        return cli_usage_error("--init: must be of the output dtype (%s): %s", gp_dtype_name(r.out_t), err);
    }
    r.has_init = init != NULL;

    gp_ctx *ctx = NULL;
    void *result = NULL;
    rc = cli_open_ctx(args->backend, 0, &ctx);
    size_t ws;
    gp_status s = GP_STATUS_OK;
    /* A rejected combination fails before any memory is spent. */
    if (rc == CLI_EXIT_OK && (s = gp_scan_workspace_size(ctx, r.in_t, r.n, r.op, r.out_t, &ws)) != GP_STATUS_OK)
        rc = cli_gp_error(ctx, s, "cannot scan %s with %s into %s on the %s backend", gp_dtype_name(r.in_t),
                          gp_op_name(r.op), gp_dtype_name(r.out_t), gp_backend_name(gp_ctx_backend(ctx)));
    if (rc == CLI_EXIT_OK && !(result = cli_host_malloc(r.n ? (size_t)r.n * gp_dtype_size(r.out_t) : 1, "the result")))
        rc = CLI_EXIT_FAILURE;
    if (rc == CLI_EXIT_OK) rc = scan_on_ctx(ctx, &a, &r, result);
    if (rc == CLI_EXIT_OK) rc = cli_save_array(path, result, r.out_t, r.n);
    if (rc == CLI_EXIT_OK && args->json) {
        char v[64];
        printf("{\"op\": \"%s\", \"exclusive\": %s, ", gp_op_name(r.op), r.exclusive ? "true" : "false");
        if (r.has_init) printf("\"init\": %s, ", cli_format_value_json(r.init, r.out_t, v, sizeof v));
        printf("\"dtype\": \"%s\", \"out_dtype\": \"%s\", \"n\": %" PRId64 ", \"backend\": \"%s\", \"output\": ",
               gp_dtype_name(r.in_t), gp_dtype_name(r.out_t), r.n, gp_backend_name(gp_ctx_backend(ctx)));
        cli_json_string(stdout, path);
        printf("}\n");
    }
    free(result);
    cli_array_free(&a);
    gp_ctx_free(ctx);
    return rc;
}

const cli_verb cli_verb_scan = {
    .name = "scan",
    .summary = "prefix scan (running sum, min, max, ...) of a .npy or text file",
    .synopsis = "--op OP [--exclusive [--init V]] [--out-dtype T] [--dtype T] FILE -o OUT",
    .details =
        "FILE is read as `gpuprim reduce` reads it ('-' is standard input). Writes to OUT the\n"
        "inclusive scan, out[i] = x[0] OP ... OP x[i], or with --exclusive out[0] = init and\n"
        "out[i] = init OP x[0] OP ... OP x[i-1] (init: --init, else the op's identity). OUT is a\n"
        ".npy file when its name ends in .npy, else text with one number a line ('-': standard\n"
        "output, not with --json). Prints nothing; with --json one object: {\"op\", \"exclusive\",\n"
        "\"init\" (if given), \"dtype\", \"out_dtype\", \"n\", \"backend\", \"output\"}.\n\n"
        "Integer sums and products wrap in the output dtype (widen with --out-dtype); float min\n"
        "and max propagate NaN; and, or, xor take integers only.\n\n"
        "examples:\n"
        "  gpuprim gen --dtype i32 --n 1000 --dist ascending -o a.npy\n"
        "  gpuprim scan --op sum --out-dtype i64 a.npy -o sums.npy\n"
        "  printf '3\\n1\\n4\\n1\\n5\\n' | gpuprim scan --op max - -o running_max.txt\n",
    .opts = scan_opts,
    .min_positional = 1,
    .max_positional = 1,
    .run = run_scan,
};
