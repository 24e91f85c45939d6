/*
 * What the transpose and atomics ladders share (CUDA C++ only): inputs whose
 * every slice is the same, single-slice buffers for --check, and a timer for
 * more rungs than gpb_cuda_time takes, each rung on its own arena.
 */
#ifndef GP_LADDER_CUDA_CUH
#define GP_LADDER_CUDA_CUH

#include "bench_cuda.cuh"
#include "ladder.h"

#include <math.h>

#include <vector>

/* Element i of every slice is gen(i). With all slices alike, a result read
 * back after any timed call has one reference, and the rotation still keeps
 * the cache cold. Gen: a functor `T operator()(int64_t i) const`, usable on
 * the host too, so the reference is built from the same values. */
template <class T, class Gen>
__global__ void gpl_fill_kernel(unsigned char *base, size_t stride, int64_t n, int64_t total, Gen gen)
{
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < total; k += step)
        ((T *)(base + (size_t)(k / n) * stride))[k % n] = gen(k % n);
}

template <class T, class Gen>
int gpl_cuda_fill_same(const gpb_env *env, gpb_arena *a, int64_t n, Gen gen)
{
    if (n <= 0) return GPB_OK;
    gpb_cuda_rt *rt = gpb_cuda(env);
    gpl_fill_kernel<T><<<rt->sm_count * 8, 256, 0, rt->stream>>>(a->base, a->stride, n,
                                                                 (int64_t)a->nslices * n, gen);
    GPB_CU(cudaGetLastError());
    GPB_CU(cudaStreamSynchronize(rt->stream));
    return GPB_OK;
}

/* An arena of one slice of exactly `bytes` (rounded to 256), for --check:
 * no rotation, and nothing past the input for memcheck to miss. Free it
 * with gpb_cuda_arena_free. */
inline int gpl_cuda_arena_one(gpb_arena *a, size_t bytes)
{
    gpb_arena_layout(a, bytes, 0); /* cache 0: one slice */
    GPB_CU(cudaMalloc((void **)&a->base, a->stride));
    return GPB_OK;
}

/* A rung as gpl_cuda_time runs it: its call, and the arena whose next slice
 * each call reads. impl.call == NULL: not run (its time stays unmeasured). */
struct gpl_timed {
    gpb_impl impl;
    gpb_arena *arena;
};

/*
 * gpb_cuda_time for any number of rungs: warm-up rounds, then env->opts.runs
 * rounds in which each rung runs once on its arena's next slice between its
 * own pair of events, waited for; the median per rung. Interleaved, so drift
 * touches every rung alike, and the ceiling is measured in the same rounds.
 */
inline int gpl_cuda_time(const gpb_env *env, const gpl_timed *rungs, int nrungs, gpb_time *outs)
{
    gpb_cuda_rt *rt = gpb_cuda(env);
    const int runs = env->opts.runs;
    std::vector<double> us((size_t)nrungs * runs);
    for (int r = 0; r < env->opts.warmup; r++)
        for (int k = 0; k < nrungs; k++) {
            const gpb_impl &f = rungs[k].impl;
            if (f.call && f.call(f.self, gpb_arena_next(rungs[k].arena)) != GPB_OK) return GPB_ERROR;
        }
    GPB_CU(cudaStreamSynchronize(rt->stream));
    for (int r = 0; r < runs; r++)
        for (int k = 0; k < nrungs; k++) {
            const gpb_impl &f = rungs[k].impl;
            if (!f.call) continue;
            const void *in = gpb_arena_next(rungs[k].arena);
            GPB_CU(cudaEventRecord(rt->ev0, rt->stream));
            if (f.call(f.self, in) != GPB_OK) return GPB_ERROR;
            GPB_CU(cudaEventRecord(rt->ev1, rt->stream));
            GPB_CU(cudaEventSynchronize(rt->ev1));
            float ms = 0;
            GPB_CU(cudaEventElapsedTime(&ms, rt->ev0, rt->ev1));
            us[(size_t)k * runs + r] = ms * 1e3;
        }
    for (int k = 0; k < nrungs; k++)
        outs[k] = rungs[k].impl.call ? gpb_summarize(&us[(size_t)k * runs], runs) : gpb_time{0, 0, 0, 0};
    return GPB_OK;
}

/* Fills a timed row's ratios: GB/s against the datasheet peak, time against
 * the ceiling's (same bytes) and the base rung's (speedup). */
inline void gpl_set_ratios(gpl_row *r, double peak_gbs, const gpb_time *ceiling, const gpb_time *base)
{
    if (!r->t.measured) return;
    double gbs = gpl_gbs(r);
    if (peak_gbs > 0 && !isnan(gbs)) r->pct_peak = 100.0 * gbs / peak_gbs;
    if (ceiling && ceiling->measured) r->pct_ceiling = 100.0 * ceiling->med_us / r->t.med_us;
    if (base && base->measured) r->ratio = base->med_us / r->t.med_us;
}

#endif
