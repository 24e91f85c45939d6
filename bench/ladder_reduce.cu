/*
 * `gpuprim ladder reduce`: seed 000's table on the present GPU. The
 * article's kernels reduce0 to reduce6 (ladder_reduce_kernels.cuh) at 32 to
 * 1024 threads per block, each timed over all its passes, on the article's
 * N = 268436690 int32, beside a serial and an OpenMP sum on the host,
 * gp_reduce and cub::DeviceReduce::Sum; GB/s against the datasheet peak by
 * the article's formula and against the device-to-device copy of the same
 * bytes measured in the same run.
 *
 * Every rung is checked once before timing against a serial host sum of the
 * generator's values, taken in 64 bits and then mod 2^32: an int32 sum wraps
 * to the same bits in any order, so every comparison is exact. `--check`
 * runs every rung at small and boundary sizes, without timing.
 */
#include "bench_cuda.cuh"
#include "ladder.h"
#include "ladder_reduce_kernels.cuh"

#include <cub/device/device_reduce.cuh>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>

/* Everything but the ladder's entry has internal linkage: the ladders and
 * bench cases are linked together and reuse type names (point, rung_call). */
namespace {
#endif

/* ------------------------------------------------------------------ rungs */

enum {
    NTHREADS = 6,
    NKERNEL_RUNGS = LRK_NKERNELS * NTHREADS, /* rung k * NTHREADS + t: kernel k at thread_counts[t] */
    RUNG_GPUPRIM = NKERNEL_RUNGS,
    RUNG_CUB,
    RUNG_CPU_SERIAL,
    RUNG_CPU_OMP,
    NRUNGS,
    NROWS = NRUNGS + 2, /* and the copy and read ceilings */
};
static const unsigned thread_counts[NTHREADS] = {32, 64, 128, 256, 512, 1024};

/* The article's N: 1 GiB of int32, not a power of two. */
static const int64_t ARTICLE_N = 268436690;
/* The article's kernels index with unsigned int, and CUB gets an int count. */
static const int64_t MAX_N = INT32_MAX;

/* --check sizes: warp and block boundaries, 64 (a power of two below 2 x
 * threads from 64 threads up: where reduce6's power-of-two shortcut reads
 * past the end), and sizes whose reduce6 first pass leaves 64 partials at
 * every thread count, as the article's own N does in its second pass. N
 * itself (1 GiB) is checked by every timed run; left out here so that the
 * sanitizers' --check runs stay short. */
static const int64_t check_sizes[] = {1,  2,  3,    31,   32,   33,   63,    64,      65,
                                      1023, 1024, 1025, 4096, 65537, 1000003, (INT64_C(1) << 24) + 7};

static const char *rung_name(int id)
{
    switch (id) {
    case RUNG_GPUPRIM: return "gpuprim";
    case RUNG_CUB: return "cub::DeviceReduce::Sum";
    case RUNG_CPU_SERIAL: return "cpu serial";
    case RUNG_CPU_OMP: return "cpu openmp";
    default: return lrk_names[id / NTHREADS];
    }
}

static int omp_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

/* "256 threads", and reduce6's first-pass grid; "" for the peers. */
static void rung_config(int id, int64_t n, char *buf, size_t size)
{
    buf[0] = 0;
    if (id < NKERNEL_RUNGS) {
        const int k = id / NTHREADS;
        const unsigned t = thread_counts[id % NTHREADS];
        const unsigned g = lrk_grid(k, t, n);
        if (k == 6) snprintf(buf, size, "%u threads, %u block%s", t, g, g == 1 ? "" : "s");
        else snprintf(buf, size, "%u threads", t);
    } else if (id == RUNG_CPU_SERIAL) {
        snprintf(buf, size, "1 thread");
    } else if (id == RUNG_CPU_OMP) {
        snprintf(buf, size, "%d threads", omp_threads());
    }
}

/* ---------------------------------------------------------------- buffers */

/* What one size (or the whole --check) holds; release() frees it on every
 * path. */
struct lr_bufs {
    gpb_arena arena;       /* the input: slices the timer rotates through */
    unsigned *partials;    /* the passes' partial sums: two halves in turn */
    size_t half0, half1;   /* words: the first pass's output, the second's */
    int32_t *outs;         /* gpuprim's result at [0], CUB's at [64] */
    void *cub_temp;
    size_t cub_temp_bytes;
    void *gp_ws;
    size_t gp_ws_bytes;
    bool ws_set;
    void *copy_dst;        /* the copy ceiling's destination (timed runs) */
    int32_t *host;         /* slice 0 on the host, for the CPU rungs */
};
enum { OUTS_BYTES = 512, CUB_OUT = 64 };

/* The largest first pass is one word per 32-thread block (reduce0 to 2),
 * the largest second pass the same again; later passes are smaller. */
static void partials_layout(int64_t n_max, size_t *half0, size_t *half1)
{
    *half0 = (size_t)((n_max + 31) / 32);
    *half1 = (*half0 + 31) / 32;
}

static int release(gpb_env *env, lr_bufs *b)
{
    int rc = GPB_OK;
    if (b->ws_set) {
        gp_status st = gp_ctx_set_workspace(env->ctx, NULL, 0); /* synchronises */
        if (st != GP_STATUS_OK) {
            fprintf(stderr, "gpuprim ladder: gp_ctx_set_workspace(NULL, 0) failed: %s\n", gpb_status_why(env->ctx, st));
            rc = GPB_ERROR;
        }
    }
    if (gpb_cuda_arena_free(&b->arena) != GPB_OK) rc = GPB_ERROR;
    void *ptrs[] = {b->partials, b->outs, b->cub_temp, b->gp_ws, b->copy_dst};
    for (void *p : ptrs) {
        cudaError_t e = p ? cudaFree(p) : cudaSuccess;
        if (e != cudaSuccess) rc = gpb_cuda_fail("cudaFree", e, __FILE__, __LINE__);
    }
    free(b->host);
    *b = lr_bufs{};
    return rc;
}

static int gp_fail(const gpb_env *env, const char *call, int64_t n, gp_status st)
{
    fprintf(stderr, "gpuprim ladder: %s(i32, n = %lld, sum) failed: %s\n", call, (long long)n,
            gpb_status_why(env->ctx, st));
    return GPB_ERROR;
}

static cudaError_t cub_sum(void *temp, size_t &bytes, const void *in, int32_t *out, int64_t n, cudaStream_t st)
{
    return cub::DeviceReduce::Sum(temp, bytes, (const int32_t *)in, out, (int)n, st);
}

/* Makes CUB's scratch big enough for n (grows it; --check's sizes vary). */
static int cub_reserve(const gpb_env *env, lr_bufs *b, int64_t n)
{
    size_t need = 0;
    GPB_CU(cub_sum(nullptr, need, nullptr, nullptr, n, gpb_cuda(env)->stream));
    if (need == 0) need = 1; /* a null temp would make the call a size query */
    if (need <= b->cub_temp_bytes) return GPB_OK;
    void *old = b->cub_temp;
    b->cub_temp = nullptr, b->cub_temp_bytes = 0;
    if (old) GPB_CU(cudaFree(old));
    GPB_CU(cudaMalloc(&b->cub_temp, need));
    b->cub_temp_bytes = need;
    return GPB_OK;
}

/* Device memory every mode needs besides the input, for sizes up to n_max. */
static int alloc_scratch(const gpb_env *env, lr_bufs *b, int64_t n_max)
{
    partials_layout(n_max, &b->half0, &b->half1);
    GPB_CU(cudaMalloc((void **)&b->partials, (b->half0 + b->half1) * sizeof(unsigned)));
    GPB_CU(cudaMalloc((void **)&b->outs, OUTS_BYTES));
    return cub_reserve(env, b, n_max);
}

/* Slice 0 to the host, for the CPU rungs. */
static int copy_to_host(const gpb_env *env, lr_bufs *b, int64_t n)
{
    b->host = (int32_t *)malloc((size_t)n * sizeof(int32_t));
    if (!b->host) {
        fprintf(stderr, "gpuprim ladder: out of host memory (%.2f GiB for the CPU rungs' input)\n",
                n * 4.0 / 1073741824.0);
        return GPB_ERROR;
    }
    cudaStream_t st = gpb_cuda(env)->stream;
    GPB_CU(cudaMemcpyAsync(b->host, b->arena.base, (size_t)n * sizeof(int32_t), cudaMemcpyDeviceToHost, st));
    GPB_CU(cudaStreamSynchronize(st));
    return GPB_OK;
}

/* -------------------------------------------------------------- reference */

/* The serial reference for several sizes in one sweep: the sums of the first
 * ns[j] inputs (ns ascending), each in 64 bits, then mod 2^32. Element i of
 * slice 0 is the low 32 bits of gpb_hash64(seed, i) (gpb_cuda_fill); it is
 * computed again here rather than read back, so the fill and the copy to
 * the host are checked too. */
static void reference_sums(uint64_t seed, const int64_t *ns, int count, uint32_t *out)
{
    int64_t acc = 0, i = 0;
    for (int j = 0; j < count; j++) {
        for (; i < ns[j]; i++) acc += (int32_t)(uint32_t)gpb_hash64(seed, (uint64_t)i);
        out[j] = (uint32_t)acc;
    }
}

/* ------------------------------------------------------------- CPU rungs */

/* Plain loops over the host copy. Unsigned adds: the int32 sum's bits,
 * wrapped, without signed overflow. */
static uint32_t cpu_serial_sum(const int32_t *x, int64_t n)
{
    uint32_t s = 0;
    for (int64_t i = 0; i < n; i++) s += (uint32_t)x[i];
    return s;
}

static uint32_t cpu_omp_sum(const int32_t *x, int64_t n)
{
    uint32_t s = 0;
#ifdef _OPENMP /* bench/CMakeLists.txt gives this file -fopenmp; without it, one thread (the config says so) */
#pragma omp parallel for reduction(+ : s) schedule(static)
#endif
    for (int64_t i = 0; i < n; i++) s += (uint32_t)x[i];
    return s;
}

typedef uint32_t (*cpu_sum_fn)(const int32_t *, int64_t);
static cpu_sum_fn cpu_rung(int id) { return id == RUNG_CPU_SERIAL ? cpu_serial_sum : cpu_omp_sum; }

/* Host clock around each call: warm-up, then env->opts.runs calls, median. */
static int time_cpu(const gpb_env *env, cpu_sum_fn sum, const int32_t *x, int64_t n, gpb_time *t)
{
    const int runs = env->opts.runs;
    double *v = (double *)malloc((size_t)runs * sizeof *v);
    if (!v) {
        fprintf(stderr, "gpuprim ladder: out of host memory\n");
        return GPB_ERROR;
    }
    volatile uint32_t sink = 0; /* the sums are used: no call is optimised away */
    for (int r = 0; r < env->opts.warmup; r++) sink = sink + sum(x, n);
    for (int r = 0; r < runs; r++) {
        const double t0 = gpb_now_us();
        sink = sink + sum(x, n);
        v[r] = gpb_now_us() - t0;
    }
    *t = gpb_summarize(v, runs);
    free(v);
    return GPB_OK;
}

/* ---------------------------------------------------------- device rungs */

/*
 * The host's pass driver: sums n words at `in` with kernel k at `threads`
 * per block. A pass writes one partial sum per block; the next pass, the
 * same kernel at the same threads (as the article's host does), sums those,
 * until one is left. At least one pass, so n = 1 runs the kernel too. The
 * two halves of b->partials take turns as output, so no pass overwrites the
 * input it reads. Launches only, each checked; *result is the device word
 * that will hold the sum.
 */
static int run_passes(const gpb_env *env, const lr_bufs *b, int k, unsigned threads, const void *in, int64_t n,
                      const void **result)
{
    cudaStream_t st = gpb_cuda(env)->stream;
    unsigned *const turn[2] = {b->partials, b->partials + b->half0};
    const size_t room[2] = {b->half0, b->half1};
    const unsigned *src = (const unsigned *)in;
    for (int pass = 0;; pass++) {
        const unsigned grid = lrk_grid(k, threads, n);
        unsigned *dst = turn[pass & 1];
        if (grid > room[pass & 1]) {
            fprintf(stderr, "gpuprim ladder: pass %d of %s at %u threads needs %u partial sums, room for %zu\n",
                    pass + 1, lrk_names[k], threads, grid, room[pass & 1]);
            return GPB_ERROR;
        }
        if (!lrk_launch(k, threads, grid, src, dst, (unsigned)n, st)) {
            fprintf(stderr, "gpuprim ladder: no %s kernel for %u threads\n", lrk_names[k], threads);
            return GPB_ERROR;
        }
        GPB_CU(cudaGetLastError());
        src = dst;
        n = grid;
        if (n == 1) break;
    }
    *result = src;
    return GPB_OK;
}

/* Runs device rung `id` once on `in` (launches only); *result: where its
 * sum will be. */
static int call_device_rung(const gpb_env *env, const lr_bufs *b, int id, const void *in, int64_t n,
                            const void **result)
{
    if (id < NKERNEL_RUNGS) return run_passes(env, b, id / NTHREADS, thread_counts[id % NTHREADS], in, n, result);
    if (id == RUNG_GPUPRIM) {
        gp_status st = gp_reduce(env->ctx, in, GP_DTYPE_I32, n, GP_OP_SUM, b->outs, GP_DTYPE_I32);
        if (st != GP_STATUS_OK) return gp_fail(env, "gp_reduce", n, st);
        *result = b->outs;
        return GPB_OK;
    }
    size_t bytes = b->cub_temp_bytes;
    GPB_CU(cub_sum(b->cub_temp, bytes, in, b->outs + CUB_OUT, n, gpb_cuda(env)->stream));
    *result = b->outs + CUB_OUT;
    return GPB_OK;
}

/* One device rung as the timer calls it. */
struct device_call {
    const gpb_env *env;
    const lr_bufs *b;
    int id;
    int64_t n;
    int operator()(const void *in) const
    {
        const void *result;
        return call_device_rung(env, b, id, in, n, &result);
    }
};

/* ------------------------------------------------------------------ check */

/* Every rung once on slice 0: got[id]. Outputs are poisoned first, so a
 * sum that is never written cannot pass. */
static int run_rungs_once(const gpb_env *env, const lr_bufs *b, int64_t n, uint32_t got[NRUNGS])
{
    cudaStream_t st = gpb_cuda(env)->stream;
    for (int id = 0; id < RUNG_CPU_SERIAL; id++) {
        GPB_CU(cudaMemsetAsync(b->partials, 0xA5, (b->half0 + b->half1) * sizeof(unsigned), st));
        GPB_CU(cudaMemsetAsync(b->outs, 0x5A, OUTS_BYTES, st));
        const void *result = nullptr;
        if (call_device_rung(env, b, id, b->arena.base, n, &result) != GPB_OK) return GPB_ERROR;
        GPB_CU(cudaMemcpyAsync(&got[id], result, sizeof(uint32_t), cudaMemcpyDeviceToHost, st));
        GPB_CU(cudaStreamSynchronize(st));
    }
    got[RUNG_CPU_SERIAL] = cpu_serial_sum(b->host, n);
    got[RUNG_CPU_OMP] = cpu_omp_sum(b->host, n);
    return GPB_OK;
}

/* Marks row `r` against the reference; 1 if it is wrong. */
static int judge(gpl_row *r, uint32_t got, uint32_t want)
{
    if (got == want) {
        r->check = GPL_CHECK_OK;
        return 0;
    }
    r->check = GPL_CHECK_WRONG;
    snprintf(r->note, sizeof r->note, "got %d, want %d", (int)(int32_t)got, (int)(int32_t)want);
    return 1;
}

/* `--check`: every rung at every size of check_sizes, or of --sizes when
 * given (as in the timed run, they replace the defaults), without timing.
 * One input of the largest size serves all of them: element i does not
 * depend on n, so each size is a prefix. */
static int check_all_sizes(gpb_env *env, const gpl_opts *o, gpl_report *rep, lr_bufs *b)
{
    int64_t ns[sizeof check_sizes / sizeof *check_sizes + 64];
    int count = 0;
    if (o->nsizes == 0)
        for (int64_t n : check_sizes) ns[count++] = n;
    for (int j = 0; j < o->nsizes; j++) {
        if (o->sizes[j] <= MAX_N) ns[count++] = o->sizes[j];
        else printf("n = %lld: skipped: past 2^31 - 1 (the article's kernels index with unsigned int)\n",
                    (long long)o->sizes[j]);
    }
    qsort(ns, (size_t)count, sizeof *ns, [](const void *a, const void *c) {
        const int64_t x = *(const int64_t *)a, y = *(const int64_t *)c;
        return (x > y) - (x < y);
    });
    int unique = 0;
    for (int j = 0; j < count; j++)
        if (unique == 0 || ns[j] != ns[unique - 1]) ns[unique++] = ns[j];
    count = unique;
    const int64_t n_max = ns[count - 1];

    const size_t bytes = (size_t)n_max * sizeof(int32_t);
    GPB_CU(cudaMalloc((void **)&b->arena.base, bytes));
    b->arena.slice_bytes = bytes, b->arena.stride = gpb_round_up(bytes, 256), b->arena.nslices = 1;
    if (gpb_cuda_fill<int32_t>(env, &b->arena, n_max, false) != GPB_OK) return GPB_ERROR;
    if (alloc_scratch(env, b, n_max) != GPB_OK || copy_to_host(env, b, n_max) != GPB_OK) return GPB_ERROR;
    uint32_t want[sizeof ns / sizeof *ns];
    reference_sums(env->opts.seed, ns, count, want);

    int failed = 0;
    for (int j = 0; j < count; j++) {
        const int64_t n = ns[j];
        uint32_t got[NRUNGS];
        if (cub_reserve(env, b, n) != GPB_OK || run_rungs_once(env, b, n, got) != GPB_OK) return GPB_ERROR;
        int wrong = 0;
        gpl_row rows[NRUNGS];
        char section[48], config[48];
        snprintf(section, sizeof section, "check n = %lld", (long long)n);
        for (int id = 0; id < NRUNGS; id++) {
            rung_config(id, n, config, sizeof config);
            gpl_row_init(&rows[id], section, rung_name(id), config, n);
            wrong += judge(&rows[id], got[id], want[j]);
        }
        if (!wrong) printf("n = %lld: pass (%d rungs)\n", (long long)n, (int)NRUNGS);
        else printf("n = %lld: FAIL, %d of %d rungs wrong\n", (long long)n, wrong, (int)NRUNGS);
        for (int id = 0; id < NRUNGS; id++) {
            if (rows[id].check == GPL_CHECK_WRONG)
                printf("  %s %s at n = %lld: %s\n", rows[id].rung, rows[id].config, (long long)n, rows[id].note);
            if (gpl_report_add(rep, &rows[id]) != GPB_OK) return GPB_ERROR;
        }
        fflush(stdout);
        failed |= wrong != 0;
    }
    return failed ? GPB_CHECK_FAILED : GPB_OK;
}

/* ------------------------------------------------------------------ print */

/* The seed's table: kernels by threads, ms for all passes. */
static void print_matrix(const gpb_env *env, const gpl_row *rows, int64_t n)
{
    printf("\nseed 000's table: n = %lld int32, ms for all passes (median of %d runs)\n", (long long)n,
           env->opts.runs);
    printf("%-20s", "threads");
    for (unsigned t : thread_counts) printf(" %9u", t);
    printf("\n");
    int any_wrong = 0;
    for (int k = 0; k < LRK_NKERNELS; k++) {
        char label[32];
        if (k == 6) snprintf(label, sizeof label, "%s (%d blocks)", lrk_names[k], (int)LRK_REDUCE6_BLOCKS);
        else snprintf(label, sizeof label, "%s", lrk_names[k]);
        printf("%-20s", label);
        for (int t = 0; t < NTHREADS; t++) {
            const gpl_row *r = &rows[k * NTHREADS + t];
            const int wrong = r->check == GPL_CHECK_WRONG;
            any_wrong |= wrong;
            printf(" %8.3f%c", r->t.med_us / 1e3, wrong ? '!' : ' ');
        }
        printf("\n");
    }
    const gpl_row *s = &rows[RUNG_CPU_SERIAL], *p = &rows[RUNG_CPU_OMP];
    printf("CPU serial: %.3f ms, CPU OpenMP (%s): %.3f ms, gpuprim: %.3f ms, cub: %.3f ms, copy: %.3f ms\n",
           s->t.med_us / 1e3, p->config, p->t.med_us / 1e3, rows[RUNG_GPUPRIM].t.med_us / 1e3,
           rows[RUNG_CUB].t.med_us / 1e3, rows[NRUNGS].t.med_us / 1e3);
    if (any_wrong) printf("! wrong answer: see the check column below\n");
}

static void print_peak(const gpb_env *env)
{
    gp_device_info d;
    const double peak = gpl_peak_gbs(env);
    if (peak > 0 && gp_device_get_info(env->opts.device, &d) == GP_STATUS_OK)
        printf("datasheet peak %.0f GB/s = %d bit / 8 x %.0f MHz x 2 (seed 000's formula: bus width / 8 x "
               "memory clock x 2, DDR)\n",
               peak, d.memory_bus_width_bits, d.memory_clock_khz / 1e3);
    else
        printf("datasheet peak unknown: the device reports no bus width or memory clock\n");
}

/* ------------------------------------------------------------------ timed */

/* Times every device rung (three kernel rungs per interleaved round, then
 * gpuprim, CUB and the two ceilings) and the CPU rungs. t[NRUNGS] is the
 * copy, t[NRUNGS + 1] the read ceiling. */
static int time_rungs(gpb_env *env, lr_bufs *b, int64_t n, gpb_time t[NROWS])
{
    const size_t bytes = (size_t)n * sizeof(int32_t);
    device_call calls[RUNG_CPU_SERIAL];
    for (int id = 0; id < RUNG_CPU_SERIAL; id++) calls[id] = device_call{env, b, id, n};
    for (int id = 0; id < NKERNEL_RUNGS; id += 3) {
        gpb_impl impls[3] = {gpb_impl_of(calls[id]), gpb_impl_of(calls[id + 1]), gpb_impl_of(calls[id + 2])};
        gpb_progress("reduce ladder: timing %s, %u to %u threads", lrk_names[id / NTHREADS],
                     thread_counts[id % NTHREADS], thread_counts[id % NTHREADS + 2]);
        if (gpb_cuda_time(env, &b->arena, impls, 3, &t[id]) != GPB_OK) return GPB_ERROR;
    }
    auto copy_call = [&](const void *in) -> int {
        GPB_CU(cudaMemcpyAsync(b->copy_dst, in, bytes, cudaMemcpyDeviceToDevice, gpb_cuda(env)->stream));
        return GPB_OK;
    };
    auto read_call = [&](const void *in) -> int { return gpb_cuda_read_ceiling(env, in, bytes); };
    gpb_impl peers[4] = {gpb_impl_of(calls[RUNG_GPUPRIM]), gpb_impl_of(calls[RUNG_CUB]), gpb_impl_of(copy_call),
                         gpb_impl_of(read_call)};
    gpb_time pt[4];
    gpb_progress("reduce ladder: timing gpuprim, cub and the ceilings");
    if (gpb_cuda_time(env, &b->arena, peers, 4, pt) != GPB_OK) return GPB_ERROR;
    t[RUNG_GPUPRIM] = pt[0], t[RUNG_CUB] = pt[1], t[NRUNGS] = pt[2], t[NRUNGS + 1] = pt[3];
    for (int id = RUNG_CPU_SERIAL; id <= RUNG_CPU_OMP; id++) {
        gpb_progress("reduce ladder: timing %s", rung_name(id));
        if (time_cpu(env, cpu_rung(id), b->host, n, &t[id]) != GPB_OK) return GPB_ERROR;
    }
    gpb_progress_clear();
    return GPB_OK;
}

/* One size: allocate, fill, check every rung, time, record and print. A
 * size that does not fit is reported and skipped. */
static int measure_size(gpb_env *env, int64_t n, gpl_report *rep, lr_bufs *b, int *failed)
{
    char nb[32], section[48];
    gpb_fmt_n(n, nb, sizeof nb);
    snprintf(section, sizeof section, "n = %s", nb);
    if (n > MAX_N) {
        printf("\nn = %s: skipped: past 2^31 - 1 (the article's kernels index with unsigned int)\n", nb);
        return GPB_OK;
    }
    const size_t bytes = (size_t)n * sizeof(int32_t);
    cudaStream_t st = gpb_cuda(env)->stream;

    /* Every scratch size first: they count toward what must fit. */
    size_t half0, half1, cub_bytes = 0;
    partials_layout(n, &half0, &half1);
    GPB_CU(cub_sum(nullptr, cub_bytes, nullptr, nullptr, n, st));
    gp_status gs = gp_reduce_workspace_size(env->ctx, GP_DTYPE_I32, n, GP_OP_SUM, GP_DTYPE_I32, &b->gp_ws_bytes);
    if (gs != GP_STATUS_OK) return gp_fail(env, "gp_reduce_workspace_size", n, gs);
    const size_t extra = gpb_round_up((half0 + half1) * sizeof(unsigned), 256) + gpb_round_up(bytes, 256) +
                         gpb_round_up(cub_bytes, 256) + gpb_round_up(b->gp_ws_bytes, 256) + OUTS_BYTES;
    char note[200] = "";
    if (gpb_cuda_arena_alloc(env, &b->arena, bytes, extra, note, sizeof note) != GPB_OK) return GPB_ERROR;
    if (!b->arena.base) {
        printf("\nn = %s: %s\n", nb, note);
        return GPB_OK;
    }
    if (alloc_scratch(env, b, n) != GPB_OK) return GPB_ERROR;
    GPB_CU(cudaMalloc(&b->copy_dst, bytes));
    if (b->gp_ws_bytes) {
        GPB_CU(cudaMalloc(&b->gp_ws, b->gp_ws_bytes));
        gs = gp_ctx_set_workspace(env->ctx, b->gp_ws, b->gp_ws_bytes);
        if (gs != GP_STATUS_OK) return gp_fail(env, "gp_ctx_set_workspace", n, gs);
        b->ws_set = true;
    }
    if (gpb_cuda_fill<int32_t>(env, &b->arena, n, false) != GPB_OK || copy_to_host(env, b, n) != GPB_OK)
        return GPB_ERROR;

    uint32_t want, got[NRUNGS];
    gpb_progress("reduce ladder: n = %s: reference and checks", nb);
    reference_sums(env->opts.seed, &n, 1, &want);
    if (run_rungs_once(env, b, n, got) != GPB_OK) return GPB_ERROR;
    gpb_time t[NROWS];
    if (time_rungs(env, b, n, t) != GPB_OK) return GPB_ERROR;

    /* Rows: GB/s counts the 4n bytes a sum must read; the copy moves 8n. */
    const double peak = gpl_peak_gbs(env);
    gpl_row rows[NROWS];
    for (int id = 0; id < NROWS; id++) {
        char config[48];
        if (id < NRUNGS) {
            rung_config(id, n, config, sizeof config);
            gpl_row_init(&rows[id], section, rung_name(id), config, n);
            if (judge(&rows[id], got[id], want)) {
                fprintf(stderr, "CHECK FAILED: %s %s at n = %lld: %s\n", rows[id].rung, rows[id].config,
                        (long long)n, rows[id].note);
                *failed = 1;
            }
        } else {
            const bool is_copy = id == NRUNGS;
            gpl_row_init(&rows[id], section, is_copy ? "copy ceiling" : "read ceiling",
                         is_copy ? "D2D memcpy" : "streaming read", n);
            snprintf(rows[id].note, sizeof rows[id].note, "%s",
                     is_copy ? "GB/s counts read + write" : "gpb_cuda_read_ceiling");
        }
        rows[id].t = t[id];
        rows[id].bytes = id == NRUNGS ? 2.0 * bytes : (double)bytes;
    }
    for (int id = RUNG_CPU_SERIAL; id <= RUNG_CPU_OMP; id++)
        if (rows[id].check == GPL_CHECK_OK) snprintf(rows[id].note, sizeof rows[id].note, "host clock");
    const double copy_gbs = gpl_gbs(&rows[NRUNGS]);
    for (int id = 0; id < NROWS; id++) {
        gpl_row *r = &rows[id];
        if (peak > 0) r->pct_peak = 100.0 * gpl_gbs(r) / peak;
        if (copy_gbs > 0 && id != NRUNGS) r->pct_ceiling = 100.0 * gpl_gbs(r) / copy_gbs;
        if (gpl_report_add(rep, r) != GPB_OK) return GPB_ERROR;
    }

    print_matrix(env, rows, n);
    char title[200];
    snprintf(title, sizeof title,
             "detail, n = %s int32: GB/s counts 4n bytes read (the copy 8n), %%peak of the datasheet peak, "
             "%%ceil of the copy's GB/s",
             nb);
    gpl_print_rows(title, rows, NROWS);
    return GPB_OK;
}

/* ------------------------------------------------------------------- run */

static int run(gpb_env *env, const gpl_opts *o, gpl_report *rep)
{
    print_peak(env);
    if (o->check_only) {
        printf("every kernel at every block size, gpuprim, cub and the CPU sums, against a serial 64-bit sum "
               "mod 2^32 (seed %llu)\n",
               (unsigned long long)env->opts.seed);
        lr_bufs b{};
        int rc = check_all_sizes(env, o, rep, &b);
        int rc_free = release(env, &b);
        return rc_free != GPB_OK ? GPB_ERROR : rc;
    }
    const int64_t default_n = ARTICLE_N;
    const int64_t *sizes = o->nsizes ? o->sizes : &default_n;
    const int nsizes = o->nsizes ? o->nsizes : 1;
    int failed = 0;
    for (int j = 0; j < nsizes; j++) {
        lr_bufs b{};
        int rc = measure_size(env, sizes[j], rep, &b, &failed);
        int rc_free = release(env, &b);
        if (rc == GPB_OK && rc_free != GPB_OK) rc = rc_free;
        if (rc != GPB_OK) return rc;
    }
    return failed ? GPB_CHECK_FAILED : GPB_OK;
}

} // namespace

extern "C" const gpl_ladder gpl_ladder_reduce = {
    "reduce", "seed 000: reduce0-6 at 32-1024 threads, CPU, gpuprim, cub, vs the copy and the datasheet peak",
    run};
