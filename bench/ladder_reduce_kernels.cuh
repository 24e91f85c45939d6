/*
 * Seed 000's reduction kernels, reduce0 to reduce6, as that article builds
 * them (after the CUDA samples' reduction), for `gpuprim ladder reduce`.
 * Each block sums its part of `in` into out[blockIdx.x]; the host launches
 * the kernel again on those partial sums until one is left
 * (ladder_reduce.cu, run_passes). Included by ladder_reduce.cu only.
 *
 * Algorithms and indexing are the article's. Where we differ, a comment
 * says what the article did and why:
 *  - the warp shuffles name their lanes (Volta and later), reduce4;
 *  - reduce6 has no power-of-two shortcut, which the article found wrong;
 *  - elements are int32 added as unsigned: the same bits as the int32 sum
 *    wrapped mod 2^32, without signed overflow, which C++ leaves undefined.
 *
 * Launch shape: blockDim.x a power of two from 32 to 1024, dynamic shared
 * memory of blockDim.x words; n < 2^31, so no unsigned index below wraps.
 */
#ifndef GP_LADDER_REDUCE_KERNELS_CUH
#define GP_LADDER_REDUCE_KERNELS_CUH

#include <cuda_runtime.h>
#include <stdint.h>

enum {
    LRK_NKERNELS = 7,
    /* reduce6's grid cap, the article's (and the samples') maxBlocks. */
    LRK_REDUCE6_BLOCKS = 64,
};

static const char *const lrk_names[LRK_NKERNELS] = {"reduce0", "reduce1", "reduce2", "reduce3",
                                                    "reduce4", "reduce5", "reduce6"};

/* --------------------------------------------------------------- kernels */

/* reduce0: interleaved addressing. At step s the threads whose index is a
 * multiple of 2s add the word s to their right, so the working threads are
 * scattered over every warp (divergent), and % is slow. */
