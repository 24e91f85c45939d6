/*
 * Bar charts of histograms as PNG images (libpng), drawn with a small
 * built-in bitmap font: bars, axes, ticks and their labels, a title.
 */
#ifndef CLI_PLOT_H
#define CLI_PLOT_H

#include <stdint.h>

typedef struct cli_plot {
    const uint64_t *counts;
    int64_t bins;
    /* The boundary between bins i - 1 and i (0 <= i <= bins), for the x
     * tick labels; bars are drawn of equal width whatever the spacing. */
    double (*boundary)(const void *user, int64_t i);
    const void *user;
    const char *title;
} cli_plot;

/* 1 if this build can write PNG files. */
int cli_plot_available(void);
struct cli_outfile;
/* Draws the chart into f, opened by the caller, who commits it (with the
 * other outputs of its run). On failure aborts f, prints the error and
 * returns an exit code. */
int cli_plot_write_png(const cli_plot *p, struct cli_outfile *f);

#endif /* CLI_PLOT_H */
