/*
 * Programmatic dependent launch (sm_90): a kernel launched right after
 * another of ours on the stream may start before that one ends.
 *
 * Why. A partition counted first is two launches: the count, then the
 * partition. In stream order the second grid starts only once the first
 * has drained: the launch and its blocks' start are paid in a GPU that
 * runs nothing (docs/perf/scan.md, rounds 41-42).
 *
 * The first kernel calls let_dependents_start, so the second may be
 * scheduled (launch_after_prior) once every block of the first has
 * started; the second calls wait_for_prior before it reads anything the
 * first writes. That wait returns once the first grid has completed and
 * its writes are visible. The second grid must not need co-residency: its
 * blocks start as the first one's leave the SMs. Where the second was
 * launched plainly both calls do nothing, and so on architectures before
 * sm_90 and in the CPU emulation (tests/emu).
 */
#ifndef GP_CUDA_GRID_DEPENDENCY_CUH
#define GP_CUDA_GRID_DEPENDENCY_CUH

namespace gp_cuda {
namespace grid_dependency {

__device__ __forceinline__ void let_dependents_start()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

__device__ __forceinline__ void wait_for_prior()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

} // namespace grid_dependency
} // namespace gp_cuda

#endif
