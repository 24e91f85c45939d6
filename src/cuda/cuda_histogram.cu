/*
 * CUDA counting and histograms.
 *
 * Count: a persistent grid reads 16-byte vectors, each thread counts in a
 * register, each block reduces its count, and the blocks combine theirs on
 * a ticket in the context's control block (below 2^32 the counts ride on
 * the ticket's word; past it the last block adds the blocks' partials) and
 * the last one writes the 64-bit count: one launch, no memset, no
 * contended atomic (cuda_block_count.cuh).
 *
 * Histograms, three kernels:
 * - 8-bit inputs (hist_bytes_kernel) count raw byte values, 256 rows of 32
 *   lane columns in shared memory: lane l always adds to column l, so a
 *   warp's 32 atomics hit 32 different banks whatever the data (one bin or
 *   uniform costs the same), and no element needs any arithmetic. A flush
 *   maps each value to its bin once and adds the row into the histogram.
 * - Other inputs with bins that fit in shared memory (hist_shared_kernel)
 *   compute each element's bin and add it to a block-private copy: bins x C
 *   32-bit counters, lane l using column l % C, C = 32 down to 1 as the bins
 *   grow (cuda_histogram.cuh). With C < 8, lanes first group equal bins
 *   with __match_any_sync and one lane adds the group's size.
 * - Too many bins for shared memory (hist_global_kernel): the same warp
 *   grouping, then one 64-bit atomic per distinct bin per warp straight
 *   into the histogram.
 * Shared counters are 32-bit and flushed (added to the 64-bit histogram with
 * one atomic per non-zero row, then cleared) every kHistRoundElems elements
 * of a block, so none can wrap. Non-accumulate mode needs the histogram zero
 * before the first flush: a one-block launch zeroes it itself; several
 * blocks pass a gate, and the one that arrives first clears it while the
 * others count (clear_hist); the global kernel, and more than
 * kHistClearInKernelBins bins, take a cudaMemsetAsync first.
 *
 * Even bins: the header's formula, floor((x - lower) / (upper - lower) *
 * bins) in double, with __dsub_rn/__ddiv_rn/__dmul_rn so that nothing is
 * contracted into an FMA, behind an estimate that is provably equal where
 * it is used (even_bin); the CPU backend and the serial reference compute
 * the same, so the three agree exactly. Edges: bisection in the input dtype.
 *
 * The file reads bottom-up, as C++ wants definitions before use: device
 * helpers, kernels, then the host dispatch and the entry points.
 */
#include <algorithm>
#include <atomic>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <type_traits>

#include "cuda_backend.h"
#include "cuda_block_count.cuh"
#include "cuda_common.cuh"
#include "cuda_grid_dependency.cuh"
#include "cuda_histogram.cuh"
#include "cuda_memory_order.cuh"
#include "cuda_tuning.h"

