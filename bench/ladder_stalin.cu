/*
 * `gpuprim ladder stalin`: seed 002's running-max filter ("Stalin sort":
 * keep x[i] when it is not below the maximum of all before it), from the
 * article's CPU loop to gpuprim, on int32 as in the article, at its sizes
 * (10 to 10^7) and at 2^28:
 *   cpu loop (article)    its serial loop on host data, host clock
 *   article scan+Purge    its own GPU pipeline: CUB InclusiveScan(max),
 *                         SetSurviveFlag, CUB InclusiveSum over the flags,
 *                         Purge writes each survivor where the scan says
 *   article CUB pipeline  its second version: InclusiveScan(max), the flag
 *                         kernel, DevicePartition::Flagged (shared with
 *                         `gpuprim bench filter`: bench_filter_pipeline.cuh)
 *   gpuprim               gp_filter_running_max, one fused pass
 *   gpuprim incl. copies  H2D of the input + the filter + D2H of the
 *                         survivors, pinned host buffers: the article's
 *                         CPU-or-GPU question for a caller holding host data
 *   read ceiling          the streaming read of the input
 * The GPU rungs run on device data, timed with events on the harness's
 * stream; like the article, they exclude allocation and host<->device copies
 * (except the "incl. copies" row). The article does not say how it drew its
 * input: we take random int32 (about ln n survivors) and, as a second table,
 * mostly ascending data (i/2 + noise, as `gpuprim bench filter-ascending`),
 * where about 2 in 5 survive.
 * Every rung is checked exactly (count, every survivor in order, a guard
 * band after the output) against the serial reference, before and after
 * timing.
 */
#include "bench_cuda.cuh"
#include "bench_filter_pipeline.cuh"
#include "ladder.h"
#include "ladder_stalin_cpu.h"

#include <cub/device/device_scan.cuh>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <vector>

/* Everything but the ladder's entry has internal linkage: the ladders and
 * bench cases are linked together and reuse type names (point, rung_call). */
namespace {

/* Input patterns, in gpl_stalin_fill's order. */
enum pattern { P_RANDOM, P_MOSTLY_ASCENDING, P_ASCENDING, P_DESCENDING, P_CONSTANT, P_FEW_VALUES, NPATTERNS };
static const char *const pattern_names[NPATTERNS] = {"random",     "mostly ascending", "ascending",
                                                     "descending", "constant",         "few values"};

enum rung { R_CPU, R_PURGE, R_CUB, R_GPUPRIM, R_COPIES, R_CEILING, NRUNGS };
static const char *const rung_names[NRUNGS] = {"cpu loop (article)", "article scan+Purge", "article CUB pipeline",
                                               "gpuprim",            "gpuprim incl. copies", "read ceiling"};
static const char *const rung_configs[NRUNGS] = {"1 thread", "4 calls",     "3 calls",
                                                 "1 call",   "pinned host", "16 B loads"};

enum { GUARD = 64 };                   /* int32 canaries after each output */
enum { NOTE = sizeof(gpl_row::note) };  /* a check's note goes to a row's as is */
static const int32_t CANARY = 0x5eed0c0d;

/* ------------------------------------------------ the article's own kernels */

/* The article gives no block size; 256 threads, one element each. */
enum { PURGE_THREADS = 256 };

/*
 * Where ours differs from the article: its kernels index with int and its
 * flags and their scan are int, so it is right up to 2^31 - 1 elements. Ours
 * index with int64_t in a grid-stride loop (one element per thread, as the
 * article, below 2^31 blocks), and past INT_MAX elements scan the flags as
 * int64_t in a buffer of their own (C below); up to there C is int and the
 * flags overwrite the running maximum in place, as in the article.
 */

/* SetSurviveFlag: x[idx] survives when it equals the running maximum there. */
template <class C>
__global__ void set_survive_flag(int64_t num, const int32_t *org, const int32_t *max_element, C *flag)
{
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; idx < num; idx += step)
        flag[idx] = (C)(org[idx] == max_element[idx]);
}

