/* `gpuprim info`: what this build and this machine offer. */
#include "cli_common.h"
#include "cli_timing.h"

#include <stdio.h>
#include <string.h>

static const cli_opt info_opts[] = {
    {"no-bandwidth", 0, NULL, "skip the copy bandwidth measurements"},
    {NULL, 0, NULL, NULL},
};

/* Sizes and repetitions of the copy measurement: well past any L2, and
 * enough runs for a stable median; the CPU is slower, so fewer and smaller. */
enum {
    INFO_GPU_COPY_BYTES = 256 << 20,
    INFO_GPU_COPY_RUNS = 20,
    INFO_CPU_COPY_BYTES = 64 << 20,
    INFO_CPU_COPY_RUNS = 10,
    INFO_WARMUPS = 3
};

typedef struct backend_report {
    gp_backend backend;
    int built, usable;
    char detail[512];
    int measured; /* copy bandwidth: 1 measured, 0 not asked, -1 failed */
    cli_copy_bandwidth copy;
} backend_report;

typedef struct device_report {
    int index;
    gp_status status;
    gp_device_info info;
    double peak_gbs;
    int measured;
    cli_copy_bandwidth copy;
} device_report;

enum { INFO_MAX_DEVICES = 64 };

static int want_measure(const cli_args *args, gp_backend b)
{
    return !cli_get(args, "no-bandwidth") && (args->backend == GP_BACKEND_AUTO || args->backend == b);
}

static int measure_on(gp_backend b, int device, size_t bytes, int runs, cli_copy_bandwidth *out)
{
    gp_ctx *ctx = NULL;
    int rc = cli_open_ctx(b, device, &ctx);
    if (rc == CLI_EXIT_OK) rc = cli_measure_copy(ctx, bytes, INFO_WARMUPS, runs, out);
    gp_ctx_free(ctx);
    return rc;
}

/* Seed 000's formula: bus width / 8 x memory clock x 2 (double data rate). */
static double peak_from_fields(const gp_device_info *d)
{
    if (d->peak_bandwidth_gbs > 0) return d->peak_bandwidth_gbs;
    return (double)d->memory_bus_width_bits / 8.0 * (double)d->memory_clock_khz * 1e3 * 2.0 * 1e-9;
}

/* CUDA writes versions as 1000 x major + 10 x minor (13000 is 13.0). */
static const char *cuda_version(int v, char *buf, size_t size)
{
    if (v > 0)
        snprintf(buf, size, "%d.%d", v / 1000, v % 1000 / 10);
    else
        snprintf(buf, size, "unknown");
    return buf;
}

static void print_text(const backend_report *b, int nb, const device_report *d, int nd)
{
    printf("gpuprim %s\n\nbackends:\n", gp_version_string());
    for (int i = 0; i < nb; i++) {
        const backend_report *r = &b[i];
        if (!r->built)
            printf("  %-5s not built into this library\n", gp_backend_name(r->backend));
        else if (!r->usable)
            printf("  %-5s built, not usable here: %s\n", gp_backend_name(r->backend),
                   r->detail[0] ? r->detail : "no reason given");
        else
            printf("  %-5s usable%s%s%s\n", gp_backend_name(r->backend), r->detail[0] ? " (" : "", r->detail,
                   r->detail[0] ? ")" : "");
        if (r->backend == GP_BACKEND_CPU && r->measured == 1)
            printf("        copy bandwidth %.1f GB/s (gp_copy of %zu MiB, read + write counted; median of %d, best "
                   "%.1f)\n",
                   r->copy.median_gbs, r->copy.bytes >> 20, r->copy.runs, r->copy.best_gbs);
    }
    if (nd == 0) printf("\nGPUs: none\n");
    for (int i = 0; i < nd; i++) {
        const device_report *r = &d[i];
        const gp_device_info *g = &r->info;
        if (r->status != GP_STATUS_OK) {
            printf("\nGPU %d: no information (%s)\n", r->index, gp_status_string(r->status));
            continue;
        }
        char mem[32], l2[32];
        printf("\nGPU %d: %s\n", r->index, g->name);
        printf("  compute capability      %d.%d\n", g->compute_major, g->compute_minor);
        printf("  multiprocessors (SMs)   %d\n", g->sm_count);
        printf("  memory                  %s\n", cli_format_bytes(g->total_memory_bytes, mem, sizeof mem));
        printf("  L2 cache                %s\n", cli_format_bytes(g->l2_bytes, l2, sizeof l2));
        printf("  memory bus width        %d bits\n", g->memory_bus_width_bits);
        printf("  memory clock            %.0f MHz\n", g->memory_clock_khz / 1e3);
        char driver[32], runtime[32];
        printf("  driver / runtime        %s / %s\n", cuda_version(g->driver_version, driver, sizeof driver),
               cuda_version(g->runtime_version, runtime, sizeof runtime));
        if (r->peak_gbs > 0)
            printf("  theoretical bandwidth   %.1f GB/s (%d bits / 8 x %.0f MHz x 2, seed 000's formula)\n",
                   r->peak_gbs, g->memory_bus_width_bits, g->memory_clock_khz / 1e3);
        else
            printf("  theoretical bandwidth   unknown (bus width or memory clock not reported)\n");
        if (r->measured == 1) {
            printf("  measured copy bandwidth %.1f GB/s", r->copy.median_gbs);
            if (r->peak_gbs > 0) printf(" (%.1f%% of theoretical)", 100.0 * r->copy.median_gbs / r->peak_gbs);
            printf("; gp_copy of %zu MiB, read + write counted, median of %d, best %.1f GB/s\n",
                   r->copy.bytes >> 20, r->copy.runs, r->copy.best_gbs);
        } else if (r->measured < 0) {
            printf("  measured copy bandwidth failed (see the error above)\n");
        }
    }
}

