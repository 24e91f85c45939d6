/* Command-line parsing: each verb's option table plus the common options,
 * and the parsers of option values (dtype, op, sizes, seeds). */
#include "cli_common.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* -------------------------------------------------------------- arguments */

static const cli_opt common_opts[] = {
    {"backend", 0, "B", "auto, cpu or cuda (default auto: CUDA when a usable GPU is present)"},
    {"json", 0, NULL, "print the result as JSON on stdout"},
    {"help", 'h', NULL, "show this help and exit"},
    {NULL, 0, NULL, NULL},
};

static int count_opts(const cli_opt *opts)
{
    int k = 0;
    while (opts && opts[k].name) k++;
    return k;
}

/* Option number `i` of the verb's table followed by the common table. */
static const cli_opt *opt_at(const cli_verb *verb, int i)
{
    int own = count_opts(verb->opts);
    return i < own ? &verb->opts[i] : &common_opts[i - own];
}

static int total_opts(const cli_verb *verb) { return count_opts(verb->opts) + count_opts(common_opts); }

static int find_long(const cli_verb *verb, const char *name, size_t len)
{
    for (int i = 0; i < total_opts(verb); i++) {
        const char *n = opt_at(verb, i)->name;
        if (strlen(n) == len && strncmp(n, name, len) == 0) return i;
    }
    return -1;
}

static int find_short(const cli_verb *verb, char c)
{
    for (int i = 0; i < total_opts(verb); i++)
        if (c && opt_at(verb, i)->short_name == c) return i;
    return -1;
}

void cli_print_verb_help(const cli_verb *verb, FILE *to)
{
    fprintf(to, "usage: gpuprim %s %s\n\n%s\n\noptions:\n", verb->name, verb->synopsis, verb->summary);
    for (int i = 0; i < total_opts(verb); i++) {
        const cli_opt *o = opt_at(verb, i);
        char left[64];
        /* "-o, --output FILE" or "    --json": long names line up. */
        snprintf(left, sizeof left, "%c%c%s--%s%s%s", o->short_name ? '-' : ' ',
                 o->short_name ? o->short_name : ' ', o->short_name ? ", " : "  ", o->name,
                 o->arg_name ? " " : "", o->arg_name ? o->arg_name : "");
        fprintf(to, "  %-24s %s\n", left, o->help);
    }
    if (verb->details) fprintf(to, "\n%s", verb->details);
}

static int help_requested(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) return 0;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) return 1;
    }
    return 0;
}

static int store_value(cli_args *out, const cli_opt *o, int index, const char *value)
{
    if (out->values[index])
        return cli_usage_error("option --%s is given more than once", o->name);
    out->values[index] = value;
    return CLI_EXIT_OK;
}

static int add_positional(cli_args *out, const cli_verb *verb, const char *arg)
{
    if (out->positional_count >= verb->max_positional || out->positional_count >= CLI_MAX_POSITIONAL)
        return cli_usage_error("unexpected argument '%s'", arg);
    out->positional[out->positional_count++] = arg;
    return CLI_EXIT_OK;
}

/* One "--name", "--name=value" or "--name value" at argv[*i]. */
static int parse_long(const cli_verb *verb, int argc, char **argv, int *i, cli_args *out)
{
    const char *body = argv[*i] + 2;
    const char *eq = strchr(body, '=');
    size_t len = eq ? (size_t)(eq - body) : strlen(body);
    int k = find_long(verb, body, len);
    if (k < 0) return cli_usage_error("unknown option '--%.*s'", (int)len, body);
    const cli_opt *o = opt_at(verb, k);
    if (!o->arg_name) {
        if (eq) return cli_usage_error("option --%s takes no value", o->name);
        return store_value(out, o, k, "1");
    }
    if (eq) return store_value(out, o, k, eq + 1);
    if (*i + 1 >= argc) return cli_usage_error("option --%s needs a value (%s)", o->name, o->arg_name);
    return store_value(out, o, k, argv[++*i]);
}

/* One "-o value" or "-ovalue" at argv[*i]. */
static int parse_short(const cli_verb *verb, int argc, char **argv, int *i, cli_args *out)
{
    const char *arg = argv[*i];
    int k = find_short(verb, arg[1]);
    if (k < 0) return cli_usage_error("unknown option '%s'", arg);
    const cli_opt *o = opt_at(verb, k);
    if (!o->arg_name) {
        if (arg[2]) return cli_usage_error("unknown option '%s'", arg);
        return store_value(out, o, k, "1");
    }
    if (arg[2]) return store_value(out, o, k, arg + 2);
    if (*i + 1 >= argc) return cli_usage_error("option -%c needs a value (%s)", o->short_name, o->arg_name);
    return store_value(out, o, k, argv[++*i]);
}

