/*
 * Histogram bar charts as PNG: see cli_plot.h. The picture is drawn on a
 * plot_canvas (bars, grid, axes, text in its 5x7 font shown at twice its
 * size), then written through libpng.
 */
#include "cli_plot.h"

#include "cli_common.h"
#include "cli_output.h"
#include "plot_canvas.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static const plot_rgb WHITE = {255, 255, 255}, INK = {32, 32, 32}, GRID = {225, 225, 225},
                      BAR = {60, 110, 170}, BAR_EDGE = {38, 74, 120};

/* The canvas at this chart's font scale. */
static void fill(plot_canvas *c, int x0, int y0, int x1, int y1, plot_rgb col) { plot_fill(c, x0, y0, x1, y1, col); }
static int text_width(const char *s) { return plot_text_width(s, SCALE); }
static void text(plot_canvas *c, int x, int y, const char *s, plot_rgb col) { plot_text(c, x, y, s, SCALE, col); }

/* ---------------------------------------------------------------- scales */

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

static void draw(plot_canvas *c, const cli_plot *p)
{
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
    double ystep = top > 0 ? plot_nice_step(top / 5) : 1;
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
    int64_t step = (int64_t)plot_nice_step(fmax(1.0, (widest + 24) / per_bin));
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

int cli_plot_available(void) { return plot_png_available(); }

int cli_plot_write_png(const cli_plot *p, cli_outfile *f)
{
    const char *path = f->path;
    int rc = CLI_EXIT_OK;
    plot_canvas *c = NULL;
    if (!plot_png_available())
        rc = cli_error("%s: this gpuprim was built without libpng, so it cannot write PNG plots", path);
    else if (!(c = plot_canvas_new(WIDTH, HEIGHT, WHITE)))
        rc = cli_error("out of host memory for the plot");
    if (c) {
        draw(c, p);
        if (plot_write_png(c, f->fp) != 0 || fflush(f->fp) != 0) rc = cli_error("%s: writing the PNG failed", path);
        plot_canvas_free(c);
    }
    if (rc != CLI_EXIT_OK) cli_outfile_abort(f);
    return rc;
}
