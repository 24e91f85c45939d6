/*
 * CPU selection, partition and the running-max filter.
 *
 * All three walk the input in rounds of (threads x block) elements: each
 * thread measures its block (a count of selected items, or the block's
 * maximum), one thread turns the measures into per-block offsets from the
 * running carry, and each thread then writes its block. The second look at
 * a block comes from the thread's cache, so the input crosses the memory
 * bus once (partition reads it once more to count: the rejected items go
 * after all selected ones, so their offset needs the total first).
 *
 * Compaction is branchless: every element is stored at the next output slot
 * and the slot advances only when the element is kept. The loop stops at
 * the block's last kept element, so no store lands past the block's own
 * output range (which another thread is writing). Where the CPU has
 * AVX-512 or AVX2, selections and partitions compact whole vectors instead
 * (cpu_select_simd.c, cpu_select_avx2.c, cpu_select_avx2_narrow.c),
 * comparing as they go rather than through flags.
 */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <string.h>

#include "cpu_backend.h"
#include "cpu_select_simd.h"

/* Tuning, 2-core development machine (2026-11-22). */
enum {
    GP_CPU_SEL_BLOCK = 16384,     /* elements per thread per round (<= 128 KiB of input) */
    /* The SIMD paths' block, in bytes of input (timed on the AVX-512 path): its
     * blocks of 16384 1-byte items took a microsecond each, less than the
     * barriers between rounds. Kept over a share of the input a thread,
     * which lost at 1 MiB on 16 threads (docs/perf/scan.md, round 77).
     * 2 threads on the 2-core machine, 3 interleaved rounds (2026-12-02):
     * select, select-if and partition-if 1.0-1.6x faster from 2^17 to 2^22
     * items of 1 and 4 bytes, partitions by flags level (0.83-1.15x). */
    GP_CPU_SIMD_BLOCK_BYTES = 128 << 10,
    GP_CPU_SEL_PAR_MIN = 1 << 16, /* elements below which one thread does it all */
    /* The filter's threads read the input three times (maxima, counts, survivors),
     * one thread once, so it takes threads only where it has 4 or more. On the
     * 2-core machine one thread was the faster to 10^6; on the GPU machine's 16
     * cores (2026-12-02, int32 random / mostly ascending, inputs rotated) threads
     * took 46 / 105 us at 2^16 against one thread's 52 / 125, 41 / 100 at 2^17
     * against 83 / 184, and 101 / 198 at 2^19 against 374 / 1000. */
    GP_CPU_FILT_MIN_THREADS = 4,
    GP_CPU_SEL_MAX_THREADS = 256,
    /* The filter passes over chunks of GP_FILT_CHUNK whose largest key is below the
     * running maximum. `gpuprim bench filter,filter-ascending` on the 2-core machine
     * (2026-12-02, int32, inputs rotated), against the element-by-element blocks
     * before: random data 1.7x faster at 10^4 and 2.6-3x at 10^5-10^7, mostly
     * ascending data (branchless within a chunk) 3.5-4.4x; against seed 002's
     * loop 1.3-2.3x and 3.1-3.4x. */
    GP_FILT_CHUNK = 64,
    GP_FILT_LANES = 8
};

/* Selection, partition and the filter: none takes a workspace (the
 * backend table gives this function for both). */
size_t gp_cpu_select_workspace(const gp_ctx *ctx, gp_dtype t, int64_t n, bool pooled) { return 0; }

/* No more threads than blocks (of `block` elements): a thread without one
 * would only wait at the barriers (on a 16-core host the filter at 2^16
 * took 956 us with 16 threads for 4 blocks, against 67 us at 2^18). */
static int thread_count(int64_t n, int64_t block)
{
    int want = omp_get_max_threads();
    if (want > GP_CPU_SEL_MAX_THREADS) want = GP_CPU_SEL_MAX_THREADS;
    const int64_t blocks = (n + block - 1) / block;
    if (want > blocks) want = (int)blocks;
    return n < GP_CPU_SEL_PAR_MIN || want < 1 ? 1 : want;
}

