/*
 * PNG images for `gpuprim transpose`, through libpng: pixels as raw bytes,
 * exactly as the file stores them (16-bit samples stay big-endian), so
 * moving whole pixels never touches their values.
 */
#ifndef CLI_PNG_H
#define CLI_PNG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct cli_image {
    uint32_t width, height;
    int channels;      /* 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA */
    int bit_depth;     /* 8 or 16 */
    size_t pixel_bytes; /* channels x bit_depth / 8: 1, 2, 3, 4, 6 or 8 */
    unsigned char *pixels; /* height rows of width pixels, no padding */
    /* What the file held when it was not one of the above, expanded on
     * reading ("palette", "1-bit gray", "gray with tRNS", ...); else "". */
    char expanded_from[48];
} cli_image;

/* 1 if the bytes start with the PNG signature. */
int cli_png_signature(const unsigned char *buf, size_t len);
/* 1 if this build reads and writes PNG (libpng was found). */
int cli_png_available(void);
/* Decodes a whole PNG held in memory. Palettes, bit depths under 8 and tRNS
 * transparency are expanded to 8-bit gray, RGB or RGBA (with alpha);
 * interlaced files are read whole. Errors printed ("NAME: ..."). */
int cli_png_read(const unsigned char *buf, size_t len, const char *name, cli_image *out);
/* Writes the image non-interlaced, libpng's default compression. Returns an
 * exit code (errors printed). */
int cli_png_write(const cli_image *img, FILE *fp, const char *name);
/* "gray8", "ga16", "rgb8", "rgba16", ... */
const char *cli_png_kind(const cli_image *img, char *buf, size_t size);
void cli_image_free(cli_image *img);

#endif /* CLI_PNG_H */
