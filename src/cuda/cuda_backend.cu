/*
 * The CUDA backend's table: probe, device memory and facts, the context
 * (control block, stream), copies, and the error mapping every CUDA call
 * goes through. The primitives live in their own files (cuda_reduce.cu).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mutex>

#include "cuda_backend.h"
#include "cuda_common.cuh"
#include "cuda_histogram.cuh"

namespace gp_cuda {

/* ---------------------------------------------------------------- errors */

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

gp_status fail(gp_ctx *ctx, cudaError_t err, const char *call, const char *file, int line, gp_status other)
{
    (void)cudaGetLastError(); /* clear it; a sticky error stays regardless */
    gp_status s = err == cudaErrorMemoryAllocation ? GP_STATUS_DEVICE_OUT_OF_MEMORY : other;
    int name_len = (int)strcspn(call, "(");
    return gp_set_error(ctx, s, "%.*s failed: %s (%s) at %s:%d", name_len, call, cudaGetErrorName(err),
                        cudaGetErrorString(err), base_name(file), line);
}

/* The outcome of a launch call `e` of `how`: LAUNCH_FAILED with the kernel
 * and shape in the message, else counted in ctx->launches; with
 * GPUPRIM_DEBUG_LAUNCH a logged, synchronised launch. */
static gp_status launched(gp_ctx *ctx, cudaError_t e, gp_launch_kind how, const char *what, unsigned grid,
                          unsigned block, const char *file, int line)
{
    static const char *const kinds[GP_LAUNCH_KINDS] = {"launch", "cluster launch", "cooperative launch",
                                                       "overlapped launch"};
    const char *kind = kinds[how];
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return gp_set_error(ctx, GP_STATUS_LAUNCH_FAILED, "%s of %s <<<%u, %u>>> failed: %s (%s) at %s:%d", kind,
                            what, grid, block, cudaGetErrorName(e), cudaGetErrorString(e), base_name(file), line);
    }
#ifdef GPUPRIM_DEBUG_LAUNCH
    fprintf(stderr, "gpuprim: %s %s <<<%u, %u>>> on stream %p (device %d)\n", kind, what, grid, block, ctx->stream,
            ctx->device);
    e = cudaStreamSynchronize(static_cast<cudaStream_t>(ctx->stream));
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        fprintf(stderr, "gpuprim: %s failed: %s (%s)\n", what, cudaGetErrorName(e), cudaGetErrorString(e));
        return gp_set_error(ctx, GP_STATUS_LAUNCH_FAILED, "%s <<<%u, %u>>> failed: %s (%s) at %s:%d", what, grid,
                            block, cudaGetErrorName(e), cudaGetErrorString(e), base_name(file), line);
    }
#endif
    ctx->launches[how]++;
    return GP_STATUS_OK;
}

/* Sets a function attribute of `kernel` on `device` to at least `value`,
 * once: a later call asking no more makes no runtime call. A handful of
 * (kernel, device, attribute) triples are ever set: a linear table under a
 * lock. */
static cudaError_t set_attribute_once(const void *kernel, int device, cudaFuncAttribute attr, int value)
{
    static std::mutex lock;
    static struct {
        const void *kernel;
        int device;
        cudaFuncAttribute attr;
        int value;
    } done[128];
    static int used = 0;
    std::lock_guard<std::mutex> hold(lock);
    int i = 0;
    while (i < used && !(done[i].kernel == kernel && done[i].device == device && done[i].attr == attr)) i++;
    if (i < used && done[i].value >= value) return cudaSuccess;
    cudaError_t e = cudaFuncSetAttribute(kernel, attr, value);
    if (e == cudaSuccess && i < 128) {
        done[i] = {kernel, device, attr, value};
        if (i == used) used++;
    }
    return e;
}

/* Dynamic shared memory past 48 KiB needs the kernel's limit raised first. */
static cudaError_t allow_stage(const void *kernel, int device, size_t smem)
{
    return smem > (48u << 10)
               ? set_attribute_once(kernel, device, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem)
               : cudaSuccess;
}

