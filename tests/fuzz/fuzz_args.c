/*
 * The args target: the tool's command lines. The first byte picks a verb,
 * the bench's and ladder's comma lists, or the bench's or ladder's own;
 * the rest, split at NUL bytes, is argv. Nothing runs: the verb's options are parsed
 * (cli_parse_args) and every argument goes through every value parser, and
 * what they take must hold together (pointers into argv, values that print
 * and parse back the same).
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "fuzz_targets.h"

#include "bench_args.h"
#include "cli_common.h"
#include "cli_values.h"
#include "ladder.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h> /* strncasecmp: the library's names ignore case */

/* The verbs whose options cli_parse_args reads (bench and ladder parse
 * their own: their lists are the last choice). */
static const cli_verb *const parsed_verbs[] = {
    &cli_verb_info,  &cli_verb_gen,   &cli_verb_reduce,    &cli_verb_scan,      &cli_verb_select, &cli_verb_partition,
    &cli_verb_stalin, &cli_verb_count, &cli_verb_histogram, &cli_verb_transpose, &cli_verb_demo,
};
enum { PARSED_VERBS = sizeof parsed_verbs / sizeof parsed_verbs[0], MAX_ARGS = 32, MAX_LIST_ITEMS = 64 };
enum { CHOICE_LISTS = PARSED_VERBS, CHOICE_BENCH, CHOICE_LADDER, CHOICES }; /* past the verbs */

int gpf_args_choice(const char *verb)
{
    for (int i = 0; i < PARSED_VERBS; i++)
        if (!strcmp(parsed_verbs[i]->name, verb)) return i;
    return !strcmp(verb, "bench") ? CHOICE_BENCH : !strcmp(verb, "ladder") ? CHOICE_LADDER : CHOICE_LISTS;
}

/* A double printed by cli_format_double reads back the same (NaN as NaN). */
static void check_double_text(double v, const char *what, const char *text)
{
    char buf[64];
    const double back = strtod(cli_format_double(v, buf, sizeof buf), NULL);
    if (!(back == v || (isnan(back) && isnan(v))))
        gpf_violation("args: --range '%s': the %s printed as '%s', which reads back as %.17g", text, what, buf, back);
}

/* histogram --range: what it takes prints back; where the library takes the
 * range (lo < hi, hi - lo finite), the even boundaries the tool prints are
 * finite, ascend from lo to hi itself and print back. */
static void check_range(const char *text)
{
    double lo, hi;
    if (cli_parse_range(text, &lo, &hi) != 0) return;
    check_double_text(lo, "low end", text);
    check_double_text(hi, "high end", text);
    if (!(lo < hi) || !isfinite(hi - lo)) return;
    static const int64_t bin_counts[] = {1, 3, 1000, 1 << 20};
    for (size_t k = 0; k < sizeof bin_counts / sizeof bin_counts[0]; k++) {
        const int64_t bins = bin_counts[k];
        double prev = lo;
        /* The first and last five, and six between: the steps land on bins
         * itself for each count here. */
        for (int64_t i = 0; i <= bins; i += i < 4 || bins - i <= 4 ? 1 : bins / 7) {
            const double b = cli_even_boundary(lo, hi, bins, i);
            if (!isfinite(b) || b < prev || (i == 0 && b != lo) || (i == bins && b != hi))
                gpf_violation("args: --range '%s', %" PRId64 " bins: boundary %" PRId64 " is %.17g after %.17g", text,
                              bins, i, b, prev);
            check_double_text(b, "boundary", text);
            prev = b;
        }
    }
}

/* The value parsers on one argument: what they take prints and parses back
 * to the same value. */
