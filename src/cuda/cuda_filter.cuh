/*
 * The running-max filter's kernels (included by cuda_select.cu, after
 * the partitions; cuda_filter_cluster.cuh follows with the small filter,
 * and cuda_select.cu's host side launches both).
 *
 * A survivor is x >= the maximum of everything before it (NaN skipped;
 * descending: keys ~x or -x, see below). Blocks take chunks of tiles by
 * ticket, one status a chunk. A chunk's survivors depend on the maximum
 * before it, so its count is not an aggregate its predecessors can combine
 * blindly; but the maximum is. So two look-backs run in sequence over the
 * same status: the chunk publishes its maximum (state 1), looks back for
 * the maximum before it, counts its survivors (a suffix of its record
 * list, kept in shared memory), publishes the inclusive maximum and its
 * own count (state 2), looks back over counts (states >= 2, stopping at
 * 3), publishes its inclusive count (state 3) and writes its survivors.
 * Neither look-back waits on a predecessor's look-back of the same kind.
 * Bytes: the input once and the survivors once where a chunk's records fit
 * in shared memory, which the chunk size is chosen for: one chunk a block
 * where records are sparse (random data), a few tiles where they are dense
 * (ascending data).
 */
#ifndef GP_CUDA_FILTER_CUH
#define GP_CUDA_FILTER_CUH

namespace gp_cuda {
namespace {

/*
 * Keys: the descending filter is the ascending one on reversed keys, ~x for
 * integers (order-reversing for signed and unsigned alike) and -x for floats
 * (exact; NaN stays NaN). Both are their own inverse. A NaN key is never
 * >= anything, so it is never kept, and the running maximum (op_max_skip_nan,
 * from lowest()) never takes it.
 */
template <class T, bool Desc>
__device__ __forceinline__ T to_key(T x)
{
    if constexpr (!Desc) return x;
    else if constexpr (std::is_floating_point_v<T>) return -x;
    else return T(~x);
}

struct filter_params {
    const void *in;
    void *out;
    int64_t *count;
    int64_t n;
    unsigned tiles;
    unsigned chunks;            /* blocks, and chunks where records are sparse */
    unsigned chunk_tiles;       /* C there; chunk k is tiles [k C, k C + C), the last one shorter */
    unsigned dense_max_tiles;   /* largest C where records are dense, 0: C always (filter_kernel) */
    int aligned;
    lookback::arena arena;
};

/* Records a chunk keeps in shared memory: the first ones, kFilterRecordBytes
 * of them (dynamic shared memory), the same buffer that stages a written
 * tile. */
template <class T>
constexpr int kRecordCap = kFilterRecordBytes / (int)sizeof(T);

/*
 * One tile of keys against a running maximum `carry` (the maximum of every
 * key before the tile): mask[r] bit e is set where a key is >= carry and
 * every key before it in the tile (never for a NaN key, nor past n). Ranks
 * and counts those, updates carry. Two block barriers inside, and a vote
 * first when `vote` is set (then one barrier in all for a tile without a
 * record); `parity` picks the halves of the shared scratch, so consecutive
 * calls need no barrier between them.
 */
template <class T, bool Desc, int Items>
struct record_tile {
    using L = rows<T, Items>;
    T x[L::R][L::V];
    unsigned mask[L::R], row_base[L::R];
    unsigned warp_before, count;

