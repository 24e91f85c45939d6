/*
 * NumPy .npy files: the subset gpuprim reads is 1-D, C order, little-endian
 * (or single-byte), dtypes i1 u1 i2 u2 i4 u4 i8 u8 f4 f8, format versions
 * 1.0, 2.0 and 3.0. Layout: "\x93NUMPY", major, minor, header length (2
 * bytes little-endian in 1.0, 4 bytes in 2.0 and 3.0), then a Python dict
 * literal {'descr': '<i4', 'fortran_order': False, 'shape': (n,), }
 * padded with spaces and ended by '\n', then the data.
 */
#include "cli_common.h"
#include "cli_input.h"
#include "cli_output.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char npy_magic[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};

/* The .npy type codes we map to gpuprim dtypes: kind letter and size. */
static const struct {
    char kind;
    int size;
    gp_dtype dtype;
} npy_types[] = {
    {'i', 1, GP_DTYPE_I8},  {'u', 1, GP_DTYPE_U8},  {'i', 2, GP_DTYPE_I16}, {'u', 2, GP_DTYPE_U16},
    {'i', 4, GP_DTYPE_I32}, {'u', 4, GP_DTYPE_U32}, {'i', 8, GP_DTYPE_I64}, {'u', 8, GP_DTYPE_U64},
    {'f', 4, GP_DTYPE_F32}, {'f', 8, GP_DTYPE_F64},
};
enum { NPY_TYPE_COUNT = sizeof npy_types / sizeof npy_types[0] };

#define NPY_SUPPORTED_DESCRS "|i1 |u1 <i2 <u2 <i4 <u4 <i8 <u8 <f4 <f8"

/* ------------------------------------------------------------ byte order */

int cli_host_is_little_endian(void)
{
    const uint16_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    return first == 1;
}

void cli_swap_bytes(void *data, size_t size, size_t count)
{
    unsigned char *p = (unsigned char *)data;
    for (size_t i = 0; i < count; i++, p += size)
        for (size_t a = 0, b = size - 1; a < b; a++, b--) {
            unsigned char t = p[a];
            p[a] = p[b];
            p[b] = t;
        }
}

/* ---------------------------------------------------------- header parser */

/* A cursor over the header text; errors carry the byte offset in it. */
typedef struct header_cursor {
    const char *text;
    size_t len, pos;
    char *err;
    size_t err_size;
} header_cursor;

typedef struct header_fields {
    char descr[32];
    int have_descr, have_fortran, have_shape;
    int fortran_order;
    int ndim;
    int64_t dims[8];
    int shape_too_large;
} header_fields;

static void skip_space(header_cursor *c)
{
    while (c->pos < c->len && (c->text[c->pos] == ' ' || c->text[c->pos] == '\n' || c->text[c->pos] == '\t'))
        c->pos++;
}

static int fail_at(header_cursor *c, const char *what)
{
    snprintf(c->err, c->err_size, "bad header: %s at byte %zu of the header", what, c->pos);
    return -1;
}

static int accept(header_cursor *c, char ch)
{
    skip_space(c);
    if (c->pos < c->len && c->text[c->pos] == ch) {
        c->pos++;
        return 1;
    }
    return 0;
}

/* A Python string literal without escapes, '...' or "...". */
static int parse_string(header_cursor *c, char *out, size_t size)
{
    skip_space(c);
    if (c->pos >= c->len || (c->text[c->pos] != '\'' && c->text[c->pos] != '"'))
        return fail_at(c, "expected a string");
    char quote = c->text[c->pos++];
    size_t start = c->pos;
    while (c->pos < c->len && c->text[c->pos] != quote) c->pos++;
    if (c->pos >= c->len) return fail_at(c, "unterminated string");
    size_t n = c->pos - start;
    c->pos++;
    if (n >= size) return fail_at(c, "string too long");
    memcpy(out, c->text + start, n);
    out[n] = '\0';
    return 0;
}

