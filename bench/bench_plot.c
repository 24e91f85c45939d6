/*
 * `gpuprim bench --plot OUT.png`: throughput charts of a report, one panel
 * per (case, op, dtype) series, the panels in a grid on one page under a
 * header naming the device, backend, date and commit.
 *
 * 1-D cases: x = n in elements on a log2 axis, y = GB/s (the bytes the
 * primitive must move, as in the tables) on a log10 axis; one line per
 * implementation, the ceiling dashed grey. 2-D cases (transpose): one group
 * of markers per shape, in the order run, the shape written under it.
 * A subject point whose check failed is crossed out in red.
 */
#include "bench.h"
#include "plot_canvas.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    PANEL_W = 720,
    PANEL_H = 460,
    HEADER_LINE = 24, /* a line of the header over the grid */
    MAX_HEADER = 6,
    FONT = 2,      /* font scale: 10 x 14 pixel glyphs */
    LINE_H = PLOT_GLYPH_H * FONT,
    MARK = 9,     /* marker side */
    MAX_SERIES = 256,
    MAX_POINTS = 128
};

/* Plot area inside a panel. */
enum { PAD_LEFT = 84, PAD_RIGHT = 28, PAD_TOP = 84, PAD_BOTTOM = 60 };

static const plot_rgb WHITE = {255, 255, 255}, INK = {32, 32, 32}, GRID = {228, 228, 228},
                      GRID_MAJOR = {200, 200, 200}, FRAME = {170, 170, 170}, WRONG = {210, 30, 30};
/* subject, peer, ceiling */
static const plot_rgb IMPL_COL[3] = {{31, 100, 180}, {235, 120, 20}, {130, 130, 130}};

/* One series: the report's points of one case, op and dtype, in run order. */
typedef struct series {
    const gpb_case *c;
    gp_op op;
    gp_dtype dtype;
    const gpb_point *pts[MAX_POINTS];
    int n;
} series;

typedef struct axis {
    double lo, hi; /* in axis units: log2 n (or shape index), log10 GB/s */
    int p0, p1;    /* pixels of lo and hi */
} axis;

static double to_px(const axis *a, double v) { return a->p0 + (v - a->lo) / (a->hi - a->lo) * (a->p1 - a->p0); }

static const gpb_time *impl_time(const gpb_point *p, int k)
{
    return k == 0 ? &p->subject : k == 1 ? &p->peer : &p->ceiling;
}

static const char *impl_name(const gpb_case *c, int k) { return k == 0 ? c->subject : k == 1 ? c->peer : c->ceiling; }

/* Groups the report into series, in order of first appearance. */
static int collect(const gpb_report *r, series *s, int max)
{
    int ns = 0;
    for (int i = 0; i < gpb_report_size(r); i++) {
        const gpb_case *c = gpb_report_case(r, i);
        const gpb_point *p = gpb_report_point(r, i);
        int k = 0;
        while (k < ns && !(s[k].c == c && s[k].op == p->spec.op && s[k].dtype == p->spec.dtype)) k++;
        if (k == ns) {
            if (ns == max) continue; /* more than a page can show: left out */
            s[ns].c = c, s[ns].op = p->spec.op, s[ns].dtype = p->spec.dtype, s[ns].n = 0;
            ns++;
        }
        if (s[k].n < MAX_POINTS) s[k].pts[s[k].n++] = p;
    }
    return ns;
}

/* Text clipped to `max_w` pixels (cut at a character). */
static void text_fit(plot_canvas *cv, int x, int y, const char *s, int max_w, plot_rgb col)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    while (buf[0] && plot_text_width(buf, FONT) > max_w) buf[strlen(buf) - 1] = '\0';
    plot_text(cv, x, y, buf, FONT, col);
}

static void y_label(double v, char *buf, size_t size) { snprintf(buf, size, "%g", v); }