gp_status launch(gp_ctx *ctx, const void *kernel, const char *what, unsigned grid, unsigned block,
                 void **args, const char *file, int line, size_t smem)
{
    cudaError_t e = allow_stage(kernel, ctx->device, smem);
    if (e == cudaSuccess)
        e = cudaLaunchKernel(kernel, dim3(grid), dim3(block), args, smem, static_cast<cudaStream_t>(ctx->stream));
    return launched(ctx, e, GP_LAUNCH_PLAIN, what, grid, block, file, line);
}

/* Lets `kernel` run clusters of more than 8 blocks on `device`. */
static cudaError_t allow_large_clusters(const void *kernel, int device)
{
    return set_attribute_once(kernel, device, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
}

/* A launch of `grid` blocks with one attribute, `attr`, which the
 * configuration points at (so it must outlive the launch call). */
static cudaLaunchConfig_t one_attribute_config(const cudaLaunchAttribute *attr, unsigned grid, unsigned block,
                                               size_t smem, void *stream)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(grid);
    cfg.blockDim = dim3(block);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = static_cast<cudaStream_t>(stream);
    cfg.attrs = const_cast<cudaLaunchAttribute *>(attr);
    cfg.numAttrs = 1;
    return cfg;
}

/* A launch of `grid` blocks in clusters of `cluster`; `attr` is the
 * storage the configuration points at. */
static cudaLaunchConfig_t cluster_config(cudaLaunchAttribute *attr, unsigned grid, unsigned cluster, unsigned block,
                                         void *stream)
{
    attr->id = cudaLaunchAttributeClusterDimension;
    attr->val.clusterDim.x = cluster;
    attr->val.clusterDim.y = 1;
    attr->val.clusterDim.z = 1;
    return one_attribute_config(attr, grid, block, 0, stream);
}

gp_status launch_cluster(gp_ctx *ctx, const void *kernel, const char *what, unsigned grid, unsigned cluster,
                         unsigned block, void **args, const char *file, int line)
{
    cudaError_t e = cluster > 8 ? allow_large_clusters(kernel, ctx->device) : cudaSuccess;
    if (e == cudaSuccess) {
        cudaLaunchAttribute attr;
        const cudaLaunchConfig_t cfg = cluster_config(&attr, grid, cluster, block, ctx->stream);
        e = cudaLaunchKernelExC(&cfg, kernel, args);
    }
    return launched(ctx, e, GP_LAUNCH_CLUSTER, what, grid, block, file, line);
}

unsigned cluster_limit(gp_ctx *ctx, const void *kernel, unsigned block)
{
    if (state(ctx)->cc_major < 9) return 0;
    device_scope scope;
    if (scope.enter(ctx->device) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    for (unsigned blocks = kClusterMaxBlocks; blocks >= 8; blocks /= 2) {
        if (blocks > 8 && allow_large_clusters(kernel, ctx->device) != cudaSuccess) {
            (void)cudaGetLastError();
            continue;
        }
        cudaLaunchAttribute attr;
        const cudaLaunchConfig_t cfg = cluster_config(&attr, blocks, blocks, block, NULL);
        int clusters = 0;
        if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg) == cudaSuccess && clusters > 0) return blocks;
        (void)cudaGetLastError();
    }
    return 0;
}

unsigned small_cluster_blocks(gp_ctx *ctx, const void *kernel, unsigned block)
{
    context_state *st = state(ctx);
    if (st->small_cluster < 0) st->small_cluster = (int)cluster_limit(ctx, kernel, block);
    return (unsigned)st->small_cluster;
}

/* A handful of (kernel, device, block, smem) are ever asked about: a linear
 * table under a lock. */
struct occupancy_entry {
    const void *kernel;
    int device;
    unsigned block;
    size_t smem;
    int per_sm;
};