static int parse_bool(header_cursor *c, int *out)
{
    skip_space(c);
    const char *p = c->text + c->pos;
    size_t left = c->len - c->pos;
    if (left >= 4 && memcmp(p, "True", 4) == 0) {
        *out = 1;
        c->pos += 4;
        return 0;
    }
    if (left >= 5 && memcmp(p, "False", 5) == 0) {
        *out = 0;
        c->pos += 5;
        return 0;
    }
    return fail_at(c, "fortran_order must be True or False");
}

/* A tuple of non-negative integers, e.g. "()", "(5,)", "(3, 4)"; Python 2
 * wrote long integers with an L suffix, accepted. */
static int parse_shape(header_cursor *c, header_fields *h)
{
    if (!accept(c, '(')) return fail_at(c, "shape must be a tuple");
    h->ndim = 0;
    for (;;) {
        if (accept(c, ')')) return 0;
        skip_space(c);
        if (c->pos >= c->len || c->text[c->pos] < '0' || c->text[c->pos] > '9')
            return fail_at(c, "expected a non-negative integer in shape");
        int64_t v = 0;
        while (c->pos < c->len && c->text[c->pos] >= '0' && c->text[c->pos] <= '9') {
            int digit = c->text[c->pos++] - '0';
            if (v > (INT64_MAX - digit) / 10)
                h->shape_too_large = 1;
            else
                v = v * 10 + digit;
        }
        if (c->pos < c->len && c->text[c->pos] == 'L') c->pos++;
        if (h->ndim == (int)(sizeof h->dims / sizeof h->dims[0])) return fail_at(c, "too many dimensions");
        h->dims[h->ndim++] = v;
        if (accept(c, ')')) return 0;
        if (!accept(c, ',')) return fail_at(c, "expected ',' or ')' in shape");
    }
}

static int parse_entry(header_cursor *c, header_fields *h)
{
    char key[32];
    if (parse_string(c, key, sizeof key) != 0) return -1;
    if (!accept(c, ':')) return fail_at(c, "expected ':'");
    if (strcmp(key, "descr") == 0) {
        skip_space(c);
        if (c->pos < c->len && c->text[c->pos] == '[') {
            snprintf(c->err, c->err_size,
                     "unsupported descr: structured (record) dtypes are not supported (supported: "
                     NPY_SUPPORTED_DESCRS ")");
            return -1;
        }
        h->have_descr = 1;
        return parse_string(c, h->descr, sizeof h->descr);
    }
    if (strcmp(key, "fortran_order") == 0) {
        h->have_fortran = 1;
        return parse_bool(c, &h->fortran_order);
    }
    if (strcmp(key, "shape") == 0) {
        h->have_shape = 1;
        return parse_shape(c, h);
    }
    snprintf(c->err, c->err_size, "bad header: unexpected key '%s' (a .npy header has descr, fortran_order, shape)",
             key);
    return -1;
}

static int parse_header_dict(header_cursor *c, header_fields *h)
{
    if (!accept(c, '{')) return fail_at(c, "expected '{'");
    while (!accept(c, '}')) {
        if (parse_entry(c, h) != 0) return -1;
        if (accept(c, '}')) break;
        if (!accept(c, ',')) return fail_at(c, "expected ',' or '}'");
    }
    skip_space(c);
    if (c->pos != c->len) return fail_at(c, "unexpected text after '}'");
    const char *missing = !h->have_descr ? "descr" : !h->have_fortran ? "fortran_order" : !h->have_shape ? "shape" : NULL;
    if (missing) {
        snprintf(c->err, c->err_size, "bad header: no '%s' key", missing);
        return -1;
    }
    return 0;
}

