/* `gpuprim count`: how many values of a .npy or text file compare true with a constant. */
#include "cli_common.h"
#include "cli_input.h"
#include "cli_values.h"

#include <inttypes.h>
#include <string.h>

static const cli_opt count_opts[] = {
    {"if", 0, "CMP:VALUE", "the test: CMP is lt, le, gt, ge, eq or ne; VALUE a number of the input's dtype (required)"},
    {"dtype", 0, "T", "dtype of text input (default i64, or f64 if any number has '.', 'e', inf or nan)"},
    {NULL, 0, NULL, NULL},
};

static int count_on_ctx(gp_ctx *ctx, cli_array *a, gp_cmp cmp, const void *value, int64_t *count)
{
    const gp_dtype t = a->dtype;
    const int64_t n = a->n;
    size_t bytes = (size_t)n * gp_dtype_size(t);
    void *in = NULL;
    int rc = cli_ctx_malloc(ctx, &in, bytes, "the input");
    if (rc != CLI_EXIT_OK) return rc;
    gp_status s = gp_copy_from_host(ctx, in, a->data, bytes);
    cli_array_free(a); /* halve the peak */
    if (s != GP_STATUS_OK) rc = cli_gp_error(ctx, s, "copying %zu bytes of input into the context failed", bytes);
    else if ((s = gp_count_if(ctx, in, t, n, cmp, value, NULL, count)) != GP_STATUS_OK)
        rc = cli_gp_error(ctx, s, "counting failed");
    gp_status freed = gp_free(ctx, in);
    if (rc == CLI_EXIT_OK && freed != GP_STATUS_OK) rc = cli_gp_error(ctx, freed, "freeing the input failed");
    return rc;
}

static int run_count(const cli_args *args)
{
    const char *test = cli_get(args, "if"), *dtype = cli_get(args, "dtype"), *value_text = NULL;
    if (!test) return cli_usage_error("--if CMP:VALUE is required (e.g. --if ge:10)");
    gp_cmp cmp;
    int rc = cli_parse_if_option(test, &cmp, &value_text);
    gp_dtype text_dtype = (gp_dtype)0;
    if (rc == CLI_EXIT_OK && dtype) rc = cli_parse_dtype_option(dtype, "--dtype", &text_dtype);
    if (rc != CLI_EXIT_OK) return rc;

    cli_array a;
    rc = cli_load_array(args->positional[0], text_dtype, &a);
    if (rc != CLI_EXIT_OK) return rc;
    gp_dtype t = a.dtype;
    int64_t n = a.n, count = 0;
    unsigned char value[16];
    char err[160], shown[64];
    if (cli_parse_value(value_text, t, value, err, sizeof err) != 0) {
        cli_array_free(&a);
        return cli_usage_error("--if: VALUE must be of the input's dtype (%s): %s", gp_dtype_name(t), err);
    }
    gp_ctx *ctx = NULL;
    rc = cli_open_ctx(args->backend, 0, &ctx);
    if (rc == CLI_EXIT_OK) rc = count_on_ctx(ctx, &a, cmp, value, &count);
    if (rc == CLI_EXIT_OK) {
        if (args->json) {
            printf("{\"cmp\": \"%s\", \"value\": %s, \"dtype\": \"%s\", \"n\": %" PRId64
                   ", \"backend\": \"%s\", \"count\": %" PRId64 "}\n",
                   gp_cmp_name(cmp), cli_format_value_json(value, t, shown, sizeof shown), gp_dtype_name(t), n,
                   gp_backend_name(gp_ctx_backend(ctx)), count);
        } else {
            printf("%" PRId64 "\n", count);
        }
    }
    cli_array_free(&a);
    gp_ctx_free(ctx);
    return rc;
}

const cli_verb cli_verb_count = {
    .name = "count",
    .summary = "count the values of a .npy or text file that compare true with a constant",
    .synopsis = "--if CMP:VALUE [--dtype T] FILE",
    .details =
        "FILE is read as `gpuprim reduce` reads it ('-' is standard input). Prints the number of\n"
        "values x with (x CMP VALUE), compared in the input's dtype; comparisons follow IEEE 754:\n"
        "NaN compares false with everything, except ne, which is true. With --json, one object:\n"
        "{\"cmp\", \"value\", \"dtype\", \"n\", \"backend\", \"count\"}.\n\n"
        "examples:\n"
        "  gpuprim gen --dtype i32 --n 1000 --dist ascending -o a.npy\n"
        "  gpuprim count --if lt:10 a.npy            # 10\n"
        "  gpuprim count --if ne:nan --dtype f32 x.txt\n",
    .opts = count_opts,
    .min_positional = 1,
    .max_positional = 1,
    .run = run_count,
};