/* ------------------------------------------------------------- predicates */

/* f[i] = (x[i] cmp v) for one block; returns the number set. */
#define GP_SEL_PRED_LOOP(T, OPR)                                        \
    for (int64_t i = 0; i < n; i++) {                                   \
        uint8_t s = (uint8_t)(x[i] OPR v);                              \
        f[i] = s;                                                       \
        c += s;                                                         \
    }

#define GP_SEL_DEF_PRED(NAME, T)                                                          \
    static int64_t NAME##_pred(const void *xv, int64_t n, gp_cmp cmp, const void *vp, uint8_t *f) \
    {                                                                                     \
        const T *restrict x = (const T *)xv;                                              \
        T v;                                                                              \
        memcpy(&v, vp, sizeof v);                                                         \
        int64_t c = 0;                                                                    \
        switch (cmp) {                                                                    \
        case GP_CMP_LT: GP_SEL_PRED_LOOP(T, <) break;                                     \
        case GP_CMP_LE: GP_SEL_PRED_LOOP(T, <=) break;                                    \
        case GP_CMP_GT: GP_SEL_PRED_LOOP(T, >) break;                                     \
        case GP_CMP_GE: GP_SEL_PRED_LOOP(T, >=) break;                                    \
        case GP_CMP_EQ: GP_SEL_PRED_LOOP(T, ==) break;                                    \
        case GP_CMP_NE: GP_SEL_PRED_LOOP(T, !=) break;                                    \
        }                                                                                 \
        return c;                                                                         \
    }

#define GP_SEL_DTYPES(X)           \
    X(i8, int8_t, GP_DTYPE_I8)     \
    X(u8, uint8_t, GP_DTYPE_U8)    \
    X(i16, int16_t, GP_DTYPE_I16)  \
    X(u16, uint16_t, GP_DTYPE_U16) \
    X(i32, int32_t, GP_DTYPE_I32)  \
    X(u32, uint32_t, GP_DTYPE_U32) \
    X(i64, int64_t, GP_DTYPE_I64)  \
    X(u64, uint64_t, GP_DTYPE_U64) \
    X(f32, float, GP_DTYPE_F32)    \
    X(f64, double, GP_DTYPE_F64)

/* One thread's select by comparison: compares as it keeps, as the serial
 * keep loop does, from the start to the last item that passes (found from
 * the end first), so that nothing is stored past the selection. A flags
 * pass, then a compaction reading them, ran at half the loop's speed. */
#define GP_SEL_KEEP_LOOP(OPR)                                           \
    while (last >= 0 && !(x[last] OPR v)) last--;                       \
    for (int64_t i = 0; i <= last; i++) {                               \
        out[k] = x[i];                                                  \
        k += x[i] OPR v;                                                \
    }

#define GP_SEL_DEF_KEEP_IF(NAME, T)                                                           \
    static int64_t NAME##_keep_if(const void *xv, int64_t n, gp_cmp cmp, const void *vp, void *ov) \
    {                                                                                         \
        const T *restrict x = (const T *)xv;                                                  \
        T *restrict out = (T *)ov;                                                            \
        T v;                                                                                  \
        memcpy(&v, vp, sizeof v);                                                             \
        int64_t k = 0, last = n - 1;                                                          \
        switch (cmp) {                                                                        \
        case GP_CMP_LT: GP_SEL_KEEP_LOOP(<) break;                                            \
        case GP_CMP_LE: GP_SEL_KEEP_LOOP(<=) break;                                           \
        case GP_CMP_GT: GP_SEL_KEEP_LOOP(>) break;                                            \
        case GP_CMP_GE: GP_SEL_KEEP_LOOP(>=) break;                                           \
        case GP_CMP_EQ: GP_SEL_KEEP_LOOP(==) break;                                           \
        case GP_CMP_NE: GP_SEL_KEEP_LOOP(!=) break;                                           \
        }                                                                                     \
        return k;                                                                             \
    }