cudaError_t blocks_per_sm(int device, const void *kernel, unsigned block, size_t smem, int *per_sm)
{
    static std::mutex lock;
    static occupancy_entry table[64];
    static int used = 0;
    std::lock_guard<std::mutex> hold(lock);
    for (int i = 0; i < used; i++)
        if (table[i].kernel == kernel && table[i].device == device && table[i].block == block &&
            table[i].smem == smem) {
            *per_sm = table[i].per_sm;
            return cudaSuccess;
        }
    cudaError_t e = smem > 0 ? set_attribute_once(kernel, device, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem)
                             : cudaSuccess;
    if (e == cudaSuccess) e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, kernel, (int)block, smem);
    if (e == cudaSuccess && used < 64) table[used++] = {kernel, device, block, smem, *per_sm};
    return e;
}

unsigned resident_blocks(gp_ctx *ctx, const void *kernel, unsigned block, size_t smem)
{
    if (!state(ctx)->cooperative) return 0; /* no persistent grids: one tile a block */
    int per_sm = 0;
    if (blocks_per_sm(ctx->device, kernel, block, smem, &per_sm) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    const unsigned blocks = (unsigned)per_sm * (unsigned)state(ctx)->sm_count;
    const unsigned cap = state(ctx)->max_resident;
    return cap > 0 && cap < blocks ? cap : blocks;
}

gp_status launch_resident(gp_ctx *ctx, const void *kernel, const char *what, unsigned grid, unsigned block,
                          size_t smem, void **args, bool *too_large, const char *file, int line)
{
    cudaError_t e = cudaLaunchCooperativeKernel(kernel, dim3(grid), dim3(block), args, smem,
                                                static_cast<cudaStream_t>(ctx->stream));
    *too_large = e == cudaErrorCooperativeLaunchTooLarge;
    if (*too_large) {
        (void)cudaGetLastError();
        return GP_STATUS_OK;
    }
    return launched(ctx, e, GP_LAUNCH_COOPERATIVE, what, grid, block, file, line);
}

gp_status launch_after_prior(gp_ctx *ctx, const void *kernel, const char *what, unsigned grid, unsigned block,
                             size_t smem, void **args, const char *file, int line)
{
    context_state *st = state(ctx);
    if (st->overlap_launches) {
        /* As launch() does: without this a large stage would be refused
         * (where resident_blocks has not set it) and read as the overlap's
         * fault. */
        const cudaError_t allowed = allow_stage(kernel, ctx->device, smem);
        if (allowed != cudaSuccess)
            return launched(ctx, allowed, GP_LAUNCH_OVERLAPPED, what, grid, block, file, line);
        cudaLaunchAttribute overlap;
        overlap.id = cudaLaunchAttributeProgrammaticStreamSerialization;
        overlap.val.programmaticStreamSerializationAllowed = 1;
        const cudaLaunchConfig_t cfg = one_attribute_config(&overlap, grid, block, smem, ctx->stream);
        const cudaError_t e = cudaLaunchKernelExC(&cfg, kernel, args);
        if (e != cudaErrorNotSupported && e != cudaErrorInvalidValue)
            return launched(ctx, e, GP_LAUNCH_OVERLAPPED, what, grid, block, file, line);
        /* Refused: again in stream order. Where that launch runs, the
         * attribute was the trouble, so later launches skip it; a launch
         * that was wrong anyway fails again with its own error and leaves
         * the overlap on for the calls after it. */
        (void)cudaGetLastError();
        const gp_status s = launch(ctx, kernel, what, grid, block, args, file, line, smem);
        if (s == GP_STATUS_OK) st->overlap_launches = false;
        return s;
    }
    return launch(ctx, kernel, what, grid, block, args, file, line, smem);
}

/* ----------------------------------------------------------------- probe */

struct probe_result {
    cudaError_t err;
    int count;
};

static probe_result run_probe()
{
    probe_result r = {cudaSuccess, 0};
    r.err = cudaGetDeviceCount(&r.count);
    if (r.err != cudaSuccess) {
        (void)cudaGetLastError();
        r.count = 0;
    }
    return r;
}

/* The first call probes; later calls read the cached answer (C++ makes the
 * initialisation of a function-local static thread-safe). */
static const probe_result &probe_once()
{
    static const probe_result r = run_probe();
    return r;
}

int visible_devices() { return probe_once().count; }

static gp_status cuda_probe(char *detail, size_t size)
{
    if (detail && size) detail[0] = '\0';
    const probe_result &r = probe_once();
    if (r.err == cudaSuccess && r.count >= 1) return GP_STATUS_OK;
    if (detail && size) {
        if (r.err != cudaSuccess)
            snprintf(detail, size, "no usable CUDA device: cudaGetDeviceCount: %s (%s)", cudaGetErrorName(r.err),
                     cudaGetErrorString(r.err));
        else
            snprintf(detail, size, "no usable CUDA device: cudaGetDeviceCount found none");
    }
    return GP_STATUS_BACKEND_UNAVAILABLE;
}

/* ------------------------------------------------ device memory and facts */

static void *cuda_device_alloc(int device, size_t bytes)
{
    device_scope scope;
    void *p = NULL;
    if (scope.enter(device) != cudaSuccess || cudaMalloc(&p, bytes) != cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    return p;
}

static void cuda_device_free(int device, void *ptr)
{
    device_scope scope;
    if (scope.enter(device) != cudaSuccess || cudaFree(ptr) != cudaSuccess) (void)cudaGetLastError();
}

static int cuda_device_count(void) { return visible_devices(); }

/* No context here, so failures give only a status. */
static gp_status cuda_device_info(int device, gp_device_info *info)
{
    memset(info, 0, sizeof *info);
    cudaDeviceProp prop;
    cudaError_t e = cudaGetDeviceProperties(&prop, device);
    if (e != cudaSuccess) return fail(NULL, e, "cudaGetDeviceProperties", __FILE__, __LINE__);
    snprintf(info->name, sizeof info->name, "%s", prop.name);
    info->compute_major = prop.major;
    info->compute_minor = prop.minor;
    info->sm_count = prop.multiProcessorCount;
    info->total_memory_bytes = prop.totalGlobalMem;
    info->l2_bytes = prop.l2CacheSize > 0 ? (size_t)prop.l2CacheSize : 0;
    /* CUDA 13 dropped the memory clock from cudaDeviceProp; the attributes
     * remain. A failure leaves the field 0 ("unknown"). */
    int bus_bits = 0, clock_khz = 0;
    if (cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device) != cudaSuccess) bus_bits = 0;
    if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device) != cudaSuccess) clock_khz = 0;
    (void)cudaGetLastError();
    info->memory_bus_width_bits = bus_bits;
    info->memory_clock_khz = clock_khz;
    /* Seed 000's formula: bytes per transfer x transfers per second (DDR). */
    info->peak_bandwidth_gbs = bus_bits / 8.0 * (clock_khz * 1e3) * 2.0 / 1e9;
    if (cudaDriverGetVersion(&info->driver_version) != cudaSuccess) info->driver_version = 0;
    if (cudaRuntimeGetVersion(&info->runtime_version) != cudaSuccess) info->runtime_version = 0;
    (void)cudaGetLastError();
    return GP_STATUS_OK;
}