namespace gp_cuda {
namespace {

constexpr unsigned kFull = 0xffffffffu;

/* The block's dynamic shared memory (tests/emu_hist runs these kernels on
 * the CPU, where it is a per-block host buffer). */
#ifdef GP_CUDA_EMULATE
#define GP_DYNAMIC_SMEM(name) unsigned char *name = gp_emu_dynamic_smem()
#else
#define GP_DYNAMIC_SMEM(name) extern __shared__ __align__(16) unsigned char name[]
#endif

/* ------------------------------------------------------------ input layout */

/* One 16-byte vector of T. */
template <class T>
union vec16 {
    uint4 raw;
    T e[16 / sizeof(T)];
};

/* The input as `head` elements up to its first 16-byte boundary, `nvec`
 * whole vectors, then `tail` elements. head + tail < 32: one warp takes them. */
struct layout {
    long long head, nvec, tail;
};

/* Index of the j-th head-or-tail element, 0 <= j < head + tail. */
template <class T>
__device__ __forceinline__ long long edge_index(const layout &L, long long j)
{
    return j < L.head ? j : L.head + L.nvec * (long long)(16 / sizeof(T)) + (j - L.head);
}

/* ------------------------------------------------------------------ count */

template <int Cmp>
struct cmp_fn;
template <>
struct cmp_fn<GP_CMP_LT> {
    template <class T> __device__ static bool f(T x, T v) { return x < v; }
};
template <>
struct cmp_fn<GP_CMP_LE> {
    template <class T> __device__ static bool f(T x, T v) { return x <= v; }
};
template <>
struct cmp_fn<GP_CMP_GT> {
    template <class T> __device__ static bool f(T x, T v) { return x > v; }
};
template <>
struct cmp_fn<GP_CMP_GE> {
    template <class T> __device__ static bool f(T x, T v) { return x >= v; }
};
template <>
struct cmp_fn<GP_CMP_EQ> {
    template <class T> __device__ static bool f(T x, T v) { return x == v; }
};
template <>
struct cmp_fn<GP_CMP_NE> {
    template <class T> __device__ static bool f(T x, T v) { return x != v; }
};

/*
 * 1- and 2-byte integers compare a whole 32-bit word at once with the SIMD
 * intrinsics: each lane that passes comes back with all its bits set, so a
 * word adds popc(mask) = 8 x sizeof(T) per passing lane. Per 16 bytes that
 * is 4 compares and 4 popcounts instead of 16 (8) extracts, compares and adds:
 * per-element work is what kept the byte count at 89-92% of the read ceiling
 * while 4-byte inputs reached 98% (docs/perf/histogram.md).
 */
template <class T>
constexpr bool kSimdCount = std::is_integral_v<T> && sizeof(T) <= 2;

template <class T, int Cmp>
__device__ __forceinline__ unsigned simd_mask(unsigned w, unsigned v)
{
    constexpr bool s = std::is_signed_v<T>;
    if constexpr (sizeof(T) == 1) {
        if constexpr (Cmp == GP_CMP_LT) return s ? __vcmplts4(w, v) : __vcmpltu4(w, v);
        else if constexpr (Cmp == GP_CMP_LE) return s ? __vcmples4(w, v) : __vcmpleu4(w, v);
        else if constexpr (Cmp == GP_CMP_GT) return s ? __vcmpgts4(w, v) : __vcmpgtu4(w, v);
        else if constexpr (Cmp == GP_CMP_GE) return s ? __vcmpges4(w, v) : __vcmpgeu4(w, v);
        else if constexpr (Cmp == GP_CMP_EQ) return __vcmpeq4(w, v);
        else return __vcmpne4(w, v);
    } else {
        if constexpr (Cmp == GP_CMP_LT) return s ? __vcmplts2(w, v) : __vcmpltu2(w, v);
        else if constexpr (Cmp == GP_CMP_LE) return s ? __vcmples2(w, v) : __vcmpleu2(w, v);
        else if constexpr (Cmp == GP_CMP_GT) return s ? __vcmpgts2(w, v) : __vcmpgtu2(w, v);
        else if constexpr (Cmp == GP_CMP_GE) return s ? __vcmpges2(w, v) : __vcmpgeu2(w, v);
        else if constexpr (Cmp == GP_CMP_EQ) return __vcmpeq2(w, v);
        else return __vcmpne2(w, v);
    }
}

/* The value in every lane of a word. */
template <class T>
__device__ __forceinline__ unsigned simd_splat(T value)
{
    using U = std::make_unsigned_t<T>;
    return (unsigned)(U)value * (sizeof(T) == 1 ? 0x01010101u : 0x00010001u);
}

/* Set bits of the four words' masks: 8 x sizeof(T) per passing element. */
template <class T, int Cmp>
__device__ __forceinline__ unsigned simd_count_bits(const uint4 &w, unsigned splat)
{
    return __popc(simd_mask<T, Cmp>(w.x, splat)) + __popc(simd_mask<T, Cmp>(w.y, splat)) +
           __popc(simd_mask<T, Cmp>(w.z, splat)) + __popc(simd_mask<T, Cmp>(w.w, splat));
}

/* Counts (x cmp value) into *out, the blocks' counts combined in the
 * same launch (finish_block_count). */
template <class T, int Cmp>
__global__ void __launch_bounds__(kCountThreads)
    count_kernel(const T *in, layout L, T value, unsigned long long *partials, unsigned *ticket, long long *out,
                 bool packed)
{
    /* A partition counted first may start its grid now (cuda_select.cu);
     * a launch after this one in stream order ignores it. */
    if (GP_COUNT_FIRST_OVERLAP) grid_dependency::let_dependents_start();
    constexpr int kPer = 16 / sizeof(T);
    constexpr long long kTile = (long long)kCountThreads * kCountUnroll;
    const uint4 *body = reinterpret_cast<const uint4 *>(in + L.head);
    unsigned long long c = 0;
    for (long long base = blockIdx.x * kTile; base < L.nvec; base += (long long)gridDim.x * kTile) {
        const bool full = base + kTile <= L.nvec;
        vec16<T> v[kCountUnroll];
#pragma unroll
        for (int u = 0; u < kCountUnroll; u++) {
            long long i = base + u * kCountThreads + threadIdx.x;
            if (full || i < L.nvec) v[u].raw = load_stream<0>(body + i);
        }
        unsigned tc = 0; /* at most kCountUnroll * 128 (bits, SIMD) or kCountUnroll * 16 */
#pragma unroll
        for (int u = 0; u < kCountUnroll; u++) {
            long long i = base + u * kCountThreads + threadIdx.x;
            if (full || i < L.nvec) {
                if constexpr (kSimdCount<T>) {
                    tc += simd_count_bits<T, Cmp>(v[u].raw, simd_splat(value));
                } else {
#pragma unroll
                    for (int k = 0; k < kPer; k++) tc += cmp_fn<Cmp>::f(v[u].e[k], value);
                }
            }
        }
        c += kSimdCount<T> ? tc / (8 * sizeof(T)) : tc;
    }
    if (blockIdx.x == 0 && threadIdx.x < L.head + L.tail)
        c += cmp_fn<Cmp>::f(in[edge_index<T>(L, threadIdx.x)], value);

    finish_block_count<kCountThreads>(c, partials, ticket, out, packed);
}

/* ------------------------------------------------------------- bin formulas */

struct even_params {
    double lower, upper, width, scale, fbins; /* width = upper - lower, scale = bins / width */
    int bins;
};

/* Who zeroes the histogram before the blocks add to it. */
enum hist_clear : int {
    kClearNone,  /* accumulate mode, or a memset went first */
    kClearOwn,   /* a one-block launch: the block itself */
    kClearFirst, /* the block that arrives first; the others wait for it before their first flush */
};

/* What a flush or a launch needs besides the input. */
struct hist_params {
    layout L;
    unsigned long long *hist;
    int bins;
    even_params even;
    const void *edges; /* NULL for even bins */
    int clear;         /* a hist_clear */
    unsigned long long *gate; /* kClearFirst's word in the control block */
};

/*
 * The bin of x by the header's formula, or -1 outside [lower, upper) and
 * for NaN. The estimate a = (x - lower) * (bins / width) is within 2^-30 of
 * the formula's value before the floor (each is within 2 ulp of the real
 * quotient, and both are below 2^20), so where a is more than 2^-26 from
 * every integer both floors agree and the division is skipped. Near an
 * integer, for tiny or non-finite a, the formula itself decides. The full
 * argument is in cpu_histogram.c, which does the same.
 */
__device__ __forceinline__ int even_bin(double x, const even_params &p)
{
    constexpr double kEps = 0x1p-26;
    if (!(x >= p.lower && x < p.upper)) return -1;
    const double d = __dsub_rn(x, p.lower);
    const double a = __dmul_rn(d, p.scale);
    if (a >= 0.0 && a < p.fbins) { /* false for NaN */
        const int k = __double2int_rz(a);
        const double fr = __dsub_rn(a, (double)k); /* exact */
        if (fr > kEps && fr < 1.0 - kEps) return k;
    }
    const int k = __double2int_rz(__dmul_rn(__ddiv_rn(d, p.width), p.fbins)); /* >= 0: d <= width */
    return k < p.bins ? k : p.bins - 1;
}

/* The b with e[b] <= x < e[b+1], or -1 outside [e[0], e[bins]) and for
 * NaN, compared in T. Every lane runs ceil(log2(bins)) steps: the range
 * [lo, lo + len) keeps the answer and halves each time. */
template <class T>
__device__ __forceinline__ int edge_bin(T x, const T *e, int bins)
{
    if (!(e[0] <= x && x < e[bins])) return -1;
    int lo = 0, len = bins;
    while (len > 1) {
        const int half = len >> 1;
        lo = e[lo + half] <= x ? lo + half : lo;
        len -= half;
    }
    return lo;
}

template <class T, bool Edges>
__device__ __forceinline__ int bin_of(T x, const hist_params &p, const T *e)
{
    if constexpr (Edges) return edge_bin<T>(x, e, p.bins);
    else return even_bin((double)x, p.even); /* integers: round to nearest, as C */
}

/* --------------------------------------------------- shared-memory helpers */

/* The shared kernel's copy of the edges, rounded up to 16 bytes. */
template <class T, bool Edges>
__host__ __device__ __forceinline__ size_t edge_bytes(int64_t bins)
{
    return Edges ? ((size_t)(bins + 1) * sizeof(T) + 15) / 16 * 16 : 0;
}

/* Every thread of the block: zeroes the histogram's bins. */
__device__ __forceinline__ void zero_hist(const hist_params &p)
{
    for (int i = threadIdx.x; i < p.bins; i += blockDim.x) p.hist[i] = 0;
}

/* Clears `words` counters and, for a one-block launch, the histogram. The
 * caller synchronises before the counters are used. */
__device__ __forceinline__ void block_clear(unsigned *cnt, int words, const hist_params &p)
{
    for (int i = threadIdx.x; i < words; i += blockDim.x) cnt[i] = 0;
    if (p.clear == kClearOwn) zero_hist(p);
}

/*
 * kClearFirst: several blocks, the histogram cleared in the launch, not by
 * a memset before it (one more operation on the stream). The gate is a
 * word of its own in the control block, epoch << 33 | clear << 32 |
 * arrivals, with clear and arrivals 0 between launches. Each block takes
 * an arrival. The first clears the histogram and sets the clear bit; the
 * others wait for it only before their first flush, so the clear overlaps
 * their loads and counts. The first to arrive is running, so no block waits
 * on one that has not started, resident or not. The last to arrive, once
 * it has seen the bit, starts the next epoch with clear and arrivals 0:
 * a block still waiting takes the new epoch for the bit (the release and
 * acquire carry the zeros along), and no block pays an atomic at its end.
 */
constexpr unsigned long long kGateClear = 1ull << 32;
constexpr int kGateEpochShift = 33;

/* What thread 0 drew at the gate, kept in shared memory: in registers,
 * live across the 1-byte kernel's loop (32 registers), it cost histogram
 * u8 at 2^26 32 -> 42 us (H100). */
struct gate_ticket {
    unsigned long long epoch;
    unsigned clears; /* this block clears the histogram */
    unsigned char last, passed;
};

/* Thread 0, first thing. The caller synchronises before `t` is read. */
__device__ __forceinline__ void arrive(const hist_params &p, gate_ticket *t)
{
    if (threadIdx.x != 0) return;
    unsigned long long w = 1; /* no gate: as if arrived second and passed */
    if (p.clear == kClearFirst) w = atomicAdd(p.gate, 1ull);
    t->epoch = w >> kGateEpochShift;
    t->clears = (unsigned)w == 0u;
    t->last = p.clear == kClearFirst && (unsigned)w == gridDim.x - 1;
    t->passed = p.clear != kClearFirst || (unsigned)w == 0u;
}

/* Every thread, once the ticket is in. The block's own flushes begin with
 * a barrier, so they follow its zeros. */
__device__ __forceinline__ void clear_hist(const hist_params &p, const gate_ticket *t)
{
    if (!t->clears) return; /* block-uniform */
    zero_hist(p);
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence(); /* every thread's zeros are visible before the bit is */
        atomicAdd(p.gate, kGateClear);
    }
}

/* Thread 0, before each flush: the first time, unless this block cleared
 * the histogram, waits for the clear (the flush's opening barrier orders
 * the block's atomics after this acquire). The ticket is read volatile:
 * a plain load the compiler hoisted above the caller's thread test into
 * every thread, which racecheck reported against the store below. */
__device__ __forceinline__ void pass_gate(const hist_params &p, gate_ticket *ticket)
{
    volatile gate_ticket *t = ticket;
    if (t->passed) return;
    unsigned long long w;
    do {
        w = ld_acquire(p.gate);
    } while ((w & kGateClear) == 0 && (w >> kGateEpochShift) == t->epoch);
    if (t->last) st_release(p.gate, (t->epoch + 1) << kGateEpochShift);
    t->passed = 1;
}

/*
 * Adds the block's counters (rows x 2^cshift, row-major) into the 64-bit
 * histogram, row r into bin row_bin(r) (none if < 0), and clears them.
 * Every thread of the block calls it. A warp takes 32 rows, a row a lane:
 * lane l reads its row's columns starting at column l >> (5 - cshift), so
 * that at each step the 32 lanes read 32 different banks, and sums them
 * itself; one atomic instruction then adds the 32 rows to 32 consecutive
 * bins, which share L2 lines (a warp's atomics to one line travel as one
 * request). Summing a row across lanes with shuffles instead cost a chain
 * of 1 + cshift shuffles a pass, 2^cshift passes, not unrolled where
 * cshift is known only at run time: about 5 us of a 1024-bin f32 call at
 * 2^16 (H100, docs/perf/histogram.md).
 */
template <class RowBin>
__device__ void flush_rows(unsigned *cnt, int rows, int cshift, unsigned long long *hist, RowBin row_bin)
{
    __syncthreads(); /* every deposit of the round is in */
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    const int cols = 1 << cshift, rot = lane >> (5 - cshift);
    for (int r0 = warp * 32; r0 < rows; r0 += warps * 32) {
        const int row = r0 + lane;
        unsigned total = 0;
        if (row < rows) {
            unsigned *counters = cnt + (row << cshift);
#pragma unroll 8
            for (int c = 0; c < cols; c++) {
                unsigned *slot = counters + ((c + rot) & (cols - 1));
                total += *slot;
                *slot = 0;
            }
        }
        if (total != 0) { /* total != 0: row < rows */
            const int b = row_bin(row);
            if (b >= 0) atomicAdd(hist + b, (unsigned long long)total);
        }
    }
    __syncthreads(); /* counters clear before the next round adds */
}

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
__global__ void __launch_bounds__(kHistThreads, kHistSharedBlocksPerSm) hist_shared_kernel(const T *in, hist_params p, int cshift)
{
    constexpr int kPer = 16 / sizeof(T);
    constexpr long long kTile = (long long)kHistThreads * Unroll;
    constexpr int kRoundTiles = kHistRoundElems / (kTile * kPer) > 0 ? int(kHistRoundElems / (kTile * kPer)) : 1;
    GP_DYNAMIC_SMEM(smem);
    unsigned *cnt = reinterpret_cast<unsigned *>(smem);
    const int words = p.bins << cshift;
    const T *e = static_cast<const T *>(p.edges);
    /* After the counters, 16-byte aligned: the edges, then the gate. */
    const size_t edges_at = ((size_t)words * 4 + 15) / 16 * 16;
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

/* ================================================================ host side */

layout split(const void *in, size_t esize, int64_t n)
{
    const long long per = (long long)(16 / esize);
    long long head = (long long)(((16 - ((uintptr_t)in & 15)) & 15) / esize);
    if (head > n) head = n;
    const long long nvec = (n - head) / per;
    return layout{head, nvec, n - head - nvec * per};
}

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

/* cudaLaunchKernel with dynamic shared memory, checked as gp_cuda::launch
 * checks (which has no shared-memory argument). */
gp_status launch_dyn(gp_ctx *ctx, const void *kernel, const char *what, unsigned grid, size_t smem, void **args)
{
    cudaStream_t stream = static_cast<cudaStream_t>(ctx->stream);
    cudaError_t e = cudaLaunchKernel(kernel, dim3(grid), dim3(kHistThreads), args, smem, stream);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return gp_set_error(ctx, GP_STATUS_LAUNCH_FAILED, "launch of %s <<<%u, %d, %zu>>> failed: %s (%s)", what,
                            grid, kHistThreads, smem, cudaGetErrorName(e), cudaGetErrorString(e));
    }
#ifdef GPUPRIM_DEBUG_LAUNCH
    fprintf(stderr, "gpuprim: launch %s <<<%u, %d, %zu>>> on stream %p (device %d)\n", what, grid, kHistThreads,
            smem, ctx->stream, ctx->device);
    e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return gp_set_error(ctx, GP_STATUS_LAUNCH_FAILED, "%s <<<%u, %d, %zu>>> failed: %s (%s)", what, grid,
                            kHistThreads, smem, cudaGetErrorName(e), cudaGetErrorString(e));
    }
#endif
    return GP_STATUS_OK;
}