#define GP_SEL_DEF_PRED_X(NAME, T, E) GP_SEL_DEF_PRED(NAME, T) GP_SEL_DEF_KEEP_IF(NAME, T)
GP_SEL_DTYPES(GP_SEL_DEF_PRED_X)

typedef int64_t (*pred_fn)(const void *x, int64_t n, gp_cmp cmp, const void *v, uint8_t *f);
typedef int64_t (*keep_if_fn)(const void *x, int64_t n, gp_cmp cmp, const void *v, void *out);

/* The dtype's predicate and keep loop; both NULL for an unknown dtype. */
typedef struct sel_fns {
    pred_fn pred;
    keep_if_fn keep_if;
    bool simd;     /* a SIMD path (cpu_select_simd.h) instead of these */
    int64_t block; /* elements a thread takes a round */
} sel_fns;

static sel_fns find_fns(gp_dtype t)
{
    const bool simd = gp_cpu_simd_covers(gp_dtype_size(t));
    const int64_t block = simd ? GP_CPU_SIMD_BLOCK_BYTES / (int64_t)gp_dtype_size(t) : GP_CPU_SEL_BLOCK;
#define GP_SEL_FIND_FNS(NAME, T, E) \
    if (t == E) return (sel_fns){NAME##_pred, NAME##_keep_if, simd, block};
    GP_SEL_DTYPES(GP_SEL_FIND_FNS)
#undef GP_SEL_FIND_FNS
    return (sel_fns){NULL, NULL, false, 0};
}

static int64_t count_flags(const uint8_t *restrict f, int64_t n)
{
    int64_t c = 0;
    for (int64_t i = 0; i < n; i++) c += f[i] != 0;
    return c;
}

/* ------------------------------------------------------------- compaction */

/* Stores x[i] for which (f[i] != 0) == keep at out[0], out[1], ...; `last`
 * is the index of the last such element. Returns how many it stored. One
 * function for each of keep and drop: the test a constant, the loop is the
 * serial keep loop's (a run-time `keep` cost a compare and a set an item). */
#define GP_SEL_DEF_COMPACT(T, WHICH, KEEP)                                                       \
    static int64_t WHICH##_##T(const void *xv, const uint8_t *f, int64_t last, void *ov)          \
    {                                                                                            \
        const T *restrict x = (const T *)xv;                                                     \
        T *restrict out = (T *)ov;                                                               \
        int64_t k = 0;                                                                           \
        for (int64_t i = 0; i <= last; i++) {                                                    \
            out[k] = x[i];                                                                       \
            k += (f[i] != 0) == (KEEP);                                                          \
        }                                                                                        \
        return k;                                                                                \
    }
#define GP_SEL_DEF_COMPACTS(T) GP_SEL_DEF_COMPACT(T, keep, true) GP_SEL_DEF_COMPACT(T, drop, false)
GP_SEL_DEF_COMPACTS(uint8_t)
GP_SEL_DEF_COMPACTS(uint16_t)
GP_SEL_DEF_COMPACTS(uint32_t)
GP_SEL_DEF_COMPACTS(uint64_t)

static int64_t compact(size_t size, const void *x, const uint8_t *f, int64_t last, bool keep, void *out)
{
    switch (size) {
    case 1: return keep ? keep_uint8_t(x, f, last, out) : drop_uint8_t(x, f, last, out);
    case 2: return keep ? keep_uint16_t(x, f, last, out) : drop_uint16_t(x, f, last, out);
    case 4: return keep ? keep_uint32_t(x, f, last, out) : drop_uint32_t(x, f, last, out);
    default: return keep ? keep_uint64_t(x, f, last, out) : drop_uint64_t(x, f, last, out);
    }
}

/* Index of the last i < n with (f[i] != 0) == keep, or -1. */
static int64_t last_index(const uint8_t *f, int64_t n, bool keep)
{
    int64_t i = n - 1;
    while (i >= 0 && (f[i] != 0) != keep) i--;
    return i;
}

/* ------------------------------------------------------ select, partition */

/* Elements of the block that starts at lo: `block`, fewer at the end, 0
 * past it. */
static int64_t block_len(int64_t n, int64_t lo, int64_t block)
{
    return lo >= n ? 0 : n - lo < block ? n - lo : block;
}

/* Item lo of the input. */
static const void *item_at(const gp_select_args *a, int64_t lo)
{
    return (const char *)a->in + (size_t)lo * gp_dtype_size(a->t);
}

/* The flags of one block: the caller's, or the predicate's in `scratch`;
 * NULL where the SIMD path compares as it goes instead. With `count`, also
 * the number selected (the caller's flags are counted only then). */
static const uint8_t *block_flags(const gp_select_args *a, sel_fns fns, int64_t lo, int64_t len, uint8_t *scratch,
                                  int64_t *count)
{
    if (a->flags) {
        if (count) *count = count_flags(a->flags + lo, len);
        return a->flags + lo;
    }
    if (fns.simd) {
        if (count) *count = gp_cpu_simd_split_if(a->t, item_at(a, lo), len, a->cmp, a->value, NULL, NULL);
        return NULL;
    }
    const int64_t c = fns.pred(item_at(a, lo), len, a->cmp, a->value, scratch);
    if (count) *count = c;
    return scratch;
}

/* Number selected in the blocks at first, first + step, ... */
static int64_t count_blocks(const gp_select_args *a, sel_fns fns, int64_t first, int64_t step)
{
    uint8_t scratch[GP_CPU_SEL_BLOCK];
    int64_t total = 0;
    for (int64_t lo = first; lo < a->n; lo += step) {
        int64_t c;
        block_flags(a, fns, lo, block_len(a->n, lo, fns.block), scratch, &c);
        total += c;
    }
    return total;
}

/* Number selected in all of the input (partition needs it before writing);
 * one thread outside any OpenMP region. */
static int64_t count_all(const gp_select_args *a, sel_fns fns, int nthreads)
{
    if (nthreads == 1) {
        if (fns.simd && !a->flags) return gp_cpu_simd_split_if(a->t, a->in, a->n, a->cmp, a->value, NULL, NULL);
        return count_blocks(a, fns, 0, fns.block);
    }
    int64_t total = 0;
#pragma omp parallel num_threads(nthreads) reduction(+ : total)
    total += count_blocks(a, fns, (int64_t)omp_get_thread_num() * fns.block,
                          (int64_t)omp_get_num_threads() * fns.block);
    return total;
}

/* Writes block [lo, lo + len) with flags f (block_flags): its selected
 * items from out[sel_at] on, and for a partition its rejected ones from
 * out[total + rej_at] on (partition_copy: rejected[rej_at], total 0).
 * Returns how many it selected. The SIMD path writes both in one pass,
 * comparing where f is NULL. */
static int64_t place_block(const gp_select_args *a, sel_fns fns, int64_t lo, int64_t len, const uint8_t *f,
                           int64_t sel_at, int64_t rej_at, int64_t total)
{
    const size_t sz = gp_dtype_size(a->t);
    unsigned char *sel = (unsigned char *)a->out + (size_t)sel_at * sz;
    unsigned char *rej_base = a->rejected ? (unsigned char *)a->rejected : (unsigned char *)a->out;
    unsigned char *rej = a->partition ? rej_base + (size_t)(total + rej_at) * sz : NULL;
    const void *x = item_at(a, lo);
    if (!f) return gp_cpu_simd_split_if(a->t, x, len, a->cmp, a->value, sel, rej);
    if (fns.simd) return gp_cpu_simd_split(sz, x, f, len, sel, rej);
    const int64_t kept = compact(sz, x, f, last_index(f, len, true), true, sel);
    if (rej) compact(sz, x, f, last_index(f, len, false), false, rej);
    return kept;
}

/* One thread: the blocks in order, no OpenMP region (whose team of one
 * cost about a microsecond a call), and no count before the compaction,
 * which counts what it stores. 2-core machine, 3 interleaved rounds
 * (2026-12-02, us): select int32 at 1000 2.5-3.7 -> 1.3-1.4, at 2^15
 * 35-36 -> 23 (0.62 -> 0.98x the serial keep loop). A scalar select by
 * comparison compares as it keeps (GP_SEL_KEEP_LOOP); the SIMD path takes
 * the whole input in one range. */
static int64_t select_one_thread(const gp_select_args *a, sel_fns fns, int64_t total)
{
    if (fns.simd) return place_block(a, fns, 0, a->n, a->flags, 0, 0, total);
    if (!a->flags && !a->partition) return fns.keep_if(a->in, a->n, a->cmp, a->value, a->out);
    uint8_t scratch[GP_CPU_SEL_BLOCK];
    int64_t sel = 0;
    for (int64_t lo = 0; lo < a->n; lo += GP_CPU_SEL_BLOCK) {
        const int64_t len = block_len(a->n, lo, GP_CPU_SEL_BLOCK);
        sel += place_block(a, fns, lo, len, block_flags(a, fns, lo, len, scratch, NULL), sel, lo - sel, total);
    }
    return sel;
}

gp_status gp_cpu_select(gp_ctx *ctx, const gp_select_args *a, void *ws)
{
    (void)ws;
    const sel_fns fns = find_fns(a->t);
    if (!fns.pred) return gp_set_error(ctx, GP_STATUS_INTERNAL, "cpu select: dtype %d", (int)a->t);
    const int64_t n = a->n;
    if (n == 0) { /* in and out may be NULL: no pointer arithmetic on them */
        *a->count = 0;
        return GP_STATUS_OK;
    }
    const int nthreads = thread_count(n, fns.block);
    /* Only a partition into one buffer needs its total before it writes. */
    const bool counts_first = a->partition && !a->rejected;
    const int64_t total = counts_first ? count_all(a, fns, nthreads) : 0;
    if (nthreads == 1) {
        const int64_t sel = select_one_thread(a, fns, total);
        *a->count = counts_first ? total : sel;
        return GP_STATUS_OK;
    }
    int64_t sel_carry = 0, rej_carry = 0;
    int64_t cnt[GP_CPU_SEL_MAX_THREADS], sel_at[GP_CPU_SEL_MAX_THREADS], rej_at[GP_CPU_SEL_MAX_THREADS];
#pragma omp parallel num_threads(nthreads)
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        uint8_t scratch[GP_CPU_SEL_BLOCK];
        for (int64_t base = 0; base < n; base += (int64_t)nt * fns.block) {
            int64_t lo = base + (int64_t)t * fns.block;
            int64_t len = block_len(n, lo, fns.block);
            const uint8_t *f = NULL;
            if (len > 0) f = block_flags(a, fns, lo, len, scratch, &cnt[t]);
            else cnt[t] = 0;
#pragma omp barrier
#pragma omp single
            {
                for (int u = 0; u < nt; u++) {
                    const int64_t ulen = block_len(n, base + (int64_t)u * fns.block, fns.block);
                    sel_at[u] = sel_carry;
                    rej_at[u] = rej_carry;
                    sel_carry += cnt[u];
                    rej_carry += ulen - cnt[u];
                }
            }
            if (len > 0) place_block(a, fns, lo, len, f, sel_at[t], rej_at[t], total);
        }
    }
    *a->count = counts_first ? total : sel_carry;
    return GP_STATUS_OK;
}

