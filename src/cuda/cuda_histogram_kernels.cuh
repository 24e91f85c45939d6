/*
 * The three histogram kernels (included by cuda_histogram.cu, after
 * cuda_histogram_bins.cuh): 8-bit inputs by value rows, wider inputs into
 * shared counters, and wider inputs straight into the histogram.
 */
#ifndef GP_CUDA_HISTOGRAM_KERNELS_CUH
#define GP_CUDA_HISTOGRAM_KERNELS_CUH

namespace gp_cuda {
namespace {

/* ------------------------------------------------------------- 8-bit inputs */

/* Adds the 4 bytes of w to their value rows, in this lane's column: the
 * counter of value v sits 128 * v + 4 * lane bytes into `cnt`, so each byte
 * costs a shift, a mask-or and the atomic. */
__device__ __forceinline__ void count_bytes(unsigned char *cnt, unsigned lane4, unsigned w)
{
    atomicAdd(reinterpret_cast<unsigned *>(cnt + (((w << 7) & 0x7f80u) | lane4)), 1u);
    atomicAdd(reinterpret_cast<unsigned *>(cnt + (((w >> 1) & 0x7f80u) | lane4)), 1u);
    atomicAdd(reinterpret_cast<unsigned *>(cnt + (((w >> 9) & 0x7f80u) | lane4)), 1u);
    atomicAdd(reinterpret_cast<unsigned *>(cnt + (((w >> 17) & 0x7f80u) | lane4)), 1u);
}

template <class T, bool Edges>
__global__ void __launch_bounds__(kHistThreads, kHistBytesBlocksPerSm) hist_bytes_kernel(const T *in, hist_params p)
{
    constexpr long long kTile = (long long)kHistThreads * kHistUnroll; /* vectors */
    constexpr int kRoundTiles = kHistRoundElems / (kTile * 16) > 0 ? int(kHistRoundElems / (kTile * 16)) : 1;
    __shared__ unsigned cnt[256 * 32];
    __shared__ int bin_of_value[256]; /* worked out once per block: no formula in the loop */
    auto row_bin = [&](int row) { return bin_of_value[row]; };
    __shared__ gate_ticket gate;
    arrive(p, &gate); /* its atomic overlaps the clear below */
    block_clear(cnt, 256 * 32, p);
    static_assert(kHistThreads >= 256, "one thread per byte value");
    if (threadIdx.x < 256)
        bin_of_value[threadIdx.x] = bin_of<T, Edges>((T)(unsigned char)threadIdx.x, p, static_cast<const T *>(p.edges));
    __syncthreads();
    clear_hist(p, &gate);
    auto flush = [&] {
        if (threadIdx.x == 0) pass_gate(p, &gate);
        flush_rows(cnt, 256, 5, p.hist, row_bin);
    };
    unsigned char *bytes = reinterpret_cast<unsigned char *>(cnt);
    const unsigned lane4 = (threadIdx.x & 31) * 4;

    const uint4 *body = reinterpret_cast<const uint4 *>(in + p.L.head);
    int tiles = 0;
    for (long long base = blockIdx.x * kTile; base < p.L.nvec; base += (long long)gridDim.x * kTile) {
        const bool full = base + kTile <= p.L.nvec;
        uint4 v[kHistUnroll];
#pragma unroll
        for (int u = 0; u < kHistUnroll; u++) {
            long long i = base + u * kHistThreads + threadIdx.x;
            if (full || i < p.L.nvec) v[u] = load_stream<0>(body + i);
        }
#pragma unroll
        for (int u = 0; u < kHistUnroll; u++) {
            long long i = base + u * kHistThreads + threadIdx.x;
            if (full || i < p.L.nvec) {
                count_bytes(bytes, lane4, v[u].x);
                count_bytes(bytes, lane4, v[u].y);
                count_bytes(bytes, lane4, v[u].z);
                count_bytes(bytes, lane4, v[u].w);
            }
        }
        if (++tiles == kRoundTiles) { /* block-uniform */
            flush();
            tiles = 0;
        }
    }
    if (blockIdx.x == 0 && threadIdx.x < p.L.head + p.L.tail) {
        const unsigned b = (unsigned char)in[edge_index<T>(p.L, threadIdx.x)];
        atomicAdd(cnt + (b << 5) + (threadIdx.x & 31), 1u);
    }
    flush();
}

/* The body's tiles of this block (the grid strides over them): each
 * element's bin, or -1 past the end, goes to deposit (every lane of a warp
 * calls it), then tile_done() runs once a tile. */
template <class T, bool Edges, int Unroll, class Deposit, class TileDone>
__device__ __forceinline__ void deposit_tiles(const T *in, const hist_params &p, const T *e, Deposit &deposit,
                                              TileDone &&tile_done)
{
    constexpr int kPer = 16 / sizeof(T);
    constexpr long long kTile = (long long)kHistThreads * Unroll;
    const uint4 *body = reinterpret_cast<const uint4 *>(in + p.L.head);
    for (long long base = blockIdx.x * kTile; base < p.L.nvec; base += (long long)gridDim.x * kTile) {
        const bool full = base + kTile <= p.L.nvec;
        vec16<T> v[Unroll];
#pragma unroll
        for (int u = 0; u < Unroll; u++) {
            long long i = base + u * kHistThreads + threadIdx.x;
            if (full || i < p.L.nvec) v[u].raw = load_stream<0>(body + i);
        }
#pragma unroll
        for (int u = 0; u < Unroll; u++) {
            const bool ok = full || base + u * kHistThreads + threadIdx.x < p.L.nvec;
#pragma unroll
            for (int k = 0; k < kPer; k++) deposit(ok ? bin_of<T, Edges>(v[u].e[k], p, e) : -1);
        }
        tile_done();
    }
}

/* ------------------------------------------------------ wider inputs, shared */

template <class T, bool Edges, bool Match, int Unroll>
__global__ void __launch_bounds__(kHistThreads, kHistSharedBlocksPerSm)
    hist_shared_kernel(const T *in, hist_params p, int cshift)
{
    constexpr int kPer = 16 / sizeof(T);
    constexpr long long kTile = (long long)kHistThreads * Unroll;
    constexpr int kRoundTiles = kHistRoundElems / (kTile * kPer) > 0 ? int(kHistRoundElems / (kTile * kPer)) : 1;
    GP_DYNAMIC_SMEM(smem);
    unsigned *cnt = reinterpret_cast<unsigned *>(smem);
    const int words = p.bins << cshift;
    const T *e = static_cast<const T *>(p.edges);
    /* After the counters, 16-byte aligned: the edges, then the gate. */
    const size_t edges_at = counters_bytes(words);
    gate_ticket *gate = reinterpret_cast<gate_ticket *>(smem + edges_at + edge_bytes<T, Edges>(p.bins));
    arrive(p, gate); /* its atomic overlaps the clear below */
    if constexpr (Edges) {
        T *se = reinterpret_cast<T *>(smem + edges_at);
        for (int i = threadIdx.x; i <= p.bins; i += kHistThreads) se[i] = e[i];
        e = se;
    }
    block_clear(cnt, words, p);
    __syncthreads();
    clear_hist(p, gate);

    const int lane = threadIdx.x & 31;
    unsigned *col = cnt + (lane & ((1 << cshift) - 1));
    /* Every lane of the warp calls it (b < 0: nothing to add). */
    auto deposit = [&](int b) {
        if constexpr (Match) {
            const unsigned peers = __match_any_sync(kFull, b);
            if (b >= 0 && lane == __ffs(peers) - 1) atomicAdd(col + (b << cshift), (unsigned)__popc(peers));
        } else {
            if (b >= 0) atomicAdd(col + (b << cshift), 1u);
        }
    };
    auto row_bin = [](int row) { return row; };
    auto flush = [&] {
        if (threadIdx.x == 0) pass_gate(p, gate);
        flush_rows(cnt, p.bins, cshift, p.hist, row_bin);
    };

    int tiles = 0;
    deposit_tiles<T, Edges, Unroll>(in, p, e, deposit, [&] {
        if (++tiles == kRoundTiles) { /* block-uniform */
            flush();
            tiles = 0;
        }
    });
    if (blockIdx.x == 0 && threadIdx.x < 32) { /* the whole warp: deposit may group */
        const int b = lane < p.L.head + p.L.tail ? bin_of<T, Edges>(in[edge_index<T>(p.L, lane)], p, e) : -1;
        deposit(b);
    }
    flush();
}

/* ------------------------------------------------------ wider inputs, global */

template <class T, bool Edges>
__global__ void __launch_bounds__(kHistThreads, 2) hist_global_kernel(const T *in, hist_params p)
{
    if (p.clear == kClearOwn) { /* one block; for several a memset went first */
        zero_hist(p);
        __syncthreads();
    }
    const T *e = static_cast<const T *>(p.edges);
    const int lane = threadIdx.x & 31;
    /* One 64-bit atomic per distinct bin of the warp. */
    auto deposit = [&](int b) {
        const unsigned peers = __match_any_sync(kFull, b);
        if (b >= 0 && lane == __ffs(peers) - 1) atomicAdd(p.hist + b, (unsigned long long)__popc(peers));
    };

    deposit_tiles<T, Edges, kHistUnroll>(in, p, e, deposit, [] {});
    if (blockIdx.x == 0 && threadIdx.x < 32) {
        const int b = lane < p.L.head + p.L.tail ? bin_of<T, Edges>(in[edge_index<T>(p.L, lane)], p, e) : -1;
        deposit(b);
    }
}

} // namespace
} // namespace gp_cuda

#endif // GP_CUDA_HISTOGRAM_KERNELS_CUH
