/* `gpuprim gen`: reproducible test data as .npy or text. */
#include "cli_common.h"
#include "cli_output.h"
#include "cli_random.h"
#include "cli_values.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const cli_opt gen_opts[] = {
    {"dtype", 0, "T", "i8 u8 i16 u16 i32 u32 i64 u64 f32 f64 (required)"},
    {"n", 0, "N", "number of elements, decimal or 2^K (required)"},
    {"dist", 0, "D", "uniform (default), normal, ascending, descending, constant"},
    {"value", 0, "V", "the value of --dist constant"},
    {"seed", 0, "S", "seed of the generator (default: a fresh one, printed to stderr)"},
    {"output", 'o', "FILE", "where to write: FILE.npy or FILE.txt (required)"},
    {NULL, 0, NULL, NULL},
};

enum { GEN_CHUNK_ELEMENTS = 1 << 16 };

typedef enum gen_format { GEN_NPY, GEN_TEXT } gen_format;

static int format_from_name(const char *path, gen_format *out)
{
    size_t n = strlen(path);
    if (n >= 4 && strcasecmp(path + n - 4, ".npy") == 0) {
        *out = GEN_NPY;
        return CLI_EXIT_OK;
    }
    if (n >= 4 && strcasecmp(path + n - 4, ".txt") == 0) {
        *out = GEN_TEXT;
        return CLI_EXIT_OK;
    }
    return cli_usage_error("cannot tell the format of '%s' from its name: use a .npy or .txt name", path);
}

/* Writes the whole array in chunks: memory stays small whatever n is. */
static int write_array(cli_outfile *f, gen_format format, const cli_fill_spec *spec, uint64_t seed)
{
    size_t elem = gp_dtype_size(spec->dtype);
    void *chunk = cli_host_malloc(GEN_CHUNK_ELEMENTS * elem, "a chunk of output");
    if (!chunk) return CLI_EXIT_FAILURE;
    cli_rng rng;
    cli_rng_seed(&rng, seed);
    int failed = format == GEN_NPY && cli_npy_write_header(f->fp, spec->dtype, spec->n) != 0;
    for (int64_t first = 0; !failed && first < spec->n; first += GEN_CHUNK_ELEMENTS) {
        size_t count = spec->n - first < GEN_CHUNK_ELEMENTS ? (size_t)(spec->n - first) : GEN_CHUNK_ELEMENTS;
        cli_fill(spec, &rng, first, count, chunk);
        failed = format == GEN_NPY ? cli_npy_write_values(f->fp, chunk, spec->dtype, count) != 0
                                   : cli_text_write_values(f->fp, chunk, spec->dtype, count) != 0;
    }
    free(chunk);
    if (failed) {
        cli_error("cannot write '%s': %s", f->path, strerror(errno ? errno : EIO));
        cli_outfile_abort(f);
        return CLI_EXIT_FAILURE;
    }
    return cli_outfile_commit(f);
}

