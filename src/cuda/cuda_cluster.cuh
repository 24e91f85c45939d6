/*
 * Thread-block cluster messages (sm_90), for the small reductions and scans
 * that run as one cluster: a block stores a value straight into another
 * block's shared memory with st.async, which counts its bytes on the
 * receiver's mbarrier, so the value travels with the signal. No fence and
 * no global memory: on H100 a release fence, or a cluster barrier that
 * releases, costs about 1.3 us (docs/perf/reduce.md).
 *
 * Order of use, every thread of every block of the cluster:
 *   one thread: inbox_open (the receiver's barrier expects its bytes)
 *   arrive()    (relaxed: only the barrier's setup needs publishing, and
 *                fence.mbarrier_init in inbox_open does that)
 *   ...work...
 *   wait()      (every inbox of the cluster is now set up)
 *   send() to other blocks; inbox_wait() for the bytes sent to this one.
 * A block may exit once it has what was sent to it: nothing reads its
 * shared memory from outside, and st.async needs no sender afterwards.
 */
#ifndef GP_CUDA_CLUSTER_CUH
#define GP_CUDA_CLUSTER_CUH

#include <stdint.h>

#include <type_traits>

#include "cuda_tile.cuh"

namespace gp_cuda {
namespace cluster {

__device__ __forceinline__ unsigned smem_address(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

/* One thread of the receiving block: its barrier completes once `bytes`
 * have landed in its inbox. */
__device__ __forceinline__ void inbox_open(uint64_t *bar, unsigned bytes)
{
    const unsigned b = smem_address(bar);
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b) : "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(bytes) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

__device__ __forceinline__ void arrive() { asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory"); }
__device__ __forceinline__ void wait() { asm volatile("barrier.cluster.wait.aligned;" ::: "memory"); }

/* Stores v (4 or 8 bytes) at `slot` and counts it on `bar`, both addresses
 * of this block's shared memory taken in the block of rank `to`. */
template <class Bits>
__device__ __forceinline__ void send(const void *slot, const uint64_t *bar, unsigned to, Bits v)
{
    static_assert(sizeof(Bits) == 4 || sizeof(Bits) == 8, "st.async carries 4 or 8 bytes here");
    unsigned s, b;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(s) : "r"(smem_address(slot)), "r"(to));
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(b) : "r"(smem_address(bar)), "r"(to));
    if constexpr (sizeof(Bits) == 8)
        asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b64 [%0], %1, [%2];" ::"r"(s),
                     "l"((unsigned long long)v), "r"(b)
                     : "memory");
    else
        asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];" ::"r"(s),
                     "r"((unsigned)v), "r"(b)
                     : "memory");
}

/* Waits until everything sent to this block's inbox has landed (its
 * barrier's first phase); any number of its threads may wait. */
__device__ __forceinline__ void inbox_wait(const uint64_t *bar)
{
    const unsigned b = smem_address(bar);
    unsigned done = 0;
    do {
        asm volatile("{\n\t.reg .pred p;\n\t"
                     "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], 0;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done)
                     : "r"(b)
                     : "memory");
    } while (!done);
}

/* ---------------------------------------- one value from each earlier rank
 *
 * The small scans and filters hand a block's value (a total, a maximum, a
 * count) to every later block of the cluster. The receiver's inbox is
 * kClusterMaxBlocks slots of slot_t<V> and an mbarrier opened (inbox_open)
 * for rank x sizeof(slot_t<V>) bytes. */

/* st.async carries 4 or 8 bytes: narrower values ride in 4. */
template <class V>
using slot_t = std::conditional_t<sizeof(V) == 8, uint64_t, uint32_t>;

/* Every thread, after wait(): threads rank+1 .. blocks-1 send v to that
 * rank's inbox (its slot `rank`). */
template <class V>
__device__ __forceinline__ void send_later(slot_t<V> *slots, const uint64_t *bar, unsigned rank, unsigned blocks, V v)
{
    if (threadIdx.x > rank && threadIdx.x < blocks)
        send(&slots[rank], bar, threadIdx.x, (slot_t<V>)tile::bits_as<tile::ubits_t<V>>(v));
}

/* Every thread of a block of rank > 0 (`lane` its lane): waits for its
 * inbox and returns Op over the rank values in it, the same on every lane
 * (each warp folds them itself, with a butterfly: no block barrier follows,
 * and every step combines the same two values in either order). */
template <class Op, class V>
__device__ __forceinline__ V fold_earlier(const slot_t<V> *slots, const uint64_t *bar, unsigned rank, int lane)
{
    inbox_wait(bar);
    const V mine = lane < (int)rank ? tile::bits_as<V>((tile::ubits_t<V>)slots[lane]) : Op::template identity<V>();
    return tile::warp_all<Op>(mine);
}

} // namespace cluster
} // namespace gp_cuda

#endif
