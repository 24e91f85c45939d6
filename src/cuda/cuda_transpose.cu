/*
 * gp_transpose_ex on CUDA: tiles through shared memory, every global access
 * as wide as the alignment allows, whatever the element size.
 *
 * Flags cost nothing: as on the CPU, reversing the output's columns is
 * reading the input's rows last to first, and reversing its rows is
 * writing them last to first, so both become a start pointer at the last
 * row and a negative stride; row alignment does not change.
 *
 * The tiled kernel (one block per TS x TS tile, a 1-D grid of any length,
 * 64-bit offsets):
 * 1. Each thread loads an R x R block of elements as R vectors of V bytes
 *    (V = 16 when pointers and row strides allow, else 8, 4, or the element
 *    itself; R = V / E), coalesced along input rows.
 * 2. It transposes the block in registers: R output pieces of V bytes. For
 *    1- and 2-byte elements this is byte permutes (PRMT), so bytes move 16
 *    at a time and are never widened to 4 bytes.
 * 3. Pieces go to shared memory at a swizzled slot (cuda_transpose.cuh):
 *    writes and reads both use every bank once per 128 bytes, no padding.
 * 4. After one barrier, threads read pieces along output rows and store
 *    them as V-byte words, coalesced. Edge tiles mask rows and columns; an
 *    edge tile whose rows stop inside a vector (possible only with padded
 *    strides) moves element by element through the same shared layout.
 * In place (square, equal strides): one block takes the tile pair (i, j),
 * (j, i) into shared memory before writing either, so every element is
 * read before anything overwrites it; a diagonal tile pairs with itself.
 *
 * Large byte matrices (out of place, 16-byte vectors) take 256 x 256 tiles
 * that cross shared memory untransposed, each thread transposing one
 * 16 x 16 block on the way out (transpose_byte_tiles): 256-byte row
 * segments on both sides at two blocks an SM.
 *
 * Out of place, the matrix's bytes against the L2 set a size class
 * (size_class, cuda_tuning.h): mid-sized ones load and store with the
 * evict-first hint, large ones of 16-byte elements take 16 x 16 tiles.
 *
 * A side of at most kSkinnySide elements (out of place) leaves most lanes
 * of a tile idle: up to kSkinnyMaxBytes one thread moves one element
 * (transpose_skinny), past it chunks of the long side cross shared memory
 * (transpose_narrow, elements of 4 bytes and more).
 *
 * Flips without a transpose (GP_TRANSPOSE_NONE) are a flat row copy, each
 * vector's elements reversed in registers when the columns are; in place,
 * element pairs swap.
 *
 * Top to bottom: jobs, block helpers, kernels, kernel choice, host entry.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>

#include <type_traits>

#include "cuda_backend.h"
#include "cuda_common.cuh"
#include "cuda_transpose.cuh"

namespace gp_cuda {
namespace {

using namespace tp;

/* --------------------------------------------------------------- jobs */

/* A call's matrices with byte strides; each kind of job adds its own. */
struct matrix_view {
    const char *in;
    char *out;
    long long rows, cols; /* of each input matrix */
    long long is, os;     /* row strides, bytes, negative for a flip */
    long long ibs, obs;   /* batch strides, bytes */
};

/* A tiled transpose: out[j][i] = in[i][j]. */
struct tile_job : matrix_view {
    long long tiles_c;          /* tiles across the input's columns */
    long long per_matrix, jobs; /* tiles (in place: tile pairs; transpose_tall: blocks) per matrix and in all */
    int tall;                   /* skinny kernel: cols <= rows */
    int runs;                   /* transpose_tall: runs of 32 rows a thread, 1 to kTallRuns */
};

/* A NONE copy: out row r = in row r, its elements reversed when rev_cols
 * (os negative when the rows are reversed). */
struct copy_job : matrix_view {
    long long per_row, jobs; /* vectors per row, and in all */
    int rev_cols;
};

/* A narrow transpose: chunks of tr x tc input elements along the long side. */
struct narrow_job : matrix_view {
    long long chunks, jobs; /* chunks per matrix, and in all */
    int tr, tc;             /* a whole chunk's rows and columns */
    int tall;               /* chunks step down the rows (else across the columns) */
};

