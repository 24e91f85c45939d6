/*
 * CUDA counting and histograms.
 *
 * Count: a persistent grid reads 16-byte vectors, each thread counts in a
 * register, each block reduces its count, and the blocks combine theirs on
 * a ticket in the context's control block (below 2^32 the counts ride on
 * the ticket's word; past it the last block adds the blocks' partials) and
 * the last one writes the 64-bit count: one launch, no memset, no
 * contended atomic (cuda_block_count.cuh).
 *
 * Histograms, three kernels:
 * - 8-bit inputs (hist_bytes_kernel) count raw byte values, 256 rows of 32
 *   lane columns in shared memory: lane l always adds to column l, so a
 *   warp's 32 atomics hit 32 different banks whatever the data (one bin or
 *   uniform costs the same), and no element needs any arithmetic. A flush
 *   maps each value to its bin once and adds the row into the histogram.
 * - Other inputs with bins that fit in shared memory (hist_shared_kernel)
 *   compute each element's bin and add it to a block-private copy: bins x C
 *   32-bit counters, lane l using column l % C, C = 32 down to 1 as the bins
 *   grow (cuda_histogram.cuh). With C < 8, lanes first group equal bins
 *   with __match_any_sync and one lane adds the group's size.
 * - Too many bins for shared memory (hist_global_kernel): the same warp
 *   grouping, then one 64-bit atomic per distinct bin per warp straight
 *   into the histogram.
 * Shared counters are 32-bit and flushed (added to the 64-bit histogram with
 * one atomic per non-zero row, then cleared) every kHistRoundElems elements
 * of a block, so none can wrap. Non-accumulate mode needs the histogram zero
 * before the first flush: a one-block launch zeroes it itself; several
 * blocks pass a gate, and the one that arrives first clears it while the
 * others count (clear_hist); the global kernel, and more than
 * kHistClearInKernelBins bins, take a cudaMemsetAsync first.
 *
 * Even bins: the header's formula, floor((x - lower) * bins / (upper -
 * lower)) in double, with __dsub_rn/__dmul_rn/__ddiv_rn so that nothing is
 * contracted into an FMA, behind an estimate that is provably equal where
 * it is used (even_bin); the CPU backend and the serial reference compute
 * the same, so the three agree exactly. Edges: bisection in the input dtype.
 *
 * The file reads bottom-up, as C++ wants definitions before use: device
 * helpers here, the count kernel (cuda_count_kernel.cuh), the histograms'
 * parameters and shared counters (cuda_histogram_bins.cuh) and their
 * kernels (cuda_histogram_kernels.cuh), then the host dispatch and the
 * entry points.
 */
#include <algorithm>
#include <atomic>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <type_traits>

#include "cuda_backend.h"
#include "cuda_block_count.cuh"
#include "cuda_common.cuh"
#include "cuda_grid_dependency.cuh"
#include "cuda_histogram.cuh"
#include "cuda_memory_order.cuh"
#include "cuda_tuning.h"

namespace gp_cuda {
namespace {

constexpr unsigned kFull = 0xffffffffu;

/* The block's dynamic shared memory (tests/emu_hist runs these kernels on
 * the CPU, where it is a per-block host buffer). */
#ifdef GP_CUDA_EMULATE
#define GP_DYNAMIC_SMEM(name) unsigned char *name = gp_emu_dynamic_smem()
#else
#define GP_DYNAMIC_SMEM(name) extern __shared__ __align__(16) unsigned char name[]
#endif

/* ------------------------------------------------------------ input layout */

/* One 16-byte vector of T. */
template <class T>
union vec16 {
    uint4 raw;
    T e[16 / sizeof(T)];
};

/* The input as `head` elements up to its first 16-byte boundary, `nvec`
 * whole vectors, then `tail` elements. head + tail < 32: one warp takes them. */
struct layout {
    long long head, nvec, tail;
};

/* Index of the j-th head-or-tail element, 0 <= j < head + tail. */
template <class T>
__device__ __forceinline__ long long edge_index(const layout &L, long long j)
{
    return j < L.head ? j : L.head + L.nvec * (long long)(16 / sizeof(T)) + (j - L.head);
}

} // namespace
} // namespace gp_cuda

#include "cuda_count_kernel.cuh"
#include "cuda_histogram_bins.cuh"
#include "cuda_histogram_kernels.cuh"