/* Purge: the scanned flags step up at each survivor, whose place in the
 * output is the count so far minus one. */
template <class C>
__global__ void purge(int64_t num, const C *scan_survive_flag, const int32_t *input, int32_t *output)
{
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; idx < num; idx += step) {
        const C val = scan_survive_flag[idx];
        const C pre_val = idx > 0 ? scan_survive_flag[idx - 1] : 0;
        if (val != pre_val) output[val - 1] = input[idx];
    }
}

/* Copies slice 0 of the arena (n int32) into every other slice, so every
 * rung and every timed call sees the input the host loop sees. */
__global__ void replicate_kernel(unsigned char *base, size_t stride, int64_t n, int64_t nslices)
{
    const int64_t total = (nslices - 1) * n, step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < total; k += step)
        ((int32_t *)(base + (size_t)(1 + k / n) * stride))[k % n] = ((const int32_t *)base)[k % n];
}

static int one_per_thread_grid(int64_t n)
{
    const int64_t blocks = (n + PURGE_THREADS - 1) / PURGE_THREADS;
    return blocks < 1 ? 1 : blocks > INT_MAX ? INT_MAX : (int)blocks;
}

/* ------------------------------------------------------------ one input */

/* Everything one (pattern, n) needs, on the device and on the host. */
struct point {
    gpb_env *env = nullptr;
    int64_t n = 0;
    bool wide = false;                /* n > INT_MAX: the Purge pipeline counts in int64_t */
    gpb_arena arena = {};             /* the input, rotated (one slice in --check) */
    int32_t *max_buf = nullptr;       /* running max, then (int) the flags and their scan */
    int64_t *wide_flags = nullptr;    /* the flags and their scan when wide */
    int32_t *cub_max = nullptr;       /* the CUB pipeline's running max and flags */
    uint8_t *cub_flags = nullptr;
    int32_t *out = nullptr;           /* every GPU rung's output: n + GUARD */
    int32_t *dev_in = nullptr;        /* where "incl. copies" copies the input */
    int64_t *counts = nullptr;        /* [0] gpuprim, [1] the CUB pipeline */
    void *temp = nullptr;             /* CUB's temp storage, shared by the rungs */
    size_t temp_bytes = 0;
    int32_t *host_in = nullptr;       /* pinned: the input on the host */
    int32_t *host_out = nullptr;      /* pinned: where "incl. copies" returns the survivors */
    int64_t host_count = 0, cpu_count = 0, ref_count = 0;
    std::vector<int32_t> ref, cpu_out, got;
};

static int gp_fail(const char *call, int64_t n, gp_status st, gp_ctx *ctx)
{
    fprintf(stderr, "gpuprim ladder stalin: %s (n = %lld) failed: %s\n", call, (long long)n, gpb_status_why(ctx, st));
    return GPB_ERROR;
}

static int release(point *p)
{
    int rc = gpb_cuda_arena_free(&p->arena);
    void *dev[] = {p->max_buf, p->wide_flags, p->cub_max, p->cub_flags, p->out, p->dev_in, p->counts, p->temp};
    for (void *q : dev) {
        cudaError_t e = q ? cudaFree(q) : cudaSuccess;
        if (e != cudaSuccess) rc = gpb_cuda_fail("cudaFree", e, __FILE__, __LINE__);
    }
    for (void *q : {(void *)p->host_in, (void *)p->host_out}) {
        cudaError_t e = q ? cudaFreeHost(q) : cudaSuccess;
        if (e != cudaSuccess) rc = gpb_cuda_fail("cudaFreeHost", e, __FILE__, __LINE__);
    }
    return rc;
}

