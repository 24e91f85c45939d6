/*
 * Shared pieces of the gpuprim tool: the verb table entry, option parsing,
 * error reporting and the checked wrappers around context creation.
 *
 * Exit codes: 0 success, 1 a runtime failure (a file, the data, the library
 * or the device said no), 2 the command line itself is wrong.
 */
#ifndef CLI_COMMON_H
#define CLI_COMMON_H

#include "gpuprim.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum { CLI_EXIT_OK = 0, CLI_EXIT_FAILURE = 1, CLI_EXIT_USAGE = 2 };

/* One option of a verb. Long form "--name VALUE" or "--name=VALUE"; a flag
 * has arg_name NULL. */
typedef struct cli_opt {
    const char *name;
    char short_name; /* e.g. 'o' for -o, or 0 */
    const char *arg_name;
    const char *help;
} cli_opt;

enum { CLI_MAX_OPTS = 24, CLI_MAX_POSITIONAL = 4 };

/* The parsed command line of one verb: each option's value (flags get "1"),
 * in the order of the verb's table followed by the common options. */
typedef struct cli_args {
    const struct cli_verb *verb;
    const char *values[CLI_MAX_OPTS];
    const char *positional[CLI_MAX_POSITIONAL];
    int positional_count;
    /* Common to every verb, filled by cli_parse_args. */
    gp_backend backend;
    int json;
} cli_args;

typedef struct cli_verb {
    const char *name;
    const char *summary;  /* one line, for `gpuprim --help` */
    const char *synopsis; /* arguments after the verb name */
    const char *details;  /* extra paragraphs for `gpuprim VERB --help`, or NULL */
    const cli_opt *opts;  /* terminated by an entry with name NULL */
    int min_positional, max_positional;
    /* Takes the raw arguments (argv[0] is the verb) instead of parsed ones:
     * for verbs that do their own parsing (bench). */
    int (*run_raw)(int argc, char **argv);
    int (*run)(const cli_args *args);
} cli_verb;

extern const cli_verb cli_verb_info, cli_verb_gen, cli_verb_reduce, cli_verb_count, cli_verb_histogram,
    cli_verb_transpose, cli_verb_demo, cli_verb_bench, cli_verb_ladder;
/* cli_scan.c, cli_select.c */
extern const cli_verb cli_verb_scan, cli_verb_select, cli_verb_partition, cli_verb_stalin;

/* ------------------------------------------------------------- reporting */

/* The verb named in error messages ("gpuprim VERB: ..."); NULL for none. */
void cli_set_verb_name(const char *name);
/* Prints "gpuprim VERB: message" to stderr. Always returns CLI_EXIT_FAILURE
 * so a caller can write `return cli_error(...)`. */
int cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* As cli_error, with a pointer to --help; returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Reports a failed gp_ call: "gpuprim VERB: WHAT: status message (detail)",
 * with the context's last error as the detail when there is one. */
int cli_gp_error(const gp_ctx *ctx, gp_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ------------------------------------------------------------ arguments */

/* Parses argv (argv[0] is the verb name). Returns -1 when --help was given
 * (help already printed), else an exit code: CLI_EXIT_OK or CLI_EXIT_USAGE
 * with the error printed. */
int cli_parse_args(const cli_verb *verb, int argc, char **argv, cli_args *out);
/* The value of option `name` (without dashes), or NULL if not given. */
const char *cli_get(const cli_args *args, const char *name);
void cli_print_verb_help(const cli_verb *verb, FILE *to);

/* Value parsers for options: on failure they print a usage error naming the
 * option and the valid values, and return CLI_EXIT_USAGE. */
int cli_parse_dtype_option(const char *text, const char *option, gp_dtype *out);
/* --if CMP:VALUE: parses CMP into *cmp and points *value at VALUE's text
 * (parsed later, once the input's dtype is known). Usage error otherwise. */
int cli_parse_if_option(const char *text, gp_cmp *cmp, const char **value);
int cli_parse_op_option(const char *text, const char *option, gp_op *out);
int cli_parse_int64_option(const char *text, const char *option, int64_t min, int64_t max,
                           int64_t *out);
int cli_parse_uint64_option(const char *text, const char *option, uint64_t *out);

/* "i8 u8 ... f64" and "sum prod ... xor", for messages. */
const char *cli_dtype_list(void);
const char *cli_op_list(void);

/* -------------------------------------------------------------- context */

/* Creates a context on `backend` (device 0 for CUDA), explaining a failure
 * (for an unusable backend, with gp_backend_probe's reason). */
int cli_open_ctx(gp_backend backend, int device, gp_ctx **out);
/* gp_malloc with a message that says how much was asked and for what. */
int cli_ctx_malloc(gp_ctx *ctx, void **ptr, size_t bytes, const char *what);
/* malloc with a message that says how much was asked and for what. */
void *cli_host_malloc(size_t bytes, const char *what);

/* ------------------------------------------------------------- outputs */

/* The rule for a verb's outputs and standard output: at most one output
 * may go to stdout ('-', /dev/stdout; cli_output_is_stdout), and not with
 * --json (stdout then carries the one JSON object); where one does, the
 * verb's report for people (a table, a count) goes to stderr instead.
 * paths[i] (NULL: not given) came from option names[i]. Checked before any
 * input is read. Returns CLI_EXIT_USAGE with the error printed, or
 * CLI_EXIT_OK with *report (where not NULL) set to stdout or stderr. */
int cli_check_stdout_outputs(int json, int count, const char *const names[], const char *const paths[], FILE **report);

/* ---------------------------------------------------------------- misc */

/* "256 MiB", "1.50 GiB", "17 bytes" into buf. */
const char *cli_format_bytes(size_t bytes, char *buf, size_t size);
/* Writes `s` as a JSON string literal, quotes included; a byte that is not
 * part of well-formed UTF-8 becomes U+FFFD. */
void cli_json_string(FILE *to, const char *s);
/* A printable, shortened copy of `len` bytes of `s` for error messages. */
const char *cli_printable(const char *s, size_t len, char *buf, size_t size);

#endif /* CLI_COMMON_H */
