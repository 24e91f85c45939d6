/*
 * `gpuprim transpose`: transposes, rotates or flips a 2-D .npy array or a
 * PNG image on the chosen backend.
 *
 * The element is the array's item or the image's pixel, moved whole and
 * never interpreted. Items of 1, 2, 4, 8 or 16 bytes move in one
 * gp_transpose_ex call. Others (RGB8 pixels are 3 bytes, RGB16 6, a '|S5'
 * item 5) move as planes, all three steps on the backend through the public
 * API: the n x k matrix of k-byte pieces is transposed into k planes of n
 * (one transpose), the planes are transformed as one batch, and a last
 * transpose interleaves them again. k is the item size over its largest
 * power-of-two divisor, so RGB16 is 3 planes of 2-byte samples.
 */
#include "cli_common.h"
#include "cli_input.h"
#include "cli_output.h"
#include "cli_png.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const cli_opt transpose_opts[] = {
    {"output", 'o', "FILE", "where to write the result, in the input's format (required)"},
    {"rotate", 0, "DEG", "rotate clockwise by 90, 180 or 270 degrees (0: copy) instead of transposing"},
    {"flip", 0, "h|v", "mirror left-right (h) or top-bottom (v) instead of transposing; after --rotate"},
    {NULL, 0, NULL, NULL},
};

/* A 2-D array of elem-byte elements in host memory, and what to call it. */
typedef struct matrix {
    int64_t rows, cols;
    size_t elem;
    void *data;
} matrix;

/* ----------------------------------------------------------- operation */

typedef struct operation {
    unsigned flags; /* gp_transpose_params.flags */
    char name[32];  /* "transpose", "rotate 90", "flip h", "rotate 90, flip h" */
} operation;

static int parse_operation(const cli_args *args, operation *op)
{
    const char *rotate = cli_get(args, "rotate"), *flip = cli_get(args, "flip");
    op->flags = 0;
    snprintf(op->name, sizeof op->name, "transpose");
    if (!rotate && !flip) return CLI_EXIT_OK;
    op->flags = GP_TRANSPOSE_NONE;
    op->name[0] = '\0';
    if (rotate) {
        /* Clockwise: 90 = transpose then reverse each row; 270 = transpose
         * then reverse the row order; 180 = both reversals, no transpose. */
        static const struct {
            const char *deg;
            unsigned flags;
        } turns[] = {{"0", GP_TRANSPOSE_NONE},
                     {"90", GP_TRANSPOSE_REVERSE_COLS},
                     {"180", GP_TRANSPOSE_NONE | GP_TRANSPOSE_REVERSE_ROWS | GP_TRANSPOSE_REVERSE_COLS},
                     {"270", GP_TRANSPOSE_REVERSE_ROWS}};
        int found = -1;
        for (int i = 0; i < 4; i++)
            if (strcmp(rotate, turns[i].deg) == 0) found = i;
        if (found < 0) return cli_usage_error("--rotate takes 0, 90, 180 or 270 (degrees clockwise), not '%s'", rotate);
        op->flags = turns[found].flags;
        snprintf(op->name, sizeof op->name, "rotate %s", rotate);
    }
    if (flip) {
        /* A flip reverses the result's columns (h) or rows (v): it toggles
         * that flag of whatever came before. */
        unsigned bit;
        if (strcmp(flip, "h") == 0) bit = GP_TRANSPOSE_REVERSE_COLS;
        else if (strcmp(flip, "v") == 0) bit = GP_TRANSPOSE_REVERSE_ROWS;
        else return cli_usage_error("--flip takes h (left-right) or v (top-bottom), not '%s'", flip);
        op->flags ^= bit;
        size_t k = strlen(op->name);
        snprintf(op->name + k, sizeof op->name - k, "%sflip %s", k ? ", " : "", flip);
    }
    return CLI_EXIT_OK;
}

/* ------------------------------------------------------------ the work */

static int is_pow2_elem(size_t e) { return e == 1 || e == 2 || e == 4 || e == 8 || e == 16; }

/* The piece a k-byte item is cut into: its largest power-of-two divisor, at most 16. */
static size_t unit_of(size_t e)
{
    size_t u = 16;
    while (e % u) u /= 2;
    return u;
}

static int transpose_failed(gp_ctx *ctx, gp_status s, const char *step, const matrix *m)
{
    return cli_gp_error(ctx, s, "%s (%" PRId64 " x %" PRId64 " elements of %zu bytes) failed", step, m->rows, m->cols,
                        m->elem);
}

/* out = the operation on m, through the context: upload, one to three
 * transposes, download. *out_rows x *out_cols is the result's shape. */