/* The y axis: whole decades around the data; gridlines at 1, 2, 5 x 10^k,
 * labels on the decades (and on 2 and 5 when only one or two decades show). */
static void draw_y(plot_canvas *cv, const axis *y, int x0, int x1)
{
    int decades = (int)lround(y->hi - y->lo);
    char label[32];
    for (int d = (int)lround(y->lo); d < (int)lround(y->hi) + 1; d++) {
        static const double mult[] = {1, 2, 5};
        for (int m = 0; m < 3; m++) {
            double v = mult[m] * pow(10.0, d), lv = log10(v);
            if (lv > y->hi + 1e-9) break;
            int py = (int)lround(to_px(y, lv));
            plot_fill(cv, x0, py, x1, py + 1, m == 0 ? GRID_MAJOR : GRID);
            if (m == 0 || decades <= 2) {
                y_label(v, label, sizeof label);
                plot_fill(cv, x0 - 5, py, x0, py + 1, INK);
                plot_text(cv, x0 - 8 - plot_text_width(label, FONT), py - LINE_H / 2, label, FONT, INK);
            }
        }
    }
}

/* A marker: a filled square (subject), an outlined one (peer), a bar (ceiling). */
static void marker(plot_canvas *cv, int k, double x, double y)
{
    int px = (int)lround(x), py = (int)lround(y), h = MARK / 2;
    if (k == 0) {
        plot_fill(cv, px - h, py - h, px + h + 1, py + h + 1, IMPL_COL[0]);
    } else if (k == 1) {
        plot_fill(cv, px - h, py - h, px + h + 1, py + h + 1, IMPL_COL[1]);
        plot_fill(cv, px - h + 2, py - h + 2, px + h - 1, py + h - 1, WHITE);
    } else {
        plot_fill(cv, px - h - 2, py - 1, px + h + 3, py + 2, IMPL_COL[2]);
    }
}

static void cross(plot_canvas *cv, double x, double y)
{
    plot_line(cv, x - 7, y - 7, x + 7, y + 7, 2, 0, WRONG);
    plot_line(cv, x - 7, y + 7, x + 7, y - 7, 2, 0, WRONG);
}

/* The legend, one row under the panel's title: a line sample, then a name. */
static void legend(plot_canvas *cv, const gpb_case *c, int x, int y, int max_x)
{
    for (int k = 0; k < 3; k++) {
        char name[64];
        snprintf(name, sizeof name, "%s", impl_name(c, k));
        if (x + 34 + plot_text_width(name, FONT) > max_x) break;
        plot_line(cv, x, y + LINE_H / 2, x + 24, y + LINE_H / 2, 2, k == 2 ? 4 : 0, IMPL_COL[k]);
        marker(cv, k, x + 12, y + LINE_H / 2);
        x += 32;
        plot_text(cv, x, y, name, FONT, INK);
        x += plot_text_width(name, FONT) + 24;
    }
}

static double point_x(const series *s, int i)
{
    return s->c->default_shapes ? i + 0.5 : log2((double)s->pts[i]->spec.n);
}