int cli_parse_args(const cli_verb *verb, int argc, char **argv, cli_args *out)
{
    memset(out, 0, sizeof *out);
    out->verb = verb;
    if (total_opts(verb) > CLI_MAX_OPTS) return cli_error("internal: too many options");
    if (help_requested(argc, argv)) {
        cli_print_verb_help(verb, stdout);
        return -1;
    }
    int only_positional = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        int rc;
        if (only_positional || arg[0] != '-' || strcmp(arg, "-") == 0)
            rc = add_positional(out, verb, arg);
        else if (strcmp(arg, "--") == 0) {
            only_positional = 1;
            rc = CLI_EXIT_OK;
        } else if (arg[1] == '-')
            rc = parse_long(verb, argc, argv, &i, out);
        else
            rc = parse_short(verb, argc, argv, &i, out);
        if (rc != CLI_EXIT_OK) return rc;
    }
    if (out->positional_count < verb->min_positional)
        return cli_usage_error("missing argument: %s", verb->synopsis);

    const char *backend = cli_get(out, "backend");
    out->backend = GP_BACKEND_AUTO;
    if (backend && gp_backend_from_name(backend, &out->backend) != GP_STATUS_OK)
        return cli_usage_error("unknown backend '%s' for --backend (valid: auto cpu cuda)", backend);
    out->json = cli_get(out, "json") != NULL;
    return CLI_EXIT_OK;
}

const char *cli_get(const cli_args *args, const char *name)
{
    int k = find_long(args->verb, name, strlen(name));
    return k < 0 ? NULL : args->values[k];
}

/* ----------------------------------------------------------- value parsers */

/* Dtype and op numbers are small; scanning a range past the last one keeps
 * the lists right when the library grows. */
enum { CLI_ENUM_SCAN_LIMIT = 32 };

const char *cli_dtype_list(void)
{
    static char list[256];
    if (!list[0]) {
        for (int t = 0; t < CLI_ENUM_SCAN_LIMIT; t++) {
            const char *n = gp_dtype_name((gp_dtype)t);
            if (!n) continue;
            if (list[0]) strncat(list, " ", sizeof list - strlen(list) - 1);
            strncat(list, n, sizeof list - strlen(list) - 1);
        }
    }
    return list;
}

const char *cli_op_list(void)
{
    static char list[256];
    if (!list[0]) {
        for (int op = 0; op < CLI_ENUM_SCAN_LIMIT; op++) {
            const char *n = gp_op_name((gp_op)op);
            if (!n) continue;
            if (list[0]) strncat(list, " ", sizeof list - strlen(list) - 1);
            strncat(list, n, sizeof list - strlen(list) - 1);
        }
    }
    return list;
}

int cli_parse_dtype_option(const char *text, const char *option, gp_dtype *out)
{
    if (gp_dtype_from_name(text, out) != GP_STATUS_OK)
        return cli_usage_error("unknown dtype '%s' for %s (valid: %s)", text, option, cli_dtype_list());
    return CLI_EXIT_OK;
}

int cli_parse_op_option(const char *text, const char *option, gp_op *out)
{
    if (gp_op_from_name(text, out) != GP_STATUS_OK)
        return cli_usage_error("unknown op '%s' for %s (valid: %s)", text, option, cli_op_list());
    return CLI_EXIT_OK;
}

/* Accepts a decimal number or "2^K" (sizes read better as powers of two). */
int cli_parse_int64_option(const char *text, const char *option, int64_t min, int64_t max, int64_t *out)
{
    char *end;
    errno = 0;
    long long v;
    if (strncmp(text, "2^", 2) == 0) {
        long long k = strtoll(text + 2, &end, 10);
        if (end == text + 2 || *end || k < 0 || k > 62) goto bad;
        v = 1LL << k;
    } else {
        v = strtoll(text, &end, 10);
        if (end == text || *end || errno == ERANGE) goto bad;
    }
    if (v < min || v > max)
        return cli_usage_error("%s %s is out of range (%" PRId64 " to %" PRId64 ")", option, text, min, max);
    *out = (int64_t)v;
    return CLI_EXIT_OK;
bad:
    return cli_usage_error("%s expects an integer, got '%s'", option, text);
}

int cli_parse_uint64_option(const char *text, const char *option, uint64_t *out)
{
    char *end;
    errno = 0;
    /* strtoull accepts "-1" and wraps it; a seed given as negative is a typo. */
    const char *p = text;
    while (*p == ' ' || *p == '\t') p++;
    unsigned long long v = strtoull(text, &end, 0);
    if (*p == '-' || end == text || *end || errno == ERANGE)
        return cli_usage_error("%s expects an unsigned 64-bit integer, got '%s'", option, text);
    *out = (uint64_t)v;
    return CLI_EXIT_OK;
}