/* CUB's temp storage for the Purge pipeline's two scans, counting in C. */
template <class C>
static int purge_temp_bytes(int64_t n, size_t *bytes, cudaStream_t st)
{
    size_t a = 0, b = 0;
    GPB_CU(cub::DeviceScan::InclusiveScan(nullptr, a, (const int32_t *)nullptr, (int32_t *)nullptr, gpb_max_op{}, n, st));
    GPB_CU(cub::DeviceScan::InclusiveSum(nullptr, b, (const C *)nullptr, (C *)nullptr, n, st));
    *bytes = a > b ? a : b;
    return GPB_OK;
}

/* Allocates and fills one input; `note` says why a size that does not fit
 * was skipped (p->arena.base stays NULL). */
static int setup(point *p, gpb_env *env, int64_t n, int pat, bool rotate, char *note, size_t note_size)
{
    gpb_cuda_rt *rt = gpb_cuda(env);
    p->env = env, p->n = n, p->wide = n > INT_MAX;
    const size_t data = (size_t)n * sizeof(int32_t), outb = ((size_t)n + GUARD) * sizeof(int32_t);

    size_t t1 = 0, t2 = 0, ws = 0;
    if (gpb_filter_pipeline_temp_bytes<int32_t>(n, &t1, rt->stream) != GPB_OK) return GPB_ERROR;
    if ((p->wide ? purge_temp_bytes<int64_t>(n, &t2, rt->stream) : purge_temp_bytes<int>(n, &t2, rt->stream)) != GPB_OK)
        return GPB_ERROR;
    gp_status st = gp_select_workspace_size(env->ctx, GP_DTYPE_I32, n, &ws);
    if (st != GP_STATUS_OK) return gp_fail("gp_select_workspace_size", n, st, env->ctx);
    p->temp_bytes = t1 > t2 ? t1 : t2;
    const size_t extra = p->temp_bytes + ws + data /* max_buf */ + (p->wide ? 2 * data : 0) + data /* cub_max */ +
                         (size_t)n + outb + data /* dev_in */ + 4096;
    /* --check times nothing, so one slice is enough: no rotation. */
    gpb_env one = *env;
    if (!rotate) one.meta.cache_bytes = 0;
    if (gpb_cuda_arena_alloc(&one, &p->arena, data, extra, note, note_size) != GPB_OK) return GPB_ERROR;
    if (!p->arena.base) return GPB_OK;

    GPB_CU(cudaMalloc((void **)&p->max_buf, data));
    if (p->wide) GPB_CU(cudaMalloc((void **)&p->wide_flags, (size_t)n * sizeof(int64_t)));
    GPB_CU(cudaMalloc((void **)&p->cub_max, data));
    GPB_CU(cudaMalloc((void **)&p->cub_flags, (size_t)n));
    GPB_CU(cudaMalloc((void **)&p->out, outb));
    GPB_CU(cudaMalloc((void **)&p->dev_in, data));
    GPB_CU(cudaMalloc((void **)&p->counts, 2 * sizeof(int64_t)));
    if (p->temp_bytes) GPB_CU(cudaMalloc(&p->temp, p->temp_bytes));
    GPB_CU(cudaMallocHost((void **)&p->host_in, data));
    GPB_CU(cudaMallocHost((void **)&p->host_out, data));
    p->ref.resize((size_t)n);
    p->cpu_out.resize((size_t)n);
    p->got.resize((size_t)n + GUARD);

    gpl_stalin_fill(p->host_in, n, pat, env->opts.seed);
    p->ref_count = gpl_stalin_reference(p->host_in, n, p->ref.data());
    GPB_CU(cudaMemcpyAsync(p->arena.base, p->host_in, data, cudaMemcpyHostToDevice, rt->stream));
    if (p->arena.nslices > 1) {
        replicate_kernel<<<rt->sm_count * 8, 256, 0, rt->stream>>>(p->arena.base, p->arena.stride, n,
                                                                   (int64_t)p->arena.nslices);
        GPB_CU(cudaGetLastError());
    }
    GPB_CU(cudaStreamSynchronize(rt->stream));
    return GPB_OK;
}

