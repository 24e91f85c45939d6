/* Selections by SIMD: on x86-64 CPUs with AVX-512 (F, BW, VL and VBMI2)
 * or with AVX2, and on 64-bit Arm with NEON (which every such CPU has). A
 * vector of items is compared or tested against its flags into a mask, its
 * kept items moved to the front (AVX-512's compress; AVX2's permute or byte
 * shuffle by a table, NEON's table lookup) and written by a masked store or
 * through a buffer, so nothing is stored past the last one kept.
 * cpu_select.c takes this path wherever gp_cpu_simd_covers() says so and
 * its scalar loops elsewhere. */
#ifndef GP_CPU_SELECT_SIMD_H
#define GP_CPU_SELECT_SIMD_H

#include <string.h>

#include "cpu_backend.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GP_CPU_SIMD_X86 1
#else
#define GP_CPU_SIMD_X86 0
#endif
#if defined(__aarch64__) && defined(__ARM_NEON)
#define GP_CPU_SIMD_NEON 1
#else
#define GP_CPU_SIMD_NEON 0
#endif

/* True where a SIMD path takes items of `size` bytes: the CPU has its
 * instructions and the environment allows it. GPUPRIM_CPU_SIMD=0 keeps the
 * scalar loops, =avx2 takes the AVX2 path where AVX-512 is there too, and
 * =avx2-masked or =avx2-buffered that path with the given stores (hooks:
 * the tests run every path that way; on Arm only =0 means anything). Asked
 * once a process. */
bool gp_cpu_simd_covers(size_t size);

/* "avx512", "avx2 (masked stores)" or "avx2 (buffered stores)" (how items
 * of 4 and 8 bytes leave; those of 1 and 2 always through a buffer),
 * "neon", or "scalar": the path the selections take in this process. */
const char *gp_cpu_select_path(void);

#if GP_CPU_SIMD_X86 || GP_CPU_SIMD_NEON
/* Writes to sel, in order, the items of x[0..n) for which (x cmp *value)
 * holds and, where rej is not NULL, the others to rej, in order; returns
 * how many were selected. Only those slots are written. With sel NULL it
 * writes nothing and only counts. */
int64_t gp_cpu_simd_split_if(gp_dtype t, const void *x, int64_t n, gp_cmp cmp, const void *value, void *sel,
                             void *rej);
/* The same by flags: the items with f[i] != 0 to sel, the others to rej if
 * not NULL. size is the item size, 1, 2, 4 or 8 bytes; sel is not NULL. */
int64_t gp_cpu_simd_split(size_t size, const void *x, const uint8_t *f, int64_t n, void *sel, void *rej);

/* The comparison value's bits, for broadcasting into every lane. */
static inline uint64_t gp_simd_value_bits(const void *p, size_t size)
{
    uint64_t u = 0;
    memcpy(&u, p, size);
    return u;
}

/* Buffered stores: whole vectors go to b + held, and the buffer is copied
 * to dst (exactly `held` bytes) when it holds GP_SIMD_BUF bytes or more,
 * and at the end, so nothing is stored in dst past what was kept. */
enum { GP_SIMD_BUF = 512 };
typedef struct gp_simd_buf {
    unsigned char *dst;
    int held;                          /* bytes */
    unsigned char b[GP_SIMD_BUF + 32]; /* room for one more vector past the limit */
} gp_simd_buf;

static inline void gp_simd_flush(gp_simd_buf *o)
{
    memcpy(o->dst, o->b, (size_t)o->held);
    o->dst += o->held;
    o->held = 0;
}

/* The start of a selection by comparison (xv, vp, selv, rejv): the typed
 * views, the value, and the positions read (i) and kept (k). */
#define GP_SIMD_IF_ARGS(T)                                                     \
    const T *x = (const T *)xv;                                                \
    T *sel = (T *)selv, *rej = (T *)rejv;                                      \
    T value;                                                                   \
    memcpy(&value, vp, sizeof value);                                          \
    int64_t i = 0, k = 0;

/* The items short of a whole vector, one by one; KEEP(i) tests one. */
#define GP_SIMD_TAIL(KEEP)                                                     \
    for (; i < n; i++) {                                                       \
        const int s = (KEEP);                                                  \
        if (sel) {                                                             \
            if (s) sel[k] = x[i];                                              \
            else if (rej) rej[i - k] = x[i];                                   \
        }                                                                      \
        k += s;                                                                \
    }

