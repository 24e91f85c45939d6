/*
 * Histogram bar charts as PNG: see cli_plot.h. The picture is drawn into an
 * RGB buffer (bars, grid, axes, text from the 5x7 font below, shown at
 * twice its size), then written row by row through libpng.
 */
#include "cli_plot.h"

#include "cli_common.h"
#include "cli_output.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef GPUPRIM_HAVE_PNG
#include <png.h>
#endif

enum {
    WIDTH = 960,
    HEIGHT = 540,
    SCALE = 2,                  /* font pixels per image pixel */
    ADVANCE = 6 * SCALE,        /* a glyph and one column of space */
    LINE = 7 * SCALE,           /* glyph height */
    TOP = 56,                   /* title and the y caption above the plot */
    BOTTOM = 64,                /* x labels and caption below it */
    RIGHT = 32,
    TICK = 6
};

/* ------------------------------------------------------------------ font */

/* 5x7 glyphs, one byte a row from the top, bit 4 the leftmost column. */
static const struct glyph {
    char c;
    unsigned char rows[7];
} font[] = {
    {' ', {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}}, {'0', {0x0e, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0e}},
    {'1', {0x04, 0x0c, 0x04, 0x04, 0x04, 0x04, 0x0e}}, {'2', {0x0e, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1f}},
    {'3', {0x1f, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0e}}, {'4', {0x02, 0x06, 0x0a, 0x12, 0x1f, 0x02, 0x02}},
    {'5', {0x1f, 0x10, 0x1e, 0x01, 0x01, 0x11, 0x0e}}, {'6', {0x06, 0x08, 0x10, 0x1e, 0x11, 0x11, 0x0e}},
    {'7', {0x1f, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08}}, {'8', {0x0e, 0x11, 0x11, 0x0e, 0x11, 0x11, 0x0e}},
    {'9', {0x0e, 0x11, 0x11, 0x0f, 0x01, 0x02, 0x0c}}, {'.', {0x00, 0x00, 0x00, 0x00, 0x00, 0x0c, 0x0c}},
    {',', {0x00, 0x00, 0x00, 0x00, 0x0c, 0x04, 0x08}}, {'-', {0x00, 0x00, 0x00, 0x1f, 0x00, 0x00, 0x00}},
    {'+', {0x00, 0x04, 0x04, 0x1f, 0x04, 0x04, 0x00}}, {':', {0x00, 0x0c, 0x0c, 0x00, 0x0c, 0x0c, 0x00}},
    {'(', {0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02}}, {')', {0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08}},
    {'[', {0x0e, 0x08, 0x08, 0x08, 0x08, 0x08, 0x0e}}, {']', {0x0e, 0x02, 0x02, 0x02, 0x02, 0x02, 0x0e}},
    {'/', {0x00, 0x01, 0x02, 0x04, 0x08, 0x10, 0x00}}, {'_', {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1f}},
    {'%', {0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03}}, {'=', {0x00, 0x00, 0x1f, 0x00, 0x1f, 0x00, 0x00}},
    {'<', {0x02, 0x04, 0x08, 0x10, 0x08, 0x04, 0x02}}, {'>', {0x08, 0x04, 0x02, 0x01, 0x02, 0x04, 0x08}},
    {'\'', {0x04, 0x04, 0x08, 0x00, 0x00, 0x00, 0x00}}, {'"', {0x0a, 0x0a, 0x0a, 0x00, 0x00, 0x00, 0x00}},
    {'*', {0x00, 0x04, 0x15, 0x0e, 0x15, 0x04, 0x00}}, {'?', {0x0e, 0x11, 0x01, 0x02, 0x04, 0x00, 0x04}},
    {'!', {0x04, 0x04, 0x04, 0x04, 0x04, 0x00, 0x04}}, {'#', {0x0a, 0x0a, 0x1f, 0x0a, 0x1f, 0x0a, 0x0a}},
    {'a', {0x00, 0x00, 0x0e, 0x01, 0x0f, 0x11, 0x0f}}, {'b', {0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x1e}},
    {'c', {0x00, 0x00, 0x0e, 0x10, 0x10, 0x11, 0x0e}}, {'d', {0x01, 0x01, 0x0d, 0x13, 0x11, 0x11, 0x0f}},
    {'e', {0x00, 0x00, 0x0e, 0x11, 0x1f, 0x10, 0x0e}}, {'f', {0x06, 0x09, 0x08, 0x1c, 0x08, 0x08, 0x08}},
    {'g', {0x00, 0x0f, 0x11, 0x11, 0x0f, 0x01, 0x0e}}, {'h', {0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x11}},
    {'i', {0x04, 0x00, 0x0c, 0x04, 0x04, 0x04, 0x0e}}, {'j', {0x02, 0x00, 0x06, 0x02, 0x02, 0x12, 0x0c}},
    {'k', {0x10, 0x10, 0x12, 0x14, 0x18, 0x14, 0x12}}, {'l', {0x0c, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0e}},
    {'m', {0x00, 0x00, 0x1a, 0x15, 0x15, 0x11, 0x11}}, {'n', {0x00, 0x00, 0x16, 0x19, 0x11, 0x11, 0x11}},
    {'o', {0x00, 0x00, 0x0e, 0x11, 0x11, 0x11, 0x0e}}, {'p', {0x00, 0x00, 0x1e, 0x11, 0x1e, 0x10, 0x10}},
    {'q', {0x00, 0x00, 0x0d, 0x13, 0x0f, 0x01, 0x01}}, {'r', {0x00, 0x00, 0x16, 0x19, 0x10, 0x10, 0x10}},
    {'s', {0x00, 0x00, 0x0e, 0x10, 0x0e, 0x01, 0x1e}}, {'t', {0x08, 0x08, 0x1c, 0x08, 0x08, 0x09, 0x06}},
    {'u', {0x00, 0x00, 0x11, 0x11, 0x11, 0x13, 0x0d}}, {'v', {0x00, 0x00, 0x11, 0x11, 0x11, 0x0a, 0x04}},
    {'w', {0x00, 0x00, 0x11, 0x11, 0x15, 0x15, 0x0a}}, {'x', {0x00, 0x00, 0x11, 0x0a, 0x04, 0x0a, 0x11}},
    {'y', {0x00, 0x00, 0x11, 0x11, 0x0f, 0x01, 0x0e}}, {'z', {0x00, 0x00, 0x1f, 0x02, 0x04, 0x08, 0x1f}},
    {'A', {0x0e, 0x11, 0x11, 0x1f, 0x11, 0x11, 0x11}}, {'B', {0x1e, 0x11, 0x11, 0x1e, 0x11, 0x11, 0x1e}},
    {'C', {0x0e, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0e}}, {'D', {0x1c, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1c}},
    {'E', {0x1f, 0x10, 0x10, 0x1e, 0x10, 0x10, 0x1f}}, {'F', {0x1f, 0x10, 0x10, 0x1e, 0x10, 0x10, 0x10}},
    {'G', {0x0e, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0f}}, {'H', {0x11, 0x11, 0x11, 0x1f, 0x11, 0x11, 0x11}},
    {'I', {0x0e, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0e}}, {'J', {0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0c}},
    {'K', {0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11}}, {'L', {0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1f}},
    {'M', {0x11, 0x1b, 0x15, 0x15, 0x11, 0x11, 0x11}}, {'N', {0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11}},
    {'O', {0x0e, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0e}}, {'P', {0x1e, 0x11, 0x11, 0x1e, 0x10, 0x10, 0x10}},
    {'Q', {0x0e, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0d}}, {'R', {0x1e, 0x11, 0x11, 0x1e, 0x14, 0x12, 0x11}},
    {'S', {0x0f, 0x10, 0x10, 0x0e, 0x01, 0x01, 0x1e}}, {'T', {0x1f, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04}},
    {'U', {0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0e}}, {'V', {0x11, 0x11, 0x11, 0x11, 0x11, 0x0a, 0x04}},
    {'W', {0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0a}}, {'X', {0x11, 0x11, 0x0a, 0x04, 0x0a, 0x11, 0x11}},
    {'Y', {0x11, 0x11, 0x0a, 0x04, 0x04, 0x04, 0x04}}, {'Z', {0x1f, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1f}},
};

