/*
 * gp_reduce on CUDA: one kernel launch at every size.
 *
 * Each block streams its share of the input with 16-byte loads (several in
 * flight per thread), folds it into a register accumulator, and finishes the
 * block with warp reductions (redux.sync for 32-bit integers, shuffles for
 * the rest). One block alone writes the result. Several
 * blocks combine their partials inside the kernel (no second pass, no host
 * round trip, no memset), in one of three ways ("finishing a grid" below):
 * 32-bit integer sums carry their partials on the ticket atomic itself;
 * other reductions up to 1 MiB run as one or two thread-block clusters
 * whose block 0 collects the partials in its shared memory; past that they
 * store partials and the block that takes the last ticket folds them.
 *
 * Types. Kernels are instantiated per (op, load type, accumulator type)
 * from the dtype and op lists in cuda_reduce_ops.cuh, 62 triples, each in
 * three kernels (one block, cluster grid, general grid: reduce_path):
 * - integer sum/prod accumulate in unsigned 32 bits when out_t fits in 32
 *   bits (truncating mod 2^k at the end gives exactly out_t's wrapping
 *   result), else in unsigned 64 bits; each element is sign- or zero-
 *   extended by its own type first, as the conversion to out_t would;
 * - min/max keep the input's value (int32/uint32 for narrow integers), and
 *   and/or/xor work on the raw bits; both results are input values, so they
 *   are sign- or zero-extended from in_t to out_t at the store;
 * - float sums and products accumulate in out_t (f32, or f64 when widened).
 *
 * Top to bottom: element access, the kernel, kernel selection, host entry.
 */
#include <stdio.h>
#include <type_traits>

#include "cuda_backend.h"
#include "cuda_block_count.cuh" /* sum_on_ticket */
#include "cuda_cluster.cuh"
#include "cuda_common.cuh"
#include "cuda_reduce_ops.cuh"
#include "cuda_tuning.h"