static int run_gen(const cli_args *args)
{
    const char *dtype = cli_get(args, "dtype"), *n_text = cli_get(args, "n"), *dist = cli_get(args, "dist");
    const char *value = cli_get(args, "value"), *seed_text = cli_get(args, "seed"), *path = cli_get(args, "output");
    if (!dtype) return cli_usage_error("--dtype is required (valid: %s)", cli_dtype_list());
    if (!n_text) return cli_usage_error("--n is required");
    if (!path) return cli_usage_error("-o FILE is required");

    cli_fill_spec spec;
    memset(&spec, 0, sizeof spec);
    int rc = cli_parse_dtype_option(dtype, "--dtype", &spec.dtype);
    if (rc == CLI_EXIT_OK) rc = cli_parse_int64_option(n_text, "--n", 0, INT64_MAX / 8, &spec.n);
    if (rc != CLI_EXIT_OK) return rc;
    spec.dist = CLI_DIST_UNIFORM;
    if (dist && cli_dist_from_name(dist, &spec.dist) != 0)
        return cli_usage_error("unknown distribution '%s' for --dist (valid: " CLI_DIST_NAMES ")", dist);
    if (spec.dist == CLI_DIST_CONSTANT && !value) return cli_usage_error("--dist constant needs --value V");
    if (spec.dist != CLI_DIST_CONSTANT && value) return cli_usage_error("--value is only for --dist constant");
    char err[300];
    if (value && cli_parse_value(value, spec.dtype, spec.constant, err, sizeof err) != 0)
        return cli_usage_error("--value: %s", err);
    gen_format format = GEN_NPY;
    rc = format_from_name(path, &format);
    /* A .npy or .txt name may still lead to stdout (a link to /dev/stdout). */
    const char *output_names[] = {"-o"}, *output_paths[] = {path};
    if (rc == CLI_EXIT_OK) rc = cli_check_stdout_outputs(args->json, 1, output_names, output_paths, NULL);
    if (rc != CLI_EXIT_OK) return rc;
    if (spec.n > 0 && (uint64_t)spec.n > SIZE_MAX / gp_dtype_size(spec.dtype))
        return cli_usage_error("--n %" PRId64 " is too large for this machine", spec.n);
    uint64_t seed = 0; /* unused by the deterministic distributions */
    if (seed_text) {
        rc = cli_parse_uint64_option(seed_text, "--seed", &seed);
        if (rc != CLI_EXIT_OK) return rc;
    } else if (spec.dist == CLI_DIST_UNIFORM || spec.dist == CLI_DIST_NORMAL) {
        seed = cli_rng_fresh_seed();
        fprintf(stderr, "gpuprim gen: seed %" PRIu64 " (pass --seed %" PRIu64 " to repeat this data)\n", seed, seed);
    }

    cli_outfile f;
    rc = cli_outfile_open(&f, path);
    if (rc == CLI_EXIT_OK) rc = write_array(&f, format, &spec, seed);
    if (rc != CLI_EXIT_OK) return rc;
    if (args->json) {
        printf("{\"path\": ");
        cli_json_string(stdout, path);
        printf(", \"format\": \"%s\", \"dtype\": \"%s\", \"n\": %" PRId64 ", \"dist\": \"%s\", \"seed\": ",
               format == GEN_NPY ? "npy" : "text", gp_dtype_name(spec.dtype), spec.n, cli_dist_name(spec.dist));
        if (seed_text || spec.dist == CLI_DIST_UNIFORM || spec.dist == CLI_DIST_NORMAL)
            printf("%" PRIu64 "}\n", seed);
        else
            printf("null}\n"); /* the data does not depend on a seed */
    }
    return CLI_EXIT_OK;
}

const cli_verb cli_verb_gen = {
    .name = "gen",
    .summary = "write reproducible test data (.npy or text)",
    .synopsis = "--dtype T --n N [--dist D] [--value V] [--seed S] -o FILE",
    .details =
        "Distributions:\n"
        "  uniform     integers: every bit pattern equally likely; floats: [0, 1)\n"
        "  normal      floats: N(0, 1); integers: centred on the middle of the dtype's range\n"
        "              (0 for signed), standard deviation range/8, rounded and clamped\n"
        "  ascending   element i is i; descending: n-1-i. Integers wrap around (an i8 array\n"
        "              of 300 counts 0..127, -128..-1, 0..43); floats round to nearest\n"
        "  constant    every element is --value\n\n"
        "The generator is our own (xoshiro256** seeded by splitmix64): a seed gives the same\n"
        "file on every machine, except --dist normal, which goes through the C library's\n"
        "log and cos. The file is written under a temporary name and renamed when complete.\n"
        "--backend is accepted for uniformity; generation runs on the host.\n",
    .opts = gen_opts,
    .min_positional = 0,
    .max_positional = 0,
    .run = run_gen,
};