static void check_values(const char *text)
{
    int64_t i64, again64;
    char buf[64];
    if (cli_parse_int64_option(text, "--n", INT64_MIN, INT64_MAX, &i64) == CLI_EXIT_OK) {
        snprintf(buf, sizeof buf, "%" PRId64, i64);
        if (cli_parse_int64_option(buf, "--n", INT64_MIN, INT64_MAX, &again64) != CLI_EXIT_OK || again64 != i64)
            gpf_violation("args: '%s' read as %" PRId64 ", which does not read back", text, i64);
        if (!strncmp(text, "2^", 2) && (i64 <= 0 || (i64 & (i64 - 1))))
            gpf_violation("args: '%s' read as %" PRId64 ", not a power of two", text, i64);
    }
    uint64_t u64, againu;
    if (cli_parse_uint64_option(text, "--seed", &u64) == CLI_EXIT_OK) {
        snprintf(buf, sizeof buf, "%" PRIu64, u64);
        if (cli_parse_uint64_option(buf, "--seed", &againu) != CLI_EXIT_OK || againu != u64)
            gpf_violation("args: seed '%s' read as %" PRIu64 ", which does not read back", text, u64);
    }
    if (gpb_parse_size(text, &i64)) {
        snprintf(buf, sizeof buf, "%" PRId64, i64);
        if (i64 < 1 || !gpb_parse_size(buf, &again64) || again64 != i64)
            gpf_violation("args: size '%s' read as %" PRId64 ", which does not read back", text, i64);
    }
    gp_dtype t, again_t;
    if (cli_parse_dtype_option(text, "--dtype", &t) == CLI_EXIT_OK) {
        const char *name = gp_dtype_name(t);
        if (!name || gp_dtype_size(t) == 0 || cli_parse_dtype_option(name, "--dtype", &again_t) != CLI_EXIT_OK ||
            again_t != t)
            gpf_violation("args: dtype '%s' read as %d, whose name does not read back", text, (int)t);
    }
    gp_op op, again_op;
    if (cli_parse_op_option(text, "--op", &op) == CLI_EXIT_OK) {
        const char *name = gp_op_name(op);
        if (!name || cli_parse_op_option(name, "--op", &again_op) != CLI_EXIT_OK || again_op != op)
            gpf_violation("args: op '%s' read as %d, whose name does not read back", text, (int)op);
    }
    gp_cmp cmp;
    const char *value = NULL;
    if (cli_parse_if_option(text, &cmp, &value) == CLI_EXIT_OK) {
        const char *colon = strchr(text, ':');
        const char *name = gp_cmp_name(cmp);
        if (!colon || value != colon + 1 || !*value || !name || strlen(name) != (size_t)(colon - text) ||
            strncasecmp(text, name, strlen(name)) != 0)
            gpf_violation("args: --if '%s' read as %s with the value at offset %td", text, name ? name : "(no name)",
                          value ? value - text : -1);
    }
    check_range(text);
    for (int d = 1; d <= 10; d++) {
        unsigned char v[8], back[8];
        char err[300], shown[64];
        if (cli_parse_value(text, (gp_dtype)d, v, err, sizeof err) != 0) continue;
        cli_format_value(v, (gp_dtype)d, shown, sizeof shown);
        if (cli_parse_value(shown, (gp_dtype)d, back, err, sizeof err) != 0 || !gpf_same_value(v, back, (gp_dtype)d))
            gpf_violation("args: '%s' as %s printed as '%s', which reads back differently", text,
                          gp_dtype_name((gp_dtype)d), shown);
    }
}

/* True if `p` lies inside one of the argument strings (its NUL included). */
static int inside_argv(const char *p, int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (p >= argv[i] && p <= argv[i] + strlen(argv[i])) return 1;
    return 0;
}

static int check_parsed(const cli_verb *verb, int argc, char **argv)
{
    /* --help prints the verb's help on stdout, the driver's log: not fuzzed. */
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return 0;
    cli_args out;
    const int rc = cli_parse_args(verb, argc, argv, &out);
    if (rc != CLI_EXIT_OK && rc != CLI_EXIT_USAGE)
        gpf_violation("args: %s: cli_parse_args returned %d, neither OK nor a usage error", verb->name, rc);
    for (int i = 1; i < argc; i++) check_values(argv[i]);
    if (rc != CLI_EXIT_OK) return 0;

    if (out.verb != verb || out.positional_count < verb->min_positional ||
        out.positional_count > verb->max_positional || out.positional_count > CLI_MAX_POSITIONAL)
        gpf_violation("args: %s: %d positional arguments (%d to %d)", verb->name, out.positional_count,
                      verb->min_positional, verb->max_positional);
    for (int k = 0, from = 1; k < out.positional_count; k++) {
        while (from < argc && argv[from] != out.positional[k]) from++;
        if (from == argc) gpf_violation("args: %s: positional %d is not an argument, in order", verb->name, k);
        from++;
    }
    for (int k = 0; k < CLI_MAX_OPTS; k++) {
        const char *v = out.values[k];
        if (v && strcmp(v, "1") != 0 && !inside_argv(v, argc, argv))
            gpf_violation("args: %s: option %d's value is neither a flag nor inside an argument", verb->name, k);
    }
    if (out.backend != GP_BACKEND_AUTO && out.backend != GP_BACKEND_CPU && out.backend != GP_BACKEND_CUDA)
        gpf_violation("args: %s: backend %d", verb->name, (int)out.backend);
    if (out.json != (cli_get(&out, "json") != NULL)) gpf_violation("args: %s: json %d", verb->name, out.json);
    return 1;
}

