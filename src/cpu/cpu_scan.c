/*
 * CPU prefix scan: tile sums, a scan of the sums, a rescan.
 *
 * The input is walked in rounds of (threads x block) elements. In a round
 * each thread reduces its block (pass 1), one thread scans the block totals
 * into per-block prefixes starting from the running carry, and each thread
 * rescans its block from its prefix (pass 2). A block is GP_CPU_SCAN_BLOCK
 * bytes of input, so pass 2 reads it again from the thread's cache rather
 * than from memory: the input crosses the memory bus once.
 *
 * Accumulators: wrapping integer ops (sum, prod, and, or, xor) run in an
 * unsigned type of the output's width, at least 32 bits (no signed overflow,
 * no promotion surprises); truncating to the output width at the store gives
 * the output's own wrapping result. MIN and MAX compare in the output type.
 * Float MIN and MAX let a NaN win and stay, and order the zeros, -0 < +0
 * (GP_CPU_FMIN, cpu_backend.h). The float-sum identity is -0.0,
 * the one value that leaves every x (including -0.0) unchanged.
 */
#include <math.h>
#include <omp.h>
#include <stdalign.h>
#include <stdint.h>
#include <string.h>

#include "cpu_backend.h"

/* Tuning, 2-core development machine (2026-11-22). */
enum {
    GP_CPU_SCAN_BLOCK = 256 * 1024, /* input bytes per thread per round: stays in the 1 MiB L2 for pass 2 */
    GP_CPU_SCAN_PAR_MIN = 1 << 15,  /* elements below which one thread scans alone */
    GP_CPU_SCAN_MAX_THREADS = 256,
    /* Chains a float scan steps at once (GP_SCAN_KERNELS). `gpuprim bench scan
     * --backend cpu`, 2 threads, 3 interleaved rounds against 1 chain
     * (2026-12-02): f32 2^16 95-102 -> 39-43 us, 2^20 876-968 -> 643-692,
     * 2^24 14.4-15.8 -> 11.7-12.6 ms; f64 2^24 20-22 -> 18.2-18.5 ms. */
    GP_CPU_SCAN_FLOAT_LANES = 8
};

/* One (input, output, op) combination, type-erased for the driver below.
 * Accumulators travel as 8 bytes of memory. */
typedef struct scan_kernels {
    void (*identity)(void *acc);
    void (*from_out)(void *acc, const void *out_value); /* an out_t value as an accumulator */
    void (*total)(const void *x, int64_t n, void *acc);  /* acc = acc op x[0] op ... op x[n-1] */
    void (*rescan)(const void *x, void *y, int64_t n, void *acc, bool exclusive);
    void (*combine)(void *acc, const void *b); /* acc = acc op b */
} scan_kernels;

#define GP_S_SUM(a, b) ((a) + (b))
#define GP_S_PROD(a, b) ((a) * (b))
#define GP_S_AND(a, b) ((a) & (b))
#define GP_S_OR(a, b) ((a) | (b))
#define GP_S_XOR(a, b) ((a) ^ (b))
#define GP_S_MIN(a, b) ((b) < (a) ? (b) : (a))
#define GP_S_MAX(a, b) ((b) > (a) ? (b) : (a))
#define GP_S_FMIN GP_CPU_FMIN
#define GP_S_FMAX GP_CPU_FMAX

/*
 * NAME: the kernel set; TIN: input element; TOUT: output type (elements are
 * converted to it first, which sign- or zero-extends); TACC: accumulator;
 * TSTORE: the type written (the unsigned output type for wrapping ops);
 * OP: combine; ID: the identity as a TACC expression; LANES: chains.
 * rescan takes no `restrict`: out may be in (same width then).
 *
 * Chains. A running combine is one chain of dependent operations: a float
 * add waits the 4 cycles of the one before, an integer add 1. With LANES >
 * 1 (floats) total and rescan cut their n elements into LANES contiguous
 * runs (the last also takes the remainder) and step all of them at once,
 * LANES independent chains: rescan first totals the runs (in cache by
 * then), then rescans each from its own prefix. Contiguous runs combined in
 * order keep min and max exactly the serial ones (min and max are exact and
 * order-free); sums and products round as a two-level tree instead of a chain.
 */
