/* The option loop bench and ladder share (bench.h: gpb_parse_command). */
#include "bench.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The run's numbers: 1 if `name` is one (read into *run), 0 if not, -1 on a
 * bad value (printed). */
static int run_option(const char *verb, const char *name, const char *val, gpb_run_args *run)
{
    static const struct {
        const char *name;
        long long lo, hi;
    } numbers[] = {{"--device", 0, 1024}, {"--runs", 1, 100000}, {"--warmup", 0, 100000}, {"--seed", 0, INT64_MAX}};
    for (size_t k = 0; k < sizeof numbers / sizeof numbers[0]; k++) {
        if (strcmp(name, numbers[k].name)) continue;
        long long v;
        if (!gpb_parse_int(val, numbers[k].lo, numbers[k].hi, &v)) {
            char fmt[96]; /* name: an entry of numbers[] */
            snprintf(fmt, sizeof fmt, "bad %s '%%s'", numbers[k].name);
            gpb_usage_error(verb, fmt, val);
            return -1;
        }
        if (k == 0) run->device = (int)v;
        else if (k == 1) run->runs = (int)v;
        else if (k == 2) run->warmup = (int)v;
        else run->seed = (unsigned long long)v;
        return 1;
    }
    return 0;
}

int gpb_parse_command(const gpb_command *c, int argc, char **argv, const char **word, int *flag, gpb_run_args *run,
                      void *ctx)
{
    *word = NULL;
    *flag = 0;
    *run = (gpb_run_args){.device = 0, .runs = 20, .warmup = 3, .seed = 1};
    /* Options seen, by their index in c->known; the flag is the last bit. */
    unsigned long long seen = 0;
    const unsigned long long flag_bit = 1ull << 63;
    if (c->nknown > 63) return gpb_usage_error(c->verb, "%s", "internal error: too many options");
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        if (!strcmp(opt, "-h") || !strcmp(opt, "--help")) {
            c->usage(stdout);
            return GPB_HELP_SHOWN;
        }
        if (opt[0] != '-') {
            if (*word) return gpb_usage_error(c->verb, "unexpected argument '%s'", opt);
            *word = opt;
            continue;
        }
        if (c->flag && !strcmp(opt, c->flag)) {
            if (seen & flag_bit) return gpb_usage_error(c->verb, "option %s is given more than once", opt);
            seen |= flag_bit;
            *flag = 1;
            continue;
        }
        /* --opt=value or --opt value */
        char name[64], why[128];
        const char *val;
        if (!gpb_option(argc, argv, &i, c->known, c->nknown, name, sizeof name, &val, why, sizeof why))
            return gpb_usage_error(c->verb, "%s", why);
        /* A second value would silently replace the first, as the tool's
         * other verbs refuse. */
        for (size_t k = 0; k < c->nknown; k++) {
            if (strcmp(name, c->known[k])) continue;
            if (seen >> k & 1) return gpb_usage_error(c->verb, "option %s is given more than once", name);
            seen |= 1ull << k;
        }
        const int taken = run_option(c->verb, name, val, run);
        if (taken < 0 || (!taken && c->take(name, val, ctx) != GPB_OK)) return GPB_ERROR;
    }
    if (!*word) {
        c->usage(stderr);
        return GPB_ERROR;
    }
    return GPB_OK;
}