namespace gp_cuda {
namespace {

using namespace reduce_ops;

/* ------------------------------------------------------- element access */

constexpr int kVecBytes = 16;

/* Element J of a 16-byte vector of T (J a template argument, so the
 * vector never leaves registers). */
template <class T, int J>
__device__ __forceinline__ T lane(const uint4 &v)
{
    const unsigned w[4] = {v.x, v.y, v.z, v.w};
    if constexpr (sizeof(T) == 8) {
        return bit_cast<T>((uint64_t)w[2 * J + 1] << 32 | w[2 * J]);
    } else if constexpr (sizeof(T) == 4) {
        return bit_cast<T>(w[J]);
    } else {
        constexpr int kPerWord = 4 / sizeof(T);
        const unsigned x = w[J / kPerWord] >> (8 * sizeof(T) * (J % kPerWord));
        return static_cast<T>(static_cast<raw_bits_t<T>>(x));
    }
}

/* Sum of a vector of 8- or 16-bit integers with the dot-product
 * instructions (one per 4 bytes instead of an extract and an add per
 * element). The 32-bit partial is exact (at most 16 x 255). */
template <class Load>
__device__ __forceinline__ auto narrow_int_sum(const uint4 &v)
{
    if constexpr (std::is_signed_v<Load>) {
        int s = 0;
        if constexpr (sizeof(Load) == 1) {
            s = __dp4a((int)v.x, 0x01010101, s), s = __dp4a((int)v.y, 0x01010101, s);
            s = __dp4a((int)v.z, 0x01010101, s), s = __dp4a((int)v.w, 0x01010101, s);
        } else {
            s = __dp2a_lo((int)v.x, 0x0101, s), s = __dp2a_lo((int)v.y, 0x0101, s);
            s = __dp2a_lo((int)v.z, 0x0101, s), s = __dp2a_lo((int)v.w, 0x0101, s);
        }
        return s;
    } else {
        unsigned s = 0;
        if constexpr (sizeof(Load) == 1) {
            s = __dp4a(v.x, 0x01010101u, s), s = __dp4a(v.y, 0x01010101u, s);
            s = __dp4a(v.z, 0x01010101u, s), s = __dp4a(v.w, 0x01010101u, s);
        } else {
            s = __dp2a_lo(v.x, 0x0101u, s), s = __dp2a_lo(v.y, 0x0101u, s);
            s = __dp2a_lo(v.z, 0x0101u, s), s = __dp2a_lo(v.w, 0x0101u, s);
        }
        return s;
    }
}

/* Lanes [First, First + Count) of a vector folded as a balanced tree, so
 * the combines do not wait on one another. */
template <class Op, class Load, class Acc, int First, int Count>
__device__ __forceinline__ Acc fold_lanes(const uint4 &v)
{
    if constexpr (Count == 1)
        return static_cast<Acc>(lane<Load, First>(v));
    else
        return Op::combine(fold_lanes<Op, Load, Acc, First, Count / 2>(v),
                           fold_lanes<Op, Load, Acc, First + Count / 2, Count / 2>(v));
}

/* Folds the 16 / sizeof(Load) elements of a vector into one Acc. */
template <class Op, class Load, class Acc>
__device__ __forceinline__ Acc fold_vector(const uint4 &v)
{
    if constexpr (Op::id == GP_OP_SUM && std::is_integral_v<Load> && sizeof(Load) <= 2)
        return static_cast<Acc>(narrow_int_sum<Load>(v)); /* sign-extends for signed Load */
    else
        return fold_lanes<Op, Load, Acc, 0, kVecBytes / sizeof(Load)>(v);
}

/* ------------------------------------------------------------------ kernel */

struct reduce_params {
    const void *in;
    int64_t n;    /* elements */
    int64_t head; /* elements before the first 16-byte boundary (< a vector) */
    int64_t nvec; /* whole 16-byte vectors after the head; the rest is the tail */
    void *out;
    void *partials;     /* one accumulator per block, for the ticket finish */
    unsigned *counter;  /* the low half of a 64-bit word, 0 on entry; the last block sets it back to 0 */
    int cluster;        /* blocks per cluster for the cluster finish (one or two clusters), else 0 */
    int segments;       /* a grid's blocks read contiguous segments (kReduceSegmentMinBytes) */
    void *pair;         /* 16 zero bytes on entry where two clusters meet; left zeroed */
    uint64_t empty_bits; /* the op's identity as out_t's bits: the result for n == 0 */
    int out_bytes;
    int in_bits; /* in_t's width and sign, to re-extend input-valued results */
    int in_signed;
};

/* Writes the result into out as out_t. */
template <class Op, class Acc>
__device__ __forceinline__ void store_result(const reduce_params &p, Acc acc)
{
    const uint64_t bits = p.n == 0 ? p.empty_bits : result_bits<Op>(acc, p.out_bytes, p.in_bits, p.in_signed);
    switch (p.out_bytes) {
    case 1: *static_cast<uint8_t *>(p.out) = (uint8_t)bits; break;
    case 2: *static_cast<uint16_t *>(p.out) = (uint16_t)bits; break;
    case 4: *static_cast<uint32_t *>(p.out) = (uint32_t)bits; break;
    default: *static_cast<uint64_t *>(p.out) = bits; break;
    }
}

/* ------------------------------------------------------- finishing a grid
 *
 * Three ways for several blocks to combine their partials, fastest first.
 * On H100 a release fence (or a cluster barrier that releases) costs about
 * 1.3 us, and any second dependent trip to L2 after the ticket about 0.5 us
 * (docs/perf/reduce.md), so the data travels with the signal wherever it
 * can.
 */

/* Integer sums in 32 bits ride on the ticket itself: each block adds
 * (partial << 32 | 1) to the 64-bit counter, so the block that draws the
 * last ticket gets every other partial's sum back from the same atomic.
 * The high half wraps mod 2^32 as the sum does; the low half counts. */
template <class Op, class Acc>
constexpr bool kPackedSum = Op::id == GP_OP_SUM && std::is_integral_v<Acc> && sizeof(Acc) == 4;

/* The cluster finish: the block of rank 0 keeps an mbarrier that expects
 * one partial from each other block of its cluster; they store it straight
 * into its shared memory (cuda_cluster.cuh). Rank 0 folds the partials in
 * rank order, so float results do not depend on which block came first. */
template <class Acc>
struct cluster_inbox {
    uint64_t bar;
    Acc slot[kReduceClusterMax];
};

/* Every thread of every block, once its loads are issued: rank 0's barrier
 * is set up and the cluster told so. */
template <class Acc>
__device__ __forceinline__ void inbox_open(cluster_inbox<Acc> &box, unsigned rank, unsigned blocks)
{
    if (rank == 0 && threadIdx.x == 0) cluster::inbox_open(&box.bar, (blocks - 1) * (unsigned)sizeof(Acc));
    cluster::arrive();
}

/* Thread 0 of the block of rank r > 0: its partial into rank 0's slot r.
 * Every thread of the block waits on the cluster barrier first (rank 0's
 * mbarrier is then initialised). */
template <class Acc>
__device__ __forceinline__ void inbox_send(cluster_inbox<Acc> &box, unsigned rank, Acc v)
{
    cluster::send(&box.slot[rank], &box.bar, 0, bit_cast<cluster::slot_t<Acc>>(v));
}

/* Thread 0 of rank 0: waits for the other blocks' partials, folds them. */
template <class Op, class Acc>
__device__ __forceinline__ Acc inbox_fold(cluster_inbox<Acc> &box, Acc own, unsigned blocks)
{
    cluster::inbox_wait(&box.bar);
    for (unsigned b = 1; b < blocks; b++) own = Op::combine(own, box.slot[b]);
    return own;
}

/* Two clusters meet in a 16-byte word {partial bits, 1}: each swaps its
 * total in with one 128-bit atomic exchange, and the one that finds the
 * other's total there combines them, cluster 0's first, and clears the
 * word. Again the data comes back with the signal. */
template <class Op, class Acc>
__device__ __forceinline__ void pair_finish(const reduce_params &p, Acc acc, bool first)
{
    using Bits = std::conditional_t<sizeof(Acc) == 8, uint64_t, uint32_t>;
    unsigned long long mine = bit_cast<Bits>(acc), theirs, found;
    asm volatile("{\n\t.reg .b128 d, b;\n\t"
                 "mov.b128 b, {%2, %3};\n\t"
                 "atom.global.exch.b128 d, [%4], b;\n\t"
                 "mov.b128 {%0, %1}, d;\n\t}"
                 : "=l"(theirs), "=l"(found)
                 : "l"(mine), "l"(1ull), "l"(p.pair)
                 : "memory");
    if (!found) return;
    const Acc other = bit_cast<Acc>(static_cast<Bits>(theirs));
    store_result<Op>(p, first ? Op::combine(acc, other) : Op::combine(other, acc));
    *static_cast<ulonglong2 *>(p.pair) = make_ulonglong2(0, 0); /* ready for the next call on this stream */
}

/* The ticket finish, for the rest: partials through global memory, a
 * ticket taken with acquire-release order, the last block folds them. */
__device__ __forceinline__ unsigned take_ticket(unsigned *counter)
{
    unsigned ticket;
    asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;" : "=r"(ticket) : "l"(counter) : "memory");
    return ticket;
}

/*
 * The head and tail (under a vector each, one element per thread of the
 * first block), loaded after the vector loads (the barrier keeps the
 * compiler from putting their address arithmetic first) and skipped as a
 * whole when the input is whole vectors: one uniform branch instead of two
 * predicated loads took a 16 KiB grid from 3.90 to 3.68 us on H100 (a
 * standalone experiment, docs/perf/reduce.md).
 */
template <class Op, class Load, class Acc>
__device__ __forceinline__ Acc edges(const reduce_params &p, int t)
{
    asm volatile("" ::: "memory");
    constexpr int kLanes = kVecBytes / sizeof(Load);
    const Load *in = static_cast<const Load *>(p.in);
    const int tail_start = (int)p.head + (int)p.nvec * kLanes, tail = (int)p.n - tail_start;
    Acc acc = Op::template identity<Acc>();
    if ((p.head | tail) != 0) {
        if (t < p.head) acc = static_cast<Acc>(in[t]);
        if (t < tail) acc = Op::combine(acc, static_cast<Acc>(in[tail_start + t]));
    }
    return acc;
}

/*
 * One round of loads for thread `tid` of a grid of `stride` threads that
 * holds at most U vectors a thread (32-bit indices): the vector loads go
 * out first, predicated rather than looped, then the head and tail.
 */
template <class Op, class Load, class Acc>
__device__ __forceinline__ Acc one_round(const reduce_params &p, int tid, int stride)
{
    constexpr int U = kReduceUnroll;
    const uint4 *vin = reinterpret_cast<const uint4 *>(static_cast<const Load *>(p.in) + p.head);
    const int nvec = (int)p.nvec;
    uint4 v[U];
#pragma unroll
    for (int k = 0; k < U; k++)
        if (tid + k * stride < nvec) v[k] = load_stream<0>(vin + tid + k * stride);
    Acc acc = edges<Op, Load, Acc>(p, tid);
#pragma unroll
    for (int k = 0; k < U; k++)
        if (tid + k * stride < nvec) acc = Op::combine(acc, fold_vector<Op, Load, Acc>(v[k]));
    return acc;
}

/*
 * A grid of one block: at most kReduceThreads x kReduceUnroll vectors, one
 * round of loads, 32-bit indices, nothing to combine across blocks. Kept
 * apart so that its loads are issued within the first few dozen
 * instructions: on H100 this alone took 4.16 us down to 3.94 at 4-16 KiB,
 * against ~100 instructions before the first load on the general path.
 */
template <class Op, class Load, class Acc>
__device__ __forceinline__ void reduce_one_block(const reduce_params &p)
{
    Acc acc = one_round<Op, Load, Acc>(p, threadIdx.x, kReduceThreads);
    acc = block_reduce<Op, kReduceThreads>(acc);
    if (threadIdx.x == 0) store_result<Op>(p, acc);
}

/*
 * A cluster grid: at most two clusters of kReduceClusterMax blocks, one
 * round of loads a block (shape_for), so 32-bit indices, the loads
 * predicated rather than looped (the general path's loop and 64-bit
 * strides put 0.3-0.4 us before a 512 KiB grid's finish on H100), then the
 * cluster finish.
 */
template <class Op, class Load, class Acc>
__device__ __forceinline__ void reduce_cluster_grid(const reduce_params &p)
{
    Acc acc = one_round<Op, Load, Acc>(p, (int)blockIdx.x * kReduceThreads + threadIdx.x,
                                       (int)gridDim.x * kReduceThreads);

    /* Set up the cluster finish only now, so that nothing delays the loads
     * (the asm statements also keep the compiler from moving them up). */
    __shared__ cluster_inbox<Acc> inbox;
    const unsigned rank = blockIdx.x % (unsigned)p.cluster;
    inbox_open(inbox, rank, p.cluster);
    acc = block_reduce<Op, kReduceThreads>(acc);
    cluster::wait();
    if (threadIdx.x != 0) return;
    if (rank != 0) {
        inbox_send(inbox, rank, acc);
        return;
    }
    acc = inbox_fold<Op>(inbox, acc, p.cluster);
    if (gridDim.x == (unsigned)p.cluster) store_result<Op>(p, acc);
    else pair_finish<Op>(p, acc, blockIdx.x == 0);
}

/*
 * Thread t of T = grid x block threads reads vectors t, t + T, t + 2T, ...:
 * each step of the grid is one contiguous stretch of memory, and threads
 * differ by at most one vector of work. With p.segments, block b reads an
 * even share of whole rounds (kReduceThreads x kReduceUnroll vectors) of
 * its own instead, thread t vectors t, t + kReduceThreads, ... of it.
 * kReduceUnroll loads are issued before the first is used; the last,
 * partial round is predicated rather than looped, so it also costs one
 * memory latency, not several.
 */
template <class Op, class Load, class Acc>
__device__ __forceinline__ void reduce_grid(const reduce_params &p)
{
    constexpr int U = kReduceUnroll;
    constexpr int kLanes = kVecBytes / sizeof(Load);
    const Load *in = static_cast<const Load *>(p.in);
    const uint4 *vin = reinterpret_cast<const uint4 *>(in + p.head);
    const int64_t tid = (int64_t)blockIdx.x * kReduceThreads + threadIdx.x;
    int64_t i = tid, end = p.nvec, stride = (int64_t)gridDim.x * kReduceThreads;
    if (p.segments) {
        const int64_t round = (int64_t)kReduceThreads * U;
        const int64_t rounds = (p.nvec + round - 1) / round;
        const int64_t share = rounds / gridDim.x, extra = rounds % gridDim.x, b = blockIdx.x;
        const int64_t first = (b * share + (b < extra ? b : extra)) * round;
        const int64_t last = first + (share + (b < extra ? 1 : 0)) * round;
        i = first + threadIdx.x;
        end = last < p.nvec ? last : p.nvec; /* only the segment of the final round is cut */
        stride = kReduceThreads;
    }
    /* Head and tail: fewer than a vector each, one element per thread of
     * block 0. Loaded first and combined last, so their latency hides
     * behind the vector loads. */
    const int64_t tail_start = p.head + p.nvec * kLanes;
    Acc edge_head = Op::template identity<Acc>(), edge_tail = edge_head;
    if (tid < p.head) edge_head = static_cast<Acc>(in[tid]);
    if (tid < p.n - tail_start) edge_tail = static_cast<Acc>(in[tail_start + tid]);

    Acc acc = Op::template identity<Acc>();
    for (; i + (U - 1) * stride < end; i += U * stride) {
        uint4 v[U];
#pragma unroll
        for (int k = 0; k < U; k++) v[k] = load_stream<kReduceLoadHint>(vin + i + k * stride);
#pragma unroll
        for (int k = 0; k < U; k++) acc = Op::combine(acc, fold_vector<Op, Load, Acc>(v[k]));
    }
    if (i < end) {
        uint4 v[U];
#pragma unroll
        for (int k = 0; k < U; k++)
            if (i + k * stride < end) v[k] = load_stream<kReduceLoadHint>(vin + i + k * stride);
#pragma unroll
        for (int k = 0; k < U; k++)
            if (i + k * stride < end) acc = Op::combine(acc, fold_vector<Op, Load, Acc>(v[k]));
    }
    acc = Op::combine(acc, Op::combine(edge_head, edge_tail));
    acc = block_reduce<Op, kReduceThreads>(acc);
    if constexpr (kPackedSum<Op, Acc>) {
        if (threadIdx.x == 0)
            sum_on_ticket(p.counter, static_cast<uint32_t>(acc),
                          [&](unsigned long long others) { store_result<Op>(p, static_cast<Acc>(others) + acc); });
        return;
    }

    /* Publish this block's partial, then take a ticket: its release orders
     * the partial before it, and the last block's acquire sees them all. */
    Acc *partials = static_cast<Acc *>(p.partials);
    __shared__ bool s_last;
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = acc;
        s_last = take_ticket(p.counter) == gridDim.x - 1;
    }
    __syncthreads(); /* also separates the two block_reduce calls */
    if (!s_last) return;

