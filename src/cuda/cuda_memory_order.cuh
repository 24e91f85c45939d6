/*
 * Loads and stores with the GPU's memory orderings (scope gpu), for words
 * that blocks of one grid hand each other: the look-back's status tags
 * (cuda_lookback.cuh) and the histogram's gate (cuda_histogram.cu).
 */
#ifndef GP_CUDA_MEMORY_ORDER_CUH
#define GP_CUDA_MEMORY_ORDER_CUH

namespace gp_cuda {

/* GP_CUDA_EMULATE: tests/emu and tests/emu_hist run the kernels on the
 * CPU, with the same orderings from the C11 atomics. */
__device__ __forceinline__ unsigned long long ld_acquire(const unsigned long long *p)
{
#ifdef GP_CUDA_EMULATE
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
#else
    unsigned long long v;
    asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
#endif
}

__device__ __forceinline__ unsigned long long ld_relaxed(const unsigned long long *p)
{
#ifdef GP_CUDA_EMULATE
    return __atomic_load_n(p, __ATOMIC_RELAXED);
#else
    unsigned long long v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
#endif
}

__device__ __forceinline__ void st_relaxed(unsigned long long *p, unsigned long long v)
{
#ifdef GP_CUDA_EMULATE
    __atomic_store_n(p, v, __ATOMIC_RELAXED);
#else
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
#endif
}

__device__ __forceinline__ void st_release(unsigned long long *p, unsigned long long v)
{
#ifdef GP_CUDA_EMULATE
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
#else
    asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
#endif
}

} // namespace gp_cuda

#endif