namespace gp_cuda {
namespace {

/* ================================================================ host side */

layout split(const void *in, size_t esize, int64_t n)
{
    const long long per = (long long)(16 / esize);
    long long head = (long long)(((16 - ((uintptr_t)in & 15)) & 15) / esize);
    if (head > n) head = n;
    const long long nvec = (n - head) / per;
    return layout{head, nvec, n - head - nvec * per};
}

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

/* cudaLaunchKernel with dynamic shared memory, checked and counted
 * (ctx->launches) as gp_cuda::launch does. */
gp_status launch_dyn(gp_ctx *ctx, const void *kernel, const char *what, unsigned grid, size_t smem, void **args)
{
    cudaStream_t stream = static_cast<cudaStream_t>(ctx->stream);
    cudaError_t e = cudaLaunchKernel(kernel, dim3(grid), dim3(kHistThreads), args, smem, stream);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return gp_set_error(ctx, GP_STATUS_LAUNCH_FAILED, "launch of %s <<<%u, %d, %zu>>> failed: %s (%s)", what,
                            grid, kHistThreads, smem, cudaGetErrorName(e), cudaGetErrorString(e));
    }
#ifdef GPUPRIM_DEBUG_LAUNCH
    fprintf(stderr, "gpuprim: launch %s <<<%u, %d, %zu>>> on stream %p (device %d)\n", what, grid, kHistThreads,
            smem, ctx->stream, ctx->device);
    e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return gp_set_error(ctx, GP_STATUS_LAUNCH_FAILED, "%s <<<%u, %d, %zu>>> failed: %s (%s)", what, grid,
                            kHistThreads, smem, cudaGetErrorName(e), cudaGetErrorString(e));
    }
#endif
    ctx->launches[GP_LAUNCH_PLAIN]++;
    return GP_STATUS_OK;
}

/* ---------------------------------------------------------------- count */

/* From n alone, so that the workspace query and the call agree. */
int count_grid(const gp_ctx *ctx, gp_dtype t, int64_t n)
{
    const long long tiles = ceil_div(n / (long long)(16 / gp_dtype_size(t)), (long long)kCountThreads * kCountUnroll);
    const long long cap = (long long)state(ctx)->sm_count * kCountBlocksPerSm;
    return (int)(tiles < 1 ? 1 : tiles < cap ? tiles : cap);
}

template <class T, int Cmp>
gp_status count_launch(gp_ctx *ctx, const gp_count_args *a, void *ws)
{
    layout L = split(a->in, sizeof(T), a->n);
    T value;
    memcpy(&value, a->value, sizeof value);
    const T *in = static_cast<const T *>(a->in);
    unsigned long long *partials = static_cast<unsigned long long *>(ws);
    unsigned *ticket = state(ctx)->reduce_counter; /* shared with reduce: 0 between launches on the stream */
    long long *out = reinterpret_cast<long long *>(a->count);
    bool packed = a->n < (1LL << 32); /* the count fits the ticket's high half */
    void *args[] = {&in, &L, &value, &partials, &ticket, &out, &packed};
    GP_CUDA_LAUNCH(ctx, (count_kernel<T, Cmp>), "count_kernel", (unsigned)count_grid(ctx, a->t, a->n),
                   kCountThreads, args);
    return GP_STATUS_OK;
}

template <class T>
gp_status count_typed(gp_ctx *ctx, const gp_count_args *a, void *ws)
{
    switch (a->cmp) {
    case GP_CMP_LT: return count_launch<T, GP_CMP_LT>(ctx, a, ws);
    case GP_CMP_LE: return count_launch<T, GP_CMP_LE>(ctx, a, ws);
    case GP_CMP_GT: return count_launch<T, GP_CMP_GT>(ctx, a, ws);
    case GP_CMP_GE: return count_launch<T, GP_CMP_GE>(ctx, a, ws);
    case GP_CMP_EQ: return count_launch<T, GP_CMP_EQ>(ctx, a, ws);
    case GP_CMP_NE: return count_launch<T, GP_CMP_NE>(ctx, a, ws);
    }
    return gp_set_error(ctx, GP_STATUS_INTERNAL, "count: cmp %d", (int)a->cmp);
}

/* ----------------------------------------------------------- histograms */

/* The device's opt-in shared-memory limit per block, asked once per device. */
gp_status smem_optin(gp_ctx *ctx, int *bytes)
{
    static std::atomic<int> cache[64];
    if (ctx->device < 64 && (*bytes = cache[ctx->device].load(std::memory_order_relaxed)) > 0) return GP_STATUS_OK;
    GP_CUDA_TRY(ctx, cudaDeviceGetAttribute(bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, ctx->device));
    if (ctx->device < 64) cache[ctx->device].store(*bytes, std::memory_order_relaxed);
    return GP_STATUS_OK;
}

