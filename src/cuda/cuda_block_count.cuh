/*
 * The end of a kernel that counts (count_kernel in cuda_histogram.cu,
 * flag_bits_kernel in cuda_partition_bits.cuh): the block's threads'
 * counts summed, and the grid's combined in the same launch. One block
 * writes its total itself. Several combine theirs on a ticket: the block
 * that takes the last one writes the total and sets the ticket back to 0
 * for the next launch (launches on one stream never overlap, so one
 * counter serves every launch on it). Where the total is below 2^32 the
 * counts ride on the ticket itself, as the reduction's 32-bit sums do
 * (cuda_reduce.cu): each block adds (count << 32 | 1) to the zeroed 64-bit
 * word whose low half is the ticket, and the last block gets the others'
 * sum back from its own atomic. Otherwise each leaves a partial in memory,
 * fenced before its ticket, and the last block reads and adds them: a
 * fence and a second trip to L2, which cost count u8 at 2^16 (4 blocks)
 * 5.8 us against 4.6 on the ticket (H100, docs/perf/histogram.md). */
#ifndef GP_CUDA_BLOCK_COUNT_CUH
#define GP_CUDA_BLOCK_COUNT_CUH

#include "cuda_common.cuh" /* block_reduce, sum_op */

namespace gp_cuda {

/* One thread of each block: adds (v << 32 | 1) to the zeroed 64-bit word
 * whose low half is `ticket`. The block that draws the last ticket calls
 * last(others), others the high half it got back (every other block's v,
 * summed mod 2^32), then zeroes the word for the next launch. */
template <class Last>
__device__ __forceinline__ void sum_on_ticket(unsigned *ticket, uint32_t v, Last last)
{
    unsigned long long *word = reinterpret_cast<unsigned long long *>(ticket);
    const unsigned long long before = atomicAdd(word, (unsigned long long)v << 32 | 1u);
    if ((unsigned)before == gridDim.x - 1) {
        last(before >> 32);
        *word = 0;
    }
}

/* Every thread of the block, with its own count c. partials: a slot a
 * block (unused when packed); ticket: the low half of a 64-bit word, 0 on
 * entry and on return; packed: the grid's total is below 2^32. */
template <int Threads, class Out>
__device__ __forceinline__ void finish_block_count(unsigned long long c, unsigned long long *partials,
                                                   unsigned *ticket, Out *out, bool packed)
{
    c = block_reduce<sum_op, Threads>(c);
    if (gridDim.x == 1) {
        if (threadIdx.x == 0) *out = (Out)c;
        return;
    }
    if (packed) { /* the total, below 2^32, cannot wrap */
        if (threadIdx.x == 0)
            sum_on_ticket(ticket, (uint32_t)c, [&](unsigned long long others) { *out = (Out)(others + c); });
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
