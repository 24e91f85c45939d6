/* What the AVX2 selections share: cpu_select_avx2.c (items of 4 and 8
 * bytes) and cpu_select_avx2_narrow.c (1 and 2). Internal to those two. */
#ifndef GP_CPU_SELECT_AVX2_H
#define GP_CPU_SELECT_AVX2_H

#include <stdint.h>
#include <string.h>

#define GP_AVX2 __attribute__((target("avx2,popcnt")))

/* gp_avx2_lanes[m]: the lanes an 8-bit mask m sets, in order, as lane
 * indices (the rest 0); gp_avx2_pairs[m]: the same as the byte pairs of
 * 2-byte lanes. Filled once a process by gp_cpu_avx2_init. */
extern uint8_t gp_avx2_lanes[256][8];
extern uint8_t gp_avx2_pairs[256][16];

/* Buffered stores: whole vectors go to b + held, and the buffer is copied
 * to dst (exactly `held` bytes) when it holds GP_AVX2_BUF bytes or more,
 * and at the end, so nothing is stored in dst past what was kept. */
enum { GP_AVX2_BUF = 512 };
typedef struct gp_avx2_buf {
    unsigned char *dst;
    int held;                         /* bytes */
    unsigned char b[GP_AVX2_BUF + 32]; /* room for one more vector past the limit */
} gp_avx2_buf;

static inline void gp_avx2_flush(gp_avx2_buf *o)
{
    memcpy(o->dst, o->b, (size_t)o->held);
    o->dst += o->held;
    o->held = 0;
}

/* The start of a selection by comparison (xv, vp, selv, rejv): the typed
 * views, the value, and the positions read (i) and kept (k). */
#define GP_AVX2_IF_ARGS(T)                                                     \
    const T *x = (const T *)xv;                                                \
    T *sel = (T *)selv, *rej = (T *)rejv;                                      \
    T value;                                                                   \
    memcpy(&value, vp, sizeof value);                                          \
    int64_t i = 0, k = 0;

/* The items short of a whole vector, one by one; KEEP(i) tests one. */
#define GP_AVX2_TAIL(KEEP)                                                     \
    for (; i < n; i++) {                                                       \
        const int s = (KEEP);                                                  \
        if (sel) {                                                             \
            if (s) sel[k] = x[i];                                              \
            else if (rej) rej[i - k] = x[i];                                   \
        }                                                                      \
        k += s;                                                                \
    }

/* Integer comparisons as lane masks, from the item group G's GT_G and EQ_G
 * masks of a against b and its all-lanes mask FULL_G: lt, le, ge and ne are
 * swaps and complements of gt and eq. */
#define INT_LT(G, a, b) (unsigned)GT_##G(b, a)
#define INT_LE(G, a, b) (FULL_##G ^ (unsigned)GT_##G(a, b))
#define INT_GT(G, a, b) (unsigned)GT_##G(a, b)
#define INT_GE(G, a, b) (FULL_##G ^ (unsigned)GT_##G(b, a))
#define INT_EQ(G, a, b) (unsigned)EQ_##G(a, b)
#define INT_NE(G, a, b) (FULL_##G ^ (unsigned)EQ_##G(a, b))

/* A loop a comparison: STEPS(..., OP, OPR) with its name and C operator. */
#define GP_AVX2_CMP_SWITCH(cmp, STEPS, ...)                                    \
    switch (cmp) {                                                             \
    case GP_CMP_LT: STEPS(__VA_ARGS__, LT, <) break;                           \
    case GP_CMP_LE: STEPS(__VA_ARGS__, LE, <=) break;                          \
    case GP_CMP_GT: STEPS(__VA_ARGS__, GT, >) break;                           \
    case GP_CMP_GE: STEPS(__VA_ARGS__, GE, >=) break;                          \
    case GP_CMP_EQ: STEPS(__VA_ARGS__, EQ, ==) break;                          \
    case GP_CMP_NE: STEPS(__VA_ARGS__, NE, !=) break;                          \
    }

#endif
