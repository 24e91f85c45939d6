/*
 * A histogram kernel's parameters and helpers (included by cuda_histogram.cu,
 * after cuda_count_kernel.cuh): the bin formulas, who clears the histogram, and
 * the shared counters: their layout, flushes and the clearing gate.
 */
#ifndef GP_CUDA_HISTOGRAM_BINS_CUH
#define GP_CUDA_HISTOGRAM_BINS_CUH

namespace gp_cuda {
namespace {

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
    const double scaled = __dmul_rn(d, p.fbins); /* past DBL_MAX only for d near it: then the quotient first */
    const int k = __double2int_rz(isfinite(scaled) ? __ddiv_rn(scaled, p.width)
                                                   : __dmul_rn(__ddiv_rn(d, p.width), p.fbins)); /* >= 0: d <= width */
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

/* The shared kernel's `words` counters, rounded up to 16 bytes: its copy of
 * the edges, then its gate ticket, start there. The launch sizes the shared
 * memory by it too: sized by words * 4, an odd bin count on 1 or 2 counter
 * copies put the ticket up to 12 bytes past the end (memcheck, 4097 bins). */
__host__ __device__ __forceinline__ size_t counters_bytes(int64_t words) { return ((size_t)words * 4 + 15) / 16 * 16; }

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

} // namespace
} // namespace gp_cuda

#endif // GP_CUDA_HISTOGRAM_BINS_CUH
