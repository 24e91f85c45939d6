/*
 * Host-clock timing around gp_ctx_synchronize, and the measured copy
 * bandwidth that `info` and `demo` report beside their results.
 */
#ifndef CLI_TIMING_H
#define CLI_TIMING_H

#include "gpuprim.h"

#include <stddef.h>

/* Seconds on a monotonic clock. */
double cli_now(void);
/* Sorts v[0..n-1] and returns the median (n >= 1). */
double cli_median(double *v, int n);

typedef struct cli_copy_bandwidth {
    size_t bytes; /* copied per run; read + write counts 2 * bytes */
    int runs;
    double best_gbs, median_gbs; /* 10^9 bytes per second, read + write */
} cli_copy_bandwidth;

enum { CLI_MAX_RUNS = 1000 };

/* Times `runs` copies of `bytes` from src to dst (both in the context's
 * space) after `warmups` untimed ones. Prints a failure; returns an exit
 * code. */
int cli_time_copy(gp_ctx *ctx, void *dst, const void *src, size_t bytes, int warmups, int runs,
                  cli_copy_bandwidth *out);
/* As cli_time_copy between two buffers of `bytes` it allocates and frees. */
int cli_measure_copy(gp_ctx *ctx, size_t bytes, int warmups, int runs, cli_copy_bandwidth *out);

#endif /* CLI_TIMING_H */
