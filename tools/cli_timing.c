/* Timing and copy bandwidth. */
#define _POSIX_C_SOURCE 200809L
#include "cli_timing.h"
#include "cli_common.h"

#include <stdlib.h>
#include <time.h>

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double cli_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, compare_doubles);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int cli_time_copy(gp_ctx *ctx, void *dst, const void *src, size_t bytes, int warmups, int runs,
                  cli_copy_bandwidth *out)
{
    double times[CLI_MAX_RUNS];
    if (runs < 1) runs = 1;
    if (runs > CLI_MAX_RUNS) runs = CLI_MAX_RUNS;
    gp_status s = GP_STATUS_OK;
    for (int i = 0; i < warmups && s == GP_STATUS_OK; i++) s = gp_copy(ctx, dst, src, bytes);
    if (s == GP_STATUS_OK) s = gp_ctx_synchronize(ctx);
    for (int i = 0; i < runs && s == GP_STATUS_OK; i++) {
        double t0 = cli_now();
        s = gp_copy(ctx, dst, src, bytes);
        if (s == GP_STATUS_OK) s = gp_ctx_synchronize(ctx);
        times[i] = cli_now() - t0;
    }
    if (s != GP_STATUS_OK) return cli_gp_error(ctx, s, "copy bandwidth: gp_copy of %zu bytes failed", bytes);
    double median = cli_median(times, runs);
    double moved = 2.0 * (double)bytes; /* every byte is read once and written once */
    out->bytes = bytes;
    out->runs = runs;
    out->best_gbs = times[0] > 0 ? moved / times[0] * 1e-9 : 0;
    out->median_gbs = median > 0 ? moved / median * 1e-9 : 0;
    return CLI_EXIT_OK;
}

int cli_measure_copy(gp_ctx *ctx, size_t bytes, int warmups, int runs, cli_copy_bandwidth *out)
{
    void *src = NULL, *dst = NULL;
    int rc = cli_ctx_malloc(ctx, &src, bytes, "the copy bandwidth source");
    if (rc == CLI_EXIT_OK) rc = cli_ctx_malloc(ctx, &dst, bytes, "the copy bandwidth destination");
    if (rc == CLI_EXIT_OK) {
        /* Touch every page before the clock starts (first-touch faults on the
         * CPU backend are not bandwidth). */
        gp_status s = gp_memset(ctx, src, 1, bytes);
        if (s == GP_STATUS_OK) s = gp_memset(ctx, dst, 0, bytes);
        if (s != GP_STATUS_OK) rc = cli_gp_error(ctx, s, "copy bandwidth: gp_memset of %zu bytes failed", bytes);
    }
    if (rc == CLI_EXIT_OK) rc = cli_time_copy(ctx, dst, src, bytes, warmups, runs, out);
    gp_status s1 = gp_free(ctx, src), s2 = gp_free(ctx, dst);
    if (rc == CLI_EXIT_OK && (s1 != GP_STATUS_OK || s2 != GP_STATUS_OK))
        rc = cli_gp_error(ctx, s1 != GP_STATUS_OK ? s1 : s2, "copy bandwidth: gp_free failed");
    return rc;
}
