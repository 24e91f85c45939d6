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
 * Top to bottom: jobs, block helpers and kernels (cuda_transpose_kernels.cuh),
 * kernel choice, host entry.
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

} // namespace
} // namespace gp_cuda

#include "cuda_transpose_kernels.cuh"

namespace gp_cuda {
namespace {

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