/* ---------------------------------------------------------------- count */

/* From n alone, so that the workspace query and the call agree. */
int count_grid(const gp_ctx *ctx, gp_dtype t, int64_t n)
{
    const long long tiles = ceil_div(n / (long long)(16 / gp_dtype_size(t)), (long long)kCountThreads * kCountUnroll);
    const long long cap = (long long)state(ctx)->sm_count * kCountBlocksPerSm;
    return (int)(tiles < 1 ? 1 : tiles < cap ? tiles : cap);
}

template <class T, int Cmp>
gp_status count_launch(gp_ctx *ctx, const gp_count_args *a, void *ws)
{
    layout L = split(a->in, sizeof(T), a->n);
    T value;
    memcpy(&value, a->value, sizeof value);
    const T *in = static_cast<const T *>(a->in);
    unsigned long long *partials = static_cast<unsigned long long *>(ws);
    unsigned *ticket = state(ctx)->reduce_counter; /* shared with reduce: 0 between launches on the stream */
    long long *out = reinterpret_cast<long long *>(a->count);
    bool packed = a->n < (1LL << 32); /* the count fits the ticket's high half */
    void *args[] = {&in, &L, &value, &partials, &ticket, &out, &packed};
    GP_CUDA_LAUNCH(ctx, (count_kernel<T, Cmp>), "count_kernel", (unsigned)count_grid(ctx, a->t, a->n),
                   kCountThreads, args);
    return GP_STATUS_OK;
}