    __device__ __forceinline__ void run(const filter_params &p, unsigned long long tile, T &carry, unsigned parity,
                                        T (*warp_maxima)[kSelectWarps], unsigned (*warp_counts)[kSelectWarps],
                                        bool vote)
    {
        using Max = tile::op_max_skip_nan;
        constexpr int64_t kTile = (int64_t)kSelectThreads * Items;
        const int warp = threadIdx.x / kWarp, lane = threadIdx.x % kWarp;
        const int64_t seg_base = (int64_t)tile * kTile + (int64_t)warp * L::kWarpItems;
        const int64_t valid = p.n - seg_base;
        /* Keys; missing elements get lowest() and are masked out below. */
        tile::load_rows<T, T, T, Items>(static_cast<const T *>(p.in) + seg_base, valid, p.aligned, tile::lowest<T>(),
                                        x);
#pragma unroll
        for (int r = 0; r < L::R; r++)
#pragma unroll
            for (int e = 0; e < L::V; e++) x[r][e] = to_key<T, Desc>(x[r][e]);
        /* lowest() is a key too (~lowest is highest for integers): refill. */
        if (Desc && valid < L::kWarpItems) {
#pragma unroll
            for (int r = 0; r < L::R; r++)
#pragma unroll
                for (int e = 0; e < L::V; e++)
                    if (L::index(r, lane, e) >= valid) x[r][e] = tile::lowest<T>();
        }
        /* A tile with no key >= carry has no record: on random data nearly
         * every tile past a chunk's first few. One vote then settles it,
         * with no row prefixes, ranks or second barrier. `vote` is off
         * where records are dense, as the vote would only cost. */
        T own = Max::template identity<T>();
#pragma unroll
        for (int r = 0; r < L::R; r++)
#pragma unroll
            for (int e = 0; e < L::V; e++) own = Max::apply(own, x[r][e]);
        if (vote && !__syncthreads_or(own >= carry)) {
#pragma unroll
            for (int r = 0; r < L::R; r++) mask[r] = row_base[r] = 0;
            warp_before = count = 0;
            return;
        }
        T lane_max[L::R];
        const T warp_max = tile::warp_row_prefixes<Max>(x, lane_max);
        T warp_max_before, tile_max;
        tile::block_combine<Max, T, kSelectWarps>(warp_max, warp_maxima[parity], warp_max_before, tile_max);
        const T entry = Max::apply(carry, warp_max_before);
#pragma unroll
        for (int r = 0; r < L::R; r++) {
            T m = Max::apply(entry, lane_max[r]);
            unsigned bits = 0;
#pragma unroll
            for (int e = 0; e < L::V; e++) {
                if (L::index(r, lane, e) < valid && x[r][e] >= m) bits |= 1u << e;
                m = Max::apply(m, x[r][e]);
            }
            mask[r] = bits;
        }
        const unsigned warp_count = tile::warp_rank_rows<L::R, L::V>(mask, row_base);
        tile::block_combine<tile::op_sum, unsigned, kSelectWarps>(warp_count, warp_counts[parity], warp_before, count);
        carry = Max::apply(carry, tile_max);
    }
};

/*
 * The chunk size where records are dense, 0 where they are sparse. Each
 * warp takes a window of 256 keys spread over the input and counts its
 * records (keys >= every earlier key of the window). Sparse: under 1 in
 * kFilterDenseShare over all windows (random data keeps ~6 of 256, mostly
 * ascending data ~100, f32 past 2^24 up to ~200 for ties). Dense: as many
 * tiles as the record buffer holds at the densest window's rate, within
 * [kFilterDenseMinTiles, p.dense_max_tiles]. Every block reads the same
 * keys and so answers the same. One barrier; `warp_records` is shared.
 */
template <class T, bool Desc>
__device__ __forceinline__ unsigned dense_chunk_tiles(const filter_params &p, unsigned *warp_records)
{
    using Max = tile::op_max_skip_nan;
    constexpr int kPerLane = 8, kWindow = kWarp * kPerLane;
    const int warp = threadIdx.x / kWarp, lane = threadIdx.x % kWarp;
    const int64_t start = (p.n - kWindow) / kSelectWarps * warp; /* the host asks only when n > kWindow */
    const T *x = static_cast<const T *>(p.in) + start + lane * kPerLane;
    T key[kPerLane];
    T own = Max::template identity<T>();
#pragma unroll
    for (int j = 0; j < kPerLane; j++) {
        key[j] = to_key<T, Desc>(x[j]);
        own = Max::apply(own, key[j]);
    }
    const T before = tile::shfl_up(tile::warp_inclusive<Max>(own, lane), 1);
    T m = lane == 0 ? Max::template identity<T>() : before;
    unsigned found = 0;
#pragma unroll
    for (int j = 0; j < kPerLane; j++) {
        found += key[j] >= m;
        m = Max::apply(m, key[j]);
    }
    found = tile::warp_all<tile::op_sum>(found);
    if (lane == 0) warp_records[warp] = found;
    __syncthreads();
    unsigned total = 0, most = 1;
#pragma unroll
    for (int w = 0; w < kSelectWarps; w++) {
        total += warp_records[w];
        most = warp_records[w] > most ? warp_records[w] : most;
    }
    if (total * kFilterDenseShare < (unsigned)(kSelectWarps * kWindow)) return 0;
    const unsigned fit = (unsigned)kRecordCap<T> * kWindow / (most * (unsigned)select_tile(sizeof(T)));
    const unsigned c = fit > kFilterDenseMinTiles ? fit : kFilterDenseMinTiles;
    return c < p.dense_max_tiles ? c : p.dense_max_tiles;
}

/*
 * Chunks of C tiles, taken by ticket, one status a chunk: the look-backs
 * run once per chunk instead of once per tile (docs/perf/scan.md: a
 * look-back under full traffic holds its tile for ~8 us, which bounded the
 * per-tile kernel at 1.2 ms for 2^28 int32).
 *
 * A chunk's survivors, for the maximum M of every key before it, are its
 * records (keys >= every earlier key of the chunk) that are >= M, and
 * records never decrease: a suffix of the record list. So:
 *   1. read the chunk once: its maximum, its record count R, and its first
 *      kRecordCap records in shared memory;
 *   2. publish the maximum, look back for M;
 *   3. j = the records below M: a binary search when the stored records
 *      reach M, else a second read that counts them (R > cap, rare);
 *   4. publish R - j, look back for the survivors before the chunk;
 *   5. write records j..R from shared memory, or (R > cap) read the chunk
 *      again with the running maximum starting at M and write its
 *      survivors, tile by tile.
 *
 * C: where records are sparse (random data) one chunk a block, so the
 * input is read once and the look-backs are few. Where they are dense
 * (ascending data keeps a third or more), a chunk that large overflows the
 * cap and reads itself twice from memory; chunks of a few tiles keep their
 * records in shared memory. Every block samples the same keys
 * (dense_chunk_tiles) and so picks the same C.
 */
template <class T, bool Desc>
__global__ void __launch_bounds__(kSelectThreads, filter_blocks_per_sm(sizeof(T)))
    filter_kernel(const __grid_constant__ filter_params p)
{
    constexpr int Items = select_items(sizeof(T));
    constexpr int kCap = kRecordCap<T>;
    using Max = tile::op_max_skip_nan;
    using Tile = record_tile<T, Desc, Items>;
    using L = typename Tile::L;
    __shared__ unsigned ticket_words[2], sample_records[kSelectWarps];
    __shared__ T warp_maxima[2][kSelectWarps];
    __shared__ unsigned warp_counts[2][kSelectWarps], warp_below[2][kSelectWarps];
    __shared__ unsigned long long shared_words[2];
    __shared__ T shared_max;
    GP_DYNAMIC_SHARED(record_bytes);
    T *const records = reinterpret_cast<T *>(record_bytes); /* kCap; 1: the first records, 5: a tile's survivors */

    const lookback::arena &ar = p.arena;
    const int warp = threadIdx.x / kWarp, lane = threadIdx.x % kWarp;
    const unsigned dense = p.dense_max_tiles ? dense_chunk_tiles<T, Desc>(p, sample_records) : 0;
    const bool sparse = dense == 0;
    const unsigned chunk_tiles = sparse ? p.chunk_tiles : dense;
    const unsigned chunks = (p.tiles + chunk_tiles - 1) / chunk_tiles;
    const bool multi = chunks > 1;
    unsigned parity = 0;

    /* One chunk; returns when it is written. */
    auto run_chunk = [&](lookback::ticket t) {
        const unsigned chunk = t.index;
        const unsigned long long first = (unsigned long long)chunk * chunk_tiles;
        const unsigned long long last = first + chunk_tiles < p.tiles ? first + chunk_tiles : p.tiles;

        /* 1. Maximum, record count, first records. */
        T chunk_max = tile::lowest<T>();
        unsigned long long held = 0; /* records so far */
        for (unsigned long long k = first; k < last; k++, parity ^= 1u) {
            Tile tl;
            tl.run(p, k, chunk_max, parity, warp_maxima, warp_counts, sparse);
            if (held < (unsigned long long)kCap) {
#pragma unroll
                for (int r = 0; r < L::R; r++) {
                    unsigned long long rank = held + tl.warp_before + tl.row_base[r];
#pragma unroll
                    for (int e = 0; e < L::V; e++)
                        if (tl.mask[r] >> e & 1u) {
                            if (rank < (unsigned long long)kCap) records[rank] = tl.x[r][e];
                            rank++;
                        }
                }
            }
            held += tl.count;
        }
        __syncthreads(); /* the records are in place */

        /* 2. The maximum before the chunk. */
        T before_max = tile::lowest<T>();
        if (multi && chunk != 0) {
            if (warp == 0) {
                if (lane == 0) {
                    lookback::put_value(ar, chunk, 0, lookback::to_slot(chunk_max));
                    lookback::publish(ar, chunk, t.epoch, lookback::kAggregate, 0);
                }
                auto read = [&ar](unsigned long long k, unsigned long long, bool at_stop) {
                    return lookback::from_slot<T>(lookback::get_value(ar, k, at_stop ? 1 : 0));
                };
                const T m =
                    lookback::look_back<Max, T, lookback::kAggregate, lookback::kInclusive>(ar, chunk, t.epoch, read);
                if (lane == 0) shared_max = m;
            }
            __syncthreads();
            before_max = shared_max;
        }

        /* 3. j: the chunk's records below the maximum before it. */
        const unsigned long long stored = held < (unsigned long long)kCap ? held : (unsigned long long)kCap;
        unsigned long long below;
        if (held <= (unsigned long long)kCap || !(records[stored - 1] < before_max)) {
            /* Records never decrease: the first one >= before_max, by bisection. */
            unsigned long long lo = 0, hi = stored;
            while (lo < hi) {
                const unsigned long long mid = (lo + hi) / 2;
                if (records[mid] < before_max) lo = mid + 1;
                else hi = mid;
            }
            below = lo;
        } else {
            /* More than kCap records below it: count them in a second read. */
            T carry = tile::lowest<T>();
            unsigned long long n_below = 0;
            for (unsigned long long k = first; k < last; k++, parity ^= 1u) {
                Tile tl;
                tl.run(p, k, carry, parity, warp_maxima, warp_counts, sparse);
                unsigned own = 0;
#pragma unroll
                for (int r = 0; r < L::R; r++)
#pragma unroll
                    for (int e = 0; e < L::V; e++) own += (tl.mask[r] >> e & 1u) && tl.x[r][e] < before_max;
                unsigned warp_prefix, tile_below;
                tile::block_combine<tile::op_sum, unsigned, kSelectWarps>(tile::warp_all<tile::op_sum>(own),
                                                                          warp_below[parity], warp_prefix, tile_below);
                n_below += tile_below;
            }
            below = n_below;
        }
        const unsigned long long kept = held - below;

        /* 4. The survivors before the chunk. */
        unsigned long long before = 0;
        if (multi) {
            const T max_through = Max::apply(before_max, chunk_max);
            if (chunk == 0) {
                if (threadIdx.x == 0) {
                    lookback::put_value(ar, 0, 1, lookback::to_slot(max_through));
                    lookback::publish(ar, 0, t.epoch, lookback::kFinal, kept);
                }
            } else {
                if (warp == 0) {
                    if (lane == 0) {
                        lookback::put_value(ar, chunk, 1, lookback::to_slot(max_through));
                        lookback::publish(ar, chunk, t.epoch, lookback::kInclusive, kept);
                    }
                    auto read = [](unsigned long long, unsigned long long tag, bool) {
                        return lookback::tag_payload(tag);
                    };
                    using Sum = tile::op_sum;
                    const unsigned long long b =
                        lookback::look_back<Sum, unsigned long long, lookback::kInclusive, lookback::kFinal, true>(
                            ar, chunk, t.epoch, read);
                    if (lane == 0) {
                        lookback::publish(ar, chunk, t.epoch, lookback::kFinal, b + kept);
                        shared_words[0] = b;
                    }
                }
                __syncthreads();
                before = shared_words[0];
            }
        }
        if (chunk == chunks - 1 && threadIdx.x == 0) *p.count = (int64_t)(before + kept);
        if (kept == 0) return;

        /* 5. The survivors, in order, as contiguous runs. */
        T *out = static_cast<T *>(p.out) + before;
        if (held <= (unsigned long long)kCap) {
            for (unsigned long long i = threadIdx.x; i < kept; i += kSelectThreads)
                out[i] = to_key<T, Desc>(records[below + i]); /* the key's inverse is itself */
            return;
        }
        __syncthreads(); /* every bisection read the records: the buffer stages tiles now */
        T carry = before_max;
        for (unsigned long long k = first; k < last; k++, parity ^= 1u) {
            Tile tl;
            /* its barriers: the last tile's run is written */
            tl.run(p, k, carry, parity, warp_maxima, warp_counts, sparse);
#pragma unroll
            for (int r = 0; r < L::R; r++) {
                unsigned rank = tl.warp_before + tl.row_base[r];
#pragma unroll
                for (int e = 0; e < L::V; e++)
                    if (tl.mask[r] >> e & 1u) records[rank++] = to_key<T, Desc>(tl.x[r][e]);
            }
            __syncthreads();
            for (int i = threadIdx.x; i < (int)tl.count; i += kSelectThreads) out[i] = records[i];
            out += tl.count;
        }
    };

    if (!multi) {
        run_chunk(lookback::ticket{0, 0});
        return;
    }
    /* Each block (p.chunks of them) takes one ticket past the last chunk. */
    for (;;) {
        const lookback::ticket t = lookback::take_ticket(ar, chunks + p.chunks, chunks, ticket_words);
        if (t.index >= chunks) return; /* take_ticket's barrier: the last chunk's shared memory is free */
        run_chunk(t);
    }
}

} // namespace
} // namespace gp_cuda

#endif