static void draw_panel(plot_canvas *cv, const series *s, int ox, int oy)
{
    const int x0 = ox + PAD_LEFT, x1 = ox + PANEL_W - PAD_RIGHT, y0 = oy + PAD_TOP, y1 = oy + PANEL_H - PAD_BOTTOM;
    const int two_d = s->c->default_shapes != NULL;
    char title[160], opl[32], label[64];
    snprintf(title, sizeof title, "%s %s%s", s->c->name, gpb_op_label(s->c, s->op, opl, sizeof opl),
             gpb_dtype_name(s->dtype));
    plot_fill(cv, ox + 4, oy + 4, ox + PANEL_W - 4, oy + 5, FRAME); /* separates panels */
    text_fit(cv, ox + 16, oy + 14, title, PANEL_W - 32, INK);
    legend(cv, s->c, ox + 16, oy + 38, ox + PANEL_W - 16);

    /* Ranges over every measured time. */
    double gmin = INFINITY, gmax = 0, xmin = INFINITY, xmax = -INFINITY;
    for (int i = 0; i < s->n; i++) {
        xmin = fmin(xmin, point_x(s, i)), xmax = fmax(xmax, point_x(s, i));
        for (int k = 0; k < 3; k++) {
            double g = gpb_point_gbs(s->pts[i], impl_time(s->pts[i], k));
            if (!isnan(g) && g > 0) gmin = fmin(gmin, g), gmax = fmax(gmax, g);
        }
    }
    if (gmax <= 0) {
        text_fit(cv, x0, (y0 + y1) / 2, "nothing was measured", x1 - x0, INK);
        return;
    }
    axis y = {floor(log10(gmin)), ceil(log10(gmax)), y1, y0};
    if (y.hi - y.lo < 1) y.hi = y.lo + 1;
    axis x = {two_d ? 0 : floor(xmin), two_d ? s->n : ceil(xmax), x0 + (two_d ? 0 : 28), x1 - (two_d ? 0 : 20)};
    if (x.hi - x.lo < 1) x.lo -= 1, x.hi += 1;

    draw_y(cv, &y, x0, x1);
    plot_fill(cv, x0 - 1, y0, x0, y1 + 1, INK);
    plot_fill(cv, x0 - 1, y1, x1, y1 + 1, INK);
    plot_text(cv, ox + 16, y0 - LINE_H - 10, "GB/s", FONT, INK);

    /* x ticks: 2^k every `step` (as many as their labels leave room for), or shapes. */
    if (!two_d) {
        int lo = (int)x.lo, hi = (int)x.hi, step = hi - lo > 8 ? 2 : 1;
        while ((hi - lo) / step * (plot_text_width("2^30", FONT) + 14) > x1 - x0) step *= 2;
        for (int e = lo - lo % step; e <= hi; e += step) {
            if (e < lo) continue;
            int px = (int)lround(to_px(&x, e));
            plot_fill(cv, px, y1, px + 1, y1 + 5, INK);
            snprintf(label, sizeof label, "2^%d", e);
            plot_text(cv, px - plot_text_width(label, FONT) / 2, y1 + 10, label, FONT, INK);
        }
        const char *cap = "n, elements (log2)";
        plot_text(cv, (x0 + x1 - plot_text_width(cap, FONT)) / 2, y1 + 34, cap, FONT, INK);
    } else {
        int slot = (x1 - x0) / (s->n ? s->n : 1);
        for (int i = 0; i < s->n; i++) {
            int px = (int)lround(to_px(&x, i + 0.5));
            gpb_fmt_point(&s->pts[i]->spec, label, sizeof label);
            int scale = plot_text_width(label, FONT) + 6 <= slot ? FONT : 1;
            int lw = plot_text_width(label, scale);
            plot_fill(cv, px, y1, px + 1, y1 + 5, INK);
            plot_text(cv, px - lw / 2, y1 + 10 + (i % 2 && scale == 1 ? 10 : 0), label, scale, INK);
        }
        const char *cap = "shape, rows x cols";
        plot_text(cv, (x0 + x1 - plot_text_width(cap, FONT)) / 2, y1 + 34, cap, FONT, INK);
    }

    /* Lines (1-D), then markers on top; the ceiling first so gpuprim stays visible. */
    for (int k = 2; k >= 0; k--) {
        double px_prev = NAN, py_prev = NAN;
        for (int i = 0; i < s->n; i++) {
            const gpb_point *p = s->pts[i];
            double g = gpb_point_gbs(p, impl_time(p, k));
            if (isnan(g) || g <= 0) {
                px_prev = NAN; /* a gap: not measured here */
                continue;
            }
            double px = to_px(&x, point_x(s, i)) + (two_d ? (k - 1) * (MARK + 3) : 0), py = to_px(&y, log10(g));
            if (!two_d && !isnan(px_prev))
                plot_line(cv, px_prev, py_prev, px, py, k == 2 ? 2 : 3, k == 2 ? 6 : 0, IMPL_COL[k]);
            px_prev = px, py_prev = py;
        }
    }
    for (int k = 2; k >= 0; k--)
        for (int i = 0; i < s->n; i++) {
            const gpb_point *p = s->pts[i];
            double g = gpb_point_gbs(p, impl_time(p, k));
            if (isnan(g) || g <= 0) continue;
            double px = to_px(&x, point_x(s, i)) + (two_d ? (k - 1) * (MARK + 3) : 0), py = to_px(&y, log10(g));
            marker(cv, k, px, py);
            if (k == 0 && p->check_failed) cross(cv, px, py);
        }
}

