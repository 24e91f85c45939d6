/*
 * Seed 002's running-max filter as its article builds it from CUB (CUDA C++
 * only): cub::DeviceScan::InclusiveScan(max) into a running maximum, a flag
 * kernel (a survivor equals the running maximum at its place), then
 * cub::DevicePartition::Flagged, which writes the survivors first (and the
 * rejected items after them, reversed: out needs room for n). The peer of
 * `gpuprim bench filter` and a rung of `gpuprim ladder stalin`.
 */
#ifndef GP_BENCH_FILTER_PIPELINE_CUH
#define GP_BENCH_FILTER_PIPELINE_CUH

#include "bench_cuda.cuh"

#include <cub/device/device_partition.cuh>
#include <cub/device/device_scan.cuh>

/* CUB's scan operator for max (CUB wants a functor it can call on the device). */
struct gpb_max_op {
    template <class T> __device__ T operator()(T a, T b) const { return b > a ? b : a; }
};

template <class T>
__global__ void gpb_survive_flags_kernel(const T *in, const T *running_max, int64_t n, uint8_t *flags)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        flags[i] = in[i] == running_max[i];
}

/* CUB's temp storage for the pipeline over n T: the larger of its two calls
 * (they run one after the other on one buffer). */
template <class T>
int gpb_filter_pipeline_temp_bytes(int64_t n, size_t *bytes, cudaStream_t stream)
{
    size_t scan = 0, part = 0;
    GPB_CU(cub::DeviceScan::InclusiveScan(nullptr, scan, (const T *)nullptr, (T *)nullptr, gpb_max_op{}, n, stream));
    GPB_CU(cub::DevicePartition::Flagged(nullptr, part, (const T *)nullptr, (const uint8_t *)nullptr, (T *)nullptr,
                                         (int64_t *)nullptr, n, stream));
    *bytes = scan > part ? scan : part;
    return GPB_OK;
}

/* Issues the pipeline on `stream`: the running maximum into running_max[n],
 * the flags into flags[n], the survivors to out[0..*count) (out: room for
 * n), *count in device memory. `grid` blocks of 256 for the flag kernel. */
template <class T>
int gpb_filter_pipeline_run(void *temp, size_t temp_bytes, const T *in, int64_t n, T *running_max, uint8_t *flags,
                            T *out, int64_t *count, int grid, cudaStream_t stream)
{
    size_t tb = temp_bytes;
    GPB_CU(cub::DeviceScan::InclusiveScan(temp, tb, in, running_max, gpb_max_op{}, n, stream));
    gpb_survive_flags_kernel<T><<<grid, 256, 0, stream>>>(in, running_max, n, flags);
    GPB_CU(cudaGetLastError());
    tb = temp_bytes;
    GPB_CU(cub::DevicePartition::Flagged(temp, tb, in, flags, out, count, n, stream));
    return GPB_OK;
}

#endif
