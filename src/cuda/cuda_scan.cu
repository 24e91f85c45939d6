/*
 * gp_scan_inclusive / gp_scan_exclusive on CUDA: a single-pass scan with
 * decoupled look-back (cuda_lookback.cuh), one launch at every size, each
 * element read once and written once, 16-byte loads and stores.
 *
 * A block takes a ticket for its tile, loads the tile in the row layout
 * (cuda_tile.cuh), scans it in registers (along each thread's vector,
 * across lanes with shuffles, across rows with a carry, across warps
 * through shared memory), publishes the tile's aggregate, lets warp 0 look
 * back for the exclusive prefix, publishes its inclusive prefix and writes
 * prefix op local scan. The first tile needs no look-back; a single-tile
 * input takes no ticket and touches no arena.
 *
 * Inputs of more tiles than the device holds blocks (and 16-byte aligned)
 * run as a persistent grid, every block resident (a cooperative launch):
 * block k scans tiles k, k + grid, ..., staged in shared memory by the bulk
 * copy engine (cuda_stage.cuh) so that loads stay in flight while a tile
 * waits. Scans whose outputs are the inputs' size go further and park each
 * tile in shared memory while look-back warps of its own find its prefix
 * (cuda_scan_pipelined.cuh); docs/perf/scan.md has the measurements.
 *
 * Everything is expressed as start op x[0] op x[1] ... with `start` the
 * exclusive scan's init or the op's exact identity (-0.0 for float sums),
 * so there is no "no prefix yet" case anywhere.
 *
 * Types: a kernel is (input, conversion, accumulator, stored type, op).
 * Each element is converted to the output dtype (Conv: sign or zero
 * extension), then to the accumulator. Wrapping integer ops accumulate in
 * unsigned 32 or 64 bits and store the low bytes (the output's own wrapping
 * result); with no widening their signedness cannot matter, so i32 and u32
 * (etc.) share one kernel. Min and max accumulate in the output type.
 *
 * Top to bottom: tuning, kernel, host side (tiles, dispatch, entry points).
 */
#include <stdio.h>

#include "cuda_backend.h"
#include "cuda_common.cuh"
#include "cuda_lookback.cuh"
#include "cuda_stage.cuh"
#include "cuda_tile.cuh"
#include "cuda_tuning.h"