/* One launch: its kernel, dynamic shared memory, and the elements each block
 * should at least have (so that small inputs do not pay many flushes). */
struct hist_plan {
    const void *kernel;
    const char *what;
    size_t smem;
    int cshift;
    bool with_cshift; /* the kernel takes cshift */
    bool flushes;     /* the blocks add to the histogram only when they flush */
    long long min_block_elems;
};

/* The elements a block of the shared kernel should count: a tile of one
 * load a thread (tile1) at least, enough for its flush's atomics
 * (kHistMinElemsPerBin a bin), and 8 sqrt(n), so that the grid grows with
 * n but each block's clear and flush are paid over more elements as it
 * does (cuda_histogram.cuh). */
long long shared_block_elems(int64_t n, int64_t bins, long long tile1)
{
    const long long root = (long long)sqrt((double)n);
    return std::max({tile1, (long long)kHistMinElemsPerBin * bins, kHistBlockElemsPerRootN * root});
}

template <class T, bool Edges>
gp_status plan_wide(gp_ctx *ctx, const gp_histogram_args *a, hist_plan *pl)
{
    constexpr long long kTileElems = (long long)kHistThreads * kHistUnroll * (16 / sizeof(T));
    const size_t edges = edge_bytes<T, Edges>(a->bins);
    int cshift = 5;
    while (cshift > 0 && counters_bytes(a->bins << cshift) + edges > (size_t)kHistSmemTarget) cshift--;
    const size_t smem = counters_bytes(a->bins << cshift) + edges + sizeof(gate_ticket);
    int optin = 0;
    gp_status s = smem_optin(ctx, &optin);
    if (s != GP_STATUS_OK) return s;
    /* Fewer elements than bins: clearing and flushing the block's copy would
     * cost more than the atomics it saves. */
    if (smem <= (size_t)optin && a->n >= a->bins) {
        const long long elems = shared_block_elems(a->n, a->bins, kTileElems / kHistUnroll);
        /* Blocks of fewer elements than a full tile load one vector a thread
         * a tile, so that they spread over more blocks and SMs. */
        const int wide = elems >= kTileElems;
        const int match = (1 << cshift) < kHistMinColumnsUnmatched;
        const void *kernels[2][2] = {
            {(const void *)hist_shared_kernel<T, Edges, false, 1>,
             (const void *)hist_shared_kernel<T, Edges, false, kHistUnroll>},
            {(const void *)hist_shared_kernel<T, Edges, true, 1>,
             (const void *)hist_shared_kernel<T, Edges, true, kHistUnroll>}};
        const char *names[2][2] = {{"hist_shared_kernel<1>", "hist_shared_kernel"},
                                   {"hist_shared_kernel<match, 1>", "hist_shared_kernel<match>"}};
        pl->kernel = kernels[match][wide];
        pl->what = names[match][wide];
        pl->smem = smem;
        pl->cshift = cshift;
        pl->with_cshift = true;
        pl->flushes = true;
        pl->min_block_elems = elems;
    } else {
        pl->kernel = (const void *)hist_global_kernel<T, Edges>;
        pl->what = "hist_global_kernel";
        pl->smem = 0;
        pl->cshift = 0;
        pl->with_cshift = false;
        pl->flushes = false;
        pl->min_block_elems = kTileElems;
    }
    return GP_STATUS_OK;
}

template <class T, bool Edges>
gp_status plan_bytes(const gp_histogram_args *a, hist_plan *pl)
{
    constexpr long long kTileElems = (long long)kHistThreads * kHistUnroll * 16;
    pl->kernel = (const void *)hist_bytes_kernel<T, Edges>;
    pl->what = "hist_bytes_kernel";
    pl->smem = 0; /* static: 32 KiB */
    pl->cshift = 5;
    pl->with_cshift = false;
    pl->flushes = true;
    pl->min_block_elems = std::max(kTileElems, (long long)kHistMinElemsPerBin * 256);
    return GP_STATUS_OK;
}