static __global__ void lrk_reduce0(const unsigned *in, unsigned *out, unsigned n)
{
    extern __shared__ unsigned sdata[];
    const unsigned tid = threadIdx.x;
    const unsigned i = blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

/* reduce1: the same pairs, but thread t works on pair t (index 2 s t), so
 * the working threads are the first ones and whole warps idle together.
 * Neighbouring threads now touch words 2s apart: shared-memory bank
 * conflicts grow with s. */
static __global__ void lrk_reduce1(const unsigned *in, unsigned *out, unsigned n)
{
    extern __shared__ unsigned sdata[];
    const unsigned tid = threadIdx.x;
    const unsigned i = blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        const unsigned index = 2 * s * tid;
        if (index < blockDim.x) sdata[index] += sdata[index + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

/* reduce2: sequential addressing. The first s threads add the upper half
 * onto the lower half, s halving: consecutive words, no bank conflicts. */
static __global__ void lrk_reduce2(const unsigned *in, unsigned *out, unsigned n)
{
    extern __shared__ unsigned sdata[];
    const unsigned tid = threadIdx.x;
    const unsigned i = blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

/* reduce3: the first add during the load. A block covers 2 x blockDim.x
 * words, each thread adding two of them before the tree of reduce2, so
 * half as many blocks and no thread that never adds. */
static __global__ void lrk_reduce3(const unsigned *in, unsigned *out, unsigned n)
{
    extern __shared__ unsigned sdata[];
    const unsigned tid = threadIdx.x;
    const unsigned i = blockIdx.x * (blockDim.x * 2) + tid;
    unsigned mysum = i < n ? in[i] : 0;
    if (i + blockDim.x < n) mysum += in[i + blockDim.x];
    sdata[tid] = mysum;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

/* The last warp of reduce4 to reduce6: warp 0 folds its 32 sums with
 * shuffles, no shared memory and no block barrier.
 * The article called __shfl_down without a mask: it relied on the 32
 * threads of a warp running in lockstep, as they did before Volta. Since
 * Volta (independent thread scheduling) a shuffle must name the lanes that
 * take part, and CUDA offers no maskless one for sm_70 and later. Every
 * lane of warp 0 calls this (blockDim.x >= 32, and the caller's branch is
 * tid < 32), so the mask is the whole warp. Values move through registers,
 * so there is no shared-memory warp-synchronous code that would need
 * volatile or __syncwarp. Lane 0 ends with the sum. */
static __device__ __forceinline__ unsigned lrk_warp_sum(unsigned mysum)
{
    for (int offset = 32 / 2; offset > 0; offset >>= 1) mysum += __shfl_down_sync(0xffffffffu, mysum, offset);
    return mysum;
}

/* reduce4: reduce3 with the last warp unrolled. The shared-memory tree stops
 * at 64 words; each thread keeps its running sum in a register (mysum), and
 * warp 0 adds the word 32 above it and shuffles. The guard blockDim.x >= 64
 * is the article's and matters: at 32 threads sdata has 32 words, and
 * sdata[tid + 32] would read past it (the samples' older shared-memory
 * warp unroll did exactly that at 32 threads). */
static __global__ void lrk_reduce4(const unsigned *in, unsigned *out, unsigned n)
{
    extern __shared__ unsigned sdata[];
    const unsigned tid = threadIdx.x;
    const unsigned i = blockIdx.x * (blockDim.x * 2) + tid;
    unsigned mysum = i < n ? in[i] : 0;
    if (i + blockDim.x < n) mysum += in[i + blockDim.x];
    sdata[tid] = mysum;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] = mysum = mysum + sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        if (blockDim.x >= 64) mysum += sdata[tid + 32];
        mysum = lrk_warp_sum(mysum);
    }
    if (tid == 0) out[blockIdx.x] = mysum;
}

/* reduce5 and reduce6's tree, completely unrolled for a block size B known
 * at compile time: the steps that B does not have vanish. Up to B = 1024
 * (the samples stopped at 512; the article added the 1024 step). Every
 * thread reaches every barrier. Returns the block's sum in thread 0. */
template <unsigned B>
static __device__ __forceinline__ unsigned lrk_unrolled_tree(unsigned *sdata, unsigned tid, unsigned mysum)
{
    sdata[tid] = mysum;
    __syncthreads();
    if (B >= 1024 && tid < 512) sdata[tid] = mysum = mysum + sdata[tid + 512];
    __syncthreads();
    if (B >= 512 && tid < 256) sdata[tid] = mysum = mysum + sdata[tid + 256];
    __syncthreads();
    if (B >= 256 && tid < 128) sdata[tid] = mysum = mysum + sdata[tid + 128];
    __syncthreads();
    if (B >= 128 && tid < 64) sdata[tid] = mysum = mysum + sdata[tid + 64];
    __syncthreads();
    if (tid < 32) {
        if (B >= 64) mysum += sdata[tid + 32]; /* as in reduce4: not at 32 threads */
        mysum = lrk_warp_sum(mysum);
    }
    return mysum;
}

/* reduce5: reduce4 with the block size a template parameter, so the tree is
 * unrolled completely (lrk_unrolled_tree). */
template <unsigned B>
static __global__ void lrk_reduce5(const unsigned *in, unsigned *out, unsigned n)
{
    extern __shared__ unsigned sdata[];
    const unsigned tid = threadIdx.x;
    const unsigned i = blockIdx.x * (B * 2) + tid;
    unsigned mysum = i < n ? in[i] : 0;
    if (i + B < n) mysum += in[i + B];
    mysum = lrk_unrolled_tree<B>(sdata, tid, mysum);
    if (tid == 0) out[blockIdx.x] = mysum;
}

/* reduce6: several elements per thread and few blocks (Brent's theorem:
 * O(N / log N) threads keep the cost O(N)). At most LRK_REDUCE6_BLOCKS
 * blocks walk the input in a grid-stride loop, two words per step as in
 * reduce3, then the unrolled tree.
 * The samples drop the second load's bound when n is a power of two (a
 * template flag, nIsPow2). That is right only when n is a multiple of 2B
 * (then i + B stays inside i's own chunk of 2B), which a power of two is
 * only from 2B up: a power of two n <= B reads past the end. Run as the
 * article's table is (every pass at one thread count), its N = 268436690
 * leaves 64 partials, and the second pass sums them with B >= 64 and adds
 * words past them: the likely cause of the wrong answers the article
 * reported before it commented the flag out. We have no flag: the bound is
 * always checked. */
template <unsigned B>
static __global__ void lrk_reduce6(const unsigned *in, unsigned *out, unsigned n)
{
    extern __shared__ unsigned sdata[];
    const unsigned tid = threadIdx.x;
    const unsigned grid_size = B * 2 * gridDim.x;
    unsigned mysum = 0;
    for (unsigned i = blockIdx.x * (B * 2) + tid; i < n; i += grid_size) {
        mysum += in[i];
        if (i + B < n) mysum += in[i + B];
    }
    mysum = lrk_unrolled_tree<B>(sdata, tid, mysum);
    if (tid == 0) out[blockIdx.x] = mysum;
}

/* ---------------------------------------------------------------- launch */

/* Blocks of one pass of kernel k over n >= 1 words: one word per thread for
 * reduce0 to reduce2, two from reduce3 on, and reduce6 capped. */
static inline unsigned lrk_grid(int k, unsigned threads, int64_t n)
{
    const int64_t per_block = k >= 3 ? 2 * (int64_t)threads : (int64_t)threads;
    int64_t g = (n + per_block - 1) / per_block;
    if (k == 6 && g > LRK_REDUCE6_BLOCKS) g = LRK_REDUCE6_BLOCKS;
    return (unsigned)g;
}

template <unsigned B>
static void lrk_launch_unrolled(int k, unsigned grid, const unsigned *in, unsigned *out, unsigned n,
                                cudaStream_t st)
{
    if (k == 5) lrk_reduce5<B><<<grid, B, B * sizeof(unsigned), st>>>(in, out, n);
    else lrk_reduce6<B><<<grid, B, B * sizeof(unsigned), st>>>(in, out, n);
}

/* Launches one pass of kernel k (0 to 6) on the stream; the caller checks
 * the launch (cudaGetLastError). 0 if k or threads is not one we built. */
static inline int lrk_launch(int k, unsigned threads, unsigned grid, const unsigned *in, unsigned *out,
                             unsigned n, cudaStream_t st)
{
    if (threads < 32 || threads > 1024 || (threads & (threads - 1))) return 0;
    const size_t shm = threads * sizeof(unsigned);
    switch (k) {
    case 0: lrk_reduce0<<<grid, threads, shm, st>>>(in, out, n); return 1;
    case 1: lrk_reduce1<<<grid, threads, shm, st>>>(in, out, n); return 1;
    case 2: lrk_reduce2<<<grid, threads, shm, st>>>(in, out, n); return 1;
    case 3: lrk_reduce3<<<grid, threads, shm, st>>>(in, out, n); return 1;
    case 4: lrk_reduce4<<<grid, threads, shm, st>>>(in, out, n); return 1;
    case 5:
    case 6: break;
    default: return 0;
    }
    switch (threads) {
    case 32: lrk_launch_unrolled<32>(k, grid, in, out, n, st); return 1;
    case 64: lrk_launch_unrolled<64>(k, grid, in, out, n, st); return 1;
    case 128: lrk_launch_unrolled<128>(k, grid, in, out, n, st); return 1;
    case 256: lrk_launch_unrolled<256>(k, grid, in, out, n, st); return 1;
    case 512: lrk_launch_unrolled<512>(k, grid, in, out, n, st); return 1;
    case 1024: lrk_launch_unrolled<1024>(k, grid, in, out, n, st); return 1;
    default: return 0;
    }
}

#endif
