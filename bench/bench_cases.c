/* The case table: every case this build has; a new primitive adds its line here. */
#include "bench_args.h"

#include <string.h>

extern const gpb_case gpb_reduce_cpu, gpb_transpose_cpu, gpb_filter_cpu, gpb_filter_ascending_cpu, gpb_scan_cpu,
    gpb_select_cpu, gpb_select_if_cpu, gpb_partition_cpu, gpb_partition_if_cpu, gpb_partition_copy_cpu,
    gpb_partition_copy_if_cpu;
#ifdef GPUPRIM_BENCH_CUDA
extern const gpb_case gpb_reduce_cuda, gpb_transpose_cuda;
extern const gpb_case gpb_count_cuda, gpb_histogram_cuda, gpb_histogram_one_bin_cuda, gpb_histogram_wide_bins_cuda,
    gpb_histogram_many_bins_cuda, gpb_histogram_edges_cuda;
extern const gpb_case gpb_scan_cuda, gpb_select_cuda, gpb_select_if_cuda, gpb_partition_cuda,
    gpb_partition_if_cuda, gpb_partition_copy_cuda, gpb_partition_copy_if_cuda, gpb_filter_cuda,
    gpb_filter_ascending_cuda, gpb_filter_vs_cpu_cuda;
#endif

const gpb_case *const gpb_cases[] = {
    &gpb_reduce_cpu,
    &gpb_transpose_cpu,
    &gpb_filter_cpu,
    &gpb_filter_ascending_cpu,
    &gpb_scan_cpu,
    &gpb_select_cpu,
    &gpb_select_if_cpu,
    &gpb_partition_cpu,
    &gpb_partition_if_cpu,
    &gpb_partition_copy_cpu,
    &gpb_partition_copy_if_cpu,
#ifdef GPUPRIM_BENCH_CUDA
    &gpb_reduce_cuda,
    &gpb_transpose_cuda,
    &gpb_count_cuda,
    &gpb_histogram_cuda,
    &gpb_histogram_one_bin_cuda,
    &gpb_histogram_wide_bins_cuda,
    &gpb_histogram_many_bins_cuda,
    &gpb_histogram_edges_cuda,
    &gpb_scan_cuda,
    &gpb_select_cuda,
    &gpb_select_if_cuda,
    &gpb_partition_cuda,
    &gpb_partition_if_cuda,
    &gpb_partition_copy_cuda,
    &gpb_partition_copy_if_cuda,
    &gpb_filter_cuda,
    &gpb_filter_ascending_cuda,
    &gpb_filter_vs_cpu_cuda,
#endif
};
const int gpb_ncases = sizeof gpb_cases / sizeof gpb_cases[0];

/* Every name of the CUDA part of the table above, built or not (a build
 * with CUDA reads the table itself). */
const char *const gpb_cuda_case_names[] = {
    "reduce",         "transpose",      "count",        "histogram",         "histogram-one-bin",
    "histogram-16384", "histogram-2^20", "histogram-edges", "scan",            "select",
    "select-if",      "partition",      "partition-if", "partition-copy",    "partition-copy-if",
    "filter",         "filter-ascending", "filter-vs-cpu",
};
const int gpb_ncuda_case_names = sizeof gpb_cuda_case_names / sizeof gpb_cuda_case_names[0];

/* The assertion below counts the names; this checks their spelling and
 * order against the table (a CUDA build's bench calls it, so that CI's
 * CUDA build fails on a name that a build without CUDA would miss). */
const char *gpb_cuda_case_names_differ(void)
{
#ifdef GPUPRIM_BENCH_CUDA
    const int first = gpb_ncases - gpb_ncuda_case_names;
    for (int i = 0; i < gpb_ncuda_case_names; i++) {
        const gpb_case *c = gpb_cases[first + i];
        if (c->backend != GP_BACKEND_CUDA || strcmp(c->name, gpb_cuda_case_names[i])) return gpb_cuda_case_names[i];
    }
#endif
    return NULL;
}

#ifdef GPUPRIM_BENCH_CUDA
/* A CUDA case added to the table needs its name here (11: the CPU cases). */
_Static_assert(sizeof gpb_cases / sizeof gpb_cases[0] ==
                   11 + sizeof gpb_cuda_case_names / sizeof gpb_cuda_case_names[0],
               "gpb_cuda_case_names: one name for each CUDA case of the table");
#else
_Static_assert(sizeof gpb_cases / sizeof gpb_cases[0] == 11, "the CPU cases: 11 (the assertion above counts them)");
#endif
_Static_assert(sizeof gpb_cases / sizeof gpb_cases[0] <= GPB_MAX_CASES, "GPB_MAX_CASES is too small for the table");