static void print_copy_json(const cli_copy_bandwidth *c)
{
    printf("{\"bytes\": %zu, \"runs\": %d, \"median_gbs\": %.3f, \"best_gbs\": %.3f}", c->bytes, c->runs,
           c->median_gbs, c->best_gbs);
}

static void print_json(const backend_report *b, int nb, const device_report *d, int nd)
{
    printf("{\"version\": \"%s\", \"backends\": [", gp_version_string());
    for (int i = 0; i < nb; i++) {
        const backend_report *r = &b[i];
        printf("%s{\"name\": \"%s\", \"built\": %s, \"usable\": %s, \"detail\": ", i ? ", " : "",
               gp_backend_name(r->backend), r->built ? "true" : "false", r->usable ? "true" : "false");
        cli_json_string(stdout, r->detail);
        if (r->backend == GP_BACKEND_CPU && r->measured == 1) {
            printf(", \"copy\": ");
            print_copy_json(&r->copy);
        }
        printf("}");
    }
    printf("], \"devices\": [");
    for (int i = 0; i < nd; i++) {
        const device_report *r = &d[i];
        const gp_device_info *g = &r->info;
        printf("%s{\"index\": %d, \"status\": \"%s\"", i ? ", " : "", r->index, gp_status_name(r->status));
        if (r->status == GP_STATUS_OK) {
            printf(", \"name\": ");
            cli_json_string(stdout, g->name);
            printf(", \"compute_capability\": \"%d.%d\", \"sm_count\": %d, \"memory_bytes\": %zu, \"l2_bytes\": %zu, "
                   "\"memory_bus_width_bits\": %d, \"memory_clock_khz\": %d, \"driver_version\": %d, "
                   "\"runtime_version\": %d, \"peak_bandwidth_gbs\": %.3f",
                   g->compute_major, g->compute_minor, g->sm_count, g->total_memory_bytes, g->l2_bytes,
                   g->memory_bus_width_bits, g->memory_clock_khz, g->driver_version, g->runtime_version,
                   r->peak_gbs);
            if (r->measured == 1) {
                printf(", \"copy\": ");
                print_copy_json(&r->copy);
                if (r->peak_gbs > 0) printf(", \"copy_share_of_peak\": %.4f", r->copy.median_gbs / r->peak_gbs);
            }
        }
        printf("}");
    }
    printf("]}\n");
}

static int run_info(const cli_args *args)
{
    int rc = CLI_EXIT_OK;
    backend_report backends[2];
    const gp_backend order[2] = {GP_BACKEND_CPU, GP_BACKEND_CUDA};
    for (int i = 0; i < 2; i++) {
        backend_report *r = &backends[i];
        memset(r, 0, sizeof *r);
        r->backend = order[i];
        r->built = gp_backend_built(order[i]);
        r->usable = gp_backend_probe(order[i], r->detail, sizeof r->detail) == GP_STATUS_OK;
    }
    if (backends[0].usable && want_measure(args, GP_BACKEND_CPU)) {
        backends[0].measured = measure_on(GP_BACKEND_CPU, 0, INFO_CPU_COPY_BYTES, INFO_CPU_COPY_RUNS,
                                          &backends[0].copy) == CLI_EXIT_OK ? 1 : -1;
        if (backends[0].measured < 0) rc = CLI_EXIT_FAILURE;
    }

    static device_report devices[INFO_MAX_DEVICES];
    int nd = backends[1].usable ? gp_device_count() : 0;
    if (nd > INFO_MAX_DEVICES) nd = INFO_MAX_DEVICES;
    for (int i = 0; i < nd; i++) {
        device_report *r = &devices[i];
        memset(r, 0, sizeof *r);
        r->index = i;
        r->status = gp_device_get_info(i, &r->info);
        if (r->status != GP_STATUS_OK) {
            rc = cli_gp_error(NULL, r->status, "gp_device_get_info(%d) failed", i);
            continue;
        }
        r->peak_gbs = peak_from_fields(&r->info);
        if (want_measure(args, GP_BACKEND_CUDA)) {
            r->measured = measure_on(GP_BACKEND_CUDA, i, INFO_GPU_COPY_BYTES, INFO_GPU_COPY_RUNS, &r->copy) ==
                                  CLI_EXIT_OK
                              ? 1
                              : -1;
            if (r->measured < 0) rc = CLI_EXIT_FAILURE;
        }
    }
    if (args->json)
        print_json(backends, 2, devices, nd);
    else
        print_text(backends, 2, devices, nd);
    return rc;
}

const cli_verb cli_verb_info = {
    .name = "info",
    .summary = "show the version, the backends and the GPUs, with measured copy bandwidth",
    .synopsis = "[--no-bandwidth]",
    .details =
        "For each GPU: name, compute capability, SMs, memory, L2, bus width, memory clock, the\n"
        "theoretical bandwidth by seed 000's formula (bus width / 8 x memory clock x 2) and a\n"
        "measured device-to-device copy bandwidth: gp_copy between two 256 MiB buffers, timed\n"
        "with a host clock around gp_ctx_synchronize, counting bytes read + written, median\n"
        "of 20 after 3 warm-ups. The CPU backend is measured the same way (64 MiB, 10 runs).\n"
        "--backend cpu or cuda measures only that backend.\n",
    .opts = info_opts,
    .min_positional = 0,
    .max_positional = 0,
    .run = run_info,
};