/* Maps a descr such as "<i4" to a dtype, or explains why not. */
static int descr_to_dtype(const char *descr, gp_dtype *out, char *err, size_t err_size)
{
    char order = descr[0];
    char kind = order ? descr[1] : '\0';
    char *end;
    long size = kind ? strtol(descr + 2, &end, 10) : 0;
    int well_formed = order && kind && descr[2] >= '0' && descr[2] <= '9' && !*end;
    for (int i = 0; well_formed && i < NPY_TYPE_COUNT; i++) {
        if (npy_types[i].kind != kind || npy_types[i].size != size) continue;
        /* Byte order means nothing for one byte; numpy writes '|' then. */
        if (order == '<' || (size == 1 && (order == '|' || order == '>' || order == '='))) {
            *out = npy_types[i].dtype;
            return 0;
        }
        if (order == '>') {
            snprintf(err, err_size,
                     "big-endian data (descr '%s') is not supported: save it little-endian, e.g. "
                     "a.astype('<%c%ld')",
                     descr, kind, size);
            return -1;
        }
        break;
    }
    snprintf(err, err_size, "unsupported descr '%s' (supported: " NPY_SUPPORTED_DESCRS ")", descr);
    return -1;
}

/* ------------------------------------------------------------------ read */

int cli_npy_read_header(const unsigned char *buf, size_t len, const char *name, cli_npy_header *out)
{
    char shown[200];
    if (len < sizeof npy_magic || memcmp(buf, npy_magic, sizeof npy_magic) != 0)
        return cli_error("%s: bad magic: not a .npy file (it starts with '%s'; a .npy file starts with "
                         "'\\x93NUMPY')",
                         name, cli_printable((const char *)buf, len < 8 ? len : 8, shown, sizeof shown));
    if (len < 8) return cli_error("%s: truncated header: the file ends after the magic", name);
    int major = buf[6], minor = buf[7];
    if ((major != 1 && major != 2 && major != 3) || minor != 0)
        return cli_error("%s: unsupported .npy version %d.%d (supported: 1.0, 2.0, 3.0)", name, major, minor);
    size_t prefix = major == 1 ? 10 : 12;
    if (len < prefix) return cli_error("%s: truncated header: the file ends inside the header length", name);
    size_t header_len = major == 1 ? (size_t)buf[8] | (size_t)buf[9] << 8
                                   : (size_t)buf[8] | (size_t)buf[9] << 8 | (size_t)buf[10] << 16 |
                                         (size_t)buf[11] << 24;
    if (header_len > len - prefix)
        return cli_error("%s: truncated header: the header length field says %zu bytes but the file holds %zu more",
                         name, header_len, len - prefix);

    char err[300];
    header_cursor c = {(const char *)buf + prefix, header_len, 0, err, sizeof err};
    header_fields h;
    memset(&h, 0, sizeof h);
    if (parse_header_dict(&c, &h) != 0) return cli_error("%s: %s", name, err);
    memset(out, 0, sizeof *out);
    memcpy(out->descr, h.descr, sizeof out->descr);
    out->fortran_order = h.fortran_order;
    out->ndim = h.ndim;
    memcpy(out->dims, h.dims, sizeof out->dims);
    out->shape_too_large = h.shape_too_large;
    out->data_offset = prefix + header_len;
    return CLI_EXIT_OK;
}

int cli_parse_npy(unsigned char *buf, size_t len, const char *name, cli_array *out)
{
    cli_npy_header h;
    int rc = cli_npy_read_header(buf, len, name, &h);
    if (rc != CLI_EXIT_OK) return rc;
    char err[300];
    gp_dtype t;
    if (descr_to_dtype(h.descr, &t, err, sizeof err) != 0) return cli_error("%s: %s", name, err);
    if (h.fortran_order)
        return cli_error("%s: fortran_order is True: column-major files are not supported (save a C-ordered "
                         "array, e.g. np.ascontiguousarray(a))",
                         name);
    if (h.ndim != 1) {
        char dims[200] = "";
        for (int i = 0; i < h.ndim; i++) {
            size_t k = strlen(dims);
            snprintf(dims + k, sizeof dims - k, "%s%" PRId64, i ? ", " : "", h.dims[i]);
        }
        return cli_error("%s: not 1-D: the array has shape (%s); only 1-D arrays are supported", name, dims);
    }
    size_t elem = gp_dtype_size(t);
    int64_t n = h.dims[0];
    if (h.shape_too_large || (uint64_t)n > SIZE_MAX / elem)
        return cli_error("%s: bad header: shape too large for this machine", name);
    size_t data_bytes = (size_t)n * elem;
    size_t have = len - h.data_offset;
    if (have < data_bytes)
        return cli_error("%s: truncated data: the header promises %" PRId64 " elements of %s (%zu bytes) but "
                         "only %zu bytes follow it",
                         name, n, h.descr, data_bytes, have);
    /* Trailing bytes past the data are ignored, as numpy does. */
    out->dtype = t;
    out->n = n;
    out->data = buf + h.data_offset;
    out->format = "npy";
    if (!cli_host_is_little_endian() && elem > 1) cli_swap_bytes(out->data, elem, (size_t)n);
    return CLI_EXIT_OK;
}