namespace gp_cuda {

constexpr int kScanWarps = kScanThreads / kWarp;

namespace {

/* ------------------------------------------------------------------ kernel */

struct scan_params {
    const void *in;
    void *out;
    int64_t n;
    unsigned tiles;               /* >= 1; 1 takes no ticket */
    unsigned grid;                /* blocks; < tiles: persistent, every block resident */
    int staged;                   /* persistent: whole tiles go through shared-memory stages */
    int exclusive;                /* start = init instead of the identity */
    int aligned;                  /* in and out are 16-byte aligned: vector loads and stores */
    unsigned long long init_bits; /* the init as the accumulator's bits */
    lookback::arena arena;
};

template <class In, class A>
__host__ __device__ constexpr int scan_tile_bytes()
{
    return kScanThreads * scan_items(sizeof(In), sizeof(A)) * (int)sizeof(In);
}
template <class In, class A>
__host__ __device__ constexpr int scan_stages()
{
    return stage::stages_for(scan_tile_bytes<In, A>(), GP_SCAN_STAGE_BYTES);
}

/* A scan's status value fits a tag's payload up to 32 bits; 8-byte ones
 * are wide statuses (the tag and the value in one 16-byte word). One lane
 * publishes. */
template <class A>
__device__ __forceinline__ void publish_value(const lookback::arena &ar, unsigned long long tile, unsigned epoch,
                                              unsigned state, A v)
{
    if constexpr (sizeof(A) <= 4) lookback::publish_payload(ar, tile, epoch, state, lookback::to_slot(v));
    else lookback::publish_wide(ar, tile, epoch, state, lookback::to_slot(v));
}

/* Warp-wide: the combination of everything before `tile` (not tile 0). */
template <class Op, class A>
__device__ __forceinline__ A prefix_before(const lookback::arena &ar, unsigned long long tile, unsigned epoch)
{
    /* bits: the tag (its payload is the value), or a wide status's value */
    auto read = [](unsigned long long, unsigned long long bits, bool) -> A {
        if constexpr (sizeof(A) <= 4) return lookback::from_slot<A>(lookback::tag_payload(bits));
        else return lookback::from_slot<A>(bits);
    };
    return lookback::look_back<Op, A, lookback::kAggregate, lookback::kInclusive, sizeof(A) <= 4, (sizeof(A) > 4)>(
        ar, tile, epoch, read);
}

/* x (thread-local inclusive scans, warp_scan_rows) becomes base op the
 * scan of the segment: inclusive, or exclusive (shifted by one element). */
template <class Op, class A, int R, int V>
__device__ __forceinline__ void finish_rows(A base, const A (&lane_prefix)[R], bool exclusive, A (&x)[R][V])
{
#pragma unroll
    for (int r = 0; r < R; r++) {
        const A q = Op::apply(base, lane_prefix[r]);
        if (exclusive) {
#pragma unroll
            for (int e = V - 1; e > 0; e--) x[r][e] = Op::apply(q, x[r][e - 1]);
            x[r][0] = q;
        } else {
#pragma unroll
            for (int e = 0; e < V; e++) x[r][e] = Op::apply(q, x[r][e]);
        }
    }
}

/*
 * Block b takes ticket k (its rank in arrival order) and scans tiles k,
 * k + grid, k + 2 grid, ... in that order. With grid == tiles that is one
 * tile a block. A persistent grid (grid < tiles) is launched with every
 * block resident, so the block holding any tile is running: the smallest
 * unfinished tile's predecessors are all done, and it finishes.
 */
template <class In, class Conv, class A, class S, class Op>
__global__ void
    __launch_bounds__(kScanThreads, scan_blocks_per_sm(sizeof(In), sizeof(A), std::is_same_v<Op, tile::op_prod>))
        scan_kernel(const __grid_constant__ scan_params p)
{
    constexpr int Items = scan_items(sizeof(In), sizeof(A));
    using L = tile::rows<In, Items>;
    constexpr int64_t kTile = (int64_t)kScanThreads * Items;
    constexpr unsigned kTileBytes = scan_tile_bytes<In, A>();
    constexpr int kStages = scan_stages<In, A>();
    __shared__ unsigned ticket_words[2];
    __shared__ A warp_totals[kScanWarps];
    __shared__ A shared_prefix;
    __shared__ uint64_t stage_full[kStages];
    GP_DYNAMIC_SHARED(stages); /* kStages x kTileBytes when p.staged */

    const In *in = static_cast<const In *>(p.in);
    auto whole = [&p](unsigned tile) { return ((int64_t)tile + 1) * kTile <= p.n; };
    auto fetch = [&](unsigned tile, int s) {
        stage::fetch(stages + s * kTileBytes, in + (int64_t)tile * kTile, kTileBytes, &stage_full[s]);
    };

    if (p.staged && threadIdx.x == 0) {
        for (int s = 0; s < kStages; s++) stage::barrier_init(&stage_full[s]);
        stage::fence_init();
    }
    lookback::ticket t = {0, 0};
    if (p.tiles > 1) t = lookback::take_ticket(p.arena, p.grid, p.tiles, ticket_words); /* a barrier inside */
    if (p.staged && threadIdx.x == 0)
        for (int s = 0; s < kStages; s++) {
            const unsigned long long tile = t.index + (unsigned long long)s * p.grid;
            if (tile < p.tiles && whole((unsigned)tile)) fetch((unsigned)tile, s);
        }

    const int warp = threadIdx.x / kWarp, lane = threadIdx.x % kWarp;
    const A start = p.exclusive ? tile::from_low_bits<A>(p.init_bits) : Op::template identity<A>();
    const lookback::arena &ar = p.arena;
    unsigned use = 0; /* tiles this block has scanned */
    /* tile + grid <= 2 tiles < 2^32: no wrap */
    for (unsigned tile = t.index; tile < p.tiles; tile += p.grid, use++) {
        const int64_t seg_base = (int64_t)tile * kTile + (int64_t)warp * L::kWarpItems;
        const int64_t valid = p.n - seg_base; /* <= 0 for warps past the end */
        const bool from_stage = p.staged && whole(tile);
        const int s = (int)(use % kStages);

        A x[L::R][L::V];
        if (from_stage) {
            stage::wait(&stage_full[s], (use / kStages) & 1u);
            tile::load_rows_shared<In, Conv, A, Items>(
                reinterpret_cast<const In *>(stages + s * kTileBytes) + warp * L::kWarpItems, x);
        } else {
            tile::load_rows<In, Conv, A, Items>(in + seg_base, valid, p.aligned, Op::template identity<A>(), x);
        }
        A lane_prefix[L::R];
        const A warp_total = tile::warp_scan_rows<Op>(x, lane_prefix);
        A warp_prefix, tile_total;
        tile::block_combine<Op, A, kScanWarps>(warp_total, warp_totals, warp_prefix, tile_total);
        /* Every thread has read stage s (the barrier in block_combine):
         * refill it with this block's tile kStages ahead. */
        if (from_stage && threadIdx.x == 0) {
            const unsigned long long ahead = tile + (unsigned long long)kStages * p.grid;
            if (ahead < p.tiles && whole((unsigned)ahead)) fetch((unsigned)ahead, s);
        }

        if (tile == 0) {
            if (threadIdx.x == 0 && p.tiles > 1)
                publish_value(ar, 0, t.epoch, lookback::kInclusive, Op::apply(start, tile_total));
        } else if (warp == 0) {
            if (lane == 0) publish_value(ar, tile, t.epoch, lookback::kAggregate, tile_total);
            const A before = prefix_before<Op, A>(ar, tile, t.epoch);
            if (lane == 0) {
                publish_value(ar, tile, t.epoch, lookback::kInclusive, Op::apply(before, tile_total));
                shared_prefix = before;
            }
        }
        /* Also orders this tile's reads of warp_totals and shared_prefix
         * before the next tile's writes. */
        __syncthreads();
        const A prefix = tile == 0 ? start : shared_prefix;

        /* out = (prefix op warp prefix op lane prefix) op local scan; the
         * exclusive scan shifts the local scan by one element. */
        const A base = Op::apply(prefix, warp_prefix);
        finish_rows<Op>(base, lane_prefix, p.exclusive, x);
        tile::store_rows<In, A, S, Items>(static_cast<S *>(p.out) + seg_base, valid, p.aligned, x);
    }
}

} // namespace
} // namespace gp_cuda

