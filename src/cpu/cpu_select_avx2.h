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

/* Integer comparisons as lane masks, from the item group G's GT_G and EQ_G
 * masks of a against b and its all-lanes mask FULL_G: lt, le, ge and ne are
 * swaps and complements of gt and eq. */
#define INT_LT(G, a, b) (unsigned)GT_##G(b, a)
#define INT_LE(G, a, b) (FULL_##G ^ (unsigned)GT_##G(a, b))
#define INT_GT(G, a, b) (unsigned)GT_##G(a, b)
#define INT_GE(G, a, b) (FULL_##G ^ (unsigned)GT_##G(b, a))
#define INT_EQ(G, a, b) (unsigned)EQ_##G(a, b)
#define INT_NE(G, a, b) (FULL_##G ^ (unsigned)EQ_##G(a, b))

#endif
