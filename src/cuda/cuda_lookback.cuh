/*
 * Decoupled look-back (Merrill and Garland, "Single-pass Parallel Prefix
 * Scan with Decoupled Look-back", 2016), shared by scan, select, partition
 * and the running-max filter: one launch, each input element read once.
 *
 * Every tile publishes a status word: first its aggregate (what its own
 * elements combine to), later its inclusive prefix (everything up to and
 * including it). A tile finds its exclusive prefix by walking back over its
 * predecessors' statuses, a warp-wide window of 32 at a time, combining
 * aggregates until it meets an inclusive prefix. Aggregates need no
 * predecessor, so no tile waits on a chain of prefixes.
 *
 * Tickets, not blockIdx. Tiles are handed out in launch order by an atomic
 * ticket: a tile that waits on a predecessor knows the predecessor holds a
 * ticket, hence is running, hence will publish. Nothing here assumes the
 * hardware starts blocks in index order.
 *
 * No reset launch. Status words live in an "arena": a control word and a
 * status line per tile (a 64-bit tag, and room for values that do not fit
 * it; one line each, below). The control word packs (epoch << 32 | ticket counter);
 * each block's atomicAdd returns both at once, so every tile of a launch
 * sees the same epoch, and the block that takes the last ticket restarts
 * the counter at 0 under epoch + 1 for the next launch. A tag is
 *
 *     [63:40] epoch (low 24 bits)  [39:38] state  [37:0] payload
 *
 * and only counts when its epoch is the launch's: statuses left by earlier
 * launches are stale by construction and never need clearing. State 0 is
 * "nothing yet", so an all-zero tag is never valid. An epoch repeats after
 * 2^24 launches; for a stale tag never to pass for a fresh one, each launch
 * also zeroes (scrubs) kScrubPerLaunch tags outside the range it uses,
 * sweeping the whole arena every arena_slots / 256 launches, far fewer than
 * 2^24. The payload holds a value of up to 32 bits or a count below 2^38.
 * An 8-byte scan value travels with its tag in the line's first 16 bytes,
 * stored and loaded as one access ("wide statuses" below); other wider
 * values go to the line's value slots, written before the tag with release
 * semantics and read after it with acquire semantics.
 *
 * A line a status (GP_STATUS_BYTES, cuda_tuning.h), not 8 dense bytes:
 * every look-back window polls the newest statuses, which the tiles in
 * flight are writing, and 16 tags to a 128-byte line made each line a
 * point of contention in L2 for both (docs/perf/scan.md, round 18).
 *
 * Where the arena lives: in a buffer the context keeps for look-back alone
 * (allocated zeroed, grown rarely), so the hot path makes one launch and no
 * memset. A caller who hands in a workspace gets the arena there instead,
 * zeroed by one cudaMemsetAsync per call (a shared workspace may hold
 * anything, and an arbitrary word could look like a fresh tag).
 */
#ifndef GP_CUDA_LOOKBACK_CUH
#define GP_CUDA_LOOKBACK_CUH

#include <stdint.h>

#include "cuda_common.cuh" /* the CUDA runtime, error checks */
#include "cuda_memory_order.cuh"
#include "cuda_tile.cuh"
#include "cuda_tuning.h"
#include "gp_internal.h"

