/*
 * A small RGB canvas for charts written as PNG (libpng): filled
 * rectangles, lines (solid or dashed), text in a built-in 5x7 bitmap font
 * drawn at an integer scale, and a "nice" tick step. Shared by the tool's
 * histogram bar charts (cli_plot.c) and the bench's line charts
 * (bench_plot.c); it depends on nothing but libc and, optionally, libpng.
 */
#ifndef PLOT_CANVAS_H
#define PLOT_CANVAS_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct plot_rgb {
    unsigned char r, g, b;
} plot_rgb;

typedef struct plot_canvas {
    int width, height;
    unsigned char *px; /* height rows of width RGB pixels */
} plot_canvas;

/* Glyph cell of the font at scale 1: 5 x 7 pixels, then one column of space. */
enum { PLOT_GLYPH_W = 5, PLOT_GLYPH_H = 7, PLOT_ADVANCE = 6 };

/* A canvas filled with `background`; NULL when out of memory. */
plot_canvas *plot_canvas_new(int width, int height, plot_rgb background);
void plot_canvas_free(plot_canvas *c);

/* Fills [x0, x1) x [y0, y1), clipped to the canvas. */
void plot_fill(plot_canvas *c, int x0, int y0, int x1, int y1, plot_rgb col);
/* A line from (x0, y0) to (x1, y1), `thick` pixels wide; dash > 0 draws
 * `dash` pixels on, `dash` off along the line. */
void plot_line(plot_canvas *c, double x0, double y0, double x1, double y1, int thick, int dash, plot_rgb col);
/* Width in pixels of `s` at `scale` (the gap after the last glyph excluded). */
int plot_text_width(const char *s, int scale);
/* Draws `s` with its top left at (x, y); characters the font lacks show as '?'. */
void plot_text(plot_canvas *c, int x, int y, const char *s, int scale, plot_rgb col);

/* The smallest of 1, 2, 5 x 10^k that is >= x (x > 0). */
double plot_nice_step(double x);

/* 1 if this build can write PNG files (libpng was found). */
int plot_png_available(void);
/* Writes the canvas as an 8-bit RGB PNG to an open file; 0, or -1 when
 * libpng failed or is not built in. */
int plot_write_png(const plot_canvas *c, FILE *fp);

#ifdef __cplusplus
}
#endif

#endif /* PLOT_CANVAS_H */
