/*
 * `gpuprim ladder atomics`: seed 004's experiment on the present GPU.
 *
 * The article's ray caster (a million rays, one thread each) added 1 to a
 * global counter with atomicAdd every time a ray reached a leaf of its BVH,
 * and sped that up by staging the hits in shared memory, on the belief that
 * shared memory belongs to a warp. Here a ray is an int32 and it hits when
 * the value is negative (about half of random bits, the predicate gp_count_if
 * can express); the inputs are the article's 10^6 rays and 2^28 int32 (as
 * docs' PERF.md), every slice of the rotation the same values. The rungs, on
 * the same rotated inputs in one run:
 *   1 seed: atomic per hit     one global atomicAdd for each hit
 *   2 seed: per-warp array     the article's first version as published:
 *                              int staged[32], one slot "per lane", summed
 *                              by lane 0 of every warp. Shared memory is per
 *                              block, so the warps of a block share (and race
 *                              on) the 32 slots: the count is wrong and may
 *                              vary. Recorded on every timed run, never judged.
 *   3 seed: per-block counter  the article's correction (thread 0 of the
 *                              block adds once), counting hits in a shared
 *                              counter where its bool only said "any"
 *   4 gp_count_if              gpuprim's count, x < 0
 *   5 read ceiling             the streaming read of the same bytes
 * Rungs 1 and 3 add into a counter zeroed before the run (not timed), one
 * counter per call, so every call's count is checked, not only the last.
 *
 * GPUPRIM_LADDER_NO_RACE=1 leaves rung 2 out (compute-sanitizer racecheck
 * would report its race, which is the point of it).
 */
#include "ladder_cuda.cuh"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Everything but the ladder's entry has internal linkage: the ladders and
 * bench cases are linked together and reuse type names (point, rung_call). */
