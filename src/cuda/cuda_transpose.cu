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
 * Flips without a transpose (GP_TRANSPOSE_NONE) are a flat row copy, each
 * vector's elements reversed in registers when the columns are; in place,
 * element pairs swap.
 *
 * Top to bottom: jobs, block helpers, kernels, kernel choice, host entry.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>

#include "cuda_backend.h"
#include "cuda_common.cuh"
#include "cuda_transpose.cuh"

namespace gp_cuda {
namespace {

using namespace tp;

/* --------------------------------------------------------------- jobs */

/* A tiled transpose: out[j][i] = in[i][j] with signed byte strides. */
struct tile_job {
    const char *in;
    char *out;
    long long rows, cols;       /* of each input matrix */
    long long is, os;           /* row strides, bytes, negative for a flip */
    long long ibs, obs;         /* batch strides, bytes */
    long long tiles_c;          /* tiles across the input's columns */
    long long per_matrix, jobs; /* tiles (in place: tile pairs) per matrix and in all */
};

/* A NONE copy: out row r = in row r, its elements reversed when rev_cols. */
struct copy_job {
    const char *in;
    char *out;
    long long rows, cols, is, os, ibs, obs; /* os negative when the rows are reversed */
    long long per_row, jobs;                /* vectors per row, and in all */
    int rev_cols;
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
template <int E, int V, bool NC>
__device__ __forceinline__ void load_tile(const char *base, long long is, int vrows, int vcols, vec_t<V> *sm)
{
    constexpr int R = V / E, W = words(V), BC = tile_side(E, V) / R, T = tile_threads(E, V);
    constexpr int U = tile_blocks(E, V) / T;
    static_assert(U * T == tile_blocks(E, V), "a whole number of blocks per thread");
#pragma unroll
    for (int u = 0; u < U; u++) {
        const int q = threadIdx.x + u * T, br = q / BC, bc = q % BC, col = bc * R;
        uint32_t v[R][W], o[R][W];
        const char *p = base + br * R * is + col * E; /* stepped by is: one live address */
#pragma unroll
        for (int k = 0; k < R; k++, p += is) {
            vec_t<V> x = vec_t<V>();
            if (br * R + k < vrows && col < vcols) x = load<V, NC>(p);
            to_words<V>(x, v[k]);
        }
        transpose_block<E, V>(v, o);
#pragma unroll
        for (int j = 0; j < R; j++) sm[swizzle<E, V>(col + j, br)] = from_words<V>(o[j]);
    }
}

/* Stores the tile's pieces to `base` (valid: vrows x vcols output
 * elements, vcols a multiple of R): consecutive threads take consecutive
 * pieces of a row. */
template <int E, int V>
__device__ __forceinline__ void store_tile(const vec_t<V> *sm, char *base, long long os, int vrows, int vcols)
{
    constexpr int R = V / E, BR = tile_side(E, V) / R, T = tile_threads(E, V);
    constexpr int P = tile_side(E, V) * BR / T;
#pragma unroll
    for (int k = 0; k < P; k++) {
        const int L = threadIdx.x + k * T, c = L / BR, b = L % BR, col = b * R;
        if (c < vrows && col < vcols) store<V>(base + c * os + col * E, sm[swizzle<E, V>(c, b)]);
    }
}

/*
 * The same two steps one element at a time, for an edge tile whose rows or
 * columns stop inside a vector (rows shorter than their padded stride).
 * Same shared layout: element (row, col) of the tile is element row % R of
 * piece (col, row / R). Rare, so kept small rather than fast.
 */
template <int E, int V, bool NC>
__device__ __forceinline__ void load_tile_elems(const char *base, long long is, int vrows, int vcols, vec_t<V> *sm)
{
    constexpr int R = V / E, TS = tile_side(E, V);
    char *s = reinterpret_cast<char *>(sm);
#pragma unroll 1
    for (int i = threadIdx.x; i < TS * TS; i += tile_threads(E, V)) {
        const int row = i / TS, col = i % TS;
        vec_t<E> x = vec_t<E>();
        if (row < vrows && col < vcols) x = load<E, NC>(base + row * is + col * E);
        store<E>(s + swizzle<E, V>(col, row / R) * V + row % R * E, x);
    }
}

template <int E, int V>
__device__ __forceinline__ void store_tile_elems(const vec_t<V> *sm, char *base, long long os, int vrows, int vcols)
{
    constexpr int R = V / E, TS = tile_side(E, V);
    const char *s = reinterpret_cast<const char *>(sm);
#pragma unroll 1
    for (int i = threadIdx.x; i < TS * TS; i += tile_threads(E, V)) {
        const int c = i / TS, col = i % TS;
        if (c < vrows && col < vcols)
            store<E>(base + c * os + col * E,
                     *reinterpret_cast<const vec_t<E> *>(s + swizzle<E, V>(c, col / R) * V + col % R * E));
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

template <int E, int V, bool PAIR>
__global__ void __launch_bounds__(tile_threads(E, V), tile_min_blocks(E, V)) transpose_tiles(const tile_job j)
{
    constexpr int R = V / E, TS = tile_side(E, V), UNITS = TS * (TS / R);
    __shared__ vec_t<V> sm[PAIR ? 2 * UNITS : UNITS];
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
            if (whole) load_tile<E, V, !PAIR>(src, j.is, rows, cols, sm + h * UNITS);
            else load_tile_elems<E, V, !PAIR>(src, j.is, rows, cols, sm + h * UNITS);
        }
        __syncthreads();
#pragma unroll 1
        for (int h = 0; h < tiles; h++) {
            char *dst = h ? out + r0 * j.os + c0 * E : out + c0 * j.os + r0 * E;
            const int rows = h ? vr : vc, cols = h ? vc : vr;
            if (whole) store_tile<E, V>(sm + h * UNITS, dst, j.os, rows, cols);
            else store_tile_elems<E, V>(sm + h * UNITS, dst, j.os, rows, cols);
        }
        __syncthreads(); /* the next tile reuses sm */
    }
}

/*
 * A skinny matrix (one side at most kSkinnySide, all of it small enough to
 * stay in L2): a tile would keep most of its lanes idle and add a second
 * memory round trip through shared memory. Instead each thread moves one
 * element, consecutive threads writing consecutive elements of an output
 * row; the input lines a warp touches are read again by the warps for the
 * neighbouring output rows, from L2. Output row c is input column c.
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

/* The compiler proves every variant's shared layout free of bank conflicts. */
#define GP_TP_CONFLICT_FREE(E, V) \
    static_assert(swizzle_conflict_free<E, V>(), "bank conflicts in the transpose tile <" #E ", " #V ">");
GP_TP_VARIANTS(GP_TP_CONFLICT_FREE)
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

template <int E, int V, bool PAIR>
gp_status launch_tiles(gp_ctx *ctx, tile_job j)
{
#ifdef GPUPRIM_DEBUG_LAUNCH
    char what[128];
    snprintf(what, sizeof what, "transpose_tiles<%d, %d, %s> (%lld x %lld, %lld jobs)", E, V,
             PAIR ? "in place" : "out of place", j.rows, j.cols, j.jobs);
#else
    const char *what = "transpose_tiles";
#endif
    void *args[] = {&j};
    GP_CUDA_LAUNCH(ctx, (transpose_tiles<E, V, PAIR>), what, grid_for(j.jobs), (unsigned)tile_threads(E, V), args);
    return GP_STATUS_OK;
}

template <int E>
gp_status launch_skinny(gp_ctx *ctx, tile_job j)
{
    void *args[] = {&j};
    GP_CUDA_LAUNCH(ctx, transpose_skinny<E>, "transpose_skinny", grid_for((j.jobs + kFlatThreads - 1) / kFlatThreads),
                   (unsigned)kFlatThreads, args);
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

template <bool PAIR>
gp_status run_tiles(gp_ctx *ctx, int e, int v, const tile_job &j)
{
    switch (e * 100 + v) {
#define GP_TP_CASE(E, V) \
    case E * 100 + V: return launch_tiles<E, V, PAIR>(ctx, j);
        GP_TP_VARIANTS(GP_TP_CASE)
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

gp_status run_skinny(gp_ctx *ctx, int e, const tile_job &j)
{
    switch (e) {
    case 1: return launch_skinny<1>(ctx, j);
    case 2: return launch_skinny<2>(ctx, j);
    case 4: return launch_skinny<4>(ctx, j);
    case 8: return launch_skinny<8>(ctx, j);
    case 16: return launch_skinny<16>(ctx, j);
    }
    return no_kernel(ctx, e, e);
}

gp_status run_flip(gp_ctx *ctx, int e, const flip_job &j)
{
    switch (e) {
    case 1: return launch_flip<1>(ctx, j);
    case 2: return launch_flip<2>(ctx, j);
    case 4: return launch_flip<4>(ctx, j);
    case 8: return launch_flip<8>(ctx, j);
    case 16: return launch_flip<16>(ctx, j);
    }
    return no_kernel(ctx, e, e);
}

/* ---------------------------------------------------------- the three paths */

gp_status transpose_tiled(gp_ctx *ctx, const gp_transpose_args *a, int e)
{
    const gp_transpose_params &p = a->p;
    tile_job j;
    j.in = static_cast<const char *>(a->in);
    j.out = static_cast<char *>(a->out);
    j.rows = p.rows;
    j.cols = p.cols;
    j.is = p.in_stride * e;
    j.os = p.out_stride * e;
    j.ibs = p.in_batch_stride * e;
    j.obs = p.out_batch_stride * e;
    if (p.flags & GP_TRANSPOSE_REVERSE_COLS) { /* read the input's rows last to first */
        j.in += (p.rows - 1) * j.is;
        j.is = -j.is;
    }
    if (p.flags & GP_TRANSPOSE_REVERSE_ROWS) { /* write the output's rows last to first */
        j.out += (a->out_rows - 1) * j.os;
        j.os = -j.os;
    }
    const bool in_place = a->in == a->out;
    const long long side = p.rows < p.cols ? p.rows : p.cols;
    if (!in_place && side <= kSkinnySide && p.batch * p.rows * p.cols * e <= kSkinnyMaxBytes) {
        j.per_matrix = p.rows * p.cols;
        j.jobs = p.batch * j.per_matrix;
        return run_skinny(ctx, e, j);
    }
    unsigned long long bits = (uintptr_t)j.in | (uintptr_t)j.out | abs_bits(j.is) | abs_bits(j.os);
    if (p.batch > 1) bits |= (unsigned long long)(j.ibs | j.obs);
    const int v = pick_vec(e, bits);
    const long long ts = tile_side(e, v), tiles_r = (p.rows + ts - 1) / ts;
    j.tiles_c = (p.cols + ts - 1) / ts;
    j.per_matrix = in_place ? tiles_r * (tiles_r + 1) / 2 : tiles_r * j.tiles_c;
    j.jobs = p.batch * j.per_matrix;
    return in_place ? run_tiles<true>(ctx, e, v, j) : run_tiles<false>(ctx, e, v, j);
}

gp_status copy_flipped(gp_ctx *ctx, const gp_transpose_args *a, int e)
{
    const gp_transpose_params &p = a->p;
    copy_job j;
    j.in = static_cast<const char *>(a->in);
    j.out = static_cast<char *>(a->out);
    j.rows = p.rows;
    j.cols = p.cols;
    j.is = p.in_stride * e;
    j.os = p.out_stride * e;
    j.ibs = p.in_batch_stride * e;
    j.obs = p.out_batch_stride * e;
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
