/*
 * Building blocks of the CUDA transpose (cuda_transpose.cu): tile shapes,
 * the shared-memory swizzle, wide-word access, and the in-register
 * transposes that let 1- and 2-byte elements move as 4-, 8- and 16-byte
 * words.
 *
 * Vocabulary. E is the element size, V the width of every global access
 * (a "vector", V >= E, chosen from the alignment of pointers and strides)
 * and R = V / E the elements in one. A thread loads an R x R block of
 * elements as R row vectors, transposes it in registers into R "pieces"
 * (each R elements of one output row, V bytes), and the pieces cross
 * shared memory, V bytes at a time, to the threads that store output rows.
 */
#ifndef GP_CUDA_TRANSPOSE_CUH
#define GP_CUDA_TRANSPOSE_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "cuda_tuning.h" /* tile_side, tile_threads, tile_min_blocks, kFlatThreads */

namespace gp_cuda {
namespace tp {

/* ------------------------------------------------------ vector types */

template <int V> struct vec;
template <> struct vec<1> { using type = uint8_t; };
template <> struct vec<2> { using type = uint16_t; };
template <> struct vec<4> { using type = uint32_t; };
template <> struct vec<8> { using type = uint2; };
template <> struct vec<16> { using type = uint4; };
template <int V> using vec_t = typename vec<V>::type;

/* 32-bit words in a V-byte vector (a narrower vector sits in one word). */
__host__ __device__ constexpr int words(int v) { return v >= 4 ? v / 4 : 1; }

template <int V>
__device__ __forceinline__ void to_words(const vec_t<V> &x, uint32_t (&w)[words(V)])
{
    if constexpr (V == 16) {
        w[0] = x.x, w[1] = x.y, w[2] = x.z, w[3] = x.w;
    } else if constexpr (V == 8) {
        w[0] = x.x, w[1] = x.y;
    } else {
        w[0] = x;
    }
}

template <int V>
__device__ __forceinline__ vec_t<V> from_words(const uint32_t (&w)[words(V)])
{
    if constexpr (V == 16) {
        return make_uint4(w[0], w[1], w[2], w[3]);
    } else if constexpr (V == 8) {
        return make_uint2(w[0], w[1]);
    } else {
        return static_cast<vec_t<V>>(w[0]);
    }
}

/* One V-byte global load; NC: through the read-only path (data that the
 * kernel never writes); STREAM: evict-first in L1 and L2 (ld.global.cs), for
 * matrices of the mid size class (cuda_tuning.h). */
template <int V, bool NC, bool STREAM = false>
__device__ __forceinline__ vec_t<V> load(const char *p)
{
    const vec_t<V> *q = reinterpret_cast<const vec_t<V> *>(p);
    if constexpr (STREAM) return __ldcs(q);
    else if constexpr (NC) return __ldg(q);
    else return *q;
}

/* One V-byte global store; STREAM: evict-first (st.global.cs). */
template <int V, bool STREAM = false>
__device__ __forceinline__ void store(char *p, const vec_t<V> &x)
{
    vec_t<V> *q = reinterpret_cast<vec_t<V> *>(p);
    if constexpr (STREAM) __stcs(q, x);
    else *q = x;
}

/* Elements [0, n) of a vector, one E-byte access each: the partial vector
 * at the end of a row whose length is not a multiple of R (padded
 * strides only). The rest of the vector is zero. */
template <int E, int V, bool NC>
__device__ __forceinline__ vec_t<V> load_partial(const char *p, int n)
{
    union {
        vec_t<V> v;
        vec_t<E> e[V / E];
    } u;
    u.v = vec_t<V>();
#pragma unroll
    for (int j = 0; j < V / E; j++)
        if (j < n) u.e[j] = load<E, NC>(p + j * E);
    return u.v;
}

template <int E, int V>
__device__ __forceinline__ void store_partial(char *p, const vec_t<V> &x, int n)
{
    union {
        vec_t<V> v;
        vec_t<E> e[V / E];
    } u;
    u.v = x;
#pragma unroll
    for (int j = 0; j < V / E; j++)
        if (j < n) store<E>(p + j * E, u.e[j]);
}

/* ---------------------------------------------- in-register transposes */

/*
 * in[k] holds row k of an R x R block (R = V / E elements of E bytes, as
 * W = words(V) words); out[j] receives column j, i.e. element k of out[j]
 * is element j of in[k]. For E >= 4 words only move (no instructions);
 * 2-byte elements take one byte permute per output word, 1-byte elements
 * two, in 4 x 4-byte sub-blocks (PRMT).
 */
template <int E, int V>
__device__ __forceinline__ void transpose_block(const uint32_t (&in)[V / E][words(V)],
                                                uint32_t (&out)[V / E][words(V)])
{
    constexpr int R = V / E, W = words(V);
    if constexpr (R == 1) {
        out[0][0] = in[0][0];
        if constexpr (W > 1) {
#pragma unroll
            for (int w = 1; w < W; w++) out[0][w] = in[0][w];
        }
    } else if constexpr (E == 1) {
        /* Rows 4g..4g+3, source word s: a 4 x 4-byte sub-block whose
         * transpose gives word g of pieces 4s..4s+3. */
#pragma unroll
        for (int g = 0; g < W; g++)
#pragma unroll
            for (int s = 0; s < W; s++) {
                const uint32_t a = in[4 * g][s], b = in[4 * g + 1][s], c = in[4 * g + 2][s], d = in[4 * g + 3][s];
                const uint32_t ab_lo = __byte_perm(a, b, 0x5140), ab_hi = __byte_perm(a, b, 0x7362);
                const uint32_t cd_lo = __byte_perm(c, d, 0x5140), cd_hi = __byte_perm(c, d, 0x7362);
                out[4 * s + 0][g] = __byte_perm(ab_lo, cd_lo, 0x5410);
                out[4 * s + 1][g] = __byte_perm(ab_lo, cd_lo, 0x7632);
                out[4 * s + 2][g] = __byte_perm(ab_hi, cd_hi, 0x5410);
                out[4 * s + 3][g] = __byte_perm(ab_hi, cd_hi, 0x7632);
            }
    } else if constexpr (E == 2) {
        /* Rows 2g, 2g+1, source word s: a 2 x 2 block of halves. */
#pragma unroll
        for (int g = 0; g < W; g++)
#pragma unroll
            for (int s = 0; s < W; s++) {
                const uint32_t a = in[2 * g][s], b = in[2 * g + 1][s];
                out[2 * s][g] = __byte_perm(a, b, 0x5410);
                out[2 * s + 1][g] = __byte_perm(a, b, 0x7632);
            }
    } else {
        /* Word w of piece j is word (j * E + 4w % E) / 4 of row 4w / E. */
#pragma unroll
        for (int j = 0; j < R; j++)
#pragma unroll
            for (int w = 0; w < W; w++) out[j][w] = in[(4 * w) / E][(j * E + (4 * w) % E) / 4];
    }
}

/* The R elements of a vector in reverse order (for flipped rows). */
template <int E, int V>
__device__ __forceinline__ void reverse_elements(uint32_t (&w)[words(V)])
{
    constexpr int W = words(V);
    if constexpr (V / E > 1) {
        uint32_t r[W];
#pragma unroll
        for (int i = 0; i < W; i++) {
            const uint32_t x = w[W - 1 - i];
            r[i] = E == 1 ? __byte_perm(x, 0, 0x0123) : E == 2 ? __byte_perm(x, 0, 0x1032) : x;
        }
        if constexpr (E >= 8) { /* whole words moved; restore the word order inside each element */
#pragma unroll
            for (int i = 0; i < W; i += E / 4)
#pragma unroll
                for (int k = 0; k < E / 8; k++) {
                    const uint32_t t = r[i + k];
                    r[i + k] = r[i + E / 4 - 1 - k];
                    r[i + E / 4 - 1 - k] = t;
                }
        }
#pragma unroll
        for (int i = 0; i < W; i++) w[i] = r[i];
    }
}

/* ------------------------------------------------------ shared layout */

/*
 * The tile in shared memory: TS x (TS / R) pieces of V bytes, piece (c, b)
 * being output row c of the tile, b-th piece along it (logical index
 * L = c * BR + b, BR = TS / R). Stores read consecutive L, so they are
 * conflict-free as long as the swizzle only permutes aligned groups of G
 * pieces, G = the pieces in 128 bytes (one wavefront). Loads write, per
 * instruction, the pieces of R consecutive block columns bc that land on
 * the same b; without a swizzle these sit BR * R pieces apart, in one bank.
 * XORing L with (c / R) * S mod G (c / R is bc) spreads them over every
 * bank: S = 1 when a wavefront's lanes all have distinct bc, G / BC when
 * they span several block rows, and 4 / V for 1- and 2-byte pieces, which
 * share 4-byte banks. swizzle_conflict_free() below checks it for every
 * instruction of a tile; cuda_transpose.cu asserts it at compile time for
 * every (E, V) it builds.
 */
template <int E, int V, int TS>
__host__ __device__ constexpr int swizzle(int c, int b)
{
    constexpr int R = V / E, BR = TS / R, BC = TS / R, G = 128 / V;
    constexpr int S = V < 4 ? 4 / V : (G / BC > 1 ? G / BC : 1);
    return (c * BR + b) ^ (((c / R) * S) & (G - 1));
}

/*
 * The bank model of the comment above, evaluated by the compiler: true when
 * every wavefront of both phases touches each bank through at most one
 * 4-byte word (lanes reading the same word share it). A wavefront is 128
 * bytes: 8 lanes of 16-byte accesses, 16 of 8-byte ones, the whole warp for
 * 4 bytes and less. Every instruction of every warp of a tile is checked.
 */
template <int V>
__host__ __device__ constexpr bool wavefront_ok(const int (&unit)[32], int first, int lanes)
{
    int word_in_bank[32] = {};
    for (int b = 0; b < 32; b++) word_in_bank[b] = -1;
    for (int l = first; l < first + lanes; l++) {
        const int lo = unit[l] * V / 4, hi = (unit[l] * V + (V < 4 ? 1 : V) - 1) / 4;
        for (int w = lo; w <= hi; w++) {
            if (word_in_bank[w % 32] >= 0 && word_in_bank[w % 32] != w) return false;
            word_in_bank[w % 32] = w;
        }
    }
    return true;
}

template <int E, int V, int TS>
__host__ __device__ constexpr bool swizzle_conflict_free()
{
    constexpr int R = V / E, BR = TS / R, BC = BR, T = tile_threads(E, V, TS);
    constexpr int U = tile_blocks(E, V, TS) / T, P = TS * BR / T, lanes = V >= 4 ? 128 / V : 32;
    int unit[32] = {};
    for (int w = 0; w < T; w += 32) {
        for (int u = 0; u < U; u++) /* loads: piece j of block q = t + u T */
            for (int j = 0; j < R; j++) {
                for (int l = 0; l < 32; l++) {
                    const int q = w + l + u * T;
                    unit[l] = swizzle<E, V, TS>(q % BC * R + j, q / BC);
                }
                for (int f = 0; f < 32; f += lanes)
                    if (!wavefront_ok<V>(unit, f, lanes)) return false;
            }
        for (int k = 0; k < P; k++) { /* stores: piece L = t + k T */
            for (int l = 0; l < 32; l++) {
                const int L = w + l + k * T;
                unit[l] = swizzle<E, V, TS>(L / BR, L % BR);
            }
            for (int f = 0; f < 32; f += lanes)
                if (!wavefront_ok<V>(unit, f, lanes)) return false;
        }
    }
    return true;
}

} // namespace tp
} // namespace gp_cuda

#endif