static int run_on_ctx(gp_ctx *ctx, const matrix *m, const operation *op, void *out, int64_t *out_rows,
                      int64_t *out_cols, int *planes)
{
    bool transposed = !(op->flags & GP_TRANSPOSE_NONE);
    *out_rows = transposed ? m->cols : m->rows;
    *out_cols = transposed ? m->rows : m->cols;
    size_t unit = is_pow2_elem(m->elem) ? m->elem : unit_of(m->elem);
    int64_t k = (int64_t)(m->elem / unit), n = m->rows * m->cols;
    *planes = (int)k;
    size_t bytes = (size_t)n * m->elem;
    if (bytes == 0) return CLI_EXIT_OK;

    void *a = NULL, *b = NULL;
    int rc = cli_ctx_malloc(ctx, &a, bytes, "the input");
    if (rc == CLI_EXIT_OK) rc = cli_ctx_malloc(ctx, &b, bytes, "the output");
    gp_status s = GP_STATUS_OK;
    if (rc == CLI_EXIT_OK && (s = gp_copy_from_host(ctx, a, m->data, bytes)) != GP_STATUS_OK)
        rc = cli_gp_error(ctx, s, "copying %zu bytes of input into the context failed", bytes);
    gp_transpose_params p = {0};
    p.elem_size = unit;
    p.rows = m->rows;
    p.cols = m->cols;
    p.flags = op->flags;
    if (rc == CLI_EXIT_OK && k == 1) {
        if ((s = gp_transpose_ex(ctx, a, b, &p)) != GP_STATUS_OK) rc = transpose_failed(ctx, s, op->name, m);
    } else if (rc == CLI_EXIT_OK) {
        /* Planes: (n x k) -> (k x n), the operation on k planes, (k x n') -> (n' x k). */
        p.batch = k;
        if ((s = gp_transpose(ctx, a, b, unit, n, k)) != GP_STATUS_OK)
            rc = transpose_failed(ctx, s, "splitting the elements into planes", m);
        else if ((s = gp_transpose_ex(ctx, b, a, &p)) != GP_STATUS_OK)
            rc = transpose_failed(ctx, s, op->name, m);
        else if ((s = gp_transpose(ctx, a, b, unit, k, n)) != GP_STATUS_OK)
            rc = transpose_failed(ctx, s, "interleaving the planes", m);
    }
    if (rc == CLI_EXIT_OK && (s = gp_copy_to_host(ctx, out, b, bytes)) != GP_STATUS_OK)
        rc = cli_gp_error(ctx, s, "copying %zu bytes of output back from the context failed", bytes);
    gp_status f1 = gp_free(ctx, a), f2 = gp_free(ctx, b);
    if (rc == CLI_EXIT_OK && (f1 != GP_STATUS_OK || f2 != GP_STATUS_OK))
        rc = cli_gp_error(ctx, f1 != GP_STATUS_OK ? f1 : f2, "freeing the context's buffers failed");
    return rc;
}

/* ------------------------------------------------------------- formats */

typedef enum file_kind { KIND_NPY, KIND_PNG } file_kind;

/* The item size of a .npy descr: "<f4" 4, "|S5" 5, "<U3" 12 (UCS-4),
 * "<M8[ns]" 8; 0 with a reason for what cannot be moved as bytes. A
 * "[...]" suffix is a datetime's unit (kinds M and m) and nothing else:
 * numpy writes no other ("<i4[3]" is no dtype it reads). */