#include "cuda_scan_cluster.cuh"
#include "cuda_scan_pipelined.cuh"

namespace gp_cuda {
namespace {

/* ---------------------------------------------------------------- host side */

bool is_wrapping(gp_op op) { return op != GP_OP_MIN && op != GP_OP_MAX; }

/* Accumulator width (bytes) of a combination, as the kernels choose it. */
int acc_bytes(gp_dtype out_t, gp_op op)
{
    const int ob = (int)gp_dtype_size(out_t);
    return gp_dtype_kind(out_t) != GP_KIND_FLOAT && is_wrapping(op) && ob < 4 ? 4 : ob;
}

int64_t tile_elems(const gp_scan_args *a)
{
    return (int64_t)kScanThreads * scan_items((int)gp_dtype_size(a->in_t), acc_bytes(a->out_t, a->op));
}

unsigned long long tile_count(const gp_scan_args *a) { return lookback::tiles_of(tile_elems(a), a->n); }

/* kScanMaxElements (cuda_backend.h) holds for every tile: no input of that
 * many elements makes more than 2^31 - 1 tiles. */
constexpr bool min_tile_holds()
{
    for (int in = 1; in <= 8; in *= 2)
        for (int acc = in; acc <= 8; acc *= 2)
            if ((int64_t)kScanThreads * scan_items(in, acc) < kScanMinTile) return false;
    return true;
}
static_assert(min_tile_holds(), "kScanMinTile is above some scan tile");

template <class In, class Conv, class A, class S, class Op, bool Wide>
lookback::persistent_kernel pipelined_of()
{
    using shape = pipe_shape<In, A, Wide>;
    return {(const void *)scan_kernel_pipelined<In, Conv, A, S, Op, Wide>, (unsigned)shape::kThreads,
            shape::kSharedBytes, shape::kTile};
}

/* The kernel of one combination and the init's conversion into its
 * accumulator (the init is one out_t value). */
struct scan_kernel_choice {
    const void *fn;
    const char *name;
    unsigned long long (*init_bits)(const void *init);
    size_t stage_bytes; /* dynamic shared memory of a staged launch */
    lookback::persistent_kernel pipelined, wide; /* scan_kernel_pipelined, narrow and wide tiles (fn NULL: none) */
    const void *cluster; /* scan_kernel_cluster */
    int64_t cluster_tile; /* elements a block of it takes */
};

template <class Conv, class A>
unsigned long long init_as_acc(const void *init)
{
    Conv c;
    memcpy(&c, init, sizeof c);
    const A a = static_cast<A>(c);
    tile::ubits_t<A> b;
    memcpy(&b, &a, sizeof b);
    return (unsigned long long)b;
}

template <class In, class Conv, class A, class S, class Op>
scan_kernel_choice pick(const char *name)
{
    lookback::persistent_kernel pipelined = {NULL, 0, 0, 0}, wide = {NULL, 0, 0, 0};
    if constexpr (pipelined_scan<In, A, S>) pipelined = pipelined_of<In, Conv, A, S, Op, false>();
    if constexpr (wide_scan<In, A, S, Op>) {
        static_assert(pipe_shape<In, A, true>::kTile >= (int64_t)kScanThreads * scan_items(sizeof(In), sizeof(A)),
                      "the arena is sized for scan_kernel's tiles");
        wide = pipelined_of<In, Conv, A, S, Op, true>();
    }
    return {(const void *)scan_kernel<In, Conv, A, S, Op>,
            name,
            init_as_acc<Conv, A>,
            (size_t)scan_stages<In, A>() * scan_tile_bytes<In, A>(),
            pipelined,
            wide,
            (const void *)scan_kernel_cluster<In, Conv, A, S, Op>,
            (int64_t)kScanThreads * scan_cluster_items(sizeof(In), sizeof(A))};
}

/* X(in dtype, out dtype, C in, C out, unsigned out, wrapping accumulator):
 * every integer pair a scan accepts. */
#define GP_SCAN_INT_PAIRS(X)                                        \
    X(I8, I8, int8_t, int8_t, uint8_t, uint32_t)                    \
    X(I8, I16, int8_t, int16_t, uint16_t, uint32_t)                 \
    X(I8, I32, int8_t, int32_t, uint32_t, uint32_t)                 \
    X(I8, I64, int8_t, int64_t, uint64_t, uint64_t)                 \
    X(I16, I16, int16_t, int16_t, uint16_t, uint32_t)               \
    X(I16, I32, int16_t, int32_t, uint32_t, uint32_t)               \
    X(I16, I64, int16_t, int64_t, uint64_t, uint64_t)               \
    X(I32, I32, int32_t, int32_t, uint32_t, uint32_t)               \
    X(I32, I64, int32_t, int64_t, uint64_t, uint64_t)               \
    X(I64, I64, int64_t, int64_t, uint64_t, uint64_t)               \
    X(U8, U8, uint8_t, uint8_t, uint8_t, uint32_t)                  \
    X(U8, U16, uint8_t, uint16_t, uint16_t, uint32_t)               \
    X(U8, U32, uint8_t, uint32_t, uint32_t, uint32_t)               \
    X(U8, U64, uint8_t, uint64_t, uint64_t, uint64_t)               \
    X(U16, U16, uint16_t, uint16_t, uint16_t, uint32_t)             \
    X(U16, U32, uint16_t, uint32_t, uint32_t, uint32_t)             \
    X(U16, U64, uint16_t, uint64_t, uint64_t, uint64_t)             \
    X(U32, U32, uint32_t, uint32_t, uint32_t, uint32_t)             \
    X(U32, U64, uint32_t, uint64_t, uint64_t, uint64_t)             \
    X(U64, U64, uint64_t, uint64_t, uint64_t, uint64_t)

/* Wrapping ops with no widening load the unsigned type: i32 and u32 share. */
template <class In, class Out>
using wrap_in_t = std::conditional_t<sizeof(In) == sizeof(Out), std::make_unsigned_t<In>, In>;
template <class In, class Out>
using wrap_conv_t = std::conditional_t<sizeof(In) == sizeof(Out), std::make_unsigned_t<Out>, Out>;

#define GP_SCAN_PICK_INT(IN, OUT, TIN, TOUT, UOUT, WACC)                                                        \
    if (a->in_t == GP_DTYPE_##IN && a->out_t == GP_DTYPE_##OUT) {                                                 \
        using WI = wrap_in_t<TIN, TOUT>;                                                                          \
        using WC = wrap_conv_t<TIN, TOUT>;                                                                        \
        switch (a->op) {                                                                                          \
        case GP_OP_SUM: return pick<WI, WC, WACC, UOUT, tile::op_sum>("scan_kernel<" #IN "->" #OUT ", sum>");    \
        case GP_OP_PROD: return pick<WI, WC, WACC, UOUT, tile::op_prod>("scan_kernel<" #IN "->" #OUT ", prod>"); \
        case GP_OP_AND: return pick<WI, WC, WACC, UOUT, tile::op_and>("scan_kernel<" #IN "->" #OUT ", and>");    \
        case GP_OP_OR: return pick<WI, WC, WACC, UOUT, tile::op_or>("scan_kernel<" #IN "->" #OUT ", or>");       \
        case GP_OP_XOR: return pick<WI, WC, WACC, UOUT, tile::op_xor>("scan_kernel<" #IN "->" #OUT ", xor>");    \
        case GP_OP_MIN: return pick<TIN, TOUT, TOUT, TOUT, tile::op_min>("scan_kernel<" #IN "->" #OUT ", min>"); \
        case GP_OP_MAX: return pick<TIN, TOUT, TOUT, TOUT, tile::op_max>("scan_kernel<" #IN "->" #OUT ", max>"); \
        }                                                                                                         \
    }

#define GP_SCAN_FLOAT_PAIRS(X) \
    X(F32, F32, float, float)  \
    X(F32, F64, float, double) \
    X(F64, F64, double, double)

#define GP_SCAN_PICK_FLOAT(IN, OUT, TIN, TOUT)                                                                  \
    if (a->in_t == GP_DTYPE_##IN && a->out_t == GP_DTYPE_##OUT) {                                                 \
        switch (a->op) {                                                                                          \
        case GP_OP_SUM: return pick<TIN, TOUT, TOUT, TOUT, tile::op_sum>("scan_kernel<" #IN "->" #OUT ", sum>"); \
        case GP_OP_PROD: return pick<TIN, TOUT, TOUT, TOUT, tile::op_prod>("scan_kernel<" #IN "->" #OUT ", prod>"); \
        case GP_OP_MIN: return pick<TIN, TOUT, TOUT, TOUT, tile::op_min>("scan_kernel<" #IN "->" #OUT ", min>"); \
        case GP_OP_MAX: return pick<TIN, TOUT, TOUT, TOUT, tile::op_max>("scan_kernel<" #IN "->" #OUT ", max>"); \
        default: break;                                                                                           \
        }                                                                                                         \
    }

scan_kernel_choice choose(const gp_scan_args *a)
{
    GP_SCAN_INT_PAIRS(GP_SCAN_PICK_INT)
    GP_SCAN_FLOAT_PAIRS(GP_SCAN_PICK_FLOAT)
    return {NULL, NULL, NULL, 0, {NULL, 0, 0, 0}, {NULL, 0, 0, 0}, NULL, 0};
}

} // namespace

/* ------------------------------------------------------------- look-back arena */

namespace lookback {

gp_status prepare(gp_ctx *ctx, void *ws, unsigned long long slots, arena *out)
{
    cudaStream_t stream = static_cast<cudaStream_t>(ctx->stream);
    if (ctx->have_user_ws) {
        if (!ws) return gp_set_error(ctx, GP_STATUS_INTERNAL, "look-back: no workspace for %llu tiles", slots);
        /* The caller's workspace may hold anything (other calls share it):
         * zero the whole arena. */
        GP_CUDA_TRY(ctx, cudaMemsetAsync(ws, 0, arena_bytes(slots), stream));
        *out = arena_at(ws, slots);
        return GP_STATUS_OK;
    }
    /* The context's pool: zeroed once when (re)allocated, then kept valid
     * by the epochs and the scrub, so a call adds nothing to the stream. */
    context_state *st = state(ctx);
    if (slots > st->lookback_slots) {
        unsigned long long want = st->lookback_slots * 2;
        if (want < slots) want = slots;
        if (want < 1024) want = 1024;
        /* Launches in flight may still use the old pool. */
        GP_CUDA_TRY(ctx, cudaStreamSynchronize(stream));
        gp_ctx_dealloc(ctx, GP_MEM_DEVICE, st->lookback_pool);
        st->lookback_pool = NULL;
        st->lookback_slots = 0;
        void *p = gp_ctx_alloc(ctx, GP_MEM_DEVICE, arena_bytes(want));
        if (!p) return gp_ctx_alloc_failed(ctx, GP_MEM_DEVICE, arena_bytes(want), "the look-back pool");
        st->lookback_pool = p;
        GP_CUDA_TRY(ctx, cudaMemsetAsync(p, 0, arena_bytes(want), stream));
        st->lookback_slots = want;
    }
    *out = arena_at(st->lookback_pool, st->lookback_slots);
    return GP_STATUS_OK;
}

} // namespace lookback

/* --------------------------------------------------------------- entry points */

/* The arena, where the scan looks back over tiles; none on the context's
 * own scratch, as the statuses then live in the pool (lookback::prepare). */
size_t scan_workspace(const gp_ctx *ctx, const gp_scan_args *a, bool pooled)
{
    const unsigned long long tiles = tile_count(a);
    return tiles > 1 && !pooled ? lookback::arena_bytes(tiles) : 0;
}

gp_status scan(gp_ctx *ctx, const gp_scan_args *a, void *ws)
{
    const size_t in_size = gp_dtype_size(a->in_t), out_size = gp_dtype_size(a->out_t);
    /* Element-misaligned pointers would fault on the device and poison the
     * whole CUDA context; refuse them here instead. */
    if ((uintptr_t)a->in % in_size != 0 || (uintptr_t)a->out % out_size != 0)
        return gp_set_error(ctx, GP_STATUS_INVALID_ARGUMENT,
                            "gp_scan: in (%p) or out (%p) is not aligned to its element size", a->in, a->out);
    const scan_kernel_choice k = choose(a);
    if (!k.fn)
        return gp_set_error(ctx, GP_STATUS_INTERNAL, "gp_scan: no CUDA kernel for %s %s -> %s", gp_op_name(a->op),
                            gp_dtype_name(a->in_t), gp_dtype_name(a->out_t));
    const unsigned long long tiles = tile_count(a);
    if (tiles > 0x7fffffffull) /* the core refuses such an n first (kScanMaxElements); kept as the kernels' guard */
        return gp_set_error(ctx, GP_STATUS_INVALID_SIZE, "gp_scan: n = %lld needs more than 2^31 tiles",
                            (long long)a->n);

    scan_params p;
    memset(&p, 0, sizeof p);
    p.in = a->in;
    p.out = a->out;
    p.n = a->n;
    p.tiles = (unsigned)tiles;
    p.exclusive = a->exclusive;
    p.aligned = (uintptr_t)a->in % 16 == 0 && (uintptr_t)a->out % 16 == 0;
    p.init_bits = k.init_bits(a->init);

    device_scope scope;
    GP_CUDA_ENTER_DEVICE(ctx, scope);
#ifdef GPUPRIM_DEBUG_LAUNCH
    char what[160];
    snprintf(what, sizeof what, "%s (%s, n = %lld, %llu tiles)", k.name, a->exclusive ? "exclusive" : "inclusive",
             (long long)a->n, tiles);
#else
    const char *what = k.name;
#endif
    void *args[] = {&p};
    /* 2 to 16 blocks' worth: one cluster, no arena (cuda_scan_cluster.cuh). */
    const unsigned cluster = tiles > 1 ? small_cluster_blocks(ctx, k.cluster, (unsigned)kScanThreads) : 0;
    if (cluster > 0 && a->n <= (int64_t)cluster * k.cluster_tile) {
        const unsigned blocks = (unsigned)((a->n + k.cluster_tile - 1) / k.cluster_tile);
        return launch_cluster(ctx, k.cluster, what, blocks, blocks, (unsigned)kScanThreads, args, __FILE__, __LINE__);
    }
    if (tiles > 1) {
        gp_status s = lookback::prepare(ctx, ws, tiles, &p.arena);
        if (s != GP_STATUS_OK) return s;
    }
    /* More tiles than the device holds blocks: a persistent grid, its tiles
     * staged through shared memory (needs 16-byte aligned tiles). */
    p.grid = (unsigned)tiles;
    if (GP_SCAN_PERSISTENT && tiles > 1 && p.aligned) {
        /* The staged scan_kernel, the pipelined one (look-back warps), or
         * that with wide tiles where every block gets several of them. The
         * arena prepared above holds statuses for any of these tiles. */
        lookback::persistent_kernel run = {k.fn, (unsigned)kScanThreads, k.stage_bytes, tile_elems(a)};
        if (k.pipelined.fn && state(ctx)->lookback_warps) run = lookback::narrow_or_wide(ctx, k.pipelined, k.wide, a->n);
        const unsigned long long run_tiles = lookback::tiles_of(run.tile, a->n);
        const unsigned resident = resident_blocks(ctx, run.fn, run.threads, run.smem);
        if (resident > 0 && run_tiles > resident) {
            p.grid = resident;
            p.tiles = (unsigned)run_tiles;
            p.staged = 1;
            bool too_large = false;
#if GP_TIMELINE
            timeline::clear(static_cast<cudaStream_t>(ctx->stream));
#endif
            gp_status s =
                launch_resident(ctx, run.fn, what, p.grid, run.threads, run.smem, args, &too_large, __FILE__, __LINE__);
            if (s != GP_STATUS_OK) return s;
#if GP_TIMELINE
            if (!too_large) timeline::dump(static_cast<cudaStream_t>(ctx->stream), p.grid, p.tiles); /* it ran */
#endif
            if (too_large) {
                p.grid = (unsigned)tiles; /* the device is busy: one tile a block */
                p.tiles = (unsigned)tiles;
                p.staged = 0;
            }
        }
    }
    if (!p.staged) GP_CUDA_LAUNCH(ctx, k.fn, what, p.grid, (unsigned)kScanThreads, args);
    return GP_STATUS_OK;
}

} // namespace gp_cuda