/* A NONE flip in place: element pairs swap. */
struct flip_job {
    char *p;
    long long rows, cols, s, bs;
    long long per_matrix, jobs; /* pairs */
    int rev_rows, rev_cols;
};

/* q = x / d, r = x % d in 32 bits when the whole index space fits (a
 * 64-bit division is a long software sequence on the GPU). */
__device__ __forceinline__ void split(long long x, long long d, bool small, long long &q, long long &r)
{
    if (small) {
        const unsigned uq = (unsigned)x / (unsigned)d;
        q = uq;
        r = (unsigned)x - uq * (unsigned)d;
    } else {
        q = x / d;
        r = x - q * d;
    }
}

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

/* ------------------------------------------------------- kernel choice */

/* Every (E, V) a tiled or copy kernel is built for. V = 2 is left out for
 * bytes: a 2-byte-aligned byte matrix takes the 1-byte path. */
#define GP_TP_VARIANTS(X)                                                                  \
    X(1, 16) X(1, 8) X(1, 4) X(1, 1) X(2, 16) X(2, 8) X(2, 4) X(2, 2) X(4, 16) X(4, 8) X(4, 4) \
    X(8, 16) X(8, 8) X(16, 16)

/* Every (E, V, TS) a tiled kernel is built for: TS = tile_side(E, V), and
 * tile_side_large(E, V) where it differs (out of place only). */
#define GP_TP_TILES(X)                                                                                   \
    X(1, 16, 128) X(1, 8, 128) X(1, 4, 128) X(1, 1, 64) X(2, 16, 128) X(2, 8, 64) X(2, 4, 64) X(2, 2, 64) \
    X(4, 16, 64) X(4, 8, 64) X(4, 4, 64) X(8, 16, 32) X(8, 8, 32) X(16, 16, 32) X(16, 16, 16)

/* GP_TP_TILES lists each side that tile_side and tile_side_large pick,
 * which the kernel choice looks up at run time: the compiler holds the
 * two to the same values. */