static const struct glyph *find_glyph(char c)
{
    for (size_t i = 0; i < sizeof font / sizeof font[0]; i++)
        if (font[i].c == c) return &font[i];
    return find_glyph('?');
}

/* --------------------------------------------------------------- canvas */

typedef struct rgb {
    unsigned char r, g, b;
} rgb;

static const rgb WHITE = {255, 255, 255}, INK = {32, 32, 32}, GRID = {225, 225, 225}, BAR = {60, 110, 170},
                 BAR_EDGE = {38, 74, 120};

typedef struct canvas {
    unsigned char px[HEIGHT][WIDTH][3];
} canvas;

static void fill(canvas *c, int x0, int y0, int x1, int y1, rgb col) /* [x0, x1) x [y0, y1), clipped */
{
    if (x0 < 0) x0 = 0;
    if (y0 < 0) y0 = 0;
    if (x1 > WIDTH) x1 = WIDTH;
    if (y1 > HEIGHT) y1 = HEIGHT;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) c->px[y][x][0] = col.r, c->px[y][x][1] = col.g, c->px[y][x][2] = col.b;
}

static int text_width(const char *s) { return s[0] ? (int)strlen(s) * ADVANCE - SCALE : 0; }

static void text(canvas *c, int x, int y, const char *s, rgb col) /* (x, y): top left */
{
    for (; *s; s++, x += ADVANCE) {
        const struct glyph *g = find_glyph(*s);
        for (int row = 0; row < 7; row++)
            for (int bit = 0; bit < 5; bit++)
                if (g->rows[row] & (0x10 >> bit))
                    fill(c, x + bit * SCALE, y + row * SCALE, x + (bit + 1) * SCALE, y + (row + 1) * SCALE, col);
    }
}

