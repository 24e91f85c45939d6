/* What the CUDA backend's files share about a context. */
#ifndef GP_CUDA_BACKEND_H
#define GP_CUDA_BACKEND_H

#include "gp_internal.h"

namespace gp_cuda {

/*
 * Layout of the per-context device control block: the 64-byte result slot
 * (ctx->result_slot, where gp_reduce_to_host lands) and the reduction's
 * 64-bit done-counter on its own 64 bytes. The counter is 0 between calls:
 * the last block of each multi-block reduction sets it back. Tickets count
 * in its low 32 bits; integer sums count there and carry their partials in
 * the high 32 (cuda_reduce.cu). After it, 16 bytes where the two clusters
 * of a small reduction meet, also 0 between calls. gp_count_if's kernel
 * (cuda_histogram.cu) takes its tickets the same way: launches on one
 * stream never overlap, so they can share it. Then the histograms' gate
 * (cuda_histogram.cu), which keeps an epoch between calls.
 */
constexpr size_t kResultSlotOffset = 0;
constexpr size_t kReduceCounterOffset = 64;
constexpr size_t kReducePairOffset = 80; /* 16 bytes where a reduction's two clusters meet */
constexpr size_t kHistGateOffset = 96;
constexpr size_t kControlBytes = 128;

/* The most elements a selection, partition or filter takes: the look-back
 * statuses' payload (cuda_lookback.cuh, kMaxCount). */
constexpr int64_t kSelectMaxElements = (int64_t(1) << 38) - 1;

/* The most elements a scan takes: 2^31 - 1 tiles (the kernels count tiles
 * and the look-back's tickets in 32 bits; scan() refuses more) of its
 * smallest tile, 2048 elements (256 threads of 8 eight-byte items;
 * cuda_scan.cu checks it). */
constexpr int64_t kScanMinTile = 2048;
constexpr int64_t kScanMaxElements = int64_t(0x7fffffff) * kScanMinTile;

/* Size classes of an out-of-place tiled transpose (cuda_transpose.cu,
 * size_class; the bounds are in cuda_tuning.h). */
enum transpose_size_class { kSizeSmall, kSizeMid, kSizeLarge };

/* ctx->impl of a CUDA context: device facts read once at creation, so the
 * hot path asks the runtime nothing. */
struct context_state {
    int sm_count;
    int cc_major;          /* compute capability: 9 and up have clusters and programmatic dependent launch */
    bool cooperative;      /* the device takes cooperative launches (persistent grids) */
    bool overlap_launches; /* sm_90 and not refused: launch_after_prior overlaps */
    unsigned max_resident; /* GPUPRIM_MAX_RESIDENT_BLOCKS: caps persistent grids and the filter's chunks (0: none) */
    bool lookback_warps;   /* GPUPRIM_LOOKBACK_WARPS=0 turns off the look-back-warp kernels */
    int byte_tiles;        /* GPUPRIM_BYTE_TILES: 1 always where they apply, 0 never, -1 (default) by size */
    int count_first_by_ticket; /* GPUPRIM_COUNT_FIRST_BY_TICKET: such partitions take tiles by ticket, overlapping the count, 1 always, 0 never, -1 (default) by size */
    int partition_count_first; /* GPUPRIM_PARTITION_COUNT_FIRST: persistent partitions counted first, 1 always where they apply, 0 never, -1 (default) by size */
    int partition_wide_one_pass; /* GPUPRIM_PARTITION_WIDE_ONE_PASS: one-pass partitions on wide tiles, 1 wherever they fit, 0 never, -1 (default) where they pay */
    /* GPUPRIM_PARTITION_COPY_WIDER: 1-byte partitions into two buffers on
     * wider tiles where they pay, 1 by comparison and flags, 0 never, -1
     * (default) as cuda_tuning.h says */
    int partition_copy_wider;
    /* GPUPRIM_WIDER_CUT: wider tiles on a cut grid (cuda_select.cu,
     * wider_cut_grid), 1 wherever it has a block, 0 never, -1 (default) as
     * cuda_tuning.h says */
    int wider_cut;
    long long l2_bytes;    /* the device's L2 */
    int transpose_size;    /* GPUPRIM_TRANSPOSE_SIZE: a transpose_size_class for every transpose, -1 (default) by size */
    void *control;            /* kControlBytes of device memory */
    unsigned *reduce_counter; /* inside `control`: the low half of a zeroed 64-bit word */
    unsigned long long *hist_gate; /* inside `control` */
    /* Blocks in the largest cluster reduce may launch (16 or 8), 0 for none
     * (GPUPRIM_REDUCE_CLUSTER=0 turns clusters off), -1 until first asked. */
    int reduce_cluster;
    /* GPUPRIM_REDUCE_SEGMENTS: a reduction grid's blocks read contiguous
     * segments, 1 always, 0 never, -1 (default) by size (cuda_tuning.h). */
    int reduce_segments;
    /* The same for the small scans and filters (cuda_scan_cluster.cuh,
     * cuda_filter_cluster.cuh; GPUPRIM_SMALL_CLUSTER=0). */
    int small_cluster;
    /* The look-back arena of scan, select, partition and the filter
     * (cuda_lookback.cuh): allocated zeroed on first use, grown rarely. */
    void *lookback_pool;
    unsigned long long lookback_slots;
};

inline context_state *state(const gp_ctx *ctx) { return static_cast<context_state *>(ctx->impl); }

size_t reduce_workspace(const gp_ctx *ctx, const gp_reduce_args *a);
gp_status reduce(gp_ctx *ctx, const gp_reduce_args *a, void *ws);
/* cuda_transpose.cu: every element size, flag and layout the core passes. */
gp_status transpose(gp_ctx *ctx, const gp_transpose_args *a);
/* cuda_scan.cu: every scan the core accepts. */
size_t scan_workspace(const gp_ctx *ctx, const gp_scan_args *a, bool pooled);
gp_status scan(gp_ctx *ctx, const gp_scan_args *a, void *ws);
/* cuda_select.cu: selection and partition (by flags or comparison), the
 * running-max filter; every dtype. */
size_t select_workspace(const gp_ctx *ctx, gp_dtype t, int64_t n, bool pooled);
size_t filter_workspace(const gp_ctx *ctx, gp_dtype t, int64_t n, bool pooled);
gp_status select(gp_ctx *ctx, const gp_select_args *a, void *ws);
gp_status filter(gp_ctx *ctx, const gp_filter_args *a, void *ws);

} // namespace gp_cuda

#endif