/* ----------------------------------------------------------------- rungs */

/* Seed 002's own pipeline, in the article's order, on `in`. */
template <class C>
static int purge_pipeline(point *p, const int32_t *in, C *flags)
{
    gpb_cuda_rt *rt = gpb_cuda(p->env);
    const int grid = one_per_thread_grid(p->n);
    size_t tb = p->temp_bytes;
    GPB_CU(cub::DeviceScan::InclusiveScan(p->temp, tb, in, p->max_buf, gpb_max_op{}, p->n, rt->stream));
    set_survive_flag<C><<<grid, PURGE_THREADS, 0, rt->stream>>>(p->n, in, p->max_buf, flags);
    GPB_CU(cudaGetLastError());
    tb = p->temp_bytes;
    GPB_CU(cub::DeviceScan::InclusiveSum(p->temp, tb, (const C *)flags, flags, p->n, rt->stream)); /* in place */
    purge<C><<<grid, PURGE_THREADS, 0, rt->stream>>>(p->n, flags, in, p->out);
    GPB_CU(cudaGetLastError());
    return GPB_OK;
}

/* Runs one rung once on `in` (a slice of the arena; the host rungs read
 * host_in). GPU rungs are issued on the stream; "incl. copies" waits for its
 * count before it copies the survivors back. */
static int issue(point *p, rung r, const void *in)
{
    gpb_env *env = p->env;
    gpb_cuda_rt *rt = gpb_cuda(env);
    const int64_t n = p->n;
    const int32_t *x = (const int32_t *)in;
    gp_status st;
    switch (r) {
    case R_CPU: p->cpu_count = gpl_stalin_cpu_article(p->host_in, n, p->cpu_out.data()); return GPB_OK;
    case R_PURGE: return p->wide ? purge_pipeline<int64_t>(p, x, p->wide_flags) : purge_pipeline<int>(p, x, p->max_buf);
    case R_CUB:
        return gpb_filter_pipeline_run<int32_t>(p->temp, p->temp_bytes, x, n, p->cub_max, p->cub_flags, p->out,
                                                p->counts + 1, rt->sm_count * 8, rt->stream);
    case R_GPUPRIM:
        st = gp_filter_running_max(env->ctx, x, GP_DTYPE_I32, n, 0, p->out, p->counts, NULL);
        return st == GP_STATUS_OK ? GPB_OK : gp_fail("gp_filter_running_max", n, st, env->ctx);
    case R_COPIES:
        GPB_CU(cudaMemcpyAsync(p->dev_in, p->host_in, (size_t)n * sizeof(int32_t), cudaMemcpyHostToDevice, rt->stream));
        p->host_count = -1;
        st = gp_filter_running_max(env->ctx, p->dev_in, GP_DTYPE_I32, n, 0, p->out, NULL, &p->host_count);
        if (st != GP_STATUS_OK) return gp_fail("gp_filter_running_max", n, st, env->ctx);
        if (p->host_count > 0 && p->host_count <= n) /* else the check reports the count */
            GPB_CU(cudaMemcpyAsync(p->host_out, p->out, (size_t)p->host_count * sizeof(int32_t),
                                   cudaMemcpyDeviceToHost, rt->stream));
        return GPB_OK;
    default: return gpb_cuda_read_ceiling(env, in, (size_t)n * sizeof(int32_t));
    }
}

