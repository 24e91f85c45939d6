/*
 * The 16-byte load of data read exactly once, in the forms the backend
 * chooses between (cuda_tuning.h, GP_REDUCE_LOAD_HINT). Depends on nothing
 * else of the library: the bench's read ceiling (bench/bench_cuda.cu)
 * includes it too, so that the ceiling issues the reduction's own load.
 */
#ifndef GP_CUDA_STREAM_LOAD_CUH
#define GP_CUDA_STREAM_LOAD_CUH

#include <cuda_runtime.h>

namespace gp_cuda {

/* Hint 0: ld.global.nc (LDG.E.128.CONSTANT). Hint 1: the same, skipping L1
 * (the data is used once) and with L2 fetching the whole 256-byte block
 * around the access (LDG.E.NA.LTC256B.128). */
template <int Hint>
__device__ __forceinline__ uint4 load_stream(const uint4 *p)
{
    if constexpr (Hint == 1) {
        uint4 v;
        asm("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
            : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
            : "l"(p));
        return v;
    } else {
        return __ldg(p);
    }
}

} // namespace gp_cuda

#endif