namespace gp_cuda {
namespace lookback {

/* ------------------------------------------------------------ the arena */

constexpr size_t kArenaControlBytes = 256;      /* the control word, on its own */
/* A status line's words: [0] the tag, [1] a wide status's value (with the
 * tag, one 16-byte access), [2] and [3] the value slots. */
constexpr unsigned kStatusWords = GP_STATUS_BYTES / 8;
static_assert(GP_STATUS_BYTES % 32 == 0 && GP_STATUS_BYTES >= 32, "tag, wide value, two value slots");
constexpr unsigned kScrubPerLaunch = 256;  /* tags zeroed per launch; <= the block size */
constexpr int kEpochShift = 40, kStateShift = 38;
constexpr unsigned kEpochMask = (1u << 24) - 1;
constexpr unsigned long long kPayloadMask = (1ull << 38) - 1;
/* Counts must stay below this to fit a payload. */
constexpr unsigned long long kMaxCount = kPayloadMask;

/* Tag states. Scan and select use kAggregate then kInclusive; the filter
 * uses all three (see cuda_select.cu). */
enum : unsigned { kEmpty = 0, kAggregate = 1, kInclusive = 2, kFinal = 3 };

/* Bytes of an arena with `slots` statuses. */
__host__ __device__ inline size_t arena_bytes(unsigned long long slots)
{
    return kArenaControlBytes + (size_t)slots * GP_STATUS_BYTES;
}

/* The arena as kernels see it (passed by value). */
struct arena {
    unsigned long long *control; /* epoch << 32 | ticket */
    unsigned long long *lines;   /* kStatusWords a slot */
    unsigned long long slots;    /* statuses in the arena (the scrub sweeps them all) */
};

/* Word `w` of `slot`'s status line. */
__host__ __device__ inline unsigned long long *status_word(const arena &a, unsigned long long slot, unsigned w)
{
    return a.lines + slot * kStatusWords + w;
}

inline arena arena_at(void *base, unsigned long long slots)
{
    char *b = static_cast<char *>(base);
    arena a;
    a.control = reinterpret_cast<unsigned long long *>(b);
    a.lines = reinterpret_cast<unsigned long long *>(b + kArenaControlBytes);
    a.slots = slots;
    return a;
}

/*
 * The arena for a launch that uses `slots` statuses: with the context's own
 * scratch, the context's look-back pool (ws unused; the first call past the
 * pool's size reallocates it, synchronising); with a caller's workspace,
 * that workspace (arena_bytes(slots) of it), zeroed on the stream. Defined
 * in cuda_scan.cu.
 */
gp_status prepare(gp_ctx *ctx, void *ws, unsigned long long slots, arena *out);

/* Tiles of `tile` elements that n elements take. */
inline unsigned long long tiles_of(long long tile, int64_t n) { return (unsigned long long)((n + tile - 1) / tile); }

/* A persistent look-back kernel of the scan or the selections and its
 * launch shape. */
struct persistent_kernel {
    const void *fn;
    unsigned threads;
    size_t smem;    /* dynamic shared memory */
    long long tile; /* elements */
};

/* `wide` (cuda_tuning.h; fn NULL where there is none)
 * where the device's blocks get at least kWideMinTilesPerBlock of its tiles
 * of n elements each, else `narrow`. */
inline const persistent_kernel &narrow_or_wide(gp_ctx *ctx, const persistent_kernel &narrow,
                                               const persistent_kernel &wide, int64_t n)
{
    if (!wide.fn) return narrow;
    const unsigned resident = resident_blocks(ctx, wide.fn, wide.threads, wide.smem);
    const bool pays = resident > 0 && (long long)tiles_of(wide.tile, n) >= kWideMinTilesPerBlock * (long long)resident;
    return pays ? wide : narrow;
}

/* ------------------------------------------------------- memory ordering */

/* ld_acquire and the other 8-byte accesses: cuda_memory_order.cuh. */

/* A status's tag and 8-byte value as one 16-byte access: with nothing
 * outside the word to order, relaxed is enough on both sides. */
struct wide_word {
    unsigned long long tag, value;
};

__device__ __forceinline__ void st_wide(unsigned long long *p, unsigned long long tag, unsigned long long value)
{
#ifdef GP_CUDA_EMULATE
    unsigned __int128 w = (unsigned __int128)value << 64 | tag;
    __atomic_store(reinterpret_cast<unsigned __int128 *>(p), &w, __ATOMIC_RELAXED);
#else
    asm volatile("{\n\t.reg .b128 w;\n\tmov.b128 w, {%1, %2};\n\tst.relaxed.gpu.global.b128 [%0], w;\n\t}" ::"l"(p),
                 "l"(tag), "l"(value)
                 : "memory");
#endif
}

__device__ __forceinline__ wide_word ld_wide(const unsigned long long *p)
{
    wide_word v;
#ifdef GP_CUDA_EMULATE
    unsigned __int128 w;
    __atomic_load(reinterpret_cast<const unsigned __int128 *>(p), &w, __ATOMIC_RELAXED);
    v.tag = (unsigned long long)w, v.value = (unsigned long long)(w >> 64);
#else
    asm volatile("{\n\t.reg .b128 w;\n\tld.relaxed.gpu.global.b128 w, [%2];\n\tmov.b128 {%0, %1}, w;\n\t}"
                 : "=l"(v.tag), "=l"(v.value)
                 : "l"(p)
                 : "memory");
#endif
    return v;
}

/* ------------------------------------------------------------------ tags */

__device__ __forceinline__ unsigned long long make_tag(unsigned epoch, unsigned state, unsigned long long payload)
{
    return (unsigned long long)(epoch & kEpochMask) << kEpochShift | (unsigned long long)state << kStateShift |
           (payload & kPayloadMask);
}

/* The tag's state if it belongs to this launch, else kEmpty. */
__device__ __forceinline__ unsigned tag_state(unsigned long long tag, unsigned epoch)
{
    return (unsigned)(tag >> kEpochShift) == (epoch & kEpochMask) ? (unsigned)(tag >> kStateShift) & 3u : kEmpty;
}

__device__ __forceinline__ unsigned long long tag_payload(unsigned long long tag) { return tag & kPayloadMask; }

/* A value of up to 8 bytes as the 64 bits of a value slot, and back. */
template <class A>
__device__ __forceinline__ unsigned long long to_slot(A v)
{
    return (unsigned long long)tile::bits_as<tile::ubits_t<A>>(v);
}
template <class A>
__device__ __forceinline__ A from_slot(unsigned long long b)
{
    return tile::from_low_bits<A>(b);
}

/* Publishes a status (one thread). Release: a value slot written before by
 * the same thread is visible to whoever acquires the tag. */
__device__ __forceinline__ void publish(const arena &a, unsigned long long slot, unsigned epoch, unsigned state,
                                        unsigned long long payload)
{
    st_release(status_word(a, slot, 0), make_tag(epoch, state, payload));
#ifdef GP_CUDA_EMULATE
    gp_emu_published(state, slot);
#endif
}

/* publish for a status whose whole value is its payload: nothing else to
 * order, so (GP_LOOKBACK_RELAXED) a relaxed store. */
__device__ __forceinline__ void publish_payload(const arena &a, unsigned long long slot, unsigned epoch, unsigned state,
                                                unsigned long long payload)
{
#if GP_LOOKBACK_RELAXED
    st_relaxed(status_word(a, slot, 0), make_tag(epoch, state, payload));
#ifdef GP_CUDA_EMULATE
    gp_emu_published(state, slot);
#endif
#else
    publish(a, slot, epoch, state, payload);
#endif
}

/* Writes value slot `which` (0 aggregate, 1 inclusive) of `slot`; publish after. */
__device__ __forceinline__ void put_value(const arena &a, unsigned long long slot, int which, unsigned long long bits)
{
    st_relaxed(status_word(a, slot, 2 + which), bits);
}

__device__ __forceinline__ unsigned long long get_value(const arena &a, unsigned long long slot, int which)
{
    return ld_relaxed(status_word(a, slot, 2 + which));
}

/* Wide statuses: a status and its 8-byte value in the first 16 bytes of
 * `slot`'s line (the tag first), written at once; an inclusive one replaces
 * the aggregate. */
__device__ __forceinline__ void publish_wide(const arena &a, unsigned long long slot, unsigned epoch, unsigned state,
                                             unsigned long long value)
{
    st_wide(status_word(a, slot, 0), make_tag(epoch, state, 0), value);
#ifdef GP_CUDA_EMULATE
    gp_emu_published(state, slot);
#endif
}

/* --------------------------------------------------------------- tickets */

struct ticket {
    unsigned index; /* the tile (or task) this block works on */
    unsigned epoch;
};

/*
 * Block-wide (every thread calls it; one __syncthreads inside). Thread 0
 * takes the launch's next ticket; `tickets` is the number of blocks in the
 * launch, `slots_used` the statuses it writes. `shared` is two words of
 * shared memory. The block with ticket 0 scrubs tags outside [0, slots_used).
 *
 * Tiles by ticket (tickets = 0): thread 0 takes `take` tickets at once,
 * tiles index .. index + take - 1, and later ones one at a time
 * (draw_tile_if); the launch's last block to stop drawing (stop_drawing)
 * starts the next launch, as no ticket count is known in advance.
 */
__device__ __forceinline__ ticket take_ticket(const arena &a, unsigned tickets, unsigned long long slots_used,
                                              unsigned *shared, unsigned take = 1)
{
    if (threadIdx.x == 0) {
        const unsigned long long w = atomicAdd(a.control, (unsigned long long)take);
        const unsigned epoch = (unsigned)(w >> 32), t = (unsigned)w;
        /* Every other ticket of this launch is taken: start the next launch. */
        if (tickets != 0 && t == tickets - 1) atomicExch(a.control, (unsigned long long)(epoch + 1u) << 32);
        shared[0] = t;
        shared[1] = epoch;
    }
    __syncthreads();
    const ticket k = {shared[0], shared[1]};
    if (k.index == 0 && a.slots > slots_used && threadIdx.x < kScrubPerLaunch) {
        /* Consecutive epochs take consecutive windows of the arena. Nothing
         * in this launch reads a tag at or past slots_used. */
        const unsigned long long p =
            ((unsigned long long)(k.epoch & kEpochMask) * kScrubPerLaunch + threadIdx.x) % a.slots;
        if (p >= slots_used) st_relaxed(status_word(a, p, 0), 0ull);
    }
    return k;
}

/* Tiles by ticket: where `go` (thread 0 only), draws the launch's next
 * tile into the low 32 bits of `drawn` (past the last tile once every one
 * is taken); elsewhere leaves it. Relaxed: stop_drawing orders it.
 *
 * Why this form. The caller needs the tile a use later, so the draw's
 * round trip should cost its warp nothing. ptxas turns an atomic on an
 * address it sees as uniform into a warp-aggregated one that shuffles the
 * result at once, and copies a result into the variable it was assigned
 * to: either way the warp waited out the round trip at every draw (2.4%
 * at 2^28 int32; docs/perf/scan.md, round 42). So the address is control
 * + %laneid (thread 0: + 0) and `drawn` is the instruction's own operand. */
__device__ __forceinline__ void draw_tile_if(const arena &a, bool go, unsigned long long &drawn)
{
#ifdef GP_CUDA_EMULATE
    if (go) drawn = atomicAdd(a.control + threadIdx.x % 32, 1ull);
#else
    unsigned lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %2, 0;\n\t"
                 "@p atom.relaxed.gpu.global.add.u64 %0, [%1], 1;\n\t}"
                 : "+l"(drawn)
                 : "l"(a.control + lane), "r"((unsigned)go)
                 : "memory");
#endif
}

/* Tiles by ticket, thread 0, once its block will draw no more: the last of
 * the launch's `grid` blocks to get here restarts the ticket counter under
 * epoch + 1. Acquire-release on the arena's second control word, so that
 * every block's draws happen before that restart. */
__device__ __forceinline__ void stop_drawing(const arena &a, unsigned grid, unsigned epoch)
{
    unsigned long long *stopped = a.control + 1; /* 0 between launches */
#ifdef GP_CUDA_EMULATE
    const unsigned long long before = __atomic_fetch_add(stopped, 1ull, __ATOMIC_ACQ_REL);
#else
    unsigned long long before;
    asm volatile("atom.acq_rel.gpu.global.add.u64 %0, [%1], 1;" : "=l"(before) : "l"(stopped) : "memory");
#endif
    if (before != grid - 1) return;
    st_relaxed(stopped, 0ull);
    atomicExch(a.control, (unsigned long long)(epoch + 1u) << 32);
}

/* ------------------------------------------------------------- look-back */

/* Sleeps between polls, up to GP_LOOKBACK_MAX_SLEEP_NS (cuda_tuning.h). */
__device__ __forceinline__ void backoff(unsigned &delay_ns)
{
    if (GP_LOOKBACK_MAX_SLEEP_NS == 0) return;
    __nanosleep(delay_ns);
    if (delay_ns < GP_LOOKBACK_MAX_SLEEP_NS) delay_ns *= 2;
}

/*
 * Warp-wide (all 32 lanes of one warp). Returns on every lane the
 * combination of everything before tile `tile_id`: walking back, each status
 * must reach state `Need` (the walk waits for it, with backoff); the first
 * one at `Stop` or above contributes its inclusive value and ends the walk,
 * the ones after it their aggregates. read(slot, tag, at_stop) gives a
 * lane's value: from the tag's payload, or from a value slot (the tag was
 * read with acquire, so the slot is there). Op is commutative (all ours
 * are), so the order of combining does not matter.
 *
 * A window is kWarp x M predecessors (M = kLookbackTagsPerLane), read in one
 * round trip: lane l reads offsets j x 32 + l back from the newest, j < M,
 * as M independent loads. Offsets grow with j, then with the lane, so the
 * nearest stop is in the lowest j whose ballot has one, at its lowest lane.
 *
 * InTag: a status's value is all in its tag (read looks at nothing else),
 * so with GP_LOOKBACK_RELAXED the polls are relaxed loads: there is nothing
 * behind the tag for an acquire to order. Wide: the statuses are wide words
 * (publish_wide), polled with relaxed 16-byte loads, and read is given the
 * word's value in place of the tag.
 */
template <class Op, class A, unsigned Need, unsigned Stop, bool InTag = false, bool Wide = false, class Read>
__device__ __forceinline__ A look_back(const arena &a, unsigned long long tile_id, unsigned epoch, Read read)
{
    constexpr int M = kLookbackTagsPerLane;
    const int lane = threadIdx.x % kWarp;
    A acc = Op::template identity<A>();
    long long newest = (long long)tile_id - 1; /* lane l, round j: newest - 32 j - l */
    for (;;) {
        unsigned long long tag[M], value[M];
        /* Bit j: round j's status is up to the nearest stop (combine it), is
         * the stop. Bits, not arrays: the look-back runs beside the tile's
         * registers, under the block's cap. */
        unsigned take, at_stop;
        bool stopped;
        unsigned delay_ns = 32;
        for (;;) {
#pragma unroll
            for (int j = 0; j < M; j++) {
                const long long k = newest - j * kWarp - lane;
                if constexpr (Wide) {
                    const wide_word w = k < 0 ? wide_word{0ull, 0ull} : ld_wide(status_word(a, (unsigned long long)k, 0));
                    tag[j] = w.tag, value[j] = w.value;
                } else {
                    tag[j] = k < 0          ? 0ull
                             : InTag && GP_LOOKBACK_RELAXED ? ld_relaxed(status_word(a, (unsigned long long)k, 0))
                                                            : ld_acquire(status_word(a, (unsigned long long)k, 0));
                }
            }
            bool waiting = false;
            take = 0, at_stop = 0, stopped = false;
#pragma unroll
            for (int j = 0; j < M; j++) {
                const bool before_tile0 = newest - j * kWarp - lane < 0; /* never reached: tile 0 is at Stop */
                const unsigned state = before_tile0 ? Stop : tag_state(tag[j], epoch);
                const unsigned stops = __ballot_sync(tile::kFullMask, state >= Stop);
                const unsigned upto = stopped ? 0u : stops ? stops ^ (stops - 1) : tile::kFullMask;
                waiting = waiting || (__ballot_sync(tile::kFullMask, state < Need) & upto) != 0;
                stopped = stopped || stops != 0;
                take |= ((upto >> lane & 1u) && !before_tile0 ? 1u : 0u) << j;
                at_stop |= (state >= Stop ? 1u : 0u) << j;
            }
            if (!waiting) break; /* warp-uniform: made of ballots */
            backoff(delay_ns);
        }
#ifdef GP_CUDA_EMULATE
        if (lane == 0) gp_emu_lookback_window(stopped ? 1u : 0u, take & 1u && at_stop & 1u ? 1u : 2u);
#endif
        A v = Op::template identity<A>();
#pragma unroll
        for (int j = 0; j < M; j++)
            if (take >> j & 1u)
                v = Op::apply(v, read((unsigned long long)(newest - j * kWarp - lane), Wide ? value[j] : tag[j],
                                      (at_stop >> j & 1u) != 0));
        acc = Op::apply(tile::warp_all<Op>(v), acc);
        if (stopped) return acc;
        newest -= M * kWarp;
    }
}

/* One thread: waits until `slot` reaches `state` in this launch; returns
 * its payload. */
__device__ __forceinline__ unsigned long long wait_for(const arena &a, unsigned long long slot, unsigned epoch,
                                                       unsigned state)
{
    unsigned delay_ns = 64;
    for (;;) {
        const unsigned long long tag = ld_acquire(status_word(a, slot, 0));
        if (tag_state(tag, epoch) >= state) return tag_payload(tag);
        backoff(delay_ns);
    }
}

} // namespace lookback
} // namespace gp_cuda

#endif
