/*
 * The end of a kernel that counts (count_kernel in cuda_histogram.cu,
 * flag_bits_kernel in cuda_select.cu): the block's threads' counts summed,
 * and the grid's combined in the same launch. One block writes its total
 * itself. Several leave a partial each; the block that takes the last
 * ticket adds them, writes the total and sets the ticket back to 0 for the
 * next launch (launches on one stream never overlap, so one counter serves
 * every launch on it).
 */
#ifndef GP_CUDA_BLOCK_COUNT_CUH
#define GP_CUDA_BLOCK_COUNT_CUH

#include "cuda_common.cuh" /* block_reduce, sum_op */

namespace gp_cuda {

/* Every thread of the block, with its own count c. partials: a slot a
 * block; ticket: 0 on entry and on return. */
template <int Threads, class Out>
__device__ __forceinline__ void finish_block_count(unsigned long long c, unsigned long long *partials,
                                                   unsigned *ticket, Out *out)
{
    c = block_reduce<sum_op, Threads>(c);
    if (gridDim.x == 1) {
        if (threadIdx.x == 0) *out = (Out)c;
        return;
    }
    __shared__ bool last;
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = c;
        __threadfence(); /* the partial is visible before the ticket is */
        last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads(); /* also orders block_reduce's shared slots for the call below */
    if (!last) return;
    __threadfence();
    unsigned long long sum = 0;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += Threads) sum += __ldcg(partials + b);
    sum = block_reduce<sum_op, Threads>(sum);
    if (threadIdx.x == 0) {
        *out = (Out)sum;
        *ticket = 0;
    }
}

} // namespace gp_cuda

#endif
