/*
 * The transpose kernels (included by cuda_transpose.cu, after its jobs):
 * block helpers that load and store a tile through shared memory, then the
 * tiled, skinny, narrow, flat-copy and in-place flip kernels.
 */
#ifndef GP_CUDA_TRANSPOSE_KERNELS_CUH
#define GP_CUDA_TRANSPOSE_KERNELS_CUH

namespace gp_cuda {
namespace {

using namespace tp;

/* ------------------------------------------------------ block helpers */

/*
 * Loads the tile at `base` (valid: vrows x vcols elements, vcols a multiple
 * of R) into shared memory as transposed pieces. Thread t takes blocks
 * q = t, t + T, ...; block q is block row q / BC, block column q % BC, so a
 * warp's loads run along input rows.
 */
template <int E, int V, int TS, bool NC, bool STREAM>
__device__ __forceinline__ void load_tile(const char *base, long long is, int vrows, int vcols, vec_t<V> *sm)
{
    constexpr int R = V / E, W = words(V), BC = TS / R, T = tile_threads(E, V, TS);
    constexpr int U = tile_blocks(E, V, TS) / T;
    static_assert(U * T == tile_blocks(E, V, TS), "a whole number of blocks per thread");
#pragma unroll
    for (int u = 0; u < U; u++) {
        const int q = threadIdx.x + u * T, br = q / BC, bc = q % BC, col = bc * R;
        uint32_t v[R][W], o[R][W];
        const char *p = base + br * R * is + col * E; /* stepped by is: one live address */
#pragma unroll
        for (int k = 0; k < R; k++, p += is) {
            vec_t<V> x = vec_t<V>();
            if (br * R + k < vrows && col < vcols) x = load<V, NC, STREAM>(p);
            to_words<V>(x, v[k]);
        }
        transpose_block<E, V>(v, o);
#pragma unroll
        for (int j = 0; j < R; j++) sm[swizzle<E, V, TS>(col + j, br)] = from_words<V>(o[j]);
    }
}

/* Stores the tile's pieces to `base` (valid: vrows x vcols output
 * elements, vcols a multiple of R): consecutive threads take consecutive
 * pieces of a row. */
template <int E, int V, int TS, bool STREAM>
__device__ __forceinline__ void store_tile(const vec_t<V> *sm, char *base, long long os, int vrows, int vcols)
{
    constexpr int R = V / E, BR = TS / R, T = tile_threads(E, V, TS);
    constexpr int P = TS * BR / T;
#pragma unroll
    for (int k = 0; k < P; k++) {
        const int L = threadIdx.x + k * T, c = L / BR, b = L % BR, col = b * R;
        if (c < vrows && col < vcols) store<V, STREAM>(base + c * os + col * E, sm[swizzle<E, V, TS>(c, b)]);
    }
}

/*
 * The same two steps one element at a time, for an edge tile whose rows or
 * columns stop inside a vector (rows shorter than their padded stride).
 * Same shared layout: element (row, col) of the tile is element row % R of
 * piece (col, row / R). Rare, so kept small rather than fast.
 */
template <int E, int V, int TS, bool NC>
__device__ __forceinline__ void load_tile_elems(const char *base, long long is, int vrows, int vcols, vec_t<V> *sm)
{
    constexpr int R = V / E;
    char *s = reinterpret_cast<char *>(sm);
#pragma unroll 1
    for (int i = threadIdx.x; i < TS * TS; i += tile_threads(E, V, TS)) {
        const int row = i / TS, col = i % TS;
        vec_t<E> x = vec_t<E>();
        if (row < vrows && col < vcols) x = load<E, NC>(base + row * is + col * E);
        store<E>(s + swizzle<E, V, TS>(col, row / R) * V + row % R * E, x);
    }
}

template <int E, int V, int TS>
__device__ __forceinline__ void store_tile_elems(const vec_t<V> *sm, char *base, long long os, int vrows, int vcols)
{
    constexpr int R = V / E;
    const char *s = reinterpret_cast<const char *>(sm);
#pragma unroll 1
    for (int i = threadIdx.x; i < TS * TS; i += tile_threads(E, V, TS)) {
        const int c = i / TS, col = i % TS;
        if (c < vrows && col < vcols)
            store<E>(base + c * os + col * E,
                     *reinterpret_cast<const vec_t<E> *>(s + swizzle<E, V, TS>(c, col / R) * V + col % R * E));
    }
}

/* Job t: matrix b and tile (ti, tj); in place, the pair's tile with ti <= tj
 * (k = tj (tj + 1) / 2 + ti enumerates the upper triangle row by row). */
template <bool PAIR>
__device__ __forceinline__ void tile_of_job(const tile_job &j, long long t, long long &b, long long &ti,
                                            long long &tj)
{
    const bool small = j.jobs <= 0xffffffffLL;
    long long k;
    split(t, j.per_matrix, small, b, k);
    if constexpr (!PAIR) {
        split(k, j.tiles_c, small, ti, tj);
    } else {
        long long y = (long long)((sqrt(8.0 * (double)k + 1.0) - 1.0) * 0.5);
        while (y > 0 && y * (y + 1) / 2 > k) y--; /* the square root may round either way */
        while ((y + 1) * (y + 2) / 2 <= k) y++;
        tj = y;
        ti = k - y * (y + 1) / 2;
    }
}

/* -------------------------------------------------------------- kernels */

/* Shared bytes of a tile (an in-place pair holds two). */
constexpr size_t tile_smem(int e, int v, int ts, bool pair) { return (size_t)ts * ts * e * (pair ? 2 : 1); }

template <int E, int V, int TS, bool PAIR, bool STREAM>
__global__ void __launch_bounds__(tile_threads(E, V, TS), tile_min_blocks(E, V, TS)) transpose_tiles(const tile_job j)
{
    static_assert(!(PAIR && STREAM), "in place, the input is written: no evict-first hint on its loads");
    constexpr int R = V / E, UNITS = TS * (TS / R);
    extern __shared__ uint4 tile_smem_[]; /* tile_smem(E, V, TS, PAIR) bytes */
    vec_t<V> *sm = reinterpret_cast<vec_t<V> *>(tile_smem_);
    for (long long t = blockIdx.x; t < j.jobs; t += gridDim.x) {
        long long b, ti, tj;
        tile_of_job<PAIR>(j, t, b, ti, tj);
        const long long r0 = ti * TS, c0 = tj * TS;
        const int vr = (int)(j.rows - r0 < TS ? j.rows - r0 : TS), vc = (int)(j.cols - c0 < TS ? j.cols - c0 : TS);
        const bool whole = vr % R == 0 && vc % R == 0; /* every vector whole, on both sides */
        const char *in = j.in + b * j.ibs;
        char *out = j.out + b * j.obs;
        /* In place: tile h = 1 is the mirror (tj, ti), unless on the diagonal.
         * The loop body is emitted once, keeping the kernel's registers those
         * of one tile. In place the input is written by this kernel, so it is
         * not read through the read-only path. */
        const int tiles = PAIR && ti != tj ? 2 : 1;
#pragma unroll 1
        for (int h = 0; h < tiles; h++) {
            const char *src = h ? in + c0 * j.is + r0 * E : in + r0 * j.is + c0 * E;
            const int rows = h ? vc : vr, cols = h ? vr : vc;
            if (whole) load_tile<E, V, TS, !PAIR, STREAM>(src, j.is, rows, cols, sm + h * UNITS);
            else load_tile_elems<E, V, TS, !PAIR>(src, j.is, rows, cols, sm + h * UNITS);
        }
        __syncthreads();
#pragma unroll 1
        for (int h = 0; h < tiles; h++) {
            char *dst = h ? out + r0 * j.os + c0 * E : out + c0 * j.os + r0 * E;
            const int rows = h ? vr : vc, cols = h ? vc : vr;
            if (whole) store_tile<E, V, TS, STREAM>(sm + h * UNITS, dst, j.os, rows, cols);
            else store_tile_elems<E, V, TS>(sm + h * UNITS, dst, j.os, rows, cols);
        }
        __syncthreads(); /* the next tile reuses sm */
    }
}

/*
 * Large byte matrices (out of place, 16-byte vectors, both sides multiples
 * of 16): a kByteTileSide^2 tile crosses shared memory as it is, its rows
 * as 16-byte chunks, and each thread transposes one 16 x 16 block on the
 * way out, storing straight to global memory. Nothing is held in registers
 * across the barrier, so 256 x 256 tiles (256-byte row segments on both
 * sides, as 2-byte elements have in transpose_tiles) still fit two blocks
 * an SM. Chunk c of tile row r sits at chunk c ^ ((r / 16) % 8) of its
 * row: loads write 8 consecutive chunks of a row per wavefront, and stores
 * read chunk bc of 8 rows 16 apart; both touch every bank once.
 */
template <bool STREAM>
__global__ void __launch_bounds__(kByteTileThreads, kByteTileBlocksPerSM) transpose_byte_tiles(const tile_job j)
{
    constexpr int TS = kByteTileSide, BC = TS / 16, T = kByteTileThreads, U = TS * BC / T;
    static_assert(BC * BC == T && BC >= 8, "one 16 x 16 block a thread; 8 chunks to swizzle over");
    extern __shared__ uint4 tile_smem_[]; /* TS * TS bytes */
    uint4 *sm = tile_smem_;
    for (long long t = blockIdx.x; t < j.jobs; t += gridDim.x) {
        long long b, ti, tj;
        tile_of_job<false>(j, t, b, ti, tj);
        const long long r0 = ti * TS, c0 = tj * TS;
        const int vr = (int)(j.rows - r0 < TS ? j.rows - r0 : TS), vc = (int)(j.cols - c0 < TS ? j.cols - c0 : TS);
        const char *in = j.in + b * j.ibs + r0 * j.is + c0;
        char *out = j.out + b * j.obs + c0 * j.os + r0;
        uint4 x[U]; /* every load in flight before the first shared store */
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int q = threadIdx.x + u * T, r = q / BC, c = q % BC;
            x[u] = r < vr && c * 16 < vc ? load<16, true, STREAM>(in + r * j.is + c * 16) : uint4();
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int q = threadIdx.x + u * T, r = q / BC, c = q % BC;
            sm[r * BC + (c ^ ((r >> 4) & 7))] = x[u];
        }
        __syncthreads();
        /* Block (br, bc): a warp's lanes take consecutive br, so each store
         * instruction writes 256 contiguous bytes of two output rows. */
        const int br = threadIdx.x % BC, bc = threadIdx.x / BC;
        uint32_t v[16][4], o[16][4];
#pragma unroll
        for (int k = 0; k < 16; k++) to_words<16>(sm[(br * 16 + k) * BC + (bc ^ (br & 7))], v[k]);
        transpose_block<1, 16>(v, o);
        if (br * 16 < vr) {
#pragma unroll
            for (int c = 0; c < 16; c++)
                if (bc * 16 + c < vc) store<16, STREAM>(out + (bc * 16 + c) * j.os + br * 16, from_words<16>(o[c]));
        }
        __syncthreads(); /* the next tile reuses sm */
    }
}

/*
 * A skinny matrix (one side at most kSkinnySide, all of it small enough to
 * stay in L2): a tile would keep most of its lanes idle and add a second
 * memory round trip through shared memory. Instead each thread moves single
 * elements, consecutive threads writing consecutive elements of an output
 * row (output row c is input column c). Wide matrices (rows <= cols): job
 * k is output element (k / rows, k % rows).
 */
template <int E>
__global__ void __launch_bounds__(kFlatThreads) transpose_skinny(const tile_job j)
{
    const bool small = j.jobs <= 0xffffffffLL;
    for (long long g = blockIdx.x * (long long)kFlatThreads + threadIdx.x; g < j.jobs;
         g += (long long)gridDim.x * kFlatThreads) {
        long long b, k, c, r;
        split(g, j.per_matrix, small, b, k);
        split(k, j.rows, small, c, r);
        store<E>(j.out + b * j.obs + c * j.os + r * E, load<E, true>(j.in + b * j.ibs + r * j.is + c * E));
    }
}

/*
 * Tall skinny matrices (cols <= rows, cols <= kSkinnySide): a block of 32 x
 * cols threads takes j.runs runs of 32 rows, warp c column c, so the input
 * lines its warps share are read once into the SM's L1 rather than once per
 * column from L2. No divisions: lane and column come from the thread index
 * by a mask and a shift, so the loads start a few instructions in (what the
 * latency of these small shapes is made of). A thread issues all its loads
 * before its first store.
 */
template <int E>
__global__ void __launch_bounds__(kWarp * kSkinnySide) transpose_tall(const tile_job j)
{
    const int lane = threadIdx.x % kWarp, c = threadIdx.x / kWarp;
    const long long blocks = j.per_matrix; /* blocks a matrix */
    long long b = 0, blk = blockIdx.x;
    if (j.jobs != blocks) b = blk / blocks, blk -= b * blocks; /* batches only */
    const long long r0 = blk * (kWarp * j.runs) + lane;
    const char *in = j.in + b * j.ibs + c * E;
    char *out = j.out + b * j.obs + c * j.os;
    vec_t<E> v[kTallRuns];
#pragma unroll
    for (int k = 0; k < kTallRuns; k++)
        if (k < j.runs && r0 + k * kWarp < j.rows) v[k] = load<E, true>(in + (r0 + k * kWarp) * j.is);
#pragma unroll
    for (int k = 0; k < kTallRuns; k++)
        if (k < j.runs && r0 + k * kWarp < j.rows) store<E>(out + (r0 + k * kWarp) * E, v[k]);
}

/*
 * A narrow matrix (one side at most kSkinnySide elements): a square tile
 * would keep most of its lanes idle. Each block takes a chunk of the long
 * side, all of the short one: the chunk's input is read in row order and
 * its output written in row order, both runs as long as the strides allow
 * (contiguous for dense matrices), element-wide accesses, and the chunk
 * crosses shared memory transposed. The chunk is TR x TC input elements:
 * K x S for a tall matrix (S = cols), S x K for a wide one. Shared rows
 * are TR | 1 elements long, an odd stride, so that a wavefront's accesses
 * fall in distinct banks.
 */
template <int E>
__global__ void __launch_bounds__(kFlatThreads) transpose_narrow(const narrow_job j)
{
    extern __shared__ uint4 narrow_smem_[];
    vec_t<E> *sm = reinterpret_cast<vec_t<E> *>(narrow_smem_);
    const bool small = j.jobs <= 0xffffffffLL;
    const int pitch = j.tr | 1;
    for (long long t = blockIdx.x; t < j.jobs; t += gridDim.x) {
        long long b, chunk;
        split(t, j.chunks, small, b, chunk);
        const long long r0 = j.tall ? chunk * j.tr : 0, c0 = j.tall ? 0 : chunk * j.tc;
        const int tr = (int)(j.rows - r0 < j.tr ? j.rows - r0 : j.tr);
        const int tc = (int)(j.cols - c0 < j.tc ? j.cols - c0 : j.tc);
        const char *in = j.in + b * j.ibs + r0 * j.is + c0 * E;
        char *out = j.out + b * j.obs + c0 * j.os + r0 * E;
#pragma unroll 4
        for (int i = threadIdx.x; i < tr * tc; i += kFlatThreads) {
            const int r = i / tc, c = i - r * tc;
            sm[c * pitch + r] = load<E, true>(in + r * j.is + c * E);
        }
        __syncthreads();
#pragma unroll 4
        for (int i = threadIdx.x; i < tr * tc; i += kFlatThreads) {
            const int c = i / tr, r = i - c * tr;
            store<E>(out + c * j.os + r * E, sm[c * pitch + r]);
        }
        __syncthreads(); /* the next chunk reuses sm */
    }
}

template <int E, int V>
__global__ void __launch_bounds__(kFlatThreads) copy_rows(const copy_job j)
{
    constexpr int R = V / E;
    const bool small = j.jobs <= 0xffffffffLL;
    for (long long g = blockIdx.x * (long long)kFlatThreads + threadIdx.x; g < j.jobs;
         g += (long long)gridDim.x * kFlatThreads) {
        long long row, k, b, r;
        split(g, j.per_row, small, row, k);
        split(row, j.rows, small, b, r);
        const char *src = j.in + b * j.ibs + r * j.is;
        char *dst = j.out + b * j.obs + r * j.os + k * V;
        const long long col = k * R;
        if (!j.rev_cols) {
            const int n = (int)(j.cols - col < R ? j.cols - col : R);
            if (n == R) store<V>(dst, load<V, true>(src + col * E));
            else store_partial<E, V>(dst, load_partial<E, V, true>(src + col * E, n), n);
        } else {
            /* The host picks V > E only when R divides cols: whole vectors. */
            uint32_t w[words(V)];
            to_words<V>(load<V, true>(src + (j.cols - col - R) * E), w);
            reverse_elements<E, V>(w);
            store<V>(dst, from_words<V>(w));
        }
    }
}

template <int E>
__global__ void __launch_bounds__(kFlatThreads) flip_in_place(const flip_job j)
{
    const bool small = j.jobs <= 0xffffffffLL;
    for (long long g = blockIdx.x * (long long)kFlatThreads + threadIdx.x; g < j.jobs;
         g += (long long)gridDim.x * kFlatThreads) {
        long long b, k, r, c, r2, c2;
        split(g, j.per_matrix, small, b, k);
        if (j.rev_rows) { /* row r pairs with rows-1-r; an odd middle row with itself */
            const long long body = (j.rows / 2) * j.cols;
            if (k < body) {
                split(k, j.cols, small, r, c);
                r2 = j.rows - 1 - r;
                c2 = j.rev_cols ? j.cols - 1 - c : c;
            } else {
                r = r2 = j.rows / 2;
                c = k - body;
                c2 = j.cols - 1 - c;
            }
        } else { /* each row reverses by itself */
            split(k, j.cols / 2, small, r, c);
            r2 = r;
            c2 = j.cols - 1 - c;
        }
        char *m = j.p + b * j.bs;
        vec_t<E> *x = reinterpret_cast<vec_t<E> *>(m + r * j.s + c * E);
        vec_t<E> *y = reinterpret_cast<vec_t<E> *>(m + r2 * j.s + c2 * E);
        const vec_t<E> t = *x;
        *x = *y;
        *y = t;
    }
}

} // namespace
} // namespace gp_cuda

#endif // GP_CUDA_TRANSPOSE_KERNELS_CUH