template <class T>
gp_status count_typed(gp_ctx *ctx, const gp_count_args *a, void *ws)
{
    switch (a->cmp) {
    case GP_CMP_LT: return count_launch<T, GP_CMP_LT>(ctx, a, ws);
    case GP_CMP_LE: return count_launch<T, GP_CMP_LE>(ctx, a, ws);
    case GP_CMP_GT: return count_launch<T, GP_CMP_GT>(ctx, a, ws);
    case GP_CMP_GE: return count_launch<T, GP_CMP_GE>(ctx, a, ws);
    case GP_CMP_EQ: return count_launch<T, GP_CMP_EQ>(ctx, a, ws);
    case GP_CMP_NE: return count_launch<T, GP_CMP_NE>(ctx, a, ws);
    }
    return gp_set_error(ctx, GP_STATUS_INTERNAL, "count: cmp %d", (int)a->cmp);
}

/* ----------------------------------------------------------- histograms */

/* The device's opt-in shared-memory limit per block, asked once per device. */
gp_status smem_optin(gp_ctx *ctx, int *bytes)
{
    static std::atomic<int> cache[64];
    if (ctx->device < 64 && (*bytes = cache[ctx->device].load(std::memory_order_relaxed)) > 0) return GP_STATUS_OK;
    GP_CUDA_TRY(ctx, cudaDeviceGetAttribute(bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, ctx->device));
    if (ctx->device < 64) cache[ctx->device].store(*bytes, std::memory_order_relaxed);
    return GP_STATUS_OK;
}

