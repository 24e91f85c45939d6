/* Error reporting for the tool's verbs and the bench: "gpuprim VERB: ..."
 * on stderr. Apart from cli_common.c so that gpuprim_outfile, which the
 * bench links too, carries it. */
#include "cli_common.h"

#include <stdarg.h>

static const char *current_verb;

void cli_set_verb_name(const char *name) { current_verb = name; }

/* "gpuprim VERB: " and the message, without its end: each caller adds its own. */
static void print_message(const char *fmt, va_list ap)
{
    fflush(stdout); /* keep stdout and stderr in order on a shared terminal */
    if (current_verb)
        fprintf(stderr, "gpuprim %s: ", current_verb);
    else
        fputs("gpuprim: ", stderr);
    vfprintf(stderr, fmt, ap);
}

int cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    print_message(fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return CLI_EXIT_FAILURE;
}

int cli_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    print_message(fmt, ap);
    va_end(ap);
    if (current_verb)
        fprintf(stderr, " (see 'gpuprim %s --help')\n", current_verb);
    else
        fputs(" (see 'gpuprim --help')\n", stderr);
    return CLI_EXIT_USAGE;
}

int cli_gp_error(const gp_ctx *ctx, gp_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    print_message(fmt, ap);
    va_end(ap);
    const char *detail = ctx ? gp_ctx_last_error(ctx) : "";
    if (detail && detail[0])
        fprintf(stderr, ": %s (%s)\n", gp_status_string(s), detail);
    else
        fprintf(stderr, ": %s (%s)\n", gp_status_string(s), gp_status_name(s));
    return CLI_EXIT_FAILURE;
}
