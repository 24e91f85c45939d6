/* Loading a file or standard input into memory and choosing its parser. */
#define _POSIX_C_SOURCE 200809L
#include "cli_common.h"
#include "cli_input.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

void cli_array_free(cli_array *a)
{
    if (!a) return;
    free(a->storage);
    memset(a, 0, sizeof *a);
}

/* Reads all of fp into a malloc'd block with one spare byte at the end
 * (the text parser's terminator). */
static int read_all(FILE *fp, const char *name, unsigned char **out, size_t *out_len)
{
    struct stat st;
    size_t cap = 1 << 16;
    if (fstat(fileno(fp), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
        (uintmax_t)st.st_size < SIZE_MAX - 1)
        cap = (size_t)st.st_size + 1; /* one read, no regrowth, for a regular file */
    unsigned char *buf = (unsigned char *)cli_host_malloc(cap, name);
    if (!buf) return CLI_EXIT_FAILURE;
    size_t len = 0;
    for (;;) {
        if (len + 1 >= cap) {
            size_t grown = cap < SIZE_MAX / 2 ? cap * 2 : SIZE_MAX;
            unsigned char *bigger = (unsigned char *)realloc(buf, grown);
            if (!bigger) {
                free(buf);
                return cli_error("could not allocate %zu bytes of host memory to read %s: %s", grown, name,
                                 strerror(ENOMEM));
            }
            buf = bigger;
            cap = grown;
        }
        size_t got = fread(buf + len, 1, cap - 1 - len, fp);
        len += got;
        if (got == 0) break;
    }
    if (ferror(fp)) {
        int e = errno;
        free(buf);
        return cli_error("cannot read '%s': %s", name, strerror(e));
    }
    *out = buf;
    *out_len = len;
    return CLI_EXIT_OK;
}

int cli_read_file(const char *path, unsigned char **buf, size_t *len, const char **name)
{
    int from_stdin = strcmp(path, "-") == 0;
    *name = from_stdin ? "<stdin>" : path;
    FILE *fp = from_stdin ? stdin : fopen(path, "rb");
    if (!fp) return cli_error("cannot open '%s': %s", path, strerror(errno));
    int rc = read_all(fp, *name, buf, len);
    if (!from_stdin) fclose(fp);
    return rc;
}

static int has_npy_name(const char *path)
{
    size_t n = strlen(path);
    return n >= 4 && strcasecmp(path + n - 4, ".npy") == 0;
}

int cli_load_array_any(const char *path, gp_dtype text_dtype, cli_array *out)
{
    memset(out, 0, sizeof *out);
    int from_stdin = strcmp(path, "-") == 0;
    const char *name = from_stdin ? "<stdin>" : path;
    FILE *fp = from_stdin ? stdin : fopen(path, "rb");
    if (!fp) return cli_error("cannot open '%s': %s", path, strerror(errno));
    unsigned char *buf = NULL;
    size_t len = 0;
    int rc = read_all(fp, name, &buf, &len);
    if (!from_stdin) fclose(fp);
    if (rc != CLI_EXIT_OK) return rc;

    int npy = has_npy_name(path) || (len >= 6 && memcmp(buf, "\x93NUMPY", 6) == 0);
    if (npy) {
        rc = cli_parse_npy(buf, len, name, out);
        if (rc != CLI_EXIT_OK) {
            free(buf);
            return rc;
        }
        out->storage = buf;
        return CLI_EXIT_OK;
    }
    rc = cli_parse_text((char *)buf, len, name, text_dtype, out);
    free(buf);
    return rc;
}

/* Loads as cli_load_array_any; where --dtype was given (text_dtype), a
 * .npy file must hold it. `hint` follows the message's "(--dtype is for
 * text input". */
static int load_checked(const char *path, gp_dtype text_dtype, const char *hint, cli_array *out)
{
    int rc = cli_load_array_any(path, text_dtype, out);
    if (rc != CLI_EXIT_OK || !text_dtype || out->dtype == text_dtype) return rc;
    gp_dtype held = out->dtype;
    cli_array_free(out);
    return cli_error("%s holds %s but --dtype says %s (--dtype is for text input%s)",
                     strcmp(path, "-") ? path : "<stdin>", gp_dtype_name(held), gp_dtype_name(text_dtype), hint);
}

int cli_load_array(const char *path, gp_dtype text_dtype, cli_array *out)
{
    return load_checked(path, text_dtype, "", out);
}

int cli_load_op_input(const struct cli_args *args, gp_op *op, gp_dtype *out_t, cli_array *a)
{
    const char *out_dtype = cli_get(args, "out-dtype"), *dtype = cli_get(args, "dtype");
    int rc = cli_parse_op_option(cli_get(args, "op"), "--op", op);
    gp_dtype text_dtype = (gp_dtype)0;
    if (rc == CLI_EXIT_OK && dtype) rc = cli_parse_dtype_option(dtype, "--dtype", &text_dtype);
    if (rc == CLI_EXIT_OK && out_dtype) rc = cli_parse_dtype_option(out_dtype, "--out-dtype", out_t);
    if (rc != CLI_EXIT_OK) return rc;
    rc = load_checked(args->positional[0], text_dtype, "; --out-dtype widens the result", a);
    if (rc == CLI_EXIT_OK && !out_dtype) *out_t = a->dtype;
    return rc;
}
