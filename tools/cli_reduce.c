/* `gpuprim reduce`: one reduction of a .npy or text file. */
#include "cli_common.h"
#include "cli_input.h"
#include "cli_values.h"

#include <inttypes.h>
#include <string.h>

static const cli_opt reduce_opts[] = {
    {"op", 0, "OP", "sum, prod, min, max, and, or, xor (required)"},
    {"out-dtype", 0, "T", "dtype of the result: the input's (default) or a wider one of the same kind"},
    {"dtype", 0, "T", "dtype of text input (default i64, or f64 if any number has '.', 'e', inf or nan)"},
    {NULL, 0, NULL, NULL},
};

/* What was asked, kept apart from the data (freed once it is loaded). */
typedef struct reduce_request {
    gp_op op;
    gp_dtype in_t, out_t;
    int64_t n;
} reduce_request;

static void print_result(const cli_args *args, const reduce_request *r, const gp_ctx *ctx, const void *result)
{
    char value[64];
    if (!args->json) {
        printf("%s\n", cli_format_value(result, r->out_t, value, sizeof value));
        return;
    }
    printf("{\"op\": \"%s\", \"dtype\": \"%s\", \"out_dtype\": \"%s\", \"n\": %" PRId64
           ", \"backend\": \"%s\", \"result\": %s}\n",
           gp_op_name(r->op), gp_dtype_name(r->in_t), gp_dtype_name(r->out_t), r->n,
           gp_backend_name(gp_ctx_backend(ctx)), cli_format_value_json(result, r->out_t, value, sizeof value));
}

/* Loads the data into the context (freeing the host copy), reduces, prints. */
static int reduce_on_ctx(const cli_args *args, gp_ctx *ctx, cli_array *a, const reduce_request *r)
{
    /* Ask first with no data: a rejected combination fails before any memory
     * is spent, with the library's own reason. */
    size_t workspace;
    gp_status s = gp_reduce_workspace_size(ctx, r->in_t, r->n, r->op, r->out_t, &workspace);
    if (s != GP_STATUS_OK)
        return cli_gp_error(ctx, s, "cannot reduce %s with %s into %s on the %s backend", gp_dtype_name(r->in_t),
                            gp_op_name(r->op), gp_dtype_name(r->out_t), gp_backend_name(gp_ctx_backend(ctx)));

    size_t bytes = (size_t)r->n * gp_dtype_size(r->in_t);
    void *in = NULL;
    int rc = cli_ctx_malloc(ctx, &in, bytes, "the input");
    if (rc != CLI_EXIT_OK) return rc;
    s = gp_copy_from_host(ctx, in, a->data, bytes);
    cli_array_free(a); /* the host copy is no longer needed: halve the peak */
    if (s != GP_STATUS_OK) {
        rc = cli_gp_error(ctx, s, "copying %zu bytes of input into the context failed", bytes);
        gp_free(ctx, in);
        return rc;
    }
    unsigned char result[16];
    memset(result, 0, sizeof result);
    s = gp_reduce_to_host(ctx, in, r->in_t, r->n, r->op, result, r->out_t);
    if (s != GP_STATUS_OK)
        rc = cli_gp_error(ctx, s, "%s of %" PRId64 " %s values into %s failed", gp_op_name(r->op), r->n,
                          gp_dtype_name(r->in_t), gp_dtype_name(r->out_t));
    gp_status freed = gp_free(ctx, in);
    if (rc == CLI_EXIT_OK && freed != GP_STATUS_OK) rc = cli_gp_error(ctx, freed, "freeing the input failed");
    if (rc == CLI_EXIT_OK) print_result(args, r, ctx, result);
    return rc;
}

static int run_reduce(const cli_args *args)
{
    reduce_request r;
    memset(&r, 0, sizeof r);
    const char *op = cli_get(args, "op");
    if (!op) return cli_usage_error("--op is required (valid: %s)", cli_op_list());
    cli_array a;
    int rc = cli_load_op_input(args, &r.op, &r.out_t, &a);
    if (rc != CLI_EXIT_OK) return rc;
    r.in_t = a.dtype;
    r.n = a.n;

    gp_ctx *ctx = NULL;
    rc = cli_open_ctx(args->backend, 0, &ctx);
    if (rc == CLI_EXIT_OK) rc = reduce_on_ctx(args, ctx, &a, &r);
    cli_array_free(&a);
    gp_ctx_free(ctx);
    return rc;
}

const cli_verb cli_verb_reduce = {
    .name = "reduce",
    .summary = "reduce a .npy or text file to one value (sum, min, xor, ...)",
    .synopsis = "--op OP [--out-dtype T] [--dtype T] FILE",
    .details =
        "FILE is a NumPy .npy file (1-D, C order, little-endian; dtypes i1 u1 i2 u2 i4 u4 i8 u8\n"
        "f4 f8; format versions 1.0, 2.0, 3.0) or text with one number a line (blank lines\n"
        "ignored); '-' reads standard input. A name ending in .npy, or content starting with\n"
        "the .npy magic, is read as .npy.\n\n"
        "Prints the result: integers exactly, f64 with 17 significant digits, f32 with 9\n"
        "(enough to read back the same bits), nan, inf, -inf. With --json, one object:\n"
        "{\"op\", \"dtype\", \"out_dtype\", \"n\", \"backend\", \"result\"}; a non-finite result\n"
        "is the string \"nan\", \"inf\" or \"-inf\".\n\n"
        "Integer sums and products wrap in the output dtype; widen with --out-dtype (i32 ->\n"
        "i64, u8 -> u64, f32 -> f64). and, or, xor take integers only. An empty input gives\n"
        "the op's identity.\n\n"
        "examples:\n"
        "  gpuprim gen --dtype i32 --n 1000 --dist ascending -o a.npy\n"
        "  gpuprim reduce --op sum --out-dtype i64 a.npy        # 499500\n"
        "  printf '1.5\\n2.25\\n' | gpuprim reduce --op max -     # 2.25\n",
    .opts = reduce_opts,
    .min_positional = 1,
    .max_positional = 1,
    .run = run_reduce,
};