/* Poisons what rung r writes, so that nothing it failed to write can pass. */
static int poison(point *p, rung r)
{
    gpb_cuda_rt *rt = gpb_cuda(p->env);
    const size_t data = (size_t)p->n * sizeof(int32_t);
    if (r == R_CPU) {
        memset(p->cpu_out.data(), 0xA5, data);
        return GPB_OK;
    }
    if (r == R_COPIES) memset(p->host_out, 0xA5, data);
    std::vector<int32_t> canaries(GUARD, CANARY);
    GPB_CU(cudaMemsetAsync(p->out, 0xA5, data, rt->stream));
    GPB_CU(cudaMemcpyAsync(p->out + p->n, canaries.data(), sizeof(int32_t) * GUARD, cudaMemcpyHostToDevice, rt->stream));
    GPB_CU(cudaMemsetAsync(p->counts, 0x5A, 2 * sizeof(int64_t), rt->stream));
    GPB_CU(cudaMemsetAsync(p->max_buf, 0x5A, data, rt->stream)); /* the Purge count is its last scan value */
    if (p->wide) GPB_CU(cudaMemsetAsync(p->wide_flags, 0x5A, (size_t)p->n * sizeof(int64_t), rt->stream));
    GPB_CU(cudaStreamSynchronize(rt->stream)); /* canaries is a pageable local */
    return GPB_OK;
}

/* After the rung has run: its count, its survivors (host), and whether the
 * guard after the device output is intact. */
static int fetch(point *p, rung r, int64_t *count, const int32_t **vals, bool *guard_ok)
{
    gpb_cuda_rt *rt = gpb_cuda(p->env);
    const int64_t n = p->n;
    *guard_ok = true;
    if (r == R_CPU) {
        *count = p->cpu_count, *vals = p->cpu_out.data();
        return GPB_OK;
    }
    GPB_CU(cudaStreamSynchronize(rt->stream));
    if (r == R_PURGE && p->wide) {
        GPB_CU(cudaMemcpy(count, p->wide_flags + (n - 1), sizeof *count, cudaMemcpyDeviceToHost));
    } else if (r == R_PURGE) {
        int c = -1;
        GPB_CU(cudaMemcpy(&c, p->max_buf + (n - 1), sizeof c, cudaMemcpyDeviceToHost));
        *count = c;
    } else if (r == R_COPIES) {
        *count = p->host_count;
    } else {
        GPB_CU(cudaMemcpy(count, p->counts + (r == R_CUB), sizeof *count, cudaMemcpyDeviceToHost));
    }
    int32_t *guard = p->got.data() + n;
    GPB_CU(cudaMemcpy(guard, p->out + n, sizeof(int32_t) * GUARD, cudaMemcpyDeviceToHost));
    for (int i = 0; i < GUARD; i++) *guard_ok &= guard[i] == CANARY;
    if (r == R_COPIES) {
        *vals = p->host_out;
    } else {
        *vals = p->got.data();
        if (*count > 0 && *count <= n)
            GPB_CU(cudaMemcpy(p->got.data(), p->out, (size_t)*count * sizeof(int32_t), cudaMemcpyDeviceToHost));
    }
    return GPB_OK;
}

/* Exact: the count, every survivor in order, the guard. */
static gpl_check compare(const point *p, int64_t count, const int32_t *vals, bool guard_ok, char *note, size_t size)
{
    const int64_t want = p->ref_count;
    const bool count_ok = count == want;
    const int64_t common = count >= 0 && count <= p->n ? (count < want ? count : want) : 0;
    int64_t i = 0;
    while (i < common && vals[i] == p->ref[(size_t)i]) i++;
    if (count_ok && i == want && guard_ok) return GPL_CHECK_OK;
    if (i < common)
        snprintf(note, size, "first differing index %lld: got %ld, want %ld; kept %lld, want %lld", (long long)i,
                 (long)vals[i], (long)p->ref[(size_t)i], (long long)count, (long long)want);
    else if (!count_ok)
        snprintf(note, size, "kept %lld, want %lld (the first %lld agree)", (long long)count, (long long)want,
                 (long long)common);
    else
        snprintf(note, size, "wrote past out[n-1] (guard band changed)");
    return GPL_CHECK_WRONG;
}

/* Runs and checks every rung but the ceiling once; checks[r] gets the
 * verdict, notes[r] the first mismatch. */
