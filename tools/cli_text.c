/* Text arrays: one number a line, blank lines ignored. */
#include "cli_common.h"
#include "cli_input.h"
#include "cli_output.h"
#include "cli_values.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* i64 unless some number carries a float mark. Scanning the whole buffer
 * gives the same answer as scanning each number: a line that is not a
 * number fails later whatever the dtype. */
static gp_dtype infer_dtype(const char *buf, size_t len)
{
    return cli_text_bytes_look_float(buf, len) ? GP_DTYPE_F64 : GP_DTYPE_I64;
}

/* dtype 0: inferred, and where suggest_dtype, a value out of i64's range
 * suggests --dtype (u64 or f64 may hold it; nothing holds more than f64). */
static int parse_text(char *buf, size_t len, const char *name, gp_dtype dtype, int suggest_dtype, cli_array *out)
{
    int inferred = dtype == 0;
    if (inferred) dtype = infer_dtype(buf, len);
    buf[len] = '\0';

    size_t lines = 1;
    for (size_t i = 0; i < len; i++) lines += buf[i] == '\n';
    size_t elem = gp_dtype_size(dtype);
    unsigned char *values = (unsigned char *)cli_host_malloc(lines * elem, "the parsed numbers");
    if (!values) return CLI_EXIT_FAILURE;

    int64_t n = 0;
    size_t line_no = 0;
    char *p = buf, *end = buf + len;
    while (p < end) {
        line_no++;
        char *nl = memchr(p, '\n', (size_t)(end - p));
        char *line_end = nl ? nl : end;
        char *a = p, *b = line_end;
        p = nl ? nl + 1 : end;
        while (a < b && is_space(*a)) a++;
        while (b > a && is_space(b[-1])) b--;
        if (a == b) continue;
        *b = '\0'; /* b is at most line_end: a newline, a space or buf[len] */
        char err[300], shown[200];
        if (strlen(a) != (size_t)(b - a)) { /* a NUL byte: binary data, not text */
            free(values);
            return cli_error("%s: line %zu: '%s' is not a number", name, line_no,
                             cli_printable(a, (size_t)(b - a), shown, sizeof shown));
        }
        if (strpbrk(a, " \t")) {
            free(values);
            return cli_error("%s: line %zu: expected one number, found '%s'", name, line_no,
                             cli_printable(a, (size_t)(b - a), shown, sizeof shown));
        }
        if (cli_parse_value(a, dtype, values + (size_t)n * elem, err, sizeof err) != 0) {
            free(values);
            return cli_error("%s: line %zu: %s%s", name, line_no, err,
                             inferred && suggest_dtype && dtype != GP_DTYPE_F64 && strstr(err, "out of range")
                                 ? "; pass --dtype to choose another dtype"
                                 : "");
        }
        n++;
    }
    out->dtype = dtype;
    out->n = n;
    out->data = values;
    out->storage = values;
    out->format = "text";
    return CLI_EXIT_OK;
}

int cli_parse_text(char *buf, size_t len, const char *name, gp_dtype dtype, cli_array *out)
{
    return parse_text(buf, len, name, dtype, 1, out);
}

int cli_parse_flags_text(char *buf, size_t len, const char *name, cli_array *out)
{
    return parse_text(buf, len, name, (gp_dtype)0, 0, out);
}

int cli_text_write_values(FILE *fp, const void *values, gp_dtype t, size_t count)
{
    size_t elem = gp_dtype_size(t);
    const unsigned char *v = (const unsigned char *)values;
    char buf[64];
    for (size_t i = 0; i < count; i++) {
        cli_format_value(v + i * elem, t, buf, sizeof buf);
        if (fputs(buf, fp) == EOF || fputc('\n', fp) == EOF) return -1;
    }
    return 0;
}