/* One launch: its kernel, dynamic shared memory, and the elements each block
 * should at least have (so that small inputs do not pay many flushes). */
struct hist_plan {
    const void *kernel;
    const char *what;
    size_t smem;
    int cshift;
    bool with_cshift; /* the kernel takes cshift */
    bool flushes;     /* the blocks add to the histogram only when they flush */
    long long min_block_elems;
};

/* The elements a block of the shared kernel should count: a tile of one
 * load a thread (tile1) at least, enough for its flush's atomics
 * (kHistMinElemsPerBin a bin), and 8 sqrt(n), so that the grid grows with
 * n but each block's clear and flush are paid over more elements as it
 * does (cuda_histogram.cuh). */
long long shared_block_elems(int64_t n, int64_t bins, long long tile1)
{
    const long long root = (long long)sqrt((double)n);
    return std::max({tile1, (long long)kHistMinElemsPerBin * bins, kHistBlockElemsPerRootN * root});
}

template <class T, bool Edges>
gp_status plan_wide(gp_ctx *ctx, const gp_histogram_args *a, hist_plan *pl)
{
    constexpr long long kTileElems = (long long)kHistThreads * kHistUnroll * (16 / sizeof(T));
    const size_t edges = edge_bytes<T, Edges>(a->bins);
    int cshift = 5;
    while (cshift > 0 && ((size_t)a->bins << cshift) * 4 + edges > (size_t)kHistSmemTarget) cshift--;
    const size_t smem = ((size_t)a->bins << cshift) * 4 + edges + sizeof(gate_ticket);
    int optin = 0;
    gp_status s = smem_optin(ctx, &optin);
    if (s != GP_STATUS_OK) return s;
    /* Fewer elements than bins: clearing and flushing the block's copy would
     * cost more than the atomics it saves. */
    if (smem <= (size_t)optin && a->n >= a->bins) {
        const long long elems = shared_block_elems(a->n, a->bins, kTileElems / kHistUnroll);
        /* Blocks of fewer elements than a full tile load one vector a thread
         * a tile, so that they spread over more blocks and SMs. */
        const int wide = elems >= kTileElems;
        const int match = (1 << cshift) < kHistMinColumnsUnmatched;
        const void *kernels[2][2] = {
            {(const void *)hist_shared_kernel<T, Edges, false, 1>,
             (const void *)hist_shared_kernel<T, Edges, false, kHistUnroll>},
            {(const void *)hist_shared_kernel<T, Edges, true, 1>,
             (const void *)hist_shared_kernel<T, Edges, true, kHistUnroll>}};
        const char *names[2][2] = {{"hist_shared_kernel<1>", "hist_shared_kernel"},
                                   {"hist_shared_kernel<match, 1>", "hist_shared_kernel<match>"}};
        pl->kernel = kernels[match][wide];
        pl->what = names[match][wide];
        pl->smem = smem;
        pl->cshift = cshift;
        pl->with_cshift = true;
        pl->flushes = true;
        pl->min_block_elems = elems;
    } else {
        pl->kernel = (const void *)hist_global_kernel<T, Edges>;
        pl->what = "hist_global_kernel";
        pl->smem = 0;
        pl->cshift = 0;
        pl->with_cshift = false;
        pl->flushes = false;
        pl->min_block_elems = kTileElems;
    }
    return GP_STATUS_OK;
}