/* A selection through buffers: whole vectors of LANES items, each v (of
 * type VT, loaded by LOAD(address)) with MASK the items selected (of v and
 * i, FULL all LANES); PUT(buffer, v, mask) puts those a mask sets into a
 * buffer, sel's kept and, where rej is not NULL, rej's the others; the
 * buffers leave after the last whole vector. sel NULL: count only. Then
 * the tail, KEEP(i) testing one item. Leaves the number selected in k. */
#define GP_SIMD_BUFFERED_STEPS(VT, LOAD, LANES, FULL, PUT, MASK, KEEP)          \
    {                                                                          \
        gp_simd_buf sb, rb;                                                    \
        sb.dst = (unsigned char *)sel, sb.held = 0;                            \
        rb.dst = (unsigned char *)rej, rb.held = 0;                            \
        for (; i + (LANES) <= n; i += (LANES)) {                               \
            const VT v = LOAD(x + i);                                          \
            const unsigned m = (MASK);                                         \
            if (sel) {                                                         \
                PUT(&sb, v, m);                                                \
                if (rej) PUT(&rb, v, m ^ (FULL));                              \
            }                                                                  \
            k += __builtin_popcount(m);                                        \
        }                                                                      \
        if (sel) gp_simd_flush(&sb);                                           \
        if (rej) gp_simd_flush(&rb);                                           \
    }                                                                          \
    GP_SIMD_TAIL(KEEP)

/* A loop a comparison: STEPS(..., OP, OPR) with its name and C operator. */
#define GP_SIMD_CMP_SWITCH(cmp, STEPS, ...)                                    \
    switch (cmp) {                                                             \
    case GP_CMP_LT: STEPS(__VA_ARGS__, LT, <) break;                           \
    case GP_CMP_LE: STEPS(__VA_ARGS__, LE, <=) break;                          \
    case GP_CMP_GT: STEPS(__VA_ARGS__, GT, >) break;                           \
    case GP_CMP_GE: STEPS(__VA_ARGS__, GE, >=) break;                          \
    case GP_CMP_EQ: STEPS(__VA_ARGS__, EQ, ==) break;                          \
    case GP_CMP_NE: STEPS(__VA_ARGS__, NE, !=) break;                          \
    }
#endif

#if GP_CPU_SIMD_X86
/* cpu_select_avx2.c: the tables of both AVX2 files, filled once; then the
 * two above, storing items of 4 and 8 bytes by masked stores or else through
 * a buffer, and items of 1 and 2 bytes through a buffer by the narrow ones. */
void gp_cpu_avx2_init(void);
int64_t gp_cpu_avx2_split_if(gp_dtype t, const void *x, int64_t n, gp_cmp cmp, const void *value, void *sel,
                             void *rej, bool masked);
int64_t gp_cpu_avx2_split(size_t size, const void *x, const uint8_t *f, int64_t n, void *sel, void *rej,
                          bool masked);
/* cpu_select_avx2_narrow.c: items of 1 and 2 bytes (tables from
 * gp_cpu_avx2_init). */
int64_t gp_cpu_avx2_narrow_split_if(gp_dtype t, const void *x, int64_t n, gp_cmp cmp, const void *value, void *sel,
                                    void *rej);
int64_t gp_cpu_avx2_narrow_split(size_t size, const void *x, const uint8_t *f, int64_t n, void *sel, void *rej);
#endif

#if GP_CPU_SIMD_NEON
/* cpu_select_neon.c, which defines the two above too (NEON is the only
 * path there is on Arm): its tables, filled once. */
void gp_cpu_neon_init(void);
#endif

#if !GP_CPU_SIMD_X86 && !GP_CPU_SIMD_NEON
/* Not reached: gp_cpu_simd_covers() is false on these machines. */
static inline int64_t gp_cpu_simd_split_if(gp_dtype t, const void *x, int64_t n, gp_cmp cmp, const void *value,
                                           void *sel, void *rej)
{
    return 0;
}
static inline int64_t gp_cpu_simd_split(size_t size, const void *x, const uint8_t *f, int64_t n, void *sel,
                                        void *rej)
{
    return 0;
}
#endif

#endif