/* ------------------------------------------------- the running-max filter */

/*
 * The descending filter is the ascending one on reversed keys: ~x for
 * integers (an order-reversing bijection for signed and unsigned alike) and
 * -x for floats (exact; NaN stays NaN). A NaN key compares false with
 * everything, so it is never kept and never raises the running maximum.
 * The running maximum starts at the lowest key, so the first non-NaN
 * element is always kept.
 */
#define GP_FILT_DEF(NAME, T, KEY, LOWEST)                                                   \
    /* The largest key of one chunk, in GP_FILT_LANES independent running maxima (one   \
     * would be a chain of dependent compares); GCC vectorises them for integers. */      \
    static T NAME##_chunk_max(const T *restrict x)                                         \
    {                                                                                      \
        T lane[GP_FILT_LANES];                                                             \
        for (int j = 0; j < GP_FILT_LANES; j++) lane[j] = (T)(LOWEST);                     \
        for (int i = 0; i < GP_FILT_CHUNK; i += GP_FILT_LANES)                             \
            for (int j = 0; j < GP_FILT_LANES; j++) {                                      \
                T k = KEY(x[i + j]);                                                       \
                lane[j] = k > lane[j] ? k : lane[j];                                       \
            }                                                                              \
        T m = lane[0];                                                                     \
        for (int j = 1; j < GP_FILT_LANES; j++) m = lane[j] > m ? lane[j] : m;             \
        return m;                                                                          \
    }                                                                                      \
    static T NAME##_block_max(const T *restrict x, int64_t n, T m)                         \
    {                                                                                      \
        int64_t i = 0;                                                                     \
        for (; i + GP_FILT_CHUNK <= n; i += GP_FILT_CHUNK) {                               \
            T k = NAME##_chunk_max(x + i);                                                 \
            m = k > m ? k : m;                                                             \
        }                                                                                  \
        for (; i < n; i++) {                                                               \
            T k = KEY(x[i]);                                                               \
            m = k > m ? k : m;                                                             \
        }                                                                                  \
        return m;                                                                          \
    }                                                                                      \
    /* Survivors of up to GP_FILT_CHUNK elements entered with running maximum *mp,        \
     * written to out if not NULL. Branchless: every element goes to the next slot of a   \
     * local buffer, which only the survivors' count advances, so no store lands in out   \
     * past them. */                                                                       \
    static int64_t NAME##_chunk_filter(const T *restrict x, int64_t n, T *mp, T *restrict out) \
    {                                                                                      \
        T buf[GP_FILT_CHUNK];                                                              \
        T m = *mp;                                                                         \
        int64_t c = 0;                                                                     \
        for (int64_t i = 0; i < n; i++) {                                                  \
            T k = KEY(x[i]);                                                               \
            int keep = k >= m;                                                             \
            buf[c] = x[i];                                                                 \
            c += keep;                                                                     \
            m = k > m ? k : m; /* keep ? k : m, as a max: equal keys on ties, NaN ignored */ \
        }                                                                                  \
        if (out) memcpy(out, buf, (size_t)c * sizeof *out);                                \
        *mp = m;                                                                           \
        return c;                                                                          \
    }                                                                                      \
    /* Survivors of a block entered with running maximum m, written to out if not NULL.   \
     * A chunk whose largest key is below m keeps nothing and is passed over: past the    \
     * first few chunks that is nearly every chunk of random data. */                     \
    static int64_t NAME##_block_filter(const T *restrict x, int64_t n, T m, T *restrict out) \
    {                                                                                      \
        int64_t c = 0, i = 0;                                                              \
        for (; i + GP_FILT_CHUNK <= n; i += GP_FILT_CHUNK) {                               \
            if (NAME##_chunk_max(x + i) < m) continue;                                     \
            c += NAME##_chunk_filter(x + i, GP_FILT_CHUNK, &m, out ? out + c : NULL);      \
        }                                                                                  \
        return c + NAME##_chunk_filter(x + i, n - i, &m, out ? out + c : NULL);            \
    }                                                                                      \
    static int64_t NAME(const gp_filter_args *a, int nthreads)                             \
    {                                                                                      \
        const T *x = (const T *)a->in;                                                     \
        T *out = (T *)a->out;                                                              \
        const int64_t n = a->n;                                                            \
        if (nthreads == 1) return NAME##_block_filter(x, n, (T)(LOWEST), out);             \
        T max_carry = (T)(LOWEST);                                                         \
        int64_t cnt_carry = 0;                                                             \
        T bmax[GP_CPU_SEL_MAX_THREADS];                                                    \
        int64_t bcnt[GP_CPU_SEL_MAX_THREADS];                                              \
        _Pragma("omp parallel num_threads(nthreads)")                                      \
        {                                                                                  \
            const int t = omp_get_thread_num(), nt = omp_get_num_threads();                \
            for (int64_t base = 0; base < n; base += (int64_t)nt * GP_CPU_SEL_BLOCK) {     \
                int64_t lo = base + (int64_t)t * GP_CPU_SEL_BLOCK;                         \
                int64_t len = block_len(n, lo, GP_CPU_SEL_BLOCK);                          \
                bmax[t] = NAME##_block_max(x + lo, len, (T)(LOWEST));                      \
                _Pragma("omp barrier")                                                     \
                _Pragma("omp single")                                                      \
                {                                                                          \
                    for (int u = 0; u < nt; u++) {                                         \
                        T bm = bmax[u];                                                    \
                        bmax[u] = max_carry; /* now: the maximum before block u */         \
                        max_carry = bm > max_carry ? bm : max_carry;                       \
                    }                                                                      \
                }                                                                          \
                T enter = bmax[t];                                                         \
                bcnt[t] = NAME##_block_filter(x + lo, len, enter, NULL);                   \
                _Pragma("omp barrier")                                                     \
                _Pragma("omp single")                                                      \
                {                                                                          \
                    for (int u = 0; u < nt; u++) {                                         \
                        int64_t c = bcnt[u];                                               \
                        bcnt[u] = cnt_carry; /* now: survivors before block u */           \
                        cnt_carry += c;                                                    \
                    }                                                                      \
                }                                                                          \
                NAME##_block_filter(x + lo, len, enter, out + bcnt[t]);                    \
            }                                                                              \
        }                                                                                  \
        return cnt_carry;                                                                  \
    }

#define GP_KEY_ID(x) (x)
#define GP_KEY_NOT(x) (~(x))
#define GP_KEY_NEG(x) (-(x))

/* X(name, type, lowest key) for the integers. */
#define GP_FILT_INTS(X)                 \
    X(i8, int8_t, INT8_MIN)             \
    X(u8, uint8_t, 0)                   \
    X(i16, int16_t, INT16_MIN)          \
    X(u16, uint16_t, 0)                 \
    X(i32, int32_t, INT32_MIN)          \
    X(u32, uint32_t, 0)                 \
    X(i64, int64_t, INT64_MIN)          \
    X(u64, uint64_t, 0)

#define GP_FILT_DEF_INT(NAME, T, LOWEST)                    \
    GP_FILT_DEF(filt_##NAME##_asc, T, (T)GP_KEY_ID, LOWEST)  \
    GP_FILT_DEF(filt_##NAME##_desc, T, (T)GP_KEY_NOT, LOWEST)
GP_FILT_INTS(GP_FILT_DEF_INT)
GP_FILT_DEF(filt_f32_asc, float, GP_KEY_ID, -INFINITY)
GP_FILT_DEF(filt_f32_desc, float, GP_KEY_NEG, -INFINITY)
GP_FILT_DEF(filt_f64_asc, double, GP_KEY_ID, -INFINITY)
GP_FILT_DEF(filt_f64_desc, double, GP_KEY_NEG, -INFINITY)

gp_status gp_cpu_filter(gp_ctx *ctx, const gp_filter_args *a, void *ws)
{
    (void)ws;
    if (a->n == 0) { /* in and out may be NULL: no pointer arithmetic on them */
        *a->count = 0;
        return GP_STATUS_OK;
    }
    int nthreads = thread_count(a->n, GP_CPU_SEL_BLOCK);
    if (nthreads < GP_CPU_FILT_MIN_THREADS) nthreads = 1;
    int64_t c;
    switch (a->t) {
#define GP_FILT_CASE(NAME, T, E)                                                                    \
    case E: c = a->descending ? filt_##NAME##_desc(a, nthreads) : filt_##NAME##_asc(a, nthreads); break;
        GP_SEL_DTYPES(GP_FILT_CASE)
#undef GP_FILT_CASE
    default: return gp_set_error(ctx, GP_STATUS_INTERNAL, "cpu filter: dtype %d", (int)a->t);
    }
    *a->count = c;
    return GP_STATUS_OK;
}