template <class T, bool Edges>
gp_status plan_bytes(const gp_histogram_args *a, hist_plan *pl)
{
    constexpr long long kTileElems = (long long)kHistThreads * kHistUnroll * 16;
    pl->kernel = (const void *)hist_bytes_kernel<T, Edges>;
    pl->what = "hist_bytes_kernel";
    pl->smem = 0; /* static: 32 KiB */
    pl->cshift = 5;
    pl->with_cshift = false;
    pl->flushes = true;
    pl->min_block_elems = std::max(kTileElems, (long long)kHistMinElemsPerBin * 256);
    return GP_STATUS_OK;
}

template <class T, bool Edges>
gp_status histogram_typed(gp_ctx *ctx, const gp_histogram_args *a)
{
    cudaStream_t stream = static_cast<cudaStream_t>(ctx->stream);
    const size_t hist_bytes = (size_t)a->bins * sizeof(uint64_t);
    if (a->n == 0) {
        if (!a->accumulate) GP_CUDA_TRY(ctx, cudaMemsetAsync(a->hist, 0, hist_bytes, stream));
        return GP_STATUS_OK;
    }
    hist_plan pl;
    gp_status s;
    if constexpr (sizeof(T) == 1) s = plan_bytes<T, Edges>(a, &pl);
    else s = plan_wide<T, Edges>(ctx, a, &pl);
    if (s != GP_STATUS_OK) return s;

    int per_sm = 0;
    /* Also raises the kernel's shared-memory limit, once. */
    GP_CUDA_TRY(ctx, blocks_per_sm(ctx->device, pl.kernel, kHistThreads, pl.smem, &per_sm));
    if (per_sm < 1) per_sm = 1; /* the launch will say what is wrong */
    const long long cap = (long long)per_sm * state(ctx)->sm_count;
    const long long want = ceil_div(a->n, pl.min_block_elems);
    const unsigned grid = (unsigned)(want < cap ? want : cap);

    hist_params p;
    p.L = split(a->in, sizeof(T), a->n);
    p.hist = reinterpret_cast<unsigned long long *>(a->hist);
    p.bins = (int)a->bins;
    p.even.lower = a->lower;
    p.even.upper = a->upper;
    p.even.width = a->upper - a->lower;
    p.even.fbins = (double)a->bins;
    p.even.scale = p.even.fbins / p.even.width;
    p.even.bins = (int)a->bins;
    p.edges = a->edges;
    p.clear = kClearNone;
    p.gate = state(ctx)->hist_gate;
    if (!a->accumulate) {
        const bool in_kernel = a->bins <= kHistClearInKernelBins;
        if (in_kernel && grid == 1) p.clear = kClearOwn;
        else if (in_kernel && pl.flushes && GP_HIST_CLEAR_FIRST) p.clear = kClearFirst;
        else GP_CUDA_TRY(ctx, cudaMemsetAsync(a->hist, 0, hist_bytes, stream));
    }

    const T *in = static_cast<const T *>(a->in);
    int cshift = pl.cshift;
    void *args3[] = {&in, &p, &cshift};
    void *args2[] = {&in, &p};
    return launch_dyn(ctx, pl.kernel, pl.what, grid, pl.smem, pl.with_cshift ? args3 : args2);
}