/* Inside argv, or NULL. */
static void check_optional_text(const char *verb, const char *p, const char *what, int argc, char **argv)
{
    if (p && !inside_argv(p, argc, argv)) gpf_violation("args: %s: %s does not point into argv", verb, what);
}

/* bench and ladder: 1 if argv asks for help, whose usage goes to stdout,
 * the driver's log (not fuzzed). */
static int asks_for_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return 1;
    return 0;
}

/* What a bench or ladder parser returned: OK or a usage error, never else;
 * 1 for OK, with the positional word taken from argv. */
static int command_taken(const char *verb, int rc, const char *word, int argc, char **argv)
{
    if (rc != GPB_OK && rc != GPB_ERROR) gpf_violation("args: %s: the parser returned %d", verb, rc);
    if (rc != GPB_OK) return 0;
    if (!word || !inside_argv(word, argc, argv)) gpf_violation("args: %s: no positional word from argv", verb);
    return 1;
}

/* The run's numbers within the bounds the help states. */
static void check_run_args(const char *verb, const gpb_run_args *r)
{
    if (r->device < 0 || r->device > 1024 || r->runs < 1 || r->runs > 100000 || r->warmup < 0 || r->warmup > 100000 ||
        r->seed > INT64_MAX)
        gpf_violation("args: %s: device %d, runs %d, warm-up %d, seed %llu", verb, r->device, r->runs, r->warmup,
                      r->seed);
}

static int is_bench_dtype(gp_dtype t) { return t == GPB_DTYPE_C16 || gp_dtype_size(t) > 0; }

/* One case's planned arguments: its lists in bounds and valid, and a 1-D
 * case's sizes ascending, unique, positive and in room, with every --sizes
 * item among them. */
static void check_case_plan(const gpb_case *c, const gpb_args *given, const gpb_args *p)
{
    if (p->ndtypes < 1 || p->ndtypes > GPB_MAX_LIST || p->nops < 1 || p->nops > GPB_MAX_LIST)
        gpf_violation("args: bench %s: %d dtypes and %d ops", c->name, p->ndtypes, p->nops);
    for (int i = 0; i < p->ndtypes; i++)
        if (!is_bench_dtype(p->dtypes[i])) gpf_violation("args: bench %s: dtype %d", c->name, (int)p->dtypes[i]);
    if (c->default_shapes) {
        if (p->nshapes < 1 || p->nshapes > GPB_MAX_LIST)
            gpf_violation("args: bench %s: %d shapes", c->name, p->nshapes);
        return;
    }
    int64_t sizes[GPB_MAX_SIZES]; /* exactly the room promised: a write past it shows under ASan */
    const int n = gpb_case_sizes(p, c, sizes);
    if (n < 1 || n > GPB_MAX_SIZES) gpf_violation("args: bench %s: %d sizes planned", c->name, n);
    for (int i = 0; i < n; i++)
        if (sizes[i] < 1 || (i > 0 && sizes[i] <= sizes[i - 1]))
            gpf_violation("args: bench %s: size %d is %" PRId64 ", after %" PRId64, c->name, i, sizes[i],
                          i ? sizes[i - 1] : 0);
    for (int k = 0; k < given->nsizes; k++) {
        int found = 0;
        for (int i = 0; i < n; i++) found |= sizes[i] == given->sizes[k];
        if (!found) gpf_violation("args: bench %s: --sizes item %" PRId64 " is not planned", c->name, given->sizes[k]);
    }
}

/* The bench's command line (bench_args.c), read as `gpuprim bench` reads
 * it, then planned for both backends as it plans before running anything:
 * a usage error or a plan, never anything else; what it takes points into
 * argv and stays in the bounds the help states. */
