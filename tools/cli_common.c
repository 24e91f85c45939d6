/* Checked context and memory helpers, small formatters (errors: cli_report.c). */
#include "cli_common.h"
#include "cli_output.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- context */

int cli_open_ctx(gp_backend backend, int device, gp_ctx **out)
{
    *out = NULL;
    if (backend != GP_BACKEND_AUTO) {
        char detail[512];
        gp_status p = gp_backend_probe(backend, detail, sizeof detail);
        if (p != GP_STATUS_OK)
            return cli_error("the %s backend is not usable here: %s", gp_backend_name(backend),
                             detail[0] ? detail : gp_status_string(p));
    }
    gp_status s = gp_ctx_create(out, backend, device);
    if (s != GP_STATUS_OK)
        return cli_gp_error(NULL, s, "cannot create a context on the %s backend", gp_backend_name(backend));
    return CLI_EXIT_OK;
}

int cli_ctx_malloc(gp_ctx *ctx, void **ptr, size_t bytes, const char *what)
{
    gp_status s = gp_malloc(ctx, ptr, bytes);
    if (s == GP_STATUS_OK) return CLI_EXIT_OK;
    char size[32];
    return cli_gp_error(ctx, s, "could not allocate %s (%zu bytes) of %s memory for %s",
                        cli_format_bytes(bytes, size, sizeof size), bytes,
                        gp_ctx_backend(ctx) == GP_BACKEND_CUDA ? "device" : "host", what);
}

void *cli_host_malloc(size_t bytes, const char *what)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        char size[32];
        cli_error("could not allocate %s (%zu bytes) of host memory for %s: %s",
                  cli_format_bytes(bytes, size, sizeof size), bytes, what, strerror(ENOMEM));
    }
    return p;
}

/* ------------------------------------------------------------------- misc */

const char *cli_format_bytes(size_t bytes, char *buf, size_t size)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes < 1024) {
        snprintf(buf, size, "%zu bytes", bytes);
        return buf;
    }
    double v = (double)bytes;
    int u = -1;
    while (v >= 1024.0 && u < 5) {
        v /= 1024.0;
        u++;
    }
    if (v == (double)(uint64_t)v)
        snprintf(buf, size, "%.0f %s", v, units[u]);
    else
        snprintf(buf, size, "%.2f %s", v, units[u]);
    return buf;
}

/* The bytes of the well-formed UTF-8 sequence at p (RFC 3629: no overlong
 * forms, no surrogates, nothing past U+10FFFF), or 0. */
static int utf8_length(const unsigned char *p)
{
    const unsigned c = p[0];
    int len = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    for (int i = 1; i < len; i++)
        if ((p[i] & 0xc0) != 0x80) return 0; /* a NUL ends the string here too */
    if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] > 0x9f) || (c == 0xf0 && p[1] < 0x90) ||
        (c == 0xf4 && p[1] > 0x8f))
        return 0;
    return len;
}

void cli_json_string(FILE *to, const char *s)
{
    fputc('"', to);
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        const int len = utf8_length(p);
        if (*p == '"' || *p == '\\')
            fprintf(to, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(to, "\\u%04x", *p);
        else if (len == 0) /* JSON text is Unicode: a byte that is not (a path's Latin-1 name) shows as U+FFFD */
            fputs("\\ufffd", to);
        else
            fwrite(p, 1, (size_t)len, to);
        p += len ? len : 1;
    }
    fputc('"', to);
}

const char *cli_printable(const char *s, size_t len, char *buf, size_t size)
{
    enum { CLI_SHOWN_BYTES = 40 };
    size_t k = 0;
    for (size_t i = 0; i < len && i < CLI_SHOWN_BYTES && k + 5 < size; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7f)
            buf[k++] = (char)c;
        else
            k += (size_t)snprintf(buf + k, size - k, "\\x%02x", c);
    }
    if (len > CLI_SHOWN_BYTES && k + 4 < size) {
        memcpy(buf + k, "...", 3);
        k += 3;
    }
    buf[k < size ? k : size - 1] = '\0';
    return buf;
}

/* Splits "CMP:VALUE" and parses CMP; VALUE waits for the input's dtype. */
int cli_parse_if_option(const char *text, gp_cmp *cmp, const char **value)
{
    const char *colon = strchr(text, ':');
    char name[8];
    size_t len = colon ? (size_t)(colon - text) : 0;
    if (!colon || len >= sizeof name || !colon[1])
        return cli_usage_error("--if wants CMP:VALUE, e.g. --if lt:0.5 (CMP: lt le gt ge eq ne), not '%s'", text);
    memcpy(name, text, len);
    name[len] = '\0';
    if (gp_cmp_from_name(name, cmp) != GP_STATUS_OK)
        return cli_usage_error("--if: unknown comparison '%s' (valid: lt le gt ge eq ne)", name);
    *value = colon + 1;
    return CLI_EXIT_OK;
}

/* ---------------------------------------------------------------- outputs */

int cli_check_stdout_outputs(int json, int count, const char *const names[], const char *const paths[], FILE **report)
{
    int first = -1;
    if (report) *report = stdout;
    for (int i = 0; i < count; i++) {
        if (!paths[i] || !cli_output_is_stdout(paths[i])) continue;
        if (first >= 0)
            return cli_usage_error("%s %s and %s %s both write to standard output: at most one output may go there",
                                   names[first], paths[first], names[i], paths[i]);
        first = i;
    }
    if (first < 0) return CLI_EXIT_OK;
    if (json)
        return cli_usage_error("--json prints to standard output, where %s %s writes: write the output to a file, "
                               "or leave out --json",
                               names[first], paths[first]);
    if (report) *report = stderr;
    return CLI_EXIT_OK;
}