#define GP_SCAN_KERNELS(NAME, TIN, TOUT, TACC, TSTORE, OP, ID, LANES)                     \
    enum { NAME##_lanes = (LANES), NAME##_min_chained = 64 * (LANES) };                   \
    /* t[j] = the total of run j of m elements, j < LANES. */                           \
    static void NAME##_run_totals(const TIN *x, int64_t m, TACC *t)                       \
    {                                                                                     \
        for (int j = 0; j < NAME##_lanes; j++) t[j] = (ID);                               \
        for (int64_t i = 0; i < m; i++)                                                   \
            for (int j = 0; j < NAME##_lanes; j++) t[j] = OP(t[j], (TACC)(TOUT)x[j * m + i]); \
    }                                                                                     \
    static void NAME##_identity(void *accv)                                               \
    {                                                                                     \
        TACC acc = (ID);                                                                  \
        memcpy(accv, &acc, sizeof acc);                                                   \
    }                                                                                     \
    static void NAME##_from_out(void *accv, const void *ov)                               \
    {                                                                                     \
        TOUT o;                                                                           \
        memcpy(&o, ov, sizeof o);                                                         \
        TACC acc = (TACC)o;                                                               \
        memcpy(accv, &acc, sizeof acc);                                                   \
    }                                                                                     \
    static void NAME##_total(const void *xv, int64_t n, void *accv)                       \
    {                                                                                     \
        const TIN *restrict x = (const TIN *)xv;                                          \
        TACC acc;                                                                         \
        memcpy(&acc, accv, sizeof acc);                                                   \
        int64_t i = 0;                                                                    \
        if (NAME##_lanes > 1 && n >= NAME##_min_chained) {                                \
            TACC t[NAME##_lanes];                                                         \
            const int64_t m = n / NAME##_lanes;                                           \
            NAME##_run_totals(x, m, t);                                                   \
            for (int j = 0; j < NAME##_lanes; j++) acc = OP(acc, t[j]);                   \
            i = m * NAME##_lanes;                                                         \
        }                                                                                 \
        for (; i < n; i++) acc = OP(acc, (TACC)(TOUT)x[i]);                               \
        memcpy(accv, &acc, sizeof acc);                                                   \
    }                                                                                     \
    static void NAME##_rescan(const void *xv, void *yv, int64_t n, void *accv, bool excl) \
    {                                                                                     \
        const TIN *x = (const TIN *)xv;                                                   \
        TSTORE *y = (TSTORE *)yv;                                                         \
        TACC acc;                                                                         \
        memcpy(&acc, accv, sizeof acc);                                                   \
        int64_t i = 0;                                                                    \
        if (NAME##_lanes > 1 && n >= NAME##_min_chained) {                                \
            TACC p[NAME##_lanes];                                                         \
            const int64_t m = n / NAME##_lanes;                                           \
            NAME##_run_totals(x, m, p);                                                   \
            /* p[j]: run j's prefix, from the run totals before it. */                    \
            for (int j = 0; j < NAME##_lanes; j++) {                                      \
                TACC t = p[j];                                                            \
                p[j] = acc;                                                               \
                acc = OP(acc, t);                                                         \
            }                                                                             \
            if (excl) {                                                                   \
                for (int64_t k = 0; k < m; k++)                                           \
                    for (int j = 0; j < NAME##_lanes; j++) {                              \
                        TACC v = (TACC)(TOUT)x[j * m + k];                                \
                        y[j * m + k] = (TSTORE)p[j];                                      \
                        p[j] = OP(p[j], v);                                               \
                    }                                                                     \
            } else {                                                                      \
                for (int64_t k = 0; k < m; k++)                                           \
                    for (int j = 0; j < NAME##_lanes; j++) {                              \
                        p[j] = OP(p[j], (TACC)(TOUT)x[j * m + k]);                        \
                        y[j * m + k] = (TSTORE)p[j];                                      \
                    }                                                                     \
            }                                                                             \
            acc = p[NAME##_lanes - 1]; /* the remainder follows the last run */           \
            i = m * NAME##_lanes;                                                         \
        }                                                                                 \
        if (excl) {                                                                       \
            for (; i < n; i++) {                                                          \
                TACC v = (TACC)(TOUT)x[i];                                                \
                y[i] = (TSTORE)acc;                                                       \
                acc = OP(acc, v);                                                         \
            }                                                                             \
        } else {                                                                          \
            for (; i < n; i++) {                                                          \
                acc = OP(acc, (TACC)(TOUT)x[i]);                                          \
                y[i] = (TSTORE)acc;                                                       \
            }                                                                             \
        }                                                                                 \
        memcpy(accv, &acc, sizeof acc);                                                   \
    }                                                                                     \
    static void NAME##_combine(void *av, const void *bv)                                  \
    {                                                                                     \
        TACC a, b;                                                                        \
        memcpy(&a, av, sizeof a);                                                         \
        memcpy(&b, bv, sizeof b);                                                         \
        a = OP(a, b);                                                                     \
        memcpy(av, &a, sizeof a);                                                         \
    }                                                                                     \
    static const scan_kernels NAME = {NAME##_identity, NAME##_from_out, NAME##_total,     \
                                      NAME##_rescan, NAME##_combine};

/*
 * Integer (input, output) pairs: X(in name, in type, out name, out type,
 * unsigned out type, wrapping accumulator, out min, out max).
 */
#define GP_SCAN_INT_PAIRS(X)                                                             \
    X(i8, int8_t, i8, int8_t, uint8_t, uint32_t, INT8_MIN, INT8_MAX)                     \
    X(i8, int8_t, i16, int16_t, uint16_t, uint32_t, INT16_MIN, INT16_MAX)                \
    X(i8, int8_t, i32, int32_t, uint32_t, uint32_t, INT32_MIN, INT32_MAX)                \
    X(i8, int8_t, i64, int64_t, uint64_t, uint64_t, INT64_MIN, INT64_MAX)                \
    X(i16, int16_t, i16, int16_t, uint16_t, uint32_t, INT16_MIN, INT16_MAX)              \
    X(i16, int16_t, i32, int32_t, uint32_t, uint32_t, INT32_MIN, INT32_MAX)              \
    X(i16, int16_t, i64, int64_t, uint64_t, uint64_t, INT64_MIN, INT64_MAX)              \
    X(i32, int32_t, i32, int32_t, uint32_t, uint32_t, INT32_MIN, INT32_MAX)              \
    X(i32, int32_t, i64, int64_t, uint64_t, uint64_t, INT64_MIN, INT64_MAX)              \
    X(i64, int64_t, i64, int64_t, uint64_t, uint64_t, INT64_MIN, INT64_MAX)              \
    X(u8, uint8_t, u8, uint8_t, uint8_t, uint32_t, 0, UINT8_MAX)                         \
    X(u8, uint8_t, u16, uint16_t, uint16_t, uint32_t, 0, UINT16_MAX)                     \
    X(u8, uint8_t, u32, uint32_t, uint32_t, uint32_t, 0, UINT32_MAX)                     \
    X(u8, uint8_t, u64, uint64_t, uint64_t, uint64_t, 0, UINT64_MAX)                     \
    X(u16, uint16_t, u16, uint16_t, uint16_t, uint32_t, 0, UINT16_MAX)                   \
    X(u16, uint16_t, u32, uint32_t, uint32_t, uint32_t, 0, UINT32_MAX)                   \
    X(u16, uint16_t, u64, uint64_t, uint64_t, uint64_t, 0, UINT64_MAX)                   \
    X(u32, uint32_t, u32, uint32_t, uint32_t, uint32_t, 0, UINT32_MAX)                   \
    X(u32, uint32_t, u64, uint64_t, uint64_t, uint64_t, 0, UINT64_MAX)                   \
    X(u64, uint64_t, u64, uint64_t, uint64_t, uint64_t, 0, UINT64_MAX)

#define GP_SCAN_DEF_INT(IN, TIN, OUT, TOUT, UOUT, WACC, OMIN, OMAX)                                    \
    GP_SCAN_KERNELS(sc_##IN##_##OUT##_sum, TIN, TOUT, WACC, UOUT, GP_S_SUM, (WACC)0, 1)                   \
    GP_SCAN_KERNELS(sc_##IN##_##OUT##_prod, TIN, TOUT, WACC, UOUT, GP_S_PROD, (WACC)1, 1)                 \
    GP_SCAN_KERNELS(sc_##IN##_##OUT##_and, TIN, TOUT, WACC, UOUT, GP_S_AND, (WACC)~(WACC)0, 1)            \
    GP_SCAN_KERNELS(sc_##IN##_##OUT##_or, TIN, TOUT, WACC, UOUT, GP_S_OR, (WACC)0, 1)                     \
    GP_SCAN_KERNELS(sc_##IN##_##OUT##_xor, TIN, TOUT, WACC, UOUT, GP_S_XOR, (WACC)0, 1)                   \
    GP_SCAN_KERNELS(sc_##IN##_##OUT##_min, TIN, TOUT, TOUT, TOUT, GP_S_MIN, (TOUT)(OMAX), 1)              \
    GP_SCAN_KERNELS(sc_##IN##_##OUT##_max, TIN, TOUT, TOUT, TOUT, GP_S_MAX, (TOUT)(OMIN), 1)
GP_SCAN_INT_PAIRS(GP_SCAN_DEF_INT)

#define GP_SCAN_FLOAT_PAIRS(X) \
    X(f32, float, f32, float)  \
    X(f32, float, f64, double) \
    X(f64, double, f64, double)

#define GP_SCAN_DEF_FLOAT(IN, TIN, OUT, TOUT)                                                     \
    GP_SCAN_KERNELS(sc_##IN##_##OUT##_sum, TIN, TOUT, TOUT, TOUT, GP_S_SUM, (TOUT)-0.0, GP_CPU_SCAN_FLOAT_LANES)           \
    GP_SCAN_KERNELS(sc_##IN##_##OUT##_prod, TIN, TOUT, TOUT, TOUT, GP_S_PROD, (TOUT)1, GP_CPU_SCAN_FLOAT_LANES)            \
    GP_SCAN_KERNELS(sc_##IN##_##OUT##_min, TIN, TOUT, TOUT, TOUT, GP_S_FMIN, (TOUT)INFINITY, GP_CPU_SCAN_FLOAT_LANES)      \
    GP_SCAN_KERNELS(sc_##IN##_##OUT##_max, TIN, TOUT, TOUT, TOUT, GP_S_FMAX, (TOUT)-INFINITY, GP_CPU_SCAN_FLOAT_LANES)
GP_SCAN_FLOAT_PAIRS(GP_SCAN_DEF_FLOAT)

/* Upper-case dtype enumerators for the lists' lower-case names. */
#define GP_SCAN_DT_i8 GP_DTYPE_I8
#define GP_SCAN_DT_u8 GP_DTYPE_U8
#define GP_SCAN_DT_i16 GP_DTYPE_I16
#define GP_SCAN_DT_u16 GP_DTYPE_U16
#define GP_SCAN_DT_i32 GP_DTYPE_I32
#define GP_SCAN_DT_u32 GP_DTYPE_U32
#define GP_SCAN_DT_i64 GP_DTYPE_I64
#define GP_SCAN_DT_u64 GP_DTYPE_U64
#define GP_SCAN_DT_f32 GP_DTYPE_F32
#define GP_SCAN_DT_f64 GP_DTYPE_F64

#define GP_SCAN_FIND_INT(IN, TIN, OUT, TOUT, UOUT, WACC, OMIN, OMAX)     \
    if (in_t == GP_SCAN_DT_##IN && out_t == GP_SCAN_DT_##OUT) {          \
        switch (op) {                                                    \
        case GP_OP_SUM: return &sc_##IN##_##OUT##_sum;                   \
        case GP_OP_PROD: return &sc_##IN##_##OUT##_prod;                 \
        case GP_OP_AND: return &sc_##IN##_##OUT##_and;                   \
        case GP_OP_OR: return &sc_##IN##_##OUT##_or;                     \
        case GP_OP_XOR: return &sc_##IN##_##OUT##_xor;                   \
        case GP_OP_MIN: return &sc_##IN##_##OUT##_min;                   \
        case GP_OP_MAX: return &sc_##IN##_##OUT##_max;                   \
        }                                                                \
    }
#define GP_SCAN_FIND_FLOAT(IN, TIN, OUT, TOUT)                           \
    if (in_t == GP_SCAN_DT_##IN && out_t == GP_SCAN_DT_##OUT) {          \
        switch (op) {                                                    \
        case GP_OP_SUM: return &sc_##IN##_##OUT##_sum;                   \
        case GP_OP_PROD: return &sc_##IN##_##OUT##_prod;                 \
        case GP_OP_MIN: return &sc_##IN##_##OUT##_min;                   \
        case GP_OP_MAX: return &sc_##IN##_##OUT##_max;                   \
        default: return NULL;                                            \
        }                                                                \
    }

static const scan_kernels *find_kernels(gp_dtype in_t, gp_dtype out_t, gp_op op)
{
    GP_SCAN_INT_PAIRS(GP_SCAN_FIND_INT)
    GP_SCAN_FLOAT_PAIRS(GP_SCAN_FIND_FLOAT)
    return NULL;
}

size_t gp_cpu_scan_workspace(const gp_ctx *ctx, const gp_scan_args *a, bool pooled) { return 0; }

typedef struct acc_slot {
    alignas(16) unsigned char b[16];
} acc_slot;

gp_status gp_cpu_scan(gp_ctx *ctx, const gp_scan_args *a, void *ws)
{
    (void)ws;
    const scan_kernels *k = find_kernels(a->in_t, a->out_t, a->op);
    if (!k) return gp_set_error(ctx, GP_STATUS_INTERNAL, "cpu scan: no kernel for %s %s -> %s", gp_op_name(a->op),
                                gp_dtype_name(a->in_t), gp_dtype_name(a->out_t));
    const unsigned char *x = (const unsigned char *)a->in;
    unsigned char *y = (unsigned char *)a->out;
    size_t isz = gp_dtype_size(a->in_t), osz = gp_dtype_size(a->out_t);
    int64_t n = a->n;
    acc_slot carry;
    if (a->exclusive) k->from_out(carry.b, a->init);
    else k->identity(carry.b);

    int want = omp_get_max_threads();
    if (want > GP_CPU_SCAN_MAX_THREADS) want = GP_CPU_SCAN_MAX_THREADS;
    if (n < GP_CPU_SCAN_PAR_MIN || want == 1) {
        k->rescan(x, y, n, carry.b, a->exclusive);
        return GP_STATUS_OK;
    }
    /* Where n fills fewer than `want` blocks, one block a thread: with
     * whole blocks, 2^16 int32 on 2 threads was one block, one thread
     * working, two passes where the serial loop makes one (54-76 us
     * against 34-41 shared, 2 threads, 2026-12-02). */
    int64_t block = (int64_t)(GP_CPU_SCAN_BLOCK / isz);
    const int64_t share = (n + want - 1) / want;
    if (share < block) block = (share + 63) / 64 * 64;
    acc_slot total[GP_CPU_SCAN_MAX_THREADS], prefix[GP_CPU_SCAN_MAX_THREADS];
#pragma omp parallel num_threads(want)
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        for (int64_t base = 0; base < n; base += (int64_t)nt * block) {
            int64_t lo = base + (int64_t)t * block, hi = lo + block < n ? lo + block : n;
            if (lo < hi) {
                k->identity(total[t].b);
                k->total(x + (size_t)lo * isz, hi - lo, total[t].b);
            }
#pragma omp barrier
#pragma omp single
            {
                for (int u = 0; u < nt && base + (int64_t)u * block < n; u++) {
                    prefix[u] = carry;
                    k->combine(carry.b, total[u].b);
                }
            } /* the implied barrier publishes prefix[] */
            if (lo < hi) {
                acc_slot acc = prefix[t];
                k->rescan(x + (size_t)lo * isz, y + (size_t)lo * osz, hi - lo, acc.b, a->exclusive);
            }
        }
    }
    return GP_STATUS_OK;
}