    /* The last block folds the partials, read from L2 (.cg: L1 is not
     * coherent with the other SMs' stores), a batch of loads per round. */
    constexpr int kBatch = 4;
    acc = Op::template identity<Acc>();
#pragma unroll 1
    for (unsigned base = 0; base < gridDim.x; base += kBatch * kReduceThreads) {
        Acc v[kBatch];
#pragma unroll
        for (int k = 0; k < kBatch; k++) {
            const unsigned b = base + k * kReduceThreads + threadIdx.x;
            v[k] = b < gridDim.x ? __ldcg(partials + b) : Op::template identity<Acc>();
        }
#pragma unroll
        for (int k = 0; k < kBatch; k++) acc = Op::combine(acc, v[k]);
    }
    acc = block_reduce<Op, kReduceThreads>(acc);
    if (threadIdx.x == 0) {
        store_result<Op>(p, acc);
        *p.counter = 0; /* ready for the next call on this stream */
    }
}

/* One kernel per way of running a grid, so that each holds only its own
 * code: with the three in one kernel (a branch on the grid), the 16 KiB and
 * 512 KiB grids took 0.1-0.3 us longer on H100. */
enum reduce_path { kOneBlock, kClusterGrid, kGrid, kPaths };

template <class Op, class Load, class Acc, int Path>
__global__ void __launch_bounds__(kReduceThreads, kReduceBlocksPerSm)
    reduce_kernel(const __grid_constant__ reduce_params p)
{
    if constexpr (Path == kOneBlock) reduce_one_block<Op, Load, Acc>(p);
    else if constexpr (Path == kClusterGrid) reduce_cluster_grid<Op, Load, Acc>(p);
    else reduce_grid<Op, Load, Acc>(p);
}

/* -------------------------------------------------------- kernel selection */

using reduce_kernel_fn = void (*)(reduce_params);

struct kernel_choice {
    reduce_kernel_fn fn[kPaths]; /* by reduce_path */
    bool packed;                      /* kPackedSum: a grid needs no partials */
    const char *load_name, *acc_name; /* for the launch log */
};

template <class T> constexpr const char *type_name() { return "?"; }
#define GP_CUDA_TYPE_NAME_(E, T) \
    template <> constexpr const char *type_name<T>() { return #T; }
GP_CUDA_DTYPES(GP_CUDA_TYPE_NAME_)
#undef GP_CUDA_TYPE_NAME_

template <class Op, class In, bool Out64>
kernel_choice choose()
{
    using L = typename Op::template load_t<In, Out64>;
    using A = typename Op::template acc_t<In, Out64>;
    return {{&reduce_kernel<Op, L, A, kOneBlock>, &reduce_kernel<Op, L, A, kClusterGrid>, &reduce_kernel<Op, L, A, kGrid>},
            kPackedSum<Op, A>,
            type_name<L>(),
            type_name<A>()};
}

/* Only the pairs the core accepts are instantiated: out_t has 8 bytes
 * whenever in_t does, and and/or/xor take integers only. */
template <class Op, class In>
kernel_choice choose_for_type(bool out64)
{
    if constexpr (Op::kIntegerOnly && !std::is_integral_v<In>) {
        return {{nullptr, nullptr, nullptr}, false, nullptr, nullptr};
    } else if constexpr (sizeof(In) == 8) {
        return choose<Op, In, true>();
    } else {
        return out64 ? choose<Op, In, true>() : choose<Op, In, false>();
    }
}

template <class Op>
kernel_choice choose_for_op(gp_dtype in_t, bool out64)
{
    switch (in_t) {
#define GP_CUDA_CASE_(E, T) \
    case GP_DTYPE_##E: return choose_for_type<Op, T>(out64);
        GP_CUDA_DTYPES(GP_CUDA_CASE_)
#undef GP_CUDA_CASE_
    }
    return {{nullptr, nullptr, nullptr}, false, nullptr, nullptr};
}

kernel_choice choose_kernel(gp_op op, gp_dtype in_t, gp_dtype out_t)
{
    const bool out64 = gp_dtype_size(out_t) == 8;
    switch (op) {
#define GP_CUDA_CASE_(E, OP) \
    case GP_OP_##E: return choose_for_op<OP>(in_t, out64);
        GP_CUDA_REDUCE_OPS(GP_CUDA_CASE_)
#undef GP_CUDA_CASE_
    }
    return {{nullptr, nullptr, nullptr}, false, nullptr, nullptr};
}

/* ------------------------------------------------------------- host side */

/* The largest cluster of reduce blocks this context can launch: asked of
 * the runtime once, with one reduce kernel standing for all (they share
 * the launch bounds and use no dynamic shared memory). */
int cluster_blocks(const gp_ctx *ctx)
{
    context_state *st = state(ctx);
    if (st->reduce_cluster < 0)
        st->reduce_cluster = (int)cluster_limit((gp_ctx *)ctx, (const void *)&reduce_kernel<op_sum, uint32_t, uint32_t, kClusterGrid>,
                                                kReduceThreads);
    return st->reduce_cluster;
}

struct reduce_shape {
    int grid;
    int cluster; /* blocks per cluster (the grid is one or two clusters), or 0 */
};

/* The grid for n elements of `size` bytes; the same answer for the
 * workspace query and the call (it cannot depend on the pointer's
 * alignment, which the query does not know). Packed sums skip the cluster:
 * their ticket finish is as short (0.1-0.2 us faster on H100). */
reduce_shape shape_for(const gp_ctx *ctx, const kernel_choice &k, int64_t n, size_t size)
{
    const int64_t lanes = kVecBytes / (int64_t)size;
    const int64_t whole = n / lanes; /* at least the vectors of any alignment */
    const int64_t round = (int64_t)kReduceThreads * kReduceUnroll; /* one round of loads a block */
    if (whole <= round) return {1, 0};
    const int64_t blocks = (whole + round - 1) / round;
    const int cluster = k.packed ? 0 : cluster_blocks(ctx);
    if (blocks <= cluster) return {(int)blocks, (int)blocks};
    if (blocks <= 2 * cluster) return {(int)(blocks + 1) / 2 * 2, (int)(blocks + 1) / 2};
    const int64_t vectors = whole + 1;
    const int64_t per_block = (int64_t)kReduceThreads * kReduceMinVectorsPerThread;
    const int64_t want = (vectors + per_block - 1) / per_block;
    const int64_t cap = (int64_t)state(ctx)->sm_count * kReduceBlocksPerSm;
    return {(int)(want < cap ? want : cap), 0};
}

/* Workspace bytes for a grid: partials for the ticket finish only. */
size_t partials_bytes(const kernel_choice &k, const reduce_shape &shape)
{
    const bool partials = shape.grid > 1 && shape.cluster == 0 && !k.packed;
    return partials ? (size_t)shape.grid * sizeof(uint64_t) : 0;
}

} // namespace

size_t reduce_workspace(const gp_ctx *ctx, const gp_reduce_args *a)
{
    const kernel_choice k = choose_kernel(a->op, a->in_t, a->out_t);
    return partials_bytes(k, shape_for(ctx, k, a->n, gp_dtype_size(a->in_t)));
}

gp_status reduce(gp_ctx *ctx, const gp_reduce_args *a, void *ws)
{
    const context_state *st = state(ctx);
    const size_t in_size = gp_dtype_size(a->in_t), out_size = gp_dtype_size(a->out_t);
    const uintptr_t addr = (uintptr_t)a->in;
    /* Element-misaligned pointers would fault on the device and poison the
     * whole CUDA context; refuse them here instead. */
    if (addr % in_size != 0 || (uintptr_t)a->out % out_size != 0)
        return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT,
                            "gp_reduce: in (%p) or out (%p) is not aligned to its element size", a->in, a->out);