static int check_rungs(point *p, const char *what, const char *when, gpl_check *checks, char (*notes)[NOTE])
{
    int rc = GPB_OK;
    for (int r = 0; r < R_CEILING; r++) {
        int64_t count = -1;
        const int32_t *vals = nullptr;
        bool guard_ok = true;
        if (poison(p, (rung)r) != GPB_OK || issue(p, (rung)r, p->arena.base) != GPB_OK ||
            fetch(p, (rung)r, &count, &vals, &guard_ok) != GPB_OK)
            return GPB_ERROR;
        char note[NOTE] = "";
        if (compare(p, count, vals, guard_ok, note, sizeof note) == GPL_CHECK_OK) continue;
        char nb[32];
        fprintf(stderr, "CHECK FAILED: stalin %s, %s int32, n = %s (%s): %s\n", rung_names[r], what,
                gpb_fmt_n(p->n, nb, sizeof nb), when, note);
        if (checks[r] != GPL_CHECK_WRONG) snprintf(notes[r], sizeof notes[r], "%s: %s", when, note);
        checks[r] = GPL_CHECK_WRONG;
        rc = GPB_CHECK_FAILED;
    }
    return rc;
}

/* ---------------------------------------------------------------- timing */

/*
 * The article's loop on the host clock, on the same host input every time
 * (warm caches at small n, as in the article's 1000 samples). One sample
 * repeats the loop until it lasts 20 us or more, so that the clock's grain
 * does not count. At 2^28 a call takes 0.3 to 1.5 s: the first call counts
 * as warm-up, which stops after 1 s, and sampling stops after 2 s once 3
 * samples are in, so that the ladder stays well under a minute.
 */
static gpb_time time_cpu(point *p, int runs, int warmup, int *samples)
{
    const double start = gpb_now_us();
    (void)issue(p, R_CPU, nullptr);
    const double once = gpb_now_us() - start;
    const int reps = once >= 20 ? 1 : once > 0.01 ? (int)ceil(20 / once) : 2000;
    for (int w = 1; w < warmup && gpb_now_us() - start < 1e6; w++)
        for (int k = 0; k < reps; k++) (void)issue(p, R_CPU, nullptr);
    std::vector<double> v;
    const double t0 = gpb_now_us();
    for (int r = 0; r < runs && (r < 3 || gpb_now_us() - t0 < 2e6); r++) {
        const double s = gpb_now_us();
        for (int k = 0; k < reps; k++) (void)issue(p, R_CPU, nullptr);
        v.push_back((gpb_now_us() - s) / reps);
    }
    *samples = (int)v.size();
    return gpb_summarize(v.data(), (int)v.size());
}