template <class T, bool Edges>
gp_status histogram_typed(gp_ctx *ctx, const gp_histogram_args *a)
{
    cudaStream_t stream = static_cast<cudaStream_t>(ctx->stream);
    const size_t hist_bytes = (size_t)a->bins * sizeof(uint64_t);
    if (a->n == 0) {
        if (!a->accumulate) GP_CUDA_TRY(ctx, cudaMemsetAsync(a->hist, 0, hist_bytes, stream));
        return GP_STATUS_OK;
    }
    hist_plan pl;
    gp_status s;
    if constexpr (sizeof(T) == 1) s = plan_bytes<T, Edges>(a, &pl);
    else s = plan_wide<T, Edges>(ctx, a, &pl);
    if (s != GP_STATUS_OK) return s;

    int per_sm = 0;
    /* Also raises the kernel's shared-memory limit, once. */
    GP_CUDA_TRY(ctx, blocks_per_sm(ctx->device, pl.kernel, kHistThreads, pl.smem, &per_sm));
    if (per_sm < 1) per_sm = 1; /* the launch will say what is wrong */
    const long long cap = (long long)per_sm * state(ctx)->sm_count;
    const long long want = ceil_div(a->n, pl.min_block_elems);
    const unsigned grid = (unsigned)(want < cap ? want : cap);

    hist_params p;
    p.L = split(a->in, sizeof(T), a->n);
    p.hist = reinterpret_cast<unsigned long long *>(a->hist);
    p.bins = (int)a->bins;
    p.even.lower = a->lower;
    p.even.upper = a->upper;
    p.even.width = a->upper - a->lower;
    p.even.fbins = (double)a->bins;
    p.even.scale = p.even.fbins / p.even.width;
    p.even.bins = (int)a->bins;
    p.edges = a->edges;
    p.clear = kClearNone;
    p.gate = state(ctx)->hist_gate;
    if (!a->accumulate) {
        const bool in_kernel = a->bins <= kHistClearInKernelBins;
        if (in_kernel && grid == 1) p.clear = kClearOwn;
        else if (in_kernel && pl.flushes && GP_HIST_CLEAR_FIRST) p.clear = kClearFirst;
        else GP_CUDA_TRY(ctx, cudaMemsetAsync(a->hist, 0, hist_bytes, stream));
    }

    const T *in = static_cast<const T *>(a->in);
    int cshift = pl.cshift;
    void *args3[] = {&in, &p, &cshift};
    void *args2[] = {&in, &p};
    return launch_dyn(ctx, pl.kernel, pl.what, grid, pl.smem, pl.with_cshift ? args3 : args2);
}

template <class T>
gp_status histogram_dispatch(gp_ctx *ctx, const gp_histogram_args *a)
{
    return a->edges ? histogram_typed<T, true>(ctx, a) : histogram_typed<T, false>(ctx, a);
}

#define GP_CUDA_HIST_TYPES(X)          \
    X(GP_DTYPE_I8, int8_t)             \
    X(GP_DTYPE_U8, uint8_t)            \
    X(GP_DTYPE_I16, int16_t)           \
    X(GP_DTYPE_U16, uint16_t)          \
    X(GP_DTYPE_I32, int32_t)           \
    X(GP_DTYPE_U32, uint32_t)          \
    X(GP_DTYPE_I64, long long)         \
    X(GP_DTYPE_U64, unsigned long long) \
    X(GP_DTYPE_F32, float)             \
    X(GP_DTYPE_F64, double)

} // namespace

/* ---------------------------------------------------------- entry points */

size_t count_workspace(const gp_ctx *ctx, const gp_count_args *a)
{
    const int grid = count_grid(ctx, a->t, a->n);
    return grid > 1 ? (size_t)grid * sizeof(unsigned long long) : 0;
}

gp_status count(gp_ctx *ctx, const gp_count_args *a, void *ws)
{
    device_scope scope;
    GP_CUDA_TRY(ctx, scope.enter(ctx->device));
    switch (a->t) {
#define GP_CUDA_COUNT_CASE(DT, T) \
    case DT: return count_typed<T>(ctx, a, ws);
        GP_CUDA_HIST_TYPES(GP_CUDA_COUNT_CASE)
#undef GP_CUDA_COUNT_CASE
    }
    return gp_set_error(ctx, GP_STATUS_INTERNAL, "count: dtype %d", (int)a->t);
}

/* Histograms need no workspace: blocks add straight into hist. */
size_t histogram_workspace(const gp_ctx *ctx, gp_dtype t, int64_t n, int64_t bins) { return 0; }

gp_status histogram(gp_ctx *ctx, const gp_histogram_args *a, void *ws)
{
    device_scope scope;
    GP_CUDA_TRY(ctx, scope.enter(ctx->device));
    switch (a->t) {
#define GP_CUDA_HIST_CASE(DT, T) \
    case DT: return histogram_dispatch<T>(ctx, a);
        GP_CUDA_HIST_TYPES(GP_CUDA_HIST_CASE)
#undef GP_CUDA_HIST_CASE
    }
    return gp_set_error(ctx, GP_STATUS_INTERNAL, "histogram: dtype %d", (int)a->t);
}

} // namespace gp_cuda