/* --------------------------------------------------------------- context */

/* A tuning hook's value: 0 or 1 as set, -1 (the library's choice) when
 * unset or anything else. */
static int env_switch(const char *name)
{
    const char *v = getenv(name);
    return v && (strcmp(v, "0") == 0 || strcmp(v, "1") == 0) ? v[0] - '0' : -1;
}

/* A count hook's value: digits alone, 1 to most; 0 (unset) for anything
 * else, so that a misspelt value cannot cap a grid at a number nobody
 * meant ("5x" or "-1" caps nothing). */
static unsigned env_count(const char *name, unsigned long most)
{
    const char *v = getenv(name);
    if (!v || !*v || strspn(v, "0123456789") != strlen(v) || strlen(v) > 9) return 0;
    const unsigned long n = strtoul(v, NULL, 10);
    return n <= most ? (unsigned)n : 0;
}

/* Everything ctx_init does after the host state exists; on failure the
 * caller frees what was set. */
static gp_status init_state(gp_ctx *ctx, context_state *st)
{
    device_scope scope;
    GP_CUDA_ENTER_DEVICE(ctx, scope);
    GP_CUDA_TRY(ctx, cudaDeviceGetAttribute(&st->sm_count, cudaDevAttrMultiProcessorCount, ctx->device));
    if (st->sm_count < 1) st->sm_count = 1;
    int l2 = 0;
    GP_CUDA_TRY(ctx, cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, ctx->device));
    st->l2_bytes = l2 > 0 ? l2 : 0;
    int cooperative = 0;
    GP_CUDA_TRY(ctx, cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, ctx->device));
    st->cooperative = cooperative != 0;
    GP_CUDA_TRY(ctx, cudaDeviceGetAttribute(&st->cc_major, cudaDevAttrComputeCapabilityMajor, ctx->device));
    st->overlap_launches = st->cc_major >= 9; /* programmatic dependent launch */
    /* A test hook: tests/CMakeLists.txt runs the suites again with a few
     * resident blocks, so that small inputs take the persistent paths. */
    st->max_resident = env_count("GPUPRIM_MAX_RESIDENT_BLOCKS", 1u << 20);
    /* Persistent scans and selections run with look-back warps
     * (cuda_scan_pipelined.cuh, cuda_select_pipelined.cuh) unless this is
     * 0: the tests and scripts/gpu-check.sh run both kinds of kernel. */
    const char *warps = getenv("GPUPRIM_LOOKBACK_WARPS");
    st->lookback_warps = !(warps && strcmp(warps, "0") == 0);
    /* Large byte transposes take 256 x 256 tiles (cuda_transpose.cu);
     * 1 makes every matrix they can take use them (the tests), 0 none. */
    st->byte_tiles = env_switch("GPUPRIM_BYTE_TILES");
    /* A persistent partition is counted first by a kernel of its own
     * (cuda_select.cu, partition_counts_first) from a size on; 1 makes
     * every one that does not run in one pass do so (the tests), 0 none. */
    st->partition_count_first = env_switch("GPUPRIM_PARTITION_COUNT_FIRST");
    /* Of those, some take their tiles by ticket and overlap the count
     * (cuda_select.cu, count_first_by_ticket); 1 all, 0 none. */
    st->count_first_by_ticket = env_switch("GPUPRIM_COUNT_FIRST_BY_TICKET");
    /* Some partitions run in one pass on wide tiles (cuda_select.cu,
     * choose_persistent); 1 makes every one whose wide tiles fit the
     * blocks' stages do so (for comparison, and the emulator), 0 none. */
    st->partition_wide_one_pass = env_switch("GPUPRIM_PARTITION_WIDE_ONE_PASS");
    /* 1-byte partitions into two buffers take wider tiles where a selection
     * would (cuda_select.cu, copy_takes_wider): by default as cuda_tuning.h
     * says (both kinds); 1 both whatever it says, 0 none (for comparison). */
    st->partition_copy_wider = env_switch("GPUPRIM_PARTITION_COPY_WIDER");
    /* Too few wider tiles for every resident block to get four still run
     * on a grid cut to four a block where that grid is large enough
     * (cuda_select.cu, wider_cut_grid); 1 wherever it has a block (the
     * tests: capped resident blocks), 0 never (for comparison). */
    st->wider_cut = env_switch("GPUPRIM_WIDER_CUT");
    /* Out-of-place tiled transposes pick cache hints, and for 16-byte
     * elements the tile side, by their size against the L2
     * (cuda_transpose.cu); small, mid or large applies one class to every
     * call (the tests). */
    const char *size = getenv("GPUPRIM_TRANSPOSE_SIZE");
    st->transpose_size = -1;
    if (size && strcmp(size, "small") == 0) st->transpose_size = kSizeSmall;
    if (size && strcmp(size, "mid") == 0) st->transpose_size = kSizeMid;
    if (size && strcmp(size, "large") == 0) st->transpose_size = kSizeLarge;
    /* Small reductions finish inside a thread-block cluster (cuda_reduce.cu)
     * unless this is 0: the tests run both ways. */
    const char *cluster = getenv("GPUPRIM_REDUCE_CLUSTER");
    st->reduce_cluster = cluster && strcmp(cluster, "0") == 0 ? 0 : -1;
    /* Large reductions read a contiguous segment a block (cuda_reduce.cu);
     * 1 makes every reduction grid do so (the tests), 0 none. */
    st->reduce_segments = env_switch("GPUPRIM_REDUCE_SEGMENTS");
    /* Small scans and filters likewise (cuda_scan_cluster.cuh). */
    const char *small = getenv("GPUPRIM_SMALL_CLUSTER");
    st->small_cluster = small && strcmp(small, "0") == 0 ? 0 : -1;

    st->control = gp_ctx_alloc(ctx, GP_MEM_DEVICE, kControlBytes);
    if (!st->control) return gp_ctx_alloc_failed(ctx, GP_MEM_DEVICE, kControlBytes, "the device control block");
    /* The context's stream is still the default one; wait here so that the
     * zeroed counter is in place whatever stream the context moves to. */
    GP_CUDA_TRY(ctx, cudaMemsetAsync(st->control, 0, kControlBytes, 0));
    GP_CUDA_TRY(ctx, cudaStreamSynchronize(0));
    st->reduce_counter = reinterpret_cast<unsigned *>(static_cast<char *>(st->control) + kReduceCounterOffset);
    st->hist_gate = reinterpret_cast<unsigned long long *>(static_cast<char *>(st->control) + kHistGateOffset);
    return GP_STATUS_OK;
}