/* Splits `text` at spaces into lines of at most `width` pixels (a word
 * longer than that gets a line of its own, clipped when drawn). */
enum { HEADER_CHARS = 160 };
static int wrap(const char *text, int width, char lines[][HEADER_CHARS], int max_lines)
{
    int n = 0;
    lines[0][0] = '\0';
    for (const char *w = text; *w;) {
        size_t len = strcspn(w, " "), cur = strlen(lines[n]);
        if (len > HEADER_CHARS - 2) len = HEADER_CHARS - 2;
        char try_[2 * HEADER_CHARS];
        memcpy(try_, lines[n], cur);
        try_[cur] = ' ';
        memcpy(try_ + cur + 1, w, len);
        try_[cur + 1 + len] = '\0';
        if (cur && (cur + 1 + len >= HEADER_CHARS || plot_text_width(try_, FONT) > width)) {
            if (++n == max_lines) return max_lines;
            memcpy(lines[n], w, len);
            lines[n][len] = '\0';
        } else {
            memcpy(lines[n], cur ? try_ : try_ + 1, cur + len + (cur ? 1 : 0) + 1);
        }
        w += strcspn(w, " ");
        while (*w == ' ') w++;
    }
    return n + 1;
}

int gpb_plot_available(void) { return plot_png_available(); }

int gpb_write_plot(const gpb_report *r, const gpb_meta *m, const gpb_opts *o, FILE *f)
{
    series *s = calloc(MAX_SERIES, sizeof *s);
    if (!s) {
        fprintf(stderr, "gpuprim bench: out of host memory for the plot\n");
        return GPB_ERROR;
    }
    int ns = collect(r, s, MAX_SERIES);
    int cols = ns <= 1 ? 1 : ns <= 4 ? 2 : ns <= 9 ? 3 : 4;
    int rows = ns ? (ns + cols - 1) / cols : 1;
    char text[640], lines[MAX_HEADER][HEADER_CHARS];
    snprintf(text, sizeof text, "gpuprim bench on %s (%s), %s, commit %s, gpuprim %s, median of %d runs; y: GB/s moved (log)",
             m->device, m->backend, m->date, m->commit, m->gpuprim_version, o->runs);
    int nlines = wrap(text, cols * PANEL_W - 32, lines, MAX_HEADER);
    int header_h = 16 + nlines * HEADER_LINE;
    plot_canvas *cv = plot_canvas_new(cols * PANEL_W, header_h + rows * PANEL_H, WHITE);
    if (!cv) {
        free(s);
        fprintf(stderr, "gpuprim bench: out of host memory for the plot\n");
        return GPB_ERROR;
    }
    for (int i = 0; i < nlines; i++) text_fit(cv, 16, 12 + i * HEADER_LINE, lines[i], cv->width - 32, INK);
    for (int i = 0; i < ns; i++) draw_panel(cv, &s[i], (i % cols) * PANEL_W, header_h + (i / cols) * PANEL_H);

    int rc = plot_write_png(cv, f) != 0 || ferror(f) ? GPB_ERROR : GPB_OK;
    plot_canvas_free(cv);
    free(s);
    return rc;
}
