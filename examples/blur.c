/*
 * A separable box blur done the way seed 003 describes: blur the rows,
 * transpose, blur the rows again (they are the columns now), transpose
 * back. Only row passes, each reading memory in order; the transposes turn
 * the column pass into one.
 *
 *   example_blur [--backend auto|cpu|cuda] [--radius R] [--check] IN.png [OUT.png]
 *
 * What runs where: the row blur is plain C on the host (gpuprim has no
 * filter primitive); the two transposes run through gpuprim on the chosen
 * backend. On a CUDA context the rows therefore cross the bus before and
 * after each transpose: the example shows the data layout, not a fast
 * pipeline (that would run the row filter on the device too).
 *
 * The image is held as planes, one per channel (gray, gray+alpha, RGB,
 * RGBA; 8 or 16 bits), and both transposes are one batched call over the
 * planes. --check also blurs the columns directly on the host and compares
 * bit for bit (exit 1 on any difference).
 */
#include <gpuprim.h>
#include <png.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct image {
    uint32_t w, h;
    int channels;   /* 1 to 4 */
    int bytes;      /* per sample: 1 or 2 */
    int color_type; /* PNG_COLOR_TYPE_* */
    unsigned char *planes; /* channels x h x w samples, 16-bit ones in host order */
} image;

/* ------------------------------------------------------------ PNG files */

/* Reads any PNG as planes: palettes and low bit depths are expanded to 8
 * bits, transparency chunks to an alpha channel. */
static int read_png(const char *path, image *img)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        perror(path);
        return -1;
    }
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    /* Changed after setjmp and used after a longjmp: volatile. */
    unsigned char *volatile pixels = NULL;
    png_bytep *volatile rows = NULL;
    img->planes = NULL;
    if (!info || setjmp(png_jmpbuf(png))) {
        fprintf(stderr, "%s: not a readable PNG\n", path);
        png_destroy_read_struct(&png, &info, NULL);
        free(pixels);
        free(rows);
        free(img->planes);
        fclose(fp);
        return -1;
    }
    png_init_io(png, fp);
    png_read_info(png, info);
    png_set_expand(png);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    img->w = png_get_image_width(png, info);
    img->h = png_get_image_height(png, info);
    img->channels = png_get_channels(png, info);
    img->bytes = png_get_bit_depth(png, info) == 16 ? 2 : 1;
    img->color_type = png_get_color_type(png, info);
    size_t row_bytes = png_get_rowbytes(png, info), n = (size_t)img->w * img->h;
    pixels = malloc(row_bytes * img->h);
    rows = malloc(img->h * sizeof *rows);
    img->planes = malloc(n * (size_t)img->channels * (size_t)img->bytes);
    if (!pixels || !rows || !img->planes) png_error(png, "out of memory");
    for (uint32_t y = 0; y < img->h; y++) rows[y] = pixels + y * row_bytes;
    png_read_image(png, (png_bytepp)rows);
    /* Interleaved, big-endian samples to planes in host order. */
    for (size_t i = 0; i < n; i++)
        for (int c = 0; c < img->channels; c++) {
            const unsigned char *s = pixels + (i * (size_t)img->channels + (size_t)c) * (size_t)img->bytes;
            if (img->bytes == 1) img->planes[(size_t)c * n + i] = s[0];
            else ((uint16_t *)img->planes)[(size_t)c * n + i] = (uint16_t)(s[0] << 8 | s[1]);
        }
    png_destroy_read_struct(&png, &info, NULL);
    free(pixels);
    free(rows);
    fclose(fp);
    return 0;
}