    const kernel_choice k = choose_kernel(a->op, a->in_t, a->out_t);
    const reduce_shape shape = shape_for(ctx, k, a->n, in_size);
    const reduce_kernel_fn fn = k.fn[shape.grid == 1 ? kOneBlock : shape.cluster ? kClusterGrid : kGrid];
    if (!fn || (!ws && partials_bytes(k, shape) > 0))
        return gp_set_error(ctx, GP_STATUS_INTERNAL, "gp_reduce: no CUDA kernel or workspace for %s %s -> %s",
                            gp_op_name(a->op), gp_dtype_name(a->in_t), gp_dtype_name(a->out_t));

    reduce_params p;
    const int64_t lanes = kVecBytes / (int64_t)in_size;
    const int64_t to_boundary = (int64_t)((kVecBytes - addr % kVecBytes) % kVecBytes) / (int64_t)in_size;
    p.in = a->in;
    p.n = a->n;
    p.head = to_boundary < a->n ? to_boundary : a->n;
    p.nvec = (a->n - p.head) / lanes;
    p.out = a->out;
    p.partials = ws;
    p.counter = st->reduce_counter;
    p.cluster = shape.cluster;
    p.segments = st->reduce_segments >= 0 ? st->reduce_segments
                                          : (long long)a->n >= kReduceSegmentMinBytes / (long long)in_size;
    p.pair = static_cast<char *>(st->control) + kReducePairOffset;
    p.empty_bits = identity_bits(a->op, a->out_t);
    p.out_bytes = (int)out_size;
    p.in_bits = (int)in_size * 8;
    p.in_signed = gp_dtype_kind(a->in_t) == GP_KIND_SIGNED;

#ifdef GPUPRIM_DEBUG_LAUNCH
    char what[160];
    snprintf(what, sizeof what, "reduce_kernel<%s, %s, %s> (%s -> %s, n = %lld)", gp_op_name(a->op), k.load_name,
             k.acc_name, gp_dtype_name(a->in_t), gp_dtype_name(a->out_t), (long long)a->n);
#else
    const char *what = "reduce_kernel";
#endif
    void *args[] = {&p};
    device_scope scope;
    GP_CUDA_ENTER_DEVICE(ctx, scope);
    if (shape.cluster)
        return launch_cluster(ctx, (const void *)fn, what, (unsigned)shape.grid, (unsigned)shape.cluster,
                              (unsigned)kReduceThreads, args, __FILE__, __LINE__);
    GP_CUDA_LAUNCH(ctx, fn, what, (unsigned)shape.grid, (unsigned)kReduceThreads, args);
    return GP_STATUS_OK;
}

} // namespace gp_cuda
