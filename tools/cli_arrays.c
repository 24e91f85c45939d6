/* Array files for the scan and selection verbs: see cli_arrays.h. */
#include "cli_arrays.h"

#include "cli_common.h"
#include "cli_input.h"
#include "cli_output.h"
#include "cli_values.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int cli_write_array(cli_outfile *f, const char *path, const void *data, gp_dtype t, int64_t n)
{
    size_t len = strlen(path);
    int npy = len >= 4 && strcasecmp(path + len - 4, ".npy") == 0;
    int bad = npy ? cli_npy_write_header(f->fp, t, n) != 0 || cli_npy_write_values(f->fp, data, t, (size_t)n) != 0
                  : cli_text_write_values(f->fp, data, t, (size_t)n) != 0;
    bad = bad || fflush(f->fp) != 0; /* a full disk shows here, before any file is renamed into place */
    if (!bad) return CLI_EXIT_OK;
    int e = errno;
    cli_outfile_abort(f);
    return cli_error("%s: writing the result failed: %s", path, strerror(e ? e : EIO));
}

int cli_save_array(const char *path, const void *data, gp_dtype t, int64_t n)
{
    cli_outfile f;
    int rc = cli_outfile_open(&f, path);
    if (rc == CLI_EXIT_OK) rc = cli_write_array(&f, path, data, t, n);
    return rc == CLI_EXIT_OK ? cli_outfile_commit(&f) : rc;
}

int cli_save_array_pair(const char *path_a, const void *a, int64_t na, const char *path_b, const void *b, int64_t nb,
                        gp_dtype t)
{
    cli_outfile fa, fb;
    int rc = cli_outfile_open(&fa, path_a);
    if (rc != CLI_EXIT_OK) return rc;
    rc = cli_write_array(&fa, path_a, a, t, na);
    if (rc != CLI_EXIT_OK) return rc;
    if ((rc = cli_outfile_open(&fb, path_b)) != CLI_EXIT_OK) {
        cli_outfile_abort(&fa);
        return rc;
    }
    if ((rc = cli_write_array(&fb, path_b, b, t, nb)) != CLI_EXIT_OK) {
        cli_outfile_abort(&fa);
        return rc;
    }
    return cli_outfile_commit_pair(&fa, &fb);
}

/* numpy's boolean descr, in any byte order: one byte has none ('|b1' as
 * numpy writes it). */
static int is_bool_descr(const char *descr)
{
    return descr[0] && strchr("|<>=", descr[0]) && strcmp(descr + 1, "b1") == 0;
}

/* A .npy of numpy booleans, which the general loader does not take. */
static int load_bool_npy(unsigned char *buf, size_t len, const char *name, const cli_npy_header *h, uint8_t **flags,
                         int64_t *n)
{
    if (h->fortran_order || h->ndim != 1) return cli_error("%s: flags must be a 1-D array in C order", name);
    if (h->shape_too_large) return cli_error("%s: bad header: shape too large for this machine", name);
    int64_t count = h->dims[0];
    if (len - h->data_offset < (size_t)count)
        return cli_error("%s: truncated: the header promises %lld flags, the file holds %zu", name, (long long)count,
                         len - h->data_offset);
    uint8_t *f = cli_host_malloc(count ? (size_t)count : 1, "the flags");
    if (!f) return CLI_EXIT_FAILURE;
    for (int64_t i = 0; i < count; i++) f[i] = buf[h->data_offset + (size_t)i] != 0;
    *flags = f;
    *n = count;
    return CLI_EXIT_OK;
}

int cli_load_flags(const char *path, uint8_t **flags, int64_t *n)
{
    *flags = NULL;
    *n = 0;
    unsigned char *buf = NULL;
    size_t len = 0;
    const char *name = NULL;
    int rc = cli_read_file(path, &buf, &len, &name);
    if (rc != CLI_EXIT_OK) return rc;
    /* Read once (it may be standard input), then parsed as the loader does. */
    cli_array a;
    memset(&a, 0, sizeof a);
    if (len >= 6 && memcmp(buf, "\x93NUMPY", 6) == 0) {
        cli_npy_header h;
        rc = cli_npy_read_header(buf, len, name, &h);
        if (rc == CLI_EXIT_OK && is_bool_descr(h.descr)) rc = load_bool_npy(buf, len, name, &h, flags, n);
        else if (rc == CLI_EXIT_OK) rc = cli_parse_npy(buf, len, name, &a);
        if (rc != CLI_EXIT_OK || *flags) {
            free(buf);
            return rc;
        }
        a.storage = buf; /* the values point into it */
    } else {
        rc = cli_parse_flags_text((char *)buf, len, name, &a);
        free(buf);
        if (rc != CLI_EXIT_OK) return rc;
    }
    if (cli_dtype_is_float(a.dtype)) {
        const gp_dtype held = a.dtype;
        cli_array_free(&a);
        return cli_error("%s: flags must be booleans or integers, not %s", name, gp_dtype_name(held));
    }
    uint8_t *f = cli_host_malloc(a.n ? (size_t)a.n : 1, "the flags");
    if (!f) {
        cli_array_free(&a);
        return CLI_EXIT_FAILURE;
    }
    size_t sz = gp_dtype_size(a.dtype);
    for (int64_t i = 0; i < a.n; i++) {
        const unsigned char *e = (const unsigned char *)a.data + (size_t)i * sz;
        unsigned char any = 0;
        for (size_t b = 0; b < sz; b++) any |= e[b];
        f[i] = any != 0;
    }
    *flags = f;
    *n = a.n;
    cli_array_free(&a);
    return CLI_EXIT_OK;
}
