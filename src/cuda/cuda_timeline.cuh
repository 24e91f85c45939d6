/*
 * A diagnostic build's clock (-DGP_TIMELINE=1; off, and compiled out, in
 * every other build): the global timer at the events of the look-back-warp
 * scan and selection, a tile's (its copy asked for, landed, totalled or
 * counted, its prefix known, its stores begun and issued) and a block's
 * (start, ticket, end). After each persistent launch the host writes them
 * to GP_TIMELINE_OUT.N (N counts launches); scripts/timeline.py reads
 * them. The dump waits for the launch inside the call, so a held stream
 * (gpuprim bench) times out its hold: the events stay right, the bench's
 * times do not.
 */
#ifndef GP_CUDA_TIMELINE_CUH
#define GP_CUDA_TIMELINE_CUH

#ifndef GP_TIMELINE
#define GP_TIMELINE 0
#endif

#if GP_TIMELINE
#include <cstdio>
#include <cstdlib>

namespace gp_cuda {
namespace timeline {

constexpr int kTiles = 1 << 16, kBlocks = 4096; /* later ones are not clocked */
enum { fetch, full, total, prefix, finish_start, finish_end, kTileEvents };
enum { entry, ticketed, exit_, smid, kBlockEvents };
__device__ unsigned long long tile_ev[kTileEvents][kTiles];
__device__ unsigned long long block_ev[kBlockEvents][kBlocks];

__device__ __forceinline__ unsigned long long now()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
__device__ __forceinline__ void at_tile(int ev, unsigned long long tile)
{
    if (tile < (unsigned long long)kTiles) tile_ev[ev][tile] = now();
}
__device__ __forceinline__ void at_block(int ev)
{
    if (blockIdx.x >= (unsigned)kBlocks) return;
    block_ev[ev][blockIdx.x] = now();
    if (ev == entry) { /* a block stays on its SM: one read */
        unsigned sm;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        block_ev[smid][blockIdx.x] = sm;
    }
}

static inline bool ok(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) fprintf(stderr, "gpuprim timeline: %s: %s\n", what, cudaGetErrorString(e));
    return e == cudaSuccess;
}
/* Before a launch: no event of an earlier one is left. */
static inline void clear(cudaStream_t st)
{
    void *t = NULL, *b = NULL;
    if (!getenv("GP_TIMELINE_OUT")) return;
    if (ok(cudaGetSymbolAddress(&t, tile_ev), "tile events")) ok(cudaMemsetAsync(t, 0, sizeof tile_ev, st), "clear");
    if (ok(cudaGetSymbolAddress(&b, block_ev), "block events")) ok(cudaMemsetAsync(b, 0, sizeof block_ev, st), "clear");
}
/* After it: a header (grid, tiles), then the tile and the block events. */
static inline void dump(cudaStream_t st, unsigned grid, unsigned long long tiles)
{
    static unsigned long long t[kTileEvents][kTiles], b[kBlockEvents][kBlocks];
    static int launches = 0;
    const char *path = getenv("GP_TIMELINE_OUT");
    if (!path || !ok(cudaStreamSynchronize(st), "the launch") ||
        !ok(cudaMemcpyFromSymbol(t, tile_ev, sizeof t), "tile events") ||
        !ok(cudaMemcpyFromSymbol(b, block_ev, sizeof b), "block events"))
        return;
    char name[1024];
    snprintf(name, sizeof name, "%s.%d", path, launches++);
    FILE *f = fopen(name, "wb");
    if (!f) {
        fprintf(stderr, "gpuprim timeline: cannot write %s\n", name);
        return;
    }
    const unsigned long long head[2] = {grid, tiles};
    if (fwrite(head, sizeof head, 1, f) != 1 || fwrite(t, sizeof t, 1, f) != 1 || fwrite(b, sizeof b, 1, f) != 1)
        fprintf(stderr, "gpuprim timeline: short write to %s\n", name);
    fclose(f);
}

} // namespace timeline
} // namespace gp_cuda
#define GP_TL_TILE(ev, tile) ::gp_cuda::timeline::at_tile(::gp_cuda::timeline::ev, (tile))
#define GP_TL_BLOCK(ev) ::gp_cuda::timeline::at_block(::gp_cuda::timeline::ev)
#else
#define GP_TL_TILE(ev, tile) ((void)0)
#define GP_TL_BLOCK(ev) ((void)0)
#endif

#endif