/* One (section, n) of the timed ladder: checks, times, adds the rows. */
static int measure(gpb_env *env, int pat, const char *section, int64_t n, double peak, gpl_report *rep,
                   std::vector<gpl_row> *rows)
{
    point p;
    char skip[200] = "";
    gpl_check checks[NRUNGS];
    char notes[NRUNGS][NOTE];
    for (int r = 0; r < NRUNGS; r++) checks[r] = r == R_CEILING ? GPL_CHECK_NONE : GPL_CHECK_OK, notes[r][0] = 0;
    gpb_time t[NRUNGS] = {};
    int cpu_samples = 0;
    int rc = setup(&p, env, n, pat, true, skip, sizeof skip);
    if (rc == GPB_OK && p.arena.base) {
        int failed = check_rungs(&p, pattern_names[pat], "before timing", checks, notes);
        if (failed == GPB_ERROR) rc = GPB_ERROR;
        if (rc == GPB_OK) t[R_CPU] = time_cpu(&p, env->opts.runs, env->opts.warmup, &cpu_samples);
        auto f_purge = [&p](const void *in) { return issue(&p, R_PURGE, in); };
        auto f_cub = [&p](const void *in) { return issue(&p, R_CUB, in); };
        auto f_gpuprim = [&p](const void *in) { return issue(&p, R_GPUPRIM, in); };
        auto f_copies = [&p](const void *in) { return issue(&p, R_COPIES, in); };
        auto f_ceiling = [&p](const void *in) { return issue(&p, R_CEILING, in); };
        /* Interleaved in rounds; "incl. copies" alone, its input being on the host. */
        gpb_impl dev[4] = {gpb_impl_of(f_purge), gpb_impl_of(f_cub), gpb_impl_of(f_gpuprim), gpb_impl_of(f_ceiling)};
        gpb_impl host[1] = {gpb_impl_of(f_copies)};
        gpb_time td[4];
        if (rc == GPB_OK) rc = gpb_cuda_time(env, &p.arena, dev, 4, td);
        if (rc == GPB_OK) rc = gpb_cuda_time(env, &p.arena, host, 1, &t[R_COPIES]);
        if (rc == GPB_OK) {
            t[R_PURGE] = td[0], t[R_CUB] = td[1], t[R_GPUPRIM] = td[2], t[R_CEILING] = td[3];
            int again = check_rungs(&p, pattern_names[pat], "after timing", checks, notes); /* a race moves */
            if (again == GPB_ERROR) rc = GPB_ERROR;
            else if (failed == GPB_CHECK_FAILED || again == GPB_CHECK_FAILED) rc = GPB_CHECK_FAILED;
        }
    }
    const int64_t kept = p.ref_count;
    int rc_free = release(&p);
    if (rc == GPB_ERROR) return rc;
    if (rc_free != GPB_OK) return rc_free;

    for (int r = 0; r < NRUNGS; r++) {
        gpl_row row;
        gpl_row_init(&row, section, rung_names[r], rung_configs[r], n);
        row.t = t[r];
        row.check = skip[0] ? GPL_CHECK_NONE : checks[r];
        row.bytes = (double)n * 4 + (r == R_CEILING ? 0 : (double)kept * 4);
        const bool on_device = r != R_CPU && r != R_COPIES;
        if (on_device && peak > 0) row.pct_peak = gpl_gbs(&row) * 100 / peak;
        if (on_device && t[r].measured && t[R_CEILING].measured) row.pct_ceiling = t[R_CEILING].med_us / t[r].med_us * 100;
        if (t[r].measured && t[R_CPU].measured) row.ratio = t[R_CPU].med_us / t[r].med_us;
        if (skip[0]) snprintf(row.note, sizeof row.note, "%s", skip);
        else if (notes[r][0]) memcpy(row.note, notes[r], NOTE); /* NUL-terminated */
        else if (r == R_CPU && cpu_samples < env->opts.runs)
            snprintf(row.note, sizeof row.note, "%d samples (2 s cap)", cpu_samples);
        else if (r == R_GPUPRIM)
            snprintf(row.note, sizeof row.note, "%lld kept", (long long)kept);
        if (gpl_report_add(rep, &row) != GPB_OK) return GPB_ERROR;
        rows->push_back(row);
    }
    return rc;
}

/* ------------------------------------------------------------ the ladder */