static size_t npy_item_size(const char *descr, char *why, size_t size)
{
    char order = descr[0], kind = order ? descr[1] : '\0';
    if (!strchr("<>|=", order) || !kind || !strchr("biufcSaUVMm", kind)) {
        snprintf(why, size, "unsupported descr '%s'%s", descr,
                 kind == 'O' ? ": object arrays hold pointers, not values" : "");
        return 0;
    }
    char *end;
    errno = 0;
    long long n = strtoll(descr + 2, &end, 10);
    if (end == descr + 2 || errno || n <= 0 || (*end && *end != '[') || n > (1LL << 30)) {
        snprintf(why, size, "unsupported descr '%s'", descr);
        return 0;
    }
    if (*end == '[') {
        const int datetime = kind == 'M' || kind == 'm';
        size_t unit = strspn(end + 1, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ");
        if (!datetime || unit == 0 || strcmp(end + 1 + unit, "]") != 0) {
            snprintf(why, size, "unsupported descr '%s': %s", descr,
                     datetime ? "a datetime's unit is letters and digits in brackets, e.g. '<M8[ns]'"
                              : "a '[...]' suffix is only for the datetime kinds M and m (e.g. '<M8[ns]')");
            return 0;
        }
    }
    return (size_t)n * (kind == 'U' ? 4 : 1);
}

static int npy_matrix(unsigned char *buf, size_t len, const char *name, cli_npy_header *h, matrix *m)
{
    if (cli_npy_read_header(buf, len, name, h) != CLI_EXIT_OK) return CLI_EXIT_FAILURE;
    char why[200];
    m->elem = npy_item_size(h->descr, why, sizeof why);
    if (!m->elem) return cli_error("%s: %s", name, why);
    if (h->fortran_order)
        return cli_error("%s: fortran_order is True: column-major files are not supported (save a C-ordered "
                         "array, e.g. np.ascontiguousarray(a))",
                         name);
    if (h->ndim != 2) {
        char dims[200] = "";
        for (int i = 0; i < h->ndim; i++) {
            size_t k = strlen(dims);
            snprintf(dims + k, sizeof dims - k, "%s%" PRId64, i ? ", " : "", h->dims[i]);
        }
        return cli_error("%s: not 2-D: the array has shape (%s%s); transpose takes a 2-D array", name, dims,
                         h->ndim == 1 ? "," : "");
    }
    m->rows = h->dims[0];
    m->cols = h->dims[1];
    if (h->shape_too_large || (m->rows && (uint64_t)m->cols > SIZE_MAX / m->elem / (uint64_t)m->rows))
        return cli_error("%s: bad header: shape too large for this machine", name);
    size_t bytes = (size_t)m->rows * (size_t)m->cols * m->elem, have = len - h->data_offset;
    if (have < bytes)
        return cli_error("%s: truncated data: the header promises %" PRId64 " x %" PRId64 " items of %zu bytes (%zu "
                         "bytes) but only %zu bytes follow it",
                         name, m->rows, m->cols, m->elem, bytes, have);
    m->data = buf + h->data_offset;
    return CLI_EXIT_OK;
}

static int has_suffix(const char *path, const char *suffix)
{
    size_t n = strlen(path), k = strlen(suffix);
    return n >= k && strcasecmp(path + n - k, suffix) == 0;
}

static int write_result(const char *path, file_kind kind, const cli_npy_header *h, const cli_image *img,
                        const void *data, int64_t rows, int64_t cols, size_t elem)
{
    cli_outfile f;
    int rc = cli_outfile_open(&f, path);
    if (rc != CLI_EXIT_OK) return rc;
    size_t bytes = (size_t)rows * (size_t)cols * elem;
    int failed;
    if (kind == KIND_NPY) {
        int64_t dims[2] = {rows, cols};
        failed = cli_npy_write_header_nd(f.fp, h->descr, 2, dims) != 0 || fwrite(data, 1, bytes, f.fp) != bytes;
    } else {
        cli_image out = *img;
        out.width = (uint32_t)cols;
        out.height = (uint32_t)rows;
        out.pixels = (unsigned char *)data;
        failed = cli_png_write(&out, f.fp, path) != CLI_EXIT_OK;
        errno = 0;
    }
    if (failed) {
        int e = errno;
        if (kind == KIND_NPY) cli_error("cannot write '%s': %s", path, strerror(e ? e : EIO));
        cli_outfile_abort(&f);
        return CLI_EXIT_FAILURE;
    }
    return cli_outfile_commit(&f);
}

static void print_json(const char *in, const char *out, file_kind kind, const char *what, const matrix *m,
                       int64_t rows, int64_t cols, int planes, const operation *op, const gp_ctx *ctx)
{
    printf("{\"input\": ");
    cli_json_string(stdout, in);
    printf(", \"output\": ");
    cli_json_string(stdout, out);
    printf(", \"format\": \"%s\", \"element\": ", kind == KIND_PNG ? "png" : "npy");
    cli_json_string(stdout, what);
    printf(", \"element_bytes\": %zu, \"planes\": %d, \"shape\": [%" PRId64 ", %" PRId64 "], \"out_shape\": [%" PRId64
           ", %" PRId64 "], \"operation\": \"%s\", \"backend\": \"%s\"}\n",
           m->elem, planes, m->rows, m->cols, rows, cols, op->name, gp_backend_name(gp_ctx_backend(ctx)));
}

static int run_transpose(const cli_args *args)
{
    const char *out_path = cli_get(args, "output"), *in_path = args->positional[0];
    if (!out_path) return cli_usage_error("-o FILE is required");
    const char *output_names[] = {"-o"}, *output_paths[] = {out_path};
    int rc = cli_check_stdout_outputs(args->json, 1, output_names, output_paths, NULL);
    if (rc != CLI_EXIT_OK) return rc;
    operation op;
    rc = parse_operation(args, &op);
    if (rc != CLI_EXIT_OK) return rc;

    unsigned char *buf = NULL;
    size_t len = 0;
    const char *name;
    rc = cli_read_file(in_path, &buf, &len, &name);
    if (rc != CLI_EXIT_OK) return rc;
    file_kind kind;
    cli_npy_header h;
    memset(&h, 0, sizeof h);
    cli_image img;
    memset(&img, 0, sizeof img);
    matrix m;
    memset(&m, 0, sizeof m);
    char what[64];
    if (cli_png_signature(buf, len)) {
        kind = KIND_PNG;
        rc = cli_png_read(buf, len, name, &img);
        free(buf); /* decoded (or not): the file's bytes are no longer needed */
        buf = NULL;
        if (rc == CLI_EXIT_OK) {
            m.rows = img.height;
            m.cols = img.width;
            m.elem = img.pixel_bytes;
            m.data = img.pixels;
            cli_png_kind(&img, what, sizeof what);
            if (img.expanded_from[0])
                fprintf(stderr, "gpuprim transpose: %s: %s expanded to %s on reading\n", name, img.expanded_from,
                        what);
        }
    } else if (len >= 6 && memcmp(buf, "\x93NUMPY", 6) == 0) {
        kind = KIND_NPY;
        rc = npy_matrix(buf, len, name, &h, &m);
        snprintf(what, sizeof what, "%s", rc == CLI_EXIT_OK ? h.descr : "");
    } else {
        char shown[64];
        rc = cli_error("%s: neither a PNG image nor a .npy file (it starts with '%s')", name,
                       cli_printable((const char *)buf, len < 8 ? len : 8, shown, sizeof shown));
        kind = KIND_NPY;
    }
    if (rc == CLI_EXIT_OK &&
        ((kind == KIND_PNG && has_suffix(out_path, ".npy")) || (kind == KIND_NPY && has_suffix(out_path, ".png"))))
        rc = cli_usage_error("'%s': the result is written in the input's format (%s); give it a .%s name", out_path,
                             kind == KIND_PNG ? "PNG" : ".npy", kind == KIND_PNG ? "png" : "npy");

    gp_ctx *ctx = NULL;
    void *out = NULL;
    int64_t rows = 0, cols = 0;
    int planes = 1;
    size_t bytes = (size_t)m.rows * (size_t)m.cols * m.elem;
    if (rc == CLI_EXIT_OK && !(out = cli_host_malloc(bytes ? bytes : 1, "the result"))) rc = CLI_EXIT_FAILURE;
    if (rc == CLI_EXIT_OK) rc = cli_open_ctx(args->backend, 0, &ctx);
    if (rc == CLI_EXIT_OK) rc = run_on_ctx(ctx, &m, &op, out, &rows, &cols, &planes);
    if (rc == CLI_EXIT_OK) rc = write_result(out_path, kind, &h, &img, out, rows, cols, m.elem);
    if (rc == CLI_EXIT_OK && args->json) print_json(name, out_path, kind, what, &m, rows, cols, planes, &op, ctx);
    gp_ctx_free(ctx);
    free(out);
    cli_image_free(&img);
    free(buf);
    return rc;
}

const cli_verb cli_verb_transpose = {
    .name = "transpose",
    .summary = "transpose, rotate or flip a 2-D .npy array or a PNG image",
    .synopsis = "[--rotate 90|180|270] [--flip h|v] -o OUT IN",
    .details =
        "IN is a 2-D NumPy .npy file (C order, any dtype whose items have a size: numbers,\n"
        "complex, bytes 'S', unicode 'U', void 'V', datetimes; byte order is kept as is) or a\n"
        "PNG image (gray, gray+alpha, RGB, RGBA; 8 or 16 bits a sample); '-' reads standard\n"
        "input. OUT is written in the same format, under a temporary name renamed when\n"
        "complete ('-': standard output, not with --json). Without --rotate or --flip the\n"
        "result is the transpose: rows become columns. --rotate turns the image clockwise;\n"
        "--flip mirrors it (after the rotation when both are given).\n\n"
        "Items and pixels move whole, bit for bit: transposing twice gives the input back.\n"
        "Sizes 1, 2, 4, 8 and 16 bytes move in one call; others (RGB8 is 3 bytes, RGB16 6)\n"
        "as planes: split with one transpose, transformed as a batch, interleaved again.\n"
        "PNG palettes, bit depths under 8 and tRNS transparency are expanded on reading\n"
        "(RGB or RGBA, 8-bit gray; a note goes to stderr); other chunks (gamma, text) are\n"
        "not copied, and the output is not interlaced.\n\n"
        "With --json, one object: {\"input\", \"output\", \"format\", \"element\",\n"
        "\"element_bytes\", \"planes\", \"shape\", \"out_shape\", \"operation\", \"backend\"}.\n\n"
        "examples:\n"
        "  gpuprim transpose photo.png -o photo_t.png\n"
        "  gpuprim transpose --rotate 90 photo.png -o photo_r.png\n"
        "  gpuprim transpose --backend cuda matrix.npy -o matrix_t.npy\n",
    .opts = transpose_opts,
    .min_positional = 1,
    .max_positional = 1,
    .run = run_transpose,
};