template <class T>
gp_status histogram_dispatch(gp_ctx *ctx, const gp_histogram_args *a)
{
    return a->edges ? histogram_typed<T, true>(ctx, a) : histogram_typed<T, false>(ctx, a);
}

#define GP_CUDA_HIST_TYPES(X)          \
    X(GP_DTYPE_I8, int8_t)             \
    X(GP_DTYPE_U8, uint8_t)            \
    X(GP_DTYPE_I16, int16_t)           \
    X(GP_DTYPE_U16, uint16_t)          \
    X(GP_DTYPE_I32, int32_t)           \
    X(GP_DTYPE_U32, uint32_t)          \
    X(GP_DTYPE_I64, long long)         \
    X(GP_DTYPE_U64, unsigned long long) \
    X(GP_DTYPE_F32, float)             \
    X(GP_DTYPE_F64, double)

} // namespace

/* ---------------------------------------------------------- entry points */

size_t count_workspace(const gp_ctx *ctx, const gp_count_args *a)
{
    const int grid = count_grid(ctx, a->t, a->n);
    return grid > 1 ? (size_t)grid * sizeof(unsigned long long) : 0;
}

gp_status count(gp_ctx *ctx, const gp_count_args *a, void *ws)
{
    device_scope scope;
    GP_CUDA_TRY(ctx, scope.enter(ctx->device));
    switch (a->t) {
#define GP_CUDA_COUNT_CASE(DT, T) \
    case DT: return count_typed<T>(ctx, a, ws);
        GP_CUDA_HIST_TYPES(GP_CUDA_COUNT_CASE)
#undef GP_CUDA_COUNT_CASE
    }
    return gp_set_error(ctx, GP_STATUS_INTERNAL, "count: dtype %d", (int)a->t);
}

/* Histograms need no workspace: blocks add straight into hist. */
size_t histogram_workspace(const gp_ctx *ctx, gp_dtype t, int64_t n, int64_t bins) { return 0; }

gp_status histogram(gp_ctx *ctx, const gp_histogram_args *a, void *ws)
{
    device_scope scope;
    GP_CUDA_TRY(ctx, scope.enter(ctx->device));
    switch (a->t) {
#define GP_CUDA_HIST_CASE(DT, T) \
    case DT: return histogram_dispatch<T>(ctx, a);
        GP_CUDA_HIST_TYPES(GP_CUDA_HIST_CASE)
#undef GP_CUDA_HIST_CASE
    }
    return gp_set_error(ctx, GP_STATUS_INTERNAL, "histogram: dtype %d", (int)a->t);
}

} // namespace gp_cuda