/* ---------------------------------------------------------------- scales */

/* The smallest of 1, 2, 5 x 10^k that is >= x (x > 0). */
static double nice_step(double x)
{
    double mag = pow(10.0, floor(log10(x)));
    for (int i = 0; i < 3; i++) {
        static const double m[] = {1, 2, 5};
        if (m[i] * mag >= x * (1 - 1e-12)) return m[i] * mag;
    }
    return 10 * mag;
}

/* Counts as "1234", or "12.5k", "3M", "4.29G" past 99999. */
static void count_label(double v, char *buf, size_t size)
{
    static const char *const suffix[] = {"", "k", "M", "G", "T", "P", "E"};
    int k = 0;
    if (v >= 100000)
        while (v >= 1000 && k < 6) v /= 1000, k++;
    snprintf(buf, size, k ? "%.3g%s" : "%.0f%s", v, suffix[k]);
}

static void value_label(double v, char *buf, size_t size)
{
    if (isinf(v)) snprintf(buf, size, v > 0 ? "inf" : "-inf");
    else snprintf(buf, size, "%.4g", v == 0 ? 0.0 : v); /* no "-0" */
}

/* -------------------------------------------------------------- drawing */

static void draw(canvas *c, const cli_plot *p)
{
    fill(c, 0, 0, WIDTH, HEIGHT, WHITE);
    /* One bar per bin, or per `merge` adjacent bins (their sum, what a
     * coarser histogram would hold) when bins outnumber the pixels; every
     * bar but the last sums the same number, so the shape is not striped.
     * The plot is at least WIDTH - 160 - RIGHT pixels wide. */
    const int64_t min_pw = WIDTH - 160 - RIGHT;
    const int64_t merge = (p->bins + min_pw - 1) / min_pw, cols = (p->bins + merge - 1) / merge;
    double top = 0;
    char label[64];
    int left = 0;
    for (int64_t col = 0; col < cols; col++) {
        double s = 0;
        for (int64_t b = col * merge; b < (col + 1) * merge && b < p->bins; b++) s += (double)p->counts[b];
        if (s > top) top = s;
    }

    /* The y scale: its widest label sets the left margin. */
    double ystep = top > 0 ? nice_step(top / 5) : 1;
    if (ystep < 1) ystep = 1;
    double ymax = ystep * ceil(top / ystep);
    if (ymax <= 0) ymax = ystep;
    for (double v = 0; v <= ymax * (1 + 1e-9); v += ystep) {
        count_label(v, label, sizeof label);
        if (text_width(label) > left) left = text_width(label);
    }
    left += TICK + 14;
    const int x0 = left, x1 = WIDTH - RIGHT, y0 = TOP, y1 = HEIGHT - BOTTOM; /* plot area */
    const int pw = x1 - x0, ph = y1 - y0;

    /* Grid and y labels. */
    for (double v = 0; v <= ymax * (1 + 1e-9); v += ystep) {
        int y = y1 - (int)lround(v / ymax * ph);
        fill(c, x0, y, x1, y + 1, GRID);
        fill(c, x0 - TICK, y, x0, y + 1, INK);
        count_label(v, label, sizeof label);
        text(c, x0 - TICK - 6 - text_width(label), y - LINE / 2, label, INK);
    }

    /* Bars. */
    for (int64_t col = 0; col < cols; col++) {
        double s = 0;
        for (int64_t b = col * merge; b < (col + 1) * merge && b < p->bins; b++) s += (double)p->counts[b];
        int bx0 = x0 + (int)(col * pw / cols), bx1 = x0 + (int)((col + 1) * pw / cols);
        if (bx1 - bx0 >= 4) bx1 -= 1; /* a gap between wide bars */
        int h = (int)lround(s / ymax * ph);
        if (s > 0 && h == 0) h = 1; /* a non-empty bin shows */
        fill(c, bx0, y1 - h, bx1, y1, BAR);
        if (bx1 - bx0 >= 6 && h >= 2) { /* outline wide bars */
            fill(c, bx0, y1 - h, bx1, y1 - h + 1, BAR_EDGE);
            fill(c, bx0, y1 - h, bx0 + 1, y1, BAR_EDGE);
            fill(c, bx1 - 1, y1 - h, bx1, y1, BAR_EDGE);
        }
    }

    /* Axes. */
    fill(c, x0 - 1, y0, x0, y1 + 1, INK);
    fill(c, x0 - 1, y1, x1, y1 + 1, INK);

    /* x ticks at bin boundaries, as many as their labels leave room for. */
    int widest = 0;
    for (int64_t i = 0; i <= p->bins; i += (p->bins > 64 ? p->bins / 64 : 1)) {
        value_label(p->boundary(p->user, i), label, sizeof label);
        if (text_width(label) > widest) widest = text_width(label);
    }
    value_label(p->boundary(p->user, p->bins), label, sizeof label);
    if (text_width(label) > widest) widest = text_width(label);
    double per_bin = (double)pw / (double)(cols * merge); /* the last bar may be part full */
    int64_t step = (int64_t)nice_step(fmax(1.0, (widest + 24) / per_bin));
    for (int64_t i = 0; i <= p->bins; i += step) {
        int x = x0 + (int)lround((double)i * per_bin);
        fill(c, x, y1, x + 1, y1 + TICK, INK);
        value_label(p->boundary(p->user, i), label, sizeof label);
        int lx = x - text_width(label) / 2;
        if (lx + text_width(label) > WIDTH - 2) lx = WIDTH - 2 - text_width(label);
        text(c, lx, y1 + TICK + 6, label, INK);
    }

    /* Captions. */
    text(c, x0 - TICK - 6 - text_width("count") + text_width("count") / 2, y0 - LINE - 10, "count", INK);
    char xcap[64] = "value";
    if (merge > 1) snprintf(xcap, sizeof xcap, "value (bars of %lld bins)", (long long)merge);
    text(c, x0 + (pw - text_width(xcap)) / 2, HEIGHT - LINE - 10, xcap, INK);
    char title[128];
    snprintf(title, sizeof title, "%s", p->title ? p->title : "");
    int max_chars = (WIDTH - 20) / ADVANCE;
    if ((int)strlen(title) > max_chars) title[max_chars] = '\0';
    text(c, (WIDTH - text_width(title)) / 2, 14, title, INK);
}

