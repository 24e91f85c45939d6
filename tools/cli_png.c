/* PNG reading and writing for the tool (cli_png.h); without libpng in the
 * build, every call says so. */
#include "cli_png.h"
#include "cli_common.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const unsigned char png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

int cli_png_signature(const unsigned char *buf, size_t len)
{
    return len >= sizeof png_sig && memcmp(buf, png_sig, sizeof png_sig) == 0;
}

void cli_image_free(cli_image *img)
{
    if (!img) return;
    free(img->pixels);
    memset(img, 0, sizeof *img);
}

const char *cli_png_kind(const cli_image *img, char *buf, size_t size)
{
    static const char *const names[] = {"", "gray", "ga", "rgb", "rgba"};
    snprintf(buf, size, "%s%d", img->channels >= 1 && img->channels <= 4 ? names[img->channels] : "?",
             img->bit_depth);
    return buf;
}

#ifdef GPUPRIM_HAVE_PNG
#include <png.h>
#include <setjmp.h>

/* libpng reports errors through a callback that must not return: the
 * message is kept, then we jump back to the setjmp of the call. */
typedef struct png_io {
    const unsigned char *buf;
    size_t len, pos;
    char message[200];
} png_io;

static void on_error(png_structp png, png_const_charp msg)
{
    png_io *io = (png_io *)png_get_error_ptr(png);
    snprintf(io->message, sizeof io->message, "%s", msg);
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg; /* benign chunk complaints: the pixels are what matter here */
}

static void read_mem(png_structp png, png_bytep out, png_size_t n)
{
    png_io *io = (png_io *)png_get_io_ptr(png);
    if (n > io->len - io->pos) png_error(png, "the file ends inside the image data");
    memcpy(out, io->buf + io->pos, n);
    io->pos += n;
}

int cli_png_available(void) { return 1; }

/* The libpng calls, apart from the caller's `io`: objects local to the
 * function that calls setjmp and changed after it would be indeterminate
 * after the longjmp. */
static int read_png(png_io *io, const char *name, cli_image *out)
{
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, io, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    /* Set after setjmp and read after a longjmp: volatile. */
    png_bytep *volatile rows = NULL;
    if (!info) {
        png_destroy_read_struct(&png, NULL, NULL);
        return cli_error("%s: libpng could not start (out of memory)", name);
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        free(rows);
        cli_image_free(out);
        return cli_error("%s: not a readable PNG: %s", name, io->message);
    }
    png_set_read_fn(png, io, read_mem);
    png_read_info(png, info);
    int color = png_get_color_type(png, info), depth = png_get_bit_depth(png, info);
    if (color == PNG_COLOR_TYPE_PALETTE) snprintf(out->expanded_from, sizeof out->expanded_from, "palette");
    else if (depth < 8) snprintf(out->expanded_from, sizeof out->expanded_from, "%d-bit gray", depth);
    else if (png_get_valid(png, info, PNG_INFO_tRNS))
        snprintf(out->expanded_from, sizeof out->expanded_from, "%s with tRNS transparency",
                 color == PNG_COLOR_TYPE_GRAY ? "gray" : "RGB");
    png_set_expand(png); /* palette -> RGB(A), < 8 bits -> 8, tRNS -> alpha */
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    out->width = png_get_image_width(png, info);
    out->height = png_get_image_height(png, info);
    out->channels = png_get_channels(png, info);
    out->bit_depth = png_get_bit_depth(png, info);
    out->pixel_bytes = (size_t)out->channels * (size_t)out->bit_depth / 8;
    size_t row_bytes = png_get_rowbytes(png, info);
    if (row_bytes != out->width * out->pixel_bytes) png_error(png, "unexpected row layout after expansion");
    /* A header may claim any size up to 10^6 x 10^6: refuse one the file
     * could not fill before allocating for it. Deflate expands at most
     * 1032 times, and the expansions above at most 32 times (a 1-bit
     * palette index to 4 bytes of RGBA), so the pixels take at most 33024
     * bytes a byte of file. */
    const size_t most = io->len < SIZE_MAX / 33024 ? 33024 * io->len : SIZE_MAX;
    if (out->height > most / row_bytes) {
        char why[160];
        snprintf(why, sizeof why, "the header says %" PRIu32 " x %" PRIu32 " pixels, more than a %zu-byte file holds",
                 out->width, out->height, io->len);
        png_error(png, why);
    }
    if (out->height > SIZE_MAX / row_bytes || !(out->pixels = malloc(row_bytes * out->height)) ||
        !(rows = malloc(out->height * sizeof *rows)))
        png_error(png, "out of host memory for the pixels");
    for (uint32_t y = 0; y < out->height; y++) rows[y] = out->pixels + (size_t)y * row_bytes;
    png_read_image(png, (png_bytepp)rows);
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    free(rows);
    return CLI_EXIT_OK;
}

int cli_png_read(const unsigned char *buf, size_t len, const char *name, cli_image *out)
{
    memset(out, 0, sizeof *out);
    png_io io = {buf, len, 0, ""};
    return read_png(&io, name, out);
}

static int write_png(png_io *io, const cli_image *img, FILE *fp, const char *name)
{
    static const int types[] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                PNG_COLOR_TYPE_RGB_ALPHA};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, io, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        return cli_error("%s: libpng could not start (out of memory)", name);
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return cli_error("%s: writing the PNG failed: %s", name, io->message);
    }
    png_init_io(png, fp);
    png_set_IHDR(png, info, img->width, img->height, img->bit_depth, types[img->channels], PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    size_t row_bytes = img->width * img->pixel_bytes;
    for (uint32_t y = 0; y < img->height; y++) png_write_row(png, img->pixels + (size_t)y * row_bytes);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return CLI_EXIT_OK;
}

int cli_png_write(const cli_image *img, FILE *fp, const char *name)
{
    png_io io = {NULL, 0, 0, ""};
    return write_png(&io, img, fp, name);
}

#else /* no libpng in this build */

int cli_png_available(void) { return 0; }

int cli_png_read(const unsigned char *buf, size_t len, const char *name, cli_image *out)
{
    (void)buf;
    (void)len;
    memset(out, 0, sizeof *out);
    return cli_error("%s: is a PNG, but this gpuprim was built without libpng", name);
}

int cli_png_write(const cli_image *img, FILE *fp, const char *name)
{
    (void)img;
    (void)fp;
    return cli_error("%s: this gpuprim was built without libpng", name);
}

#endif