static int write_png(const char *path, const image *img)
{
    FILE *fp = fopen(path, "wb");
    if (!fp) {
        perror(path);
        return -1;
    }
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    size_t n = (size_t)img->w * img->h, row_bytes = (size_t)img->w * (size_t)img->channels * (size_t)img->bytes;
    unsigned char *row = malloc(row_bytes);
    if (!info || !row || setjmp(png_jmpbuf(png))) {
        fprintf(stderr, "%s: could not write the PNG\n", path);
        png_destroy_write_struct(&png, &info);
        free(row);
        fclose(fp);
        return -1;
    }
    png_init_io(png, fp);
    png_set_IHDR(png, info, img->w, img->h, img->bytes * 8, img->color_type, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (uint32_t y = 0; y < img->h; y++) {
        for (uint32_t x = 0; x < img->w; x++)
            for (int c = 0; c < img->channels; c++) {
                size_t i = (size_t)y * img->w + x;
                unsigned char *d = row + ((size_t)x * (size_t)img->channels + (size_t)c) * (size_t)img->bytes;
                if (img->bytes == 1) {
                    d[0] = img->planes[(size_t)c * n + i];
                } else {
                    uint16_t v = ((const uint16_t *)img->planes)[(size_t)c * n + i];
                    d[0] = (unsigned char)(v >> 8);
                    d[1] = (unsigned char)v;
                }
            }
        png_write_row(png, row);
    }
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(row);
    if (fclose(fp) != 0) {
        perror(path);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------- the blur */

/* Box blur of `rows` rows of `w` samples each (row pitch `pitch` samples,
 * output pitch `opitch`): the mean of the 2r + 1 samples around each one,
 * edges repeated, rounded to nearest. A running sum: O(1) per sample. */
static void blur_rows(const void *in, void *out, int64_t rows, int64_t w, int64_t pitch, int64_t opitch, int bytes,
                      int r)
{
    const uint64_t n = 2 * (uint64_t)r + 1;
    for (int64_t y = 0; y < rows; y++) {
#define SAMPLE(x) (bytes == 1 ? ((const uint8_t *)in)[y * pitch + (x)] : ((const uint16_t *)in)[y * pitch + (x)])
#define CLAMPED(x) SAMPLE((x) < 0 ? 0 : (x) >= w ? w - 1 : (x))
        uint64_t sum = 0;
        for (int64_t k = -r; k <= r; k++) sum += CLAMPED(k);
        for (int64_t x = 0; x < w; x++) {
            uint64_t v = (sum + n / 2) / n;
            if (bytes == 1) ((uint8_t *)out)[y * opitch + x] = (uint8_t)v;
            else ((uint16_t *)out)[y * opitch + x] = (uint16_t)v;
            sum += CLAMPED(x + r + 1);
            sum -= CLAMPED(x - r);
        }
#undef CLAMPED
#undef SAMPLE
    }
}

/* The same blur down every column, in place of transposes (for --check):
 * column x of a plane is a "row" of h samples with pitch 1 in x and w in y,
 * so it is gathered into a line, blurred, and scattered back. */
static int blur_columns_direct(const image *img, unsigned char *planes, int r)
{
    size_t n = (size_t)img->w * img->h, b = (size_t)img->bytes;
    unsigned char *line = malloc(img->h * b), *blurred = malloc(img->h * b);
    if (!line || !blurred) {
        free(line);
        free(blurred);
        return -1;
    }
    for (int c = 0; c < img->channels; c++)
        for (uint32_t x = 0; x < img->w; x++) {
            unsigned char *p = planes + (size_t)c * n * b;
            for (uint32_t y = 0; y < img->h; y++) memcpy(line + y * b, p + ((size_t)y * img->w + x) * b, b);
            blur_rows(line, blurred, 1, img->h, img->h, img->h, img->bytes, r);
            for (uint32_t y = 0; y < img->h; y++) memcpy(p + ((size_t)y * img->w + x) * b, blurred + y * b, b);
        }
    free(line);
    free(blurred);
    return 0;
}

/* ------------------------------------------------------------- pipeline */

/* Every plane's rows blurred on the host, then transposed by gpuprim:
 * `rows` x `cols` planes in, `cols` x `rows` planes out (host buffers). */
static gp_status blur_then_transpose(gp_ctx *ctx, const image *img, const unsigned char *in, unsigned char *out,
                                     int64_t rows, int64_t cols, int r, void *dev_a, void *dev_b)
{
    size_t bytes = (size_t)rows * (size_t)cols * (size_t)img->channels * (size_t)img->bytes;
    unsigned char *tmp = malloc(bytes);
    if (!tmp) return GP_STATUS_OUT_OF_MEMORY;
    blur_rows(in, tmp, rows * img->channels, cols, cols, cols, img->bytes, r);
    gp_status s = gp_copy_from_host(ctx, dev_a, tmp, bytes);
    free(tmp);
    /* One call for every plane: a batch of `channels` matrices. */
    gp_transpose_params p = {0};
    p.elem_size = (size_t)img->bytes;
    p.rows = rows;
    p.cols = cols;
    p.batch = img->channels;
    if (s == GP_STATUS_OK) s = gp_transpose_ex(ctx, dev_a, dev_b, &p);
    if (s == GP_STATUS_OK) s = gp_copy_to_host(ctx, out, dev_b, bytes); /* synchronises */
    return s;
}

static void usage(void)
{
    fprintf(stderr, "usage: example_blur [--backend auto|cpu|cuda] [--radius R] [--check] IN.png [OUT.png]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    gp_backend backend = GP_BACKEND_AUTO;
    int radius = 3, check = 0;
    const char *in_path = NULL, *out_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc) {
            if (gp_backend_from_name(argv[++i], &backend) != GP_STATUS_OK) usage();
        } else if (strcmp(argv[i], "--radius") == 0 && i + 1 < argc) {
            radius = atoi(argv[++i]);
            if (radius < 0 || radius > 1000) usage();
        } else if (strcmp(argv[i], "--check") == 0) {
            check = 1;
        } else if (argv[i][0] == '-' || (in_path && out_path)) {
            usage();
        } else if (!in_path) {
            in_path = argv[i];
        } else {
            out_path = argv[i];
        }
    }
    if (!in_path || (!out_path && !check)) usage();

    image img;
    if (read_png(in_path, &img) != 0) return 1;
    size_t bytes = (size_t)img.w * img.h * (size_t)img.channels * (size_t)img.bytes;
    unsigned char *mid = malloc(bytes), *result = malloc(bytes);
    gp_ctx *ctx = NULL;
    void *dev_a = NULL, *dev_b = NULL;
    gp_status s = mid && result ? gp_ctx_create(&ctx, backend, 0) : GP_STATUS_OUT_OF_MEMORY;
    if (s == GP_STATUS_OK) s = gp_malloc(ctx, &dev_a, bytes);
    if (s == GP_STATUS_OK) s = gp_malloc(ctx, &dev_b, bytes);
    /* Rows of h x w planes, transpose to w x h; their rows (the columns),
     * transpose back to h x w. */
    if (s == GP_STATUS_OK) s = blur_then_transpose(ctx, &img, img.planes, mid, img.h, img.w, radius, dev_a, dev_b);
    if (s == GP_STATUS_OK) s = blur_then_transpose(ctx, &img, mid, result, img.w, img.h, radius, dev_a, dev_b);
    int rc = 0;
    if (s != GP_STATUS_OK) {
        fprintf(stderr, "example_blur: %s (%s)\n", gp_status_string(s), ctx ? gp_ctx_last_error(ctx) : "");
        rc = 1;
    } else {
        printf("%ux%u, %d channel(s) of %d bits: blurred with radius %d; transposes on the %s backend\n", img.w,
               img.h, img.channels, img.bytes * 8, radius, gp_backend_name(gp_ctx_backend(ctx)));
    }
    if (rc == 0 && check) {
        /* The same blur without transposes: rows, then columns in place. */
        blur_rows(img.planes, mid, (int64_t)img.h * img.channels, img.w, img.w, img.w, img.bytes, radius);
        if (blur_columns_direct(&img, mid, radius) != 0 || memcmp(mid, result, bytes) != 0) {
            fprintf(stderr, "example_blur: the transposed pipeline differs from the direct blur\n");
            rc = 1;
        } else {
            printf("check: identical to blurring the columns directly\n");
        }
    }
    if (rc == 0 && out_path) {
        memcpy(img.planes, result, bytes);
        if (write_png(out_path, &img) != 0) rc = 1;
    }
    gp_free(ctx, dev_a);
    gp_free(ctx, dev_b);
    gp_ctx_free(ctx);
    free(img.planes);
    free(mid);
    free(result);
    return rc;
}
