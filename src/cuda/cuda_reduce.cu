/*
 * gp_reduce on CUDA: one kernel launch at every size.
 *
 * Each block streams its share of the input with 16-byte loads (several in
 * flight per thread), folds it into a register accumulator, and finishes the
 * block with warp shuffles. One block alone writes the result. With several
 * blocks, each stores its partial, and the last block to take a ticket on
 * the context's done-counter folds the partials, writes the result and sets
 * the counter back to 0 for the next call: no second pass, no host round
 * trip, no memset.
 *
 * Types. Kernels are instantiated per (op, load type, accumulator type)
 * from the dtype and op lists in cuda_reduce_ops.cuh, 62 in all:
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
    void *partials;     /* one accumulator per block; used when gridDim.x > 1 */
    unsigned *counter;  /* 0 on entry; the last block sets it back to 0 */
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

/*
 * Thread t of T = grid x block threads reads vectors t, t + T, t + 2T, ...:
 * each step of the grid is one contiguous stretch of memory, and threads
 * differ by at most one vector of work. kReduceUnroll loads are issued
 * before the first is used; the last, partial round is predicated rather
 * than looped, so it also costs one memory latency, not several.
 */
template <class Op, class Load, class Acc>
__global__ void __launch_bounds__(kReduceThreads, kReduceBlocksPerSm)
    reduce_kernel(const __grid_constant__ reduce_params p)
{
    constexpr int U = kReduceUnroll;
    constexpr int kLanes = kVecBytes / sizeof(Load);
    const Load *in = static_cast<const Load *>(p.in);
    const uint4 *vin = reinterpret_cast<const uint4 *>(in + p.head);
    const int64_t stride = (int64_t)gridDim.x * kReduceThreads;
    const int64_t tid = (int64_t)blockIdx.x * kReduceThreads + threadIdx.x;

    /* Head and tail: fewer than a vector each, one element per thread of
     * block 0. Loaded first and combined last, so their latency hides
     * behind the vector loads. */
    const int64_t tail_start = p.head + p.nvec * kLanes;
    Acc edge_head = Op::template identity<Acc>(), edge_tail = edge_head;
    if (tid < p.head) edge_head = static_cast<Acc>(in[tid]);
    if (tid < p.n - tail_start) edge_tail = static_cast<Acc>(in[tail_start + tid]);

    Acc acc = Op::template identity<Acc>();
    int64_t i = tid;
    for (; i + (U - 1) * stride < p.nvec; i += U * stride) {
        uint4 v[U];
#pragma unroll
        for (int k = 0; k < U; k++) v[k] = load_stream<kReduceLoadHint>(vin + i + k * stride);
#pragma unroll
        for (int k = 0; k < U; k++) acc = Op::combine(acc, fold_vector<Op, Load, Acc>(v[k]));
    }
    if (i < p.nvec) {
        uint4 v[U];
#pragma unroll
        for (int k = 0; k < U; k++)
            if (i + k * stride < p.nvec) v[k] = load_stream<kReduceLoadHint>(vin + i + k * stride);
#pragma unroll
        for (int k = 0; k < U; k++)
            if (i + k * stride < p.nvec) acc = Op::combine(acc, fold_vector<Op, Load, Acc>(v[k]));
    }
    acc = Op::combine(acc, Op::combine(edge_head, edge_tail));

    acc = block_reduce<Op, kReduceThreads>(acc);
    if (gridDim.x == 1) {
        if (threadIdx.x == 0) store_result<Op>(p, acc);
        return;
    }

    /* Publish this block's partial, then take a ticket. The fence orders
     * the partial before the ticket for whichever block comes last. */
    Acc *partials = static_cast<Acc *>(p.partials);
    __shared__ bool s_last;
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = acc;
        __threadfence();
        const unsigned ticket = atomicAdd(p.counter, 1u);
        s_last = ticket == gridDim.x - 1;
        if (s_last) __threadfence(); /* see every other block's partial */
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

/* -------------------------------------------------------- kernel selection */

using reduce_kernel_fn = void (*)(reduce_params);

struct kernel_choice {
    reduce_kernel_fn fn;
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
    return {&reduce_kernel<Op, L, A>, type_name<L>(), type_name<A>()};
}

/* Only the pairs the core accepts are instantiated: out_t has 8 bytes
 * whenever in_t does, and and/or/xor take integers only. */
template <class Op, class In>
kernel_choice choose_for_type(bool out64)
{
    if constexpr (Op::kIntegerOnly && !std::is_integral_v<In>) {
        return {nullptr, nullptr, nullptr};
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
    return {nullptr, nullptr, nullptr};
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
    return {nullptr, nullptr, nullptr};
}

/* ------------------------------------------------------------- host side */

/* Blocks for n elements of `size` bytes; the same answer for the workspace
 * query and the call (it cannot depend on the pointer's alignment, which
 * the query does not know). */
int reduce_grid(const context_state *st, int64_t n, size_t size)
{
    const int64_t lanes = kVecBytes / (int64_t)size;
    if (n <= kReduceSingleBlockBytes / (int64_t)size) return 1;
    const int64_t vectors = n / lanes + 1;
    const int64_t per_block = (int64_t)kReduceThreads * kReduceMinVectorsPerThread;
    const int64_t want = (vectors + per_block - 1) / per_block;
    const int64_t cap = (int64_t)st->sm_count * kReduceBlocksPerSm;
    return (int)(want < cap ? want : cap);
}

} // namespace

size_t reduce_workspace(const gp_ctx *ctx, const gp_reduce_args *a)
{
    const int grid = reduce_grid(state(ctx), a->n, gp_dtype_size(a->in_t));
    return grid > 1 ? (size_t)grid * sizeof(uint64_t) : 0;
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
    const int grid = reduce_grid(st, a->n, in_size);
    if (!k.fn || (grid > 1 && !ws))
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
    GP_CUDA_LAUNCH(ctx, k.fn, what, (unsigned)grid, (unsigned)kReduceThreads, args);
    return GP_STATUS_OK;
}

} // namespace gp_cuda
