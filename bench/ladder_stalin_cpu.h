/* Seed 002's host side (ladder_stalin_cpu.c): the article's CPU loop, the
 * serial reference, and the inputs by pattern. Used by `gpuprim ladder
 * stalin` and by the cpu filter benches (bench_filter_cpu.c). */
#ifndef GP_LADDER_STALIN_CPU_H
#define GP_LADDER_STALIN_CPU_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

int64_t gpl_stalin_cpu_article(const int32_t *in, int64_t n, int32_t *out);
int64_t gpl_stalin_reference(const int32_t *in, int64_t n, int32_t *out);
void gpl_stalin_fill(int32_t *x, int64_t n, int pattern, uint64_t seed);

#ifdef __cplusplus
}
#endif

#endif