static void free_state(gp_ctx *ctx, context_state *st)
{
    gp_ctx_dealloc(ctx, GP_MEM_DEVICE, st->lookback_pool);
    gp_ctx_dealloc(ctx, GP_MEM_DEVICE, st->control);
    gp_ctx_dealloc(ctx, GP_MEM_HOST, st);
}

static gp_status cuda_ctx_init(gp_ctx *ctx)
{
    context_state *st = static_cast<context_state *>(gp_ctx_alloc(ctx, GP_MEM_HOST, sizeof(context_state)));
    if (!st) return gp_ctx_alloc_failed(ctx, GP_MEM_HOST, sizeof(context_state), "the CUDA context state");
    memset(st, 0, sizeof *st);
    gp_status s = init_state(ctx, st);
    if (s != GP_STATUS_OK) {
        free_state(ctx, st);
        return s;
    }
    ctx->impl = st;
    ctx->result_slot = static_cast<char *>(st->control) + kResultSlotOffset;
    return GP_STATUS_OK;
}

static void cuda_ctx_fini(gp_ctx *ctx)
{
    context_state *st = state(ctx);
    if (!st) return;
    {
        device_scope scope;
        if (scope.enter(ctx->device) != cudaSuccess ||
            cudaStreamSynchronize(static_cast<cudaStream_t>(ctx->stream)) != cudaSuccess)
            (void)cudaGetLastError();
    }
    free_state(ctx, st);
    ctx->impl = NULL;
    ctx->result_slot = NULL;
}