static int check_bench(int argc, char **argv)
{
    if (asks_for_help(argc, argv)) return 0;
    gpb_args a;
    const int rc = gpb_parse_args(argc, argv, &a); /* before a.case_name is read */
    if (!command_taken("bench", rc, a.case_name, argc, argv)) return 0;
    check_optional_text("bench", a.csv, "--csv", argc, argv);
    check_optional_text("bench", a.json, "--json", argc, argv);
    check_optional_text("bench", a.plot, "--plot", argc, argv);
    check_run_args("bench", &a.run);
    if ((a.backend != GP_BACKEND_AUTO && a.backend != GP_BACKEND_CPU && a.backend != GP_BACKEND_CUDA) ||
        (a.timing != GPB_TIMING_HELD && a.timing != GPB_TIMING_EVENTS) || a.min_log2 < 0 || a.min_log2 > 40 ||
        a.max_log2 < -2 || a.max_log2 > 40 || a.nsizes < 0 || a.nsizes > GPB_MAX_LIST || a.nshapes < 0 ||
        a.nshapes > GPB_MAX_LIST)
        gpf_violation("args: bench: backend %d, timing %d, log2 %d..%d, %d sizes, %d shapes", (int)a.backend,
                      a.timing, a.min_log2, a.max_log2, a.nsizes, a.nshapes);
    for (int i = 0; i < a.nops; i++)
        if (!gp_op_name(a.ops[i])) gpf_violation("args: bench: op %d", (int)a.ops[i]);
    for (int i = 0; i < a.nsizes; i++)
        if (a.sizes[i] < 1) gpf_violation("args: bench: size %" PRId64, a.sizes[i]);
    for (int i = 0; i < a.nshapes; i++)
        if (a.shapes[i][0] < 1 || a.shapes[i][1] < 1 || a.shapes[i][0] > INT64_C(1) << 31 ||
            a.shapes[i][1] > INT64_C(1) << 31)
            gpf_violation("args: bench: shape %" PRId64 "x%" PRId64, a.shapes[i][0], a.shapes[i][1]);
    static const gp_backend backends[] = {GP_BACKEND_CPU, GP_BACKEND_CUDA};
    for (size_t k = 0; k < sizeof backends / sizeof backends[0]; k++) {
        const gpb_case *sel[GPB_MAX_CASES];
        static gpb_args per_case[GPB_MAX_CASES];
        int nsel = -1;
        const int prc = gpb_plan(&a, backends[k], sel, per_case, &nsel);
        if (prc != GPB_OK && prc != GPB_ERROR) gpf_violation("args: bench: gpb_plan returned %d", prc);
        if (prc != GPB_OK) continue;
        if (nsel < 1 || nsel > GPB_MAX_CASES) gpf_violation("args: bench: %d cases planned", nsel);
        for (int i = 0; i < nsel; i++) {
            const char *named = strcmp(a.case_name, "all") ? sel[i]->name : "all";
            if (sel[i]->backend != backends[k] || !strstr(a.case_name, named))
                gpf_violation("args: bench: case %s (backend %d) planned for '%s' on backend %d", sel[i]->name,
                              (int)sel[i]->backend, a.case_name, (int)backends[k]);
            check_case_plan(sel[i], &a, &per_case[i]);
        }
    }
    return 1;
}

/* The ladder's command line (ladder_args.c): a usage error or options in
 * the bounds its help states, strings inside argv; the name finds a ladder
 * of this build only if it is one. */
static int check_ladder(int argc, char **argv)
{
    if (asks_for_help(argc, argv)) return 0;
    gpl_args a;
    const int rc = gpl_parse_args(argc, argv, &a);
    if (!command_taken("ladder", rc, a.name, argc, argv)) return 0;
    check_optional_text("ladder", a.csv, "--csv", argc, argv);
    check_optional_text("ladder", a.json, "--json", argc, argv);
    check_run_args("ladder", &a.run);
    if ((a.o.check_only != 0 && a.o.check_only != 1) || a.o.nsizes < 0 ||
        a.o.nsizes > (int)(sizeof a.o.sizes / sizeof a.o.sizes[0]))
        gpf_violation("args: ladder: check %d, %d sizes", a.o.check_only, a.o.nsizes);
    for (int i = 0; i < a.o.nsizes; i++)
        if (a.o.sizes[i] < 1 || a.o.sizes[i] > INT64_C(1) << 40)
            gpf_violation("args: ladder: size %" PRId64, a.o.sizes[i]);
    int known = -1;
    const gpl_ladder *l = gpl_find_ladder(a.name, &known);
    if ((l && (strcmp(l->name, a.name) || !known)) || (known != 0 && known != 1))
        gpf_violation("args: ladder: '%s' found as %s (known %d)", a.name, l ? l->name : "none", known);
    return 1;
}

/* The bench's and ladder's option walker (gpb_option) over argv, with the
 * bench's names: a taken option is a known name, its value lies inside
 * argv (after the '=' of the same argument, or the whole next one, which
 * the walk then skips); a refusal says why. Numbers (gpb_parse_int) stay
 * in their bounds and print back. */