/* ----------------------------------------------------------------- write */

/* The dict, padded with spaces and a final newline so that the data starts
 * on a 64-byte boundary, as numpy writes it; version 1.0 (short headers). */
static int write_header_dict(FILE *fp, const char *dict, size_t k)
{
    size_t unpadded = 10 + k + 1;
    size_t total = (unpadded + 63) / 64 * 64;
    size_t header_len = total - 10;
    if (header_len > 65535) return -1;
    unsigned char prefix[10];
    memcpy(prefix, npy_magic, 6);
    prefix[6] = 1;
    prefix[7] = 0;
    prefix[8] = (unsigned char)(header_len & 0xff);
    prefix[9] = (unsigned char)(header_len >> 8);
    if (fwrite(prefix, 1, sizeof prefix, fp) != sizeof prefix) return -1;
    if (fwrite(dict, 1, k, fp) != k) return -1;
    for (size_t i = k; i + 1 < header_len; i++)
        if (fputc(' ', fp) == EOF) return -1;
    return fputc('\n', fp) == EOF ? -1 : 0;
}

int cli_npy_write_header(FILE *fp, gp_dtype t, int64_t n)
{
    static const char kinds[] = {'\0', 'i', 'u', 'i', 'u', 'i', 'u', 'i', 'u', 'f', 'f'};
    size_t elem = gp_dtype_size(t);
    if (!elem || (size_t)t >= sizeof kinds) return -1;
    char dict[128];
    int k = snprintf(dict, sizeof dict, "{'descr': '%c%c%zu', 'fortran_order': False, 'shape': (%" PRId64 ",), }",
                     elem == 1 ? '|' : '<', kinds[t], elem, n);
    if (k < 0 || (size_t)k >= sizeof dict) return -1;
    return write_header_dict(fp, dict, (size_t)k);
}

int cli_npy_write_header_nd(FILE *fp, const char *descr, int ndim, const int64_t *dims)
{
    char dict[512];
    int k = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
    for (int i = 0; i < ndim && k > 0 && (size_t)k < sizeof dict; i++)
        k += snprintf(dict + k, sizeof dict - (size_t)k, "%" PRId64 "%s", dims[i], ndim == 1 || i + 1 < ndim ? ", " : "");
    if (k > 0 && (size_t)k < sizeof dict) k += snprintf(dict + k, sizeof dict - (size_t)k, "), }");
    if (k < 0 || (size_t)k >= sizeof dict) return -1;
    return write_header_dict(fp, dict, (size_t)k);
}

int cli_npy_write_values(FILE *fp, const void *values, gp_dtype t, size_t count)
{
    size_t elem = gp_dtype_size(t);
    if (cli_host_is_little_endian() || elem == 1)
        return fwrite(values, elem, count, fp) == count ? 0 : -1;
    unsigned char tmp[8];
    const unsigned char *p = (const unsigned char *)values;
    for (size_t i = 0; i < count; i++, p += elem) {
        memcpy(tmp, p, elem);
        cli_swap_bytes(tmp, elem, 1);
        if (fwrite(tmp, elem, 1, fp) != 1) return -1;
    }
    return 0;
}