static gp_status cuda_set_stream(gp_ctx *ctx, void *stream)
{
#if CUDART_VERSION >= 12080
    if (stream) {
        int dev = -1;
        GP_CUDA_TRY(ctx, cudaStreamGetDevice(static_cast<cudaStream_t>(stream), &dev));
        if (dev != ctx->device)
            return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT,
                                "the stream belongs to device %d, the context to device %d", dev, ctx->device);
    }
#endif
    return GP_STATUS_OK;
}

static gp_status cuda_synchronize(gp_ctx *ctx)
{
    device_scope scope;
    GP_CUDA_ENTER_DEVICE(ctx, scope);
    GP_CUDA_TRY(ctx, cudaStreamSynchronize(static_cast<cudaStream_t>(ctx->stream)));
    return GP_STATUS_OK;
}

static gp_status cuda_copy(gp_ctx *ctx, void *dst, const void *src, size_t bytes, gp_copy_kind kind)
{
    static const cudaMemcpyKind kinds[] = {cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost,
                                           cudaMemcpyDeviceToDevice};
    cudaStream_t stream = static_cast<cudaStream_t>(ctx->stream);
    device_scope scope;
    GP_CUDA_ENTER_DEVICE(ctx, scope);
    GP_CUDA_TRY(ctx, cudaMemcpyAsync(dst, src, bytes, kinds[kind], stream));
    /* The caller may reuse or read the host buffer as soon as we return. */
    if (kind != GP_COPY_CTX_TO_CTX) GP_CUDA_TRY(ctx, cudaStreamSynchronize(stream));
    return GP_STATUS_OK;
}