static void check_bench_options(int argc, char **argv)
{
    static const char *const known[] = {"--backend", "--dtype", "--sizes", "--runs", "--seed", "--hold", "--check"};
    const size_t nknown = sizeof known / sizeof known[0];
    for (int i = 1; i < argc; i++) {
        long long v, again;
        char buf[32];
        if (gpb_parse_int(argv[i], -1000, 1000000, &v)) {
            snprintf(buf, sizeof buf, "%lld", v);
            if (v < -1000 || v > 1000000 || !gpb_parse_int(buf, -1000, 1000000, &again) || again != v)
                gpf_violation("args: gpb_parse_int read '%s' as %lld", argv[i], v);
        }
        if (argv[i][0] != '-') continue;
        char name[64], why[128] = "";
        const char *val = NULL;
        const int at = i;
        if (!gpb_option(argc, argv, &i, known, nknown, name, sizeof name, &val, why, sizeof why)) {
            if (!why[0] || i != at) gpf_violation("args: gpb_option refused '%s' without a reason", argv[at]);
            continue;
        }
        int is_known = 0;
        for (size_t k = 0; k < nknown; k++) is_known |= !strcmp(name, known[k]);
        const char *eq = strchr(argv[at], '=');
        const int ok = is_known && val &&
                       (eq ? i == at && val == eq + 1 : i == at + 1 && i < argc && val == argv[i]);
        if (!ok) gpf_violation("args: gpb_option took '%s' as %s, value at %p, next argument %d", argv[at], name,
                               (const void *)val, i);
    }
}

/* The bench's and ladder's comma lists (gpb_split_list), items as sizes. */
static int size_item(const char *token, int index, void *ctx)
{
    return gpb_parse_size(token, &((int64_t *)ctx)[index]);
}

static int check_list(const char *s)
{
    int64_t sizes[MAX_LIST_ITEMS];
    char bad[GPB_LIST_CHARS];
    int count = -1, items = 0, in_item = 0;
    const gpb_list_status st = gpb_split_list(s, MAX_LIST_ITEMS, size_item, sizes, &count, bad, sizeof bad);
    for (const char *p = s; *p; p++) {
        items += *p != ',' && !in_item;
        in_item = *p != ',';
    }
    const size_t len = strlen(s);
    if ((st == GPB_LIST_TOO_LONG) != (len >= GPB_LIST_CHARS))
        gpf_violation("args: a %zu-character list gave status %d", len, (int)st);
    if (st == GPB_LIST_TOO_LONG) return 0;
    if (st == GPB_LIST_EMPTY && items != 0) gpf_violation("args: a list of %d items read as empty", items);
    if (st == GPB_LIST_TOO_MANY && items <= MAX_LIST_ITEMS)
        gpf_violation("args: a list of %d items read as too many", items);
    if (st == GPB_LIST_BAD_ITEM) {
        int64_t v;
        if (gpb_parse_size(bad, &v) || !strstr(s, bad))
            gpf_violation("args: '%s' refused, but it is a size or not in the list", bad);
        return 0;
    }
    if (st != GPB_LIST_OK) return 0;
    if (count != items || count < 1 || count > MAX_LIST_ITEMS)
        gpf_violation("args: a list of %d items read as %d", items, count);
    for (int i = 0; i < count; i++) {
        char buf[32];
        int64_t again;
        snprintf(buf, sizeof buf, "%" PRId64, sizes[i]);
        if (!gpb_parse_size(buf, &again) || again != sizes[i])
            gpf_violation("args: list item %d, %" PRId64 ", does not read back", i, sizes[i]);
    }
    return 1;
}

int gpf_args(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    const int choice = data[0] % CHOICES;
    /* Each argument in its own allocation, so a read past its NUL shows. */
    char *argv[MAX_ARGS + 1];
    int argc = 0;
    size_t at = 1;
    argv[argc] = strdup(choice < PARSED_VERBS    ? parsed_verbs[choice]->name
                        : choice == CHOICE_LADDER ? "ladder"
                                                  : "bench");
    if (!argv[argc++]) gpf_violation("args: out of memory");
    while (at < size && argc < MAX_ARGS) {
        const uint8_t *end = memchr(data + at, 0, size - at);
        const size_t len = end ? (size_t)(end - (data + at)) : size - at;
        argv[argc] = malloc(len + 1);
        if (!argv[argc]) gpf_violation("args: out of memory");
        memcpy(argv[argc], data + at, len);
        argv[argc++][len] = '\0';
        at += len + 1;
    }
    argv[argc] = NULL;
    int took = 0;
    if (choice < PARSED_VERBS)
        took = check_parsed(parsed_verbs[choice], argc, argv);
    else if (choice == CHOICE_BENCH)
        took = check_bench(argc, argv);
    else if (choice == CHOICE_LADDER)
        took = check_ladder(argc, argv);
    else {
        for (int i = 1; i < argc; i++) took |= check_list(argv[i]);
        check_bench_options(argc, argv);
    }
    for (int i = 0; i < argc; i++) free(argv[i]);
    return took;
}