#define GP_TP_SIDE_PICKED(E, V, TS)                                            \
    static_assert(tile_side(E, V) == TS || tile_side_large(E, V) == TS, \
                  "GP_TP_TILES: <" #E ", " #V "> does not take side " #TS);
GP_TP_TILES(GP_TP_SIDE_PICKED)
#undef GP_TP_SIDE_PICKED

/* The compiler proves every variant's shared layout free of bank conflicts. */
#define GP_TP_CONFLICT_FREE(E, V, TS)                        \
    static_assert(swizzle_conflict_free<E, V, TS>(),         \
                  "bank conflicts in the transpose tile <" #E ", " #V ", " #TS ">");
GP_TP_TILES(GP_TP_CONFLICT_FREE)
#undef GP_TP_CONFLICT_FREE

/* The widest vector in {16, 8, 4, 2, 1}, at least e, that divides `bits`
 * (the OR of every address and byte stride the kernel adds up). */
int pick_vec(int e, unsigned long long bits)
{
    int v = 16;
    while (v > e && bits % (unsigned)v) v /= 2;
    return e == 1 && v == 2 ? 1 : v;
}

unsigned long long abs_bits(long long x) { return (unsigned long long)(x < 0 ? -x : x); }

unsigned grid_for(long long blocks) { return (unsigned)(blocks < INT_MAX ? blocks : INT_MAX); }

template <int E, int V, int TS, bool PAIR, bool STREAM>
gp_status launch_tiles(gp_ctx *ctx, tile_job j)
{
#ifdef GPUPRIM_DEBUG_LAUNCH
    char what[128];
    snprintf(what, sizeof what, "transpose_tiles<%d, %d, %d, %s%s> (%lld x %lld, %lld jobs)", E, V, TS,
             PAIR ? "in place" : "out of place", STREAM ? ", evict-first" : "", j.rows, j.cols, j.jobs);
#else
    const char *what = "transpose_tiles";
#endif
    void *args[] = {&j};
    GP_CUDA_LAUNCH_SMEM(ctx, (transpose_tiles<E, V, TS, PAIR, STREAM>), what, grid_for(j.jobs),
                        (unsigned)tile_threads(E, V, TS), tile_smem(E, V, TS, PAIR), args);
    return GP_STATUS_OK;
}

gp_status launch_byte_tiles(gp_ctx *ctx, tile_job j, bool stream)
{
    void *args[] = {&j};
    GP_CUDA_LAUNCH_SMEM(ctx, stream ? transpose_byte_tiles<true> : transpose_byte_tiles<false>,
                        "transpose_byte_tiles", grid_for(j.jobs), (unsigned)kByteTileThreads,
                        (size_t)kByteTileSide * kByteTileSide, args);
    return GP_STATUS_OK;
}

template <int E>
gp_status launch_skinny(gp_ctx *ctx, tile_job j)
{
    void *args[] = {&j};
    if (j.tall) { /* one block a unit of j.runs runs; jobs = blocks, at most INT_MAX (16 MiB in all) */
        GP_CUDA_LAUNCH(ctx, transpose_tall<E>, "transpose_tall", (unsigned)j.jobs, (unsigned)(kWarp * j.cols), args);
        return GP_STATUS_OK;
    }
    GP_CUDA_LAUNCH(ctx, transpose_skinny<E>, "transpose_skinny", grid_for((j.jobs + kFlatThreads - 1) / kFlatThreads),
                   (unsigned)kFlatThreads, args);
    return GP_STATUS_OK;
}

template <int E>
gp_status launch_narrow(gp_ctx *ctx, narrow_job j)
{
    void *args[] = {&j};
    GP_CUDA_LAUNCH_SMEM(ctx, transpose_narrow<E>, "transpose_narrow", grid_for(j.jobs), (unsigned)kFlatThreads,
                        (size_t)(j.tr | 1) * j.tc * E, args);
    return GP_STATUS_OK;
}

template <int E, int V>
gp_status launch_copy(gp_ctx *ctx, copy_job j)
{
    void *args[] = {&j};
    GP_CUDA_LAUNCH(ctx, (copy_rows<E, V>), "transpose copy_rows", grid_for((j.jobs + kFlatThreads - 1) / kFlatThreads),
                   (unsigned)kFlatThreads, args);
    return GP_STATUS_OK;
}

template <int E>
gp_status launch_flip(gp_ctx *ctx, flip_job j)
{
    void *args[] = {&j};
    GP_CUDA_LAUNCH(ctx, flip_in_place<E>, "transpose flip_in_place",
                   grid_for((j.jobs + kFlatThreads - 1) / kFlatThreads), (unsigned)kFlatThreads, args);
    return GP_STATUS_OK;
}

gp_status no_kernel(gp_ctx *ctx, int e, int v)
{
    return gp_set_error(ctx, GP_STATUS_INTERNAL,
                        "gp_transpose: no CUDA kernel for %d-byte elements in %d-byte words", e, v);
}

/* In place takes tile_side's tiles and no hints; out of place, either. */
template <bool PAIR>
gp_status run_tiles(gp_ctx *ctx, int e, int v, int ts, bool stream, const tile_job &j)
{
    switch ((e * 100 + v) * 1000 + ts) {
#define GP_TP_CASE(E, V, TS)                                                              \
    case (E * 100 + V) * 1000 + TS:                                                       \
        if constexpr (PAIR) {                                                             \
            if constexpr (TS == tile_side(E, V)) return launch_tiles<E, V, TS, true, false>(ctx, j); \
            else break;                                                                   \
        } else {                                                                          \
            return stream ? launch_tiles<E, V, TS, false, true>(ctx, j)                   \
                          : launch_tiles<E, V, TS, false, false>(ctx, j);                 \
        }
        GP_TP_TILES(GP_TP_CASE)
#undef GP_TP_CASE
    }
    return no_kernel(ctx, e, v);
}

gp_status run_copy(gp_ctx *ctx, int e, int v, const copy_job &j)
{
    switch (e * 100 + v) {
#define GP_TP_CASE(E, V) \
    case E * 100 + V: return launch_copy<E, V>(ctx, j);
        GP_TP_VARIANTS(GP_TP_CASE)
#undef GP_TP_CASE
    }
    return no_kernel(ctx, e, v);
}

/* Calls launch(std::integral_constant<int, E>) for the element size e. */
template <class Launch>
gp_status per_element_size(gp_ctx *ctx, int e, Launch &&launch)
{
    switch (e) {
    case 1: return launch(std::integral_constant<int, 1>());
    case 2: return launch(std::integral_constant<int, 2>());
    case 4: return launch(std::integral_constant<int, 4>());
    case 8: return launch(std::integral_constant<int, 8>());
    case 16: return launch(std::integral_constant<int, 16>());
    }
    return no_kernel(ctx, e, e);
}

gp_status run_skinny(gp_ctx *ctx, int e, const tile_job &j)
{
    return per_element_size(ctx, e, [&](auto E) { return launch_skinny<decltype(E)::value>(ctx, j); });
}

gp_status run_narrow(gp_ctx *ctx, int e, const narrow_job &j)
{
    return per_element_size(ctx, e, [&](auto E) { return launch_narrow<decltype(E)::value>(ctx, j); });
}

gp_status run_flip(gp_ctx *ctx, int e, const flip_job &j)
{
    return per_element_size(ctx, e, [&](auto E) { return launch_flip<decltype(E)::value>(ctx, j); });
}

/* ---------------------------------------------------------- the three paths */

/* The call's matrices, strides in bytes, before any flip. */
matrix_view view_of(const gp_transpose_args *a, int e)
{
    const gp_transpose_params &p = a->p;
    matrix_view m;
    m.in = static_cast<const char *>(a->in);
    m.out = static_cast<char *>(a->out);
    m.rows = p.rows;
    m.cols = p.cols;
    m.is = p.in_stride * e;
    m.os = p.out_stride * e;
    m.ibs = p.in_batch_stride * e;
    m.obs = p.out_batch_stride * e;
    return m;
}

/* The size class of an out-of-place tiled transpose of `bytes` (its input,
 * batch included; cuda_tuning.h), or the one GPUPRIM_TRANSPOSE_SIZE sets. */
int size_class(const context_state *st, long long bytes)
{
    if (st->transpose_size >= 0) return st->transpose_size;
    if (st->l2_bytes <= 0) return kSizeSmall; /* not reported: no hints, the usual tiles */
    if (bytes > kStreamToL2Mul * st->l2_bytes) return kSizeLarge;
    return bytes * kStreamFromL2Div >= st->l2_bytes ? kSizeMid : kSizeSmall;
}

gp_status transpose_tiled(gp_ctx *ctx, const gp_transpose_args *a, int e)
{
    const gp_transpose_params &p = a->p;
    tile_job j;
    static_cast<matrix_view &>(j) = view_of(a, e);
    if (p.flags & GP_TRANSPOSE_REVERSE_COLS) { /* read the input's rows last to first */
        j.in += (p.rows - 1) * j.is;
        j.is = -j.is;
    }
    if (p.flags & GP_TRANSPOSE_REVERSE_ROWS) { /* write the output's rows last to first */
        j.out += (a->out_rows - 1) * j.os;
        j.os = -j.os;
    }
    const bool in_place = a->in == a->out;
    j.tall = 0;
    const long long side = p.rows < p.cols ? p.rows : p.cols;
    const long long bytes = p.batch * p.rows * p.cols * e;
    if (!in_place && side <= kSkinnySide && bytes <= kSkinnyMaxBytes) {
        j.tall = p.cols <= p.rows;
        /* kTallRuns runs a thread where that still gives every SM a block,
         * else one (1000 x 16 would run on 8 SMs). */
        const long long most = kWarp * kTallRuns; /* rows a block takes at kTallRuns runs */
        j.runs = (p.rows + most - 1) / most * p.batch >= state(ctx)->sm_count ? kTallRuns : 1;
        const long long unit = kWarp * j.runs; /* rows a transpose_tall block takes */
        j.per_matrix = j.tall ? (p.rows + unit - 1) / unit : p.rows * p.cols;
        j.jobs = p.batch * j.per_matrix;
        return run_skinny(ctx, e, j);
    }
    if (!in_place && side <= kSkinnySide && e >= kNarrowMinElem) {
        narrow_job n;
        static_cast<matrix_view &>(n) = j; /* the flips included */
        n.tall = p.cols <= kSkinnySide;
        const long long k = (kNarrowChunkBytes / e) / side, along = n.tall ? p.rows : p.cols;
        n.tr = (int)(n.tall ? k : p.rows);
        n.tc = (int)(n.tall ? p.cols : k);
        n.chunks = (along + k - 1) / k;
        n.jobs = p.batch * n.chunks;
        return run_narrow(ctx, e, n);
    }
    unsigned long long bits = (uintptr_t)j.in | (uintptr_t)j.out | abs_bits(j.is) | abs_bits(j.os);
    if (p.batch > 1) bits |= (unsigned long long)(j.ibs | j.obs);
    const int v = pick_vec(e, bits);
    /* The jobs of tiles of side ts: tiles, or in place tile pairs. */
    auto size_jobs = [&](long long ts) {
        const long long tiles_r = (p.rows + ts - 1) / ts;
        j.tiles_c = (p.cols + ts - 1) / ts;
        j.per_matrix = in_place ? tiles_r * (tiles_r + 1) / 2 : tiles_r * j.tiles_c;
        j.jobs = p.batch * j.per_matrix;
    };
    const context_state *st = state(ctx);
    const int size = size_class(st, bytes);
    if (!in_place && e == 1 && v == 16 && p.rows % 16 == 0 && p.cols % 16 == 0) {
        size_jobs(kByteTileSide);
        const long long wave = (long long)kByteTileBlocksPerSM * st->sm_count;
        if (st->byte_tiles > 0 || (st->byte_tiles < 0 && j.jobs >= kByteTileMinWaves * wave))
            return launch_byte_tiles(ctx, j, size == kSizeMid);
    }
    if (in_place) {
        size_jobs(tile_side(e, v));
        return run_tiles<true>(ctx, e, v, tile_side(e, v), false, j);
    }
    const int ts = size == kSizeLarge ? tile_side_large(e, v) : tile_side(e, v);
    size_jobs(ts);
    return run_tiles<false>(ctx, e, v, ts, size == kSizeMid, j);
}

gp_status copy_flipped(gp_ctx *ctx, const gp_transpose_args *a, int e)
{
    const gp_transpose_params &p = a->p;
    copy_job j;
    static_cast<matrix_view &>(j) = view_of(a, e);
    j.rev_cols = (p.flags & GP_TRANSPOSE_REVERSE_COLS) != 0;
    if (p.flags & GP_TRANSPOSE_REVERSE_ROWS) {
        j.out += (p.rows - 1) * j.os;
        j.os = -j.os;
    }
    unsigned long long bits = (uintptr_t)j.in | (uintptr_t)j.out;
    if (p.rows > 1) bits |= abs_bits(j.is) | abs_bits(j.os);
    if (p.batch > 1) bits |= (unsigned long long)(j.ibs | j.obs);
    if (j.rev_cols) bits |= (unsigned long long)(p.cols * e); /* reversed vectors must be whole */
    const int v = pick_vec(e, bits), r = v / e;
    j.per_row = (p.cols + r - 1) / r;
    j.jobs = p.batch * p.rows * j.per_row;
    return run_copy(ctx, e, v, j);
}

gp_status flip_in_place_call(gp_ctx *ctx, const gp_transpose_args *a, int e)
{
    const gp_transpose_params &p = a->p;
    flip_job j;
    j.p = static_cast<char *>(a->out);
    j.rows = p.rows;
    j.cols = p.cols;
    j.s = p.in_stride * e;
    j.bs = p.in_batch_stride * e;
    j.rev_rows = (p.flags & GP_TRANSPOSE_REVERSE_ROWS) != 0;
    j.rev_cols = (p.flags & GP_TRANSPOSE_REVERSE_COLS) != 0;
    j.per_matrix = j.rev_rows ? (p.rows / 2) * p.cols + (p.rows % 2 && j.rev_cols ? p.cols / 2 : 0)
                              : p.rows * (p.cols / 2);
    j.jobs = p.batch * j.per_matrix;
    if (j.jobs == 0) return GP_STATUS_OK; /* a single row or column: nothing moves */
    return run_flip(ctx, e, j);
}

} // namespace

gp_status transpose(gp_ctx *ctx, const gp_transpose_args *a)
{
    const int e = (int)a->p.elem_size;
    device_scope scope;
    GP_CUDA_ENTER_DEVICE(ctx, scope);
    if (!(a->p.flags & GP_TRANSPOSE_NONE)) return transpose_tiled(ctx, a, e);
    if (a->in == a->out) return flip_in_place_call(ctx, a, e);
    return copy_flipped(ctx, a, e);
}

} // namespace gp_cuda
