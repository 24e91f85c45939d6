/* Selections on x86-64 CPUs with AVX-512 (F, BW, VL and VBMI2), or with
 * AVX2: a vector of items is compared or tested against its flags into a
 * mask, its kept items moved to the front (AVX-512's compress; AVX2's
 * permute or byte shuffle by a table) and written by a masked store or
 * through a buffer, so nothing is stored past the last one kept. cpu_select.c takes
 * this path wherever gp_cpu_simd_covers() says so and its scalar loops
 * elsewhere. */
#ifndef GP_CPU_SELECT_SIMD_H
#define GP_CPU_SELECT_SIMD_H

#include <string.h>

#include "cpu_backend.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GP_CPU_SIMD_X86 1
#else
#define GP_CPU_SIMD_X86 0
#endif

/* True where a SIMD path takes items of `size` bytes: the CPU has its
 * instructions and the environment allows it. GPUPRIM_CPU_SIMD=0 keeps the
 * scalar loops, =avx2 takes the AVX2 path where AVX-512 is there too, and
 * =avx2-masked or =avx2-buffered that path with the given stores (hooks:
 * the tests run every path that way). Asked once a process. */
bool gp_cpu_simd_covers(size_t size);

/* "avx512", "avx2 (masked stores)" or "avx2 (buffered stores)" (how items
 * of 4 and 8 bytes leave; those of 1 and 2 always through a buffer), or
 * "scalar": the path the selections take in this process. */
const char *gp_cpu_select_path(void);

#if GP_CPU_SIMD_X86
/* Writes to sel, in order, the items of x[0..n) for which (x cmp *value)
 * holds and, where rej is not NULL, the others to rej, in order; returns
 * how many were selected. Only those slots are written. With sel NULL it
 * writes nothing and only counts. */
int64_t gp_cpu_simd_split_if(gp_dtype t, const void *x, int64_t n, gp_cmp cmp, const void *value, void *sel,
                             void *rej);
/* The same by flags: the items with f[i] != 0 to sel, the others to rej if
 * not NULL. size is the item size, 1, 2, 4 or 8 bytes; sel is not NULL. */
int64_t gp_cpu_simd_split(size_t size, const void *x, const uint8_t *f, int64_t n, void *sel, void *rej);

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

/* The comparison value's bits, for broadcasting into every lane. */
static inline uint64_t gp_simd_value_bits(const void *p, size_t size)
{
    uint64_t u = 0;
    memcpy(&u, p, size);
    return u;
}
#else
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