namespace {

/* ---------------------------------------------------------------- kernels */

enum { BLOCK = 256, WARP = 32 };

/* A ray reaches a leaf. */
__device__ __forceinline__ bool hits(int32_t x) { return x < 0; }

/* Rung 1, the article's starting point: one thread per ray, one global
 * atomic per hit (the compiler may combine a warp's into one). */
__global__ void __launch_bounds__(BLOCK) atomic_per_hit(const int32_t *in, int64_t n, unsigned long long *count)
{
    const int64_t i = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
    if (i < n && hits(in[i])) atomicAdd(count, 1ull);
}

/*
 * Rung 2, as published: 32 shared slots "for the warp", a hit sets its
 * lane's slot, and after the barrier lane 0 of each warp adds up all 32.
 * Every warp of the block zeroes, sets and sums the same slots: a slot is 1
 * if any warp's thread of that lane hit (unless a late warp's zeroing wiped
 * it), and the block's sum is added once per warp. Deliberately not fixed.
 */
__global__ void __launch_bounds__(BLOCK) per_warp_array(const int32_t *in, int64_t n, unsigned long long *count)
{
    __shared__ int staged[WARP];
    const int lane = threadIdx.x % WARP;
    const int64_t i = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
    staged[lane] = 0;
    /* The article traversed its BVH here. Keep the zeroing above and the
     * hit below as two stores, as its code had them, instead of letting the
     * compiler fold them into one store after the load. */
    asm volatile("" ::: "memory");
    if (i < n && hits(in[i])) staged[lane] = 1;
    __syncthreads();
    if (lane == 0) {
        int sum = 0;
        for (int k = 0; k < WARP; k++) sum += staged[k];
        if (sum > 0) atomicAdd(count, (unsigned long long)sum);
    }
}

/* Rung 3, the article's correction: one shared variable per block, cleared
 * before any thread uses it, and thread 0 alone adds it to the global
 * counter, once per block. */
__global__ void __launch_bounds__(BLOCK) per_block_counter(const int32_t *in, int64_t n, unsigned long long *count)
{
    __shared__ unsigned block_hits;
    if (threadIdx.x == 0) block_hits = 0;
    __syncthreads();
    const int64_t i = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
    if (i < n && hits(in[i])) atomicAdd(&block_hits, 1u);
    __syncthreads();
    if (threadIdx.x == 0 && block_hits > 0) atomicAdd(count, (unsigned long long)block_hits);
}

/* ----------------------------------------------------------------- inputs */

/* Ray i's value: random bits, or (all_hit) the same with the sign bit set. */
struct ray_gen {
    uint64_t seed;
    int all_hit;
    __host__ __device__ int32_t operator()(int64_t i) const
    {
        uint32_t w = (uint32_t)gpb_hash64(seed, (uint64_t)i);
        return (int32_t)(all_hit ? w | 0x80000000u : w);
    }
};

/* The reference: a serial count on the host, from the same values. */
static int64_t host_count(const ray_gen &g, int64_t n)
{
    int64_t c = 0;
    for (int64_t i = 0; i < n; i++) c += g(i) < 0;
    return c;
}

/* ------------------------------------------------------------------ rungs */

enum rung_id { R_ATOMIC, R_WARP_ARRAY, R_BLOCK, R_GP, R_CEILING, NRUNGS };

static const char *const rung_name[NRUNGS] = {"seed: atomic per hit", "seed: per-warp array", "seed: per-block fix",
                                              "gp_count_if", "read ceiling"};

/* Slots per atomic rung: one zeroed counter per call. */
struct counters {
    unsigned long long *dev = nullptr; /* NRUNGS x per_rung, rows for R_GP and R_CEILING unused */
    int per_rung = 0, used[NRUNGS] = {};
};

struct point {
    gpb_env *env = nullptr;
    int64_t n = 0;
    ray_gen gen = {0, 0};
    int64_t want = 0;
    gpb_arena arena = {};
    counters c;
    int64_t *gp_count = nullptr; /* gp_count_if's output, in device memory */
};

static bool race_skipped(void)
{
    const char *v = getenv("GPUPRIM_LADDER_NO_RACE");
    return v && *v && strcmp(v, "0") != 0;
}

static const char *const race_skip_note = "skipped: GPUPRIM_LADDER_NO_RACE=1 (for compute-sanitizer racecheck)";

/* Runs rung id once on `in`. Atomic rungs add into their next zeroed
 * counter; GPB_ERROR when none is left. */
static int launch(point &p, int id, const void *in)
{
    cudaStream_t st = gpb_cuda(p.env)->stream;
    const int32_t *x = (const int32_t *)in;
    const unsigned grid = (unsigned)((p.n + BLOCK - 1) / BLOCK);
    if (id == R_GP) {
        const int32_t zero = 0;
        gp_status g = gp_count_if(p.env->ctx, in, GP_DTYPE_I32, p.n, GP_CMP_LT, &zero, p.gp_count, NULL);
        if (g == GP_STATUS_OK) return GPB_OK;
        fprintf(stderr, "gpuprim ladder: gp_count_if(i32, n = %lld) failed: %s\n", (long long)p.n,
                gpb_status_why(p.env->ctx, g));
        return GPB_ERROR;
    }
    if (id == R_CEILING) return gpb_cuda_read_ceiling(p.env, in, (size_t)p.n * sizeof(int32_t));
    if (p.c.used[id] == p.c.per_rung) {
        fprintf(stderr, "gpuprim ladder atomics: out of counters for %s\n", rung_name[id]);
        return GPB_ERROR;
    }
    unsigned long long *count = p.c.dev + (size_t)id * p.c.per_rung + p.c.used[id]++;
    if (grid == 0) return GPB_OK; /* n == 0: nothing to count */
    switch (id) {
    case R_ATOMIC: atomic_per_hit<<<grid, BLOCK, 0, st>>>(x, p.n, count); break;
    case R_WARP_ARRAY: per_warp_array<<<grid, BLOCK, 0, st>>>(x, p.n, count); break;
    default: per_block_counter<<<grid, BLOCK, 0, st>>>(x, p.n, count); break;
    }
    GPB_CU(cudaGetLastError());
    return GPB_OK;
}

/* The counts of one atomic rung's calls, in call order, once they are done.
 * (The run's stream does not wait for the legacy stream, nor it for ours:
 * every copy goes on ours.) */
static int read_counts(point &p, int id, std::vector<unsigned long long> &out)
{
    cudaStream_t st = gpb_cuda(p.env)->stream;
    out.resize((size_t)p.c.used[id]);
    if (!out.empty())
        GPB_CU(cudaMemcpyAsync(out.data(), p.c.dev + (size_t)id * p.c.per_rung, out.size() * sizeof out[0],
                               cudaMemcpyDeviceToHost, st));
    GPB_CU(cudaStreamSynchronize(st));
    return GPB_OK;
}

static int wrong(gpl_row *r, const point &p, const char *what, long long got)
{
    r->check = GPL_CHECK_WRONG;
    snprintf(r->note, sizeof r->note, "%s: got %lld, want %lld", what, got, (long long)p.want);
    char nb[32];
    fprintf(stderr, "CHECK FAILED: ladder atomics, %s, n = %s: %s\n", r->rung, gpb_fmt_n(p.n, nb, sizeof nb),
            r->note);
    return GPB_CHECK_FAILED;
}

/* Runs gp_count_if once on slice 0 over a poisoned output and compares. */
static int check_gp(point &p, const char *when, gpl_row *r)
{
    cudaStream_t st = gpb_cuda(p.env)->stream;
    int64_t got = -1;
    GPB_CU(cudaMemsetAsync(p.gp_count, 0x5A, sizeof *p.gp_count, st));
    if (launch(p, R_GP, p.arena.base) != GPB_OK) return GPB_ERROR;
    GPB_CU(cudaMemcpyAsync(&got, p.gp_count, sizeof got, cudaMemcpyDeviceToHost, st));
    GPB_CU(cudaStreamSynchronize(st));
    if (got != p.want) return wrong(r, p, when, (long long)got);
    if (r->check == GPL_CHECK_NONE) r->check = GPL_CHECK_OK;
    return GPB_OK;
}

/* Judges every call of atomic rung id so far (all read the same values). */
static int check_counts(point &p, int id, gpl_row *r)
{
    std::vector<unsigned long long> got;
    if (read_counts(p, id, got) != GPB_OK) return GPB_ERROR;
    for (size_t k = 0; k < got.size(); k++)
        if (got[k] != (unsigned long long)p.want) {
            char what[48];
            snprintf(what, sizeof what, "call %zu of %zu", k + 1, got.size());
            return wrong(r, p, what, (long long)got[k]);
        }
    if (r->check == GPL_CHECK_NONE) r->check = GPL_CHECK_OK;
    return GPB_OK;
}

/* The racy rung's row: what its counts were, against the right one. */
static int record_race(point &p, int first, gpl_row *r)
{
    std::vector<unsigned long long> got;
    if (read_counts(p, R_WARP_ARRAY, got) != GPB_OK) return GPB_ERROR;
    unsigned long long lo = ~0ull, hi = 0;
    int nwrong = 0, runs = (int)got.size() - first;
    for (size_t k = (size_t)first; k < got.size(); k++) {
        lo = got[k] < lo ? got[k] : lo, hi = got[k] > hi ? got[k] : hi;
        nwrong += got[k] != (unsigned long long)p.want;
    }
    r->check = GPL_CHECK_RACY;
    if (runs == 1)
        snprintf(r->note, sizeof r->note, "counted %llu, right %lld (not judged: the race is the point)", lo,
                 (long long)p.want);
    else if (runs > 1)
        snprintf(r->note, sizeof r->note, "%d runs: min %llu, max %llu, %d wrong; right %lld (not judged)", runs,
                 lo, hi, nwrong, (long long)p.want);
    return GPB_OK;
}

/* ------------------------------------------------------------------ point */

static int release(point &p)
{
    int rc = gpb_cuda_arena_free(&p.arena);
    void *ptrs[] = {p.c.dev, p.gp_count};
    for (void *q : ptrs) {
        cudaError_t e = q ? cudaFree(q) : cudaSuccess;
        if (e != cudaSuccess) rc = gpb_cuda_fail("cudaFree", e, __FILE__, __LINE__);
    }
    p.c.dev = nullptr, p.gp_count = nullptr;
    return rc;
}

/* Inputs (a rotated arena, or one slice for --check), zeroed counters for
 * `calls` calls per atomic rung, and the reference count. GPB_OK with
 * p.arena.base == NULL (`note` set) when it does not fit. */
static int prepare(point &p, bool rotate, int calls, char *note, size_t note_size)
{
    const size_t bytes = (size_t)p.n * sizeof(int32_t), cbytes = (size_t)NRUNGS * calls * sizeof *p.c.dev;
    if (rotate) {
        if (gpb_cuda_arena_alloc(p.env, &p.arena, bytes, cbytes + 256, note, note_size) != GPB_OK) return GPB_ERROR;
        if (!p.arena.base) return GPB_OK;
    } else if (gpl_cuda_arena_one(&p.arena, bytes) != GPB_OK) {
        return GPB_ERROR;
    }
    GPB_CU(cudaMalloc((void **)&p.c.dev, cbytes));
    GPB_CU(cudaMemsetAsync(p.c.dev, 0, cbytes, gpb_cuda(p.env)->stream));
    p.c.per_rung = calls;
    GPB_CU(cudaMalloc((void **)&p.gp_count, sizeof *p.gp_count));
    if (gpl_cuda_fill_same<int32_t>(p.env, &p.arena, p.n, p.gen) != GPB_OK) return GPB_ERROR;
    p.want = host_count(p.gen, p.n);
    return GPB_OK;
}

/* Calls a rung through gpb_impl. */
struct rung_call {
    point *p;
    int id;
    int operator()(const void *in) const { return launch(*p, id, in); }
};

/* Checks, times and checks again every rung at one size; prints its table. */
static int time_point(point &p, gpl_report *rep)
{
    const bool race = !race_skipped();
    const int calls = p.env->opts.warmup + p.env->opts.runs + 1;
    char nb[32], title[200], section[48];
    gpb_fmt_n(p.n, nb, sizeof nb);
    snprintf(section, sizeof section, "n = %s", nb);
    gpl_row rows[NRUNGS];
    for (int id = 0; id < NRUNGS; id++) {
        gpl_row_init(&rows[id], section, rung_name[id], id == R_GP || id == R_CEILING ? "" : "256 threads", p.n);
        rows[id].bytes = (double)p.n * sizeof(int32_t);
    }
    char note[160] = "";
    int rc = prepare(p, true, calls, note, sizeof note);
    if (rc != GPB_OK) return rc;
    snprintf(title, sizeof title,
             "atomics, n = %s int32 rays, a hit is x < 0 (%lld hits); GB/s of input read, ratio: speedup over "
             "seed: atomic per hit",
             nb, (long long)p.want);
    if (!p.arena.base) {
        printf("\natomics, n = %s\n  skipped: %s\n", nb, note);
        snprintf(rows[0].note, sizeof rows[0].note, "%s", note);
        return gpl_report_add(rep, &rows[0]);
    }
    int failed = 0;
    /* Rungs 1 and 3: one call before timing; every call is judged after. */
    for (int id : {R_ATOMIC, R_BLOCK})
        if (launch(p, id, p.arena.base) != GPB_OK) return GPB_ERROR;
    if ((rc = check_gp(p, "before timing", &rows[R_GP])) == GPB_ERROR) return rc;
    failed |= rc == GPB_CHECK_FAILED;

    const int race_first = p.c.used[R_WARP_ARRAY] + p.env->opts.warmup; /* its timed runs */
    rung_call callv[NRUNGS];
    gpl_timed timed[NRUNGS];
    for (int id = 0; id < NRUNGS; id++) {
        callv[id] = rung_call{&p, id};
        bool on = id != R_WARP_ARRAY || race;
        timed[id] = gpl_timed{on ? gpb_impl_of(callv[id]) : gpb_impl{nullptr, nullptr}, &p.arena};
    }
    gpb_time t[NRUNGS];
    if ((rc = gpl_cuda_time(p.env, timed, NRUNGS, t)) != GPB_OK) return rc;

    for (int id : {R_ATOMIC, R_BLOCK}) {
        if ((rc = check_counts(p, id, &rows[id])) == GPB_ERROR) return rc;
        failed |= rc == GPB_CHECK_FAILED;
    }
    /* The last timed call's count is still there: it must be right too. */
    int64_t last = -1;
    GPB_CU(cudaMemcpyAsync(&last, p.gp_count, sizeof last, cudaMemcpyDeviceToHost, gpb_cuda(p.env)->stream));
    GPB_CU(cudaStreamSynchronize(gpb_cuda(p.env)->stream));
    if (last != p.want) failed |= wrong(&rows[R_GP], p, "last timed run", (long long)last) == GPB_CHECK_FAILED;
    else if ((rc = check_gp(p, "after timing", &rows[R_GP])) == GPB_ERROR) return rc;
    else failed |= rc == GPB_CHECK_FAILED;
    if (race && record_race(p, race_first, &rows[R_WARP_ARRAY]) != GPB_OK) return GPB_ERROR;
    if (!race) snprintf(rows[R_WARP_ARRAY].note, sizeof rows[R_WARP_ARRAY].note, "%s", race_skip_note);

    const double peak = gpl_peak_gbs(p.env);
    for (int id = 0; id < NRUNGS; id++) {
        rows[id].t = t[id];
        gpl_set_ratios(&rows[id], peak, &t[R_CEILING], &t[R_ATOMIC]);
        if (gpl_report_add(rep, &rows[id]) != GPB_OK) return GPB_ERROR;
    }
    gpl_print_rows(title, rows, NRUNGS);
    return failed ? GPB_CHECK_FAILED : GPB_OK;
}

/* --check: rungs 1, 3 and 4 once each, judged; rung 2 once, recorded. */
static int check_point(point &p, const char *section, gpl_row *rows, int *nrows)
{
    const bool race = !race_skipped();
    int rc = prepare(p, false, 1, nullptr, 0), failed = 0;
    if (rc != GPB_OK) return rc;
    for (int id = 0; id < R_CEILING; id++) {
        gpl_row *r = &rows[(*nrows)++];
        gpl_row_init(r, section, rung_name[id], id == R_GP ? "" : "256 threads", p.n);
        if (id == R_WARP_ARRAY && !race) {
            snprintf(r->note, sizeof r->note, "%s", race_skip_note);
            continue;
        }
        if (id == R_GP) {
            rc = check_gp(p, "check", r);
        } else {
            if (launch(p, id, p.arena.base) != GPB_OK) return GPB_ERROR;
            rc = id == R_WARP_ARRAY ? record_race(p, 0, r) : check_counts(p, id, r);
        }
        if (rc == GPB_ERROR) return rc;
        failed |= rc == GPB_CHECK_FAILED;
    }
    return failed ? GPB_CHECK_FAILED : GPB_OK;
}

/* ------------------------------------------------------------------- run */

/* Runs body(point) on a fresh point and frees its buffers whatever happens. */
template <class F>
static int with_point(gpb_env *env, int64_t n, int all_hit, F body)
{
    point p;
    p.env = env, p.n = n, p.gen = ray_gen{env->opts.seed, all_hit};
    int rc = body(p);
    int rc_free = release(p);
    return rc == GPB_OK && rc_free != GPB_OK ? rc_free : rc;
}

static int run_checks(gpb_env *env, gpl_report *rep)
{
    static const int64_t sizes[] = {1, 31, 32, 33, 255, 256, 257, 4097, 1000003};
    enum { NSIZES = sizeof sizes / sizeof sizes[0] };
    int failed = 0;
    for (int all_hit = 0; all_hit < 2; all_hit++) {
        const char *section = all_hit ? "check, every ray hits" : "check, random rays";
        gpl_row rows[NSIZES * NRUNGS];
        int nrows = 0;
        for (int i = 0; i < NSIZES; i++) {
            int rc = with_point(env, sizes[i], all_hit, [&](point &p) { return check_point(p, section, rows, &nrows); });
            if (rc == GPB_ERROR) return rc;
            failed |= rc == GPB_CHECK_FAILED;
        }
        for (int i = 0; i < nrows; i++)
            if (gpl_report_add(rep, &rows[i]) != GPB_OK) return GPB_ERROR;
        char title[160];
        snprintf(title, sizeof title, "atomics --check, %s: rungs 1, 3, 4 against a host count; rung 2 recorded",
                 all_hit ? "every ray hits" : "random rays (x < 0 hits)");
        gpl_print_rows(title, rows, nrows);
    }
    return failed ? GPB_CHECK_FAILED : GPB_OK;
}

static int run(gpb_env *env, const gpl_opts *o, gpl_report *rep)
{
    if (race_skipped())
        printf("GPUPRIM_LADDER_NO_RACE is set: seed 004's racy per-warp array (rung 2) is skipped\n");
    if (o->check_only) return run_checks(env, rep);
    static const int64_t defaults[] = {1000000, INT64_C(1) << 28};
    const int64_t *sizes = o->nsizes ? o->sizes : defaults;
    const int nsizes = o->nsizes ? o->nsizes : 2;
    int failed = 0;
    for (int i = 0; i < nsizes; i++) {
        if ((sizes[i] + BLOCK - 1) / BLOCK > INT_MAX) {
            fprintf(stderr, "gpuprim ladder atomics: n = %lld needs more than 2^31 - 1 blocks of %d\n",
                    (long long)sizes[i], (int)BLOCK);
            return GPB_ERROR;
        }
        int rc = with_point(env, sizes[i], 0, [&](point &p) { return time_point(p, rep); });
        if (rc == GPB_ERROR) return rc;
        failed |= rc == GPB_CHECK_FAILED;
    }
    return failed ? GPB_CHECK_FAILED : GPB_OK;
}

} // namespace

extern "C" const gpl_ladder gpl_ladder_atomics = {
    "atomics",
    "seed 004: one atomic per hit, the per-\"warp\" shared array as published (racy, recorded not judged; "
    "GPUPRIM_LADDER_NO_RACE=1 skips it), the per-block fix, gp_count_if, the read ceiling; 10^6 and 2^28 int32",
    run};