static int run_check(gpb_env *env, gpl_report *rep)
{
    static const int64_t sizes[] = {1, 2, 10, 31, 32, 33, 1000, 4095, 4096, 4097, 65537, 1000003};
    const int nsizes = (int)(sizeof sizes / sizeof *sizes);
    int rc = GPB_OK;
    printf("\nEvery rung at n in {1, 2, 10, 31, 32, 33, 1000, 4095, 4096, 4097, 65537, 1000003}, checked exactly\n"
           "(count, each survivor in order, a guard band after the output) against the serial reference:\n");
    for (int pat = 0; pat < NPATTERNS; pat++) {
        int ok[NRUNGS] = {0};
        for (int i = 0; i < nsizes; i++) {
            point p;
            char skip[200] = "", notes[NRUNGS][NOTE] = {};
            gpl_check checks[NRUNGS] = {};
            int r1 = setup(&p, env, sizes[i], pat, false, skip, sizeof skip);
            if (r1 == GPB_OK && !p.arena.base) {
                fprintf(stderr, "gpuprim ladder stalin: n = %lld %s\n", (long long)sizes[i], skip);
                r1 = GPB_ERROR;
            }
            if (r1 == GPB_OK) r1 = check_rungs(&p, pattern_names[pat], "check", checks, notes);
            int r2 = release(&p);
            if (r1 == GPB_ERROR || r2 != GPB_OK) return GPB_ERROR;
            if (r1 == GPB_CHECK_FAILED) rc = GPB_CHECK_FAILED;
            for (int r = 0; r < R_CEILING; r++) {
                ok[r] += checks[r] == GPL_CHECK_OK;
                gpl_row row;
                gpl_row_init(&row, pattern_names[pat], rung_names[r], rung_configs[r], sizes[i]);
                row.check = checks[r];
                memcpy(row.note, notes[r], NOTE);
                if (gpl_report_add(rep, &row) != GPB_OK) return GPB_ERROR;
            }
        }
        printf("  %-17s", pattern_names[pat]);
        for (int r = 0; r < R_CEILING; r++) printf("  %s %d/%d", rung_names[r], ok[r], nsizes);
        printf("\n");
    }
    printf("%s\n", rc == GPB_OK ? "all rungs agree with the reference" : "MISMATCHES: see the lines above");
    fflush(stdout);
    return rc;
}

static int run(gpb_env *env, const gpl_opts *o, gpl_report *rep)
{
    if (o->check_only) return run_check(env, rep);
    static const int64_t article_sizes[] = {10, 100, 1000, 10000, 100000, 1000000, 10000000, INT64_C(1) << 28};
    static const int64_t ascending_sizes[] = {10000000, INT64_C(1) << 28};
    struct section {
        int pattern;
        const char *name;
        const int64_t *sizes;
        int nsizes;
    } sections[2] = {
        {P_RANDOM, "random int32", article_sizes, (int)(sizeof article_sizes / sizeof *article_sizes)},
        {P_MOSTLY_ASCENDING, "mostly ascending int32", ascending_sizes,
         (int)(sizeof ascending_sizes / sizeof *ascending_sizes)},
    };
    const double peak = gpl_peak_gbs(env);
    int rc = GPB_OK;
    for (const section &s : sections) {
        const int64_t *sizes = o->nsizes ? o->sizes : s.sizes;
        const int nsizes = o->nsizes ? o->nsizes : s.nsizes;
        std::vector<gpl_row> rows;
        for (int i = 0; i < nsizes; i++) {
            char nb[32];
            gpb_progress("stalin %s n = %s", s.name, gpb_fmt_n(sizes[i], nb, sizeof nb));
            int r = measure(env, s.pattern, s.name, sizes[i], peak, rep, &rows);
            gpb_progress_clear();
            if (r == GPB_ERROR) return r;
            if (r == GPB_CHECK_FAILED) rc = r;
        }
        char title[320];
        snprintf(title, sizeof title,
                 "stalin, %s: GPU rungs on device data, host<->device copies excluded as in the article (but\n"
                 "\"gpuprim incl. copies\"); median of %d; GB/s = input read + survivors written; ratio = speedup "
                 "over the cpu loop",
                 s.name, env->opts.runs);
        gpl_print_rows(title, rows.data(), (int)rows.size());
    }
    return rc;
}

} // namespace

extern "C" const gpl_ladder gpl_ladder_stalin = {
    "stalin",
    "seed 002: the article's CPU loop, its scan+Purge and CUB pipelines, gp_filter_running_max (also incl. copies), "
    "the read ceiling; 10 to 10^7 and 2^28 int32, random and mostly ascending",
    run};
