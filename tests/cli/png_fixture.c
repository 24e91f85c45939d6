/*
 * Writes a PNG test fixture with deterministic content, so the CLI tests
 * need no image files in the repository and no Python.
 *
 *   png_fixture TYPE WIDTH HEIGHT OUT.png [interlace]
 *
 * TYPE: gray8 gray16 ga8 ga16 rgb8 rgb16 rgba8 rgba16 (a sample is a hash
 * of its position and channel, every byte value occurs), palette (4
 * entries, 2 bits a pixel), gray1 (1 bit a pixel).
 */
#include <png.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    int color_type, depth;
} types[] = {
    {"gray8", PNG_COLOR_TYPE_GRAY, 8},        {"gray16", PNG_COLOR_TYPE_GRAY, 16},
    {"ga8", PNG_COLOR_TYPE_GRAY_ALPHA, 8},    {"ga16", PNG_COLOR_TYPE_GRAY_ALPHA, 16},
    {"rgb8", PNG_COLOR_TYPE_RGB, 8},          {"rgb16", PNG_COLOR_TYPE_RGB, 16},
    {"rgba8", PNG_COLOR_TYPE_RGB_ALPHA, 8},   {"rgba16", PNG_COLOR_TYPE_RGB_ALPHA, 16},
    {"palette", PNG_COLOR_TYPE_PALETTE, 2},   {"gray1", PNG_COLOR_TYPE_GRAY, 1},
};

static uint32_t hash(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    return x ^ (x >> 16);
}

int main(int argc, char **argv)
{
    if (argc < 5 || argc > 6) {
        fprintf(stderr, "usage: png_fixture TYPE WIDTH HEIGHT OUT.png [interlace]\n");
        return 2;
    }
    int t = -1;
    for (int i = 0; i < (int)(sizeof types / sizeof types[0]); i++)
        if (strcmp(argv[1], types[i].name) == 0) t = i;
    long w = strtol(argv[2], NULL, 10), h = strtol(argv[3], NULL, 10);
    if (t < 0 || w < 1 || h < 1 || w > 100000 || h > 100000) {
        fprintf(stderr, "png_fixture: bad type or size\n");
        return 2;
    }
    int interlace = argc == 6 && strcmp(argv[5], "interlace") == 0;
    FILE *fp = fopen(argv[4], "wb");
    if (!fp) {
        perror(argv[4]);
        return 1;
    }
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info || setjmp(png_jmpbuf(png))) {
        fprintf(stderr, "png_fixture: libpng failed\n");
        return 1;
    }
    png_init_io(png, fp);
    png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, types[t].depth, types[t].color_type,
                 interlace ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    if (types[t].color_type == PNG_COLOR_TYPE_PALETTE) {
        png_color pal[4] = {{0, 0, 0}, {255, 0, 0}, {0, 200, 0}, {10, 20, 250}};
        png_set_PLTE(png, info, pal, 4);
    }
    png_write_info(png, info);
    int channels = png_get_channels(png, info), depth = types[t].depth;
    size_t row_bytes = ((size_t)w * (size_t)channels * (size_t)depth + 7) / 8;
    png_bytep pixels = calloc((size_t)h, row_bytes);
    png_bytepp rows = malloc((size_t)h * sizeof *rows);
    if (!pixels || !rows) {
        fprintf(stderr, "png_fixture: out of memory\n");
        return 1;
    }
    for (long y = 0; y < h; y++) {
        rows[y] = pixels + (size_t)y * row_bytes;
        if (depth >= 8) {
            for (size_t i = 0; i < row_bytes; i++) rows[y][i] = (png_byte)hash((uint32_t)(y * 1000003 + (long)i));
        } else {
            for (long x = 0; x < w; x++) { /* packed samples, most significant bits first */
                unsigned v = hash((uint32_t)(y * 7919 + x)) & ((1u << depth) - 1);
                long bit = x * depth;
                rows[y][bit / 8] |= (png_byte)(v << (8 - depth - bit % 8));
            }
        }
    }
    png_write_image(png, rows);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(pixels);
    free(rows);
    return fclose(fp) == 0 ? 0 : 1;
}