/* ------------------------------------------------------------------ PNG */

#ifdef GPUPRIM_HAVE_PNG
int cli_plot_available(void) { return 1; }

static int write_rows(FILE *fp, const canvas *c)
{
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) { /* libpng reports failures by longjmp */
        png_destroy_write_struct(&png, &info);
        return -1;
    }
    png_init_io(png, fp);
    png_set_IHDR(png, info, WIDTH, HEIGHT, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < HEIGHT; y++) png_write_row(png, (png_const_bytep)c->px[y]);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return 0;
}

int cli_plot_write_png(const cli_plot *p, const char *path)
{
    canvas *c = cli_host_malloc(sizeof *c, "the plot");
    if (!c) return CLI_EXIT_FAILURE;
    draw(c, p);
    cli_outfile f;
    int rc = cli_outfile_open(&f, path);
    if (rc == CLI_EXIT_OK) {
        if (write_rows(f.fp, c) != 0) {
            cli_outfile_abort(&f);
            rc = cli_error("%s: writing the PNG failed", path);
        } else {
            rc = cli_outfile_commit(&f);
        }
    }
    free(c);
    return rc;
}
#else
int cli_plot_available(void) { return 0; }

int cli_plot_write_png(const cli_plot *p, const char *path)
{
    (void)p;
    return cli_error("%s: this gpuprim was built without libpng, so it cannot write PNG plots", path);
}
#endif