static gp_status cuda_memset(gp_ctx *ctx, void *dst, int value, size_t bytes)
{
    device_scope scope;
    GP_CUDA_ENTER_DEVICE(ctx, scope);
    GP_CUDA_TRY(ctx, cudaMemsetAsync(dst, value, bytes, static_cast<cudaStream_t>(ctx->stream)));
    return GP_STATUS_OK;
}

/* Every reduction the core accepts has a kernel (cuda_reduce.cu). */
static int cuda_supports(gp_primitive prim, gp_op op, gp_dtype in_t, gp_dtype out_t)
{
    if (prim == GP_PRIM_COUNT || prim == GP_PRIM_HISTOGRAM) return 1; /* every dtype: cuda_histogram.cu */
    if (prim == GP_PRIM_TRANSPOSE) return 1; /* every element size: cuda_transpose.cu */
    if (prim == GP_PRIM_SELECT || prim == GP_PRIM_PARTITION || prim == GP_PRIM_FILTER) return 1; /* cuda_select.cu */
    if (prim == GP_PRIM_SCAN) return gp_op_defined_for(op, in_t) && gp_widening_ok(in_t, out_t); /* cuda_scan.cu */
    return prim == GP_PRIM_REDUCE && gp_op_defined_for(op, in_t) && gp_widening_ok(in_t, out_t);
}

} // namespace gp_cuda

static_assert(GP_COPY_HOST_TO_CTX == 0 && GP_COPY_CTX_TO_HOST == 1 && GP_COPY_CTX_TO_CTX == 2,
              "cuda_copy indexes its kind table by gp_copy_kind");

extern "C" const gp_backend_vtable gp_cuda_backend = {
    .id = GP_BACKEND_CUDA,
    .probe = gp_cuda::cuda_probe,
    .device_alloc = gp_cuda::cuda_device_alloc,
    .device_free = gp_cuda::cuda_device_free,
    .device_count = gp_cuda::cuda_device_count,
    .device_info = gp_cuda::cuda_device_info,
    .ctx_init = gp_cuda::cuda_ctx_init,
    .ctx_fini = gp_cuda::cuda_ctx_fini,
    .set_stream = gp_cuda::cuda_set_stream,
    .synchronize = gp_cuda::cuda_synchronize,
    .copy = gp_cuda::cuda_copy,
    .memset = gp_cuda::cuda_memset,
    .supports = gp_cuda::cuda_supports,
    .reduce_workspace = gp_cuda::reduce_workspace,
    .reduce = gp_cuda::reduce,
    .scan_workspace = gp_cuda::scan_workspace,
    .scan = gp_cuda::scan,
    .max_scan_elements = gp_cuda::kScanMaxElements,
    .select_workspace = gp_cuda::select_workspace,
    .select = gp_cuda::select,
    .filter_workspace = gp_cuda::filter_workspace,
    .filter = gp_cuda::filter,
    .max_select_elements = gp_cuda::kSelectMaxElements,
    .transpose = gp_cuda::transpose,
    .count_workspace = gp_cuda::count_workspace,
    .count = gp_cuda::count,
    .histogram_workspace = gp_cuda::histogram_workspace,
    .histogram = gp_cuda::histogram,
};
