/*
 * Counter-based random inputs, identical on host and device: element i of a
 * point depends only on (seed, i), so a slice can be filled in parallel and
 * both backends see the same data for the same seed. Never all zeros.
 */
#ifndef GP_BENCH_RNG_H
#define GP_BENCH_RNG_H

#include <stdint.h>

#ifdef __CUDACC__
#  define GPB_HD __host__ __device__ __forceinline__
#else
#  define GPB_HD static inline
#endif

/* splitmix64's finaliser: a bijection with good avalanche. */
GPB_HD uint64_t gpb_hash64(uint64_t seed, uint64_t i)
{
    uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Float inputs for sums, min and max: (0, 1], 24 random bits. Positive, so
 * sum |x| is the sum itself and a relative error bound is meaningful. */
GPB_HD double gpb_unit(uint64_t h) { return (double)((h >> 40) + 1) * (1.0 / 16777216.0); }

/* Float inputs for products: 1 +- 2^-10, so 2^30 factors stay far from
 * overflow and underflow (log of the product is a random walk of sd ~ 9). */
GPB_HD double gpb_near_one(uint64_t h)
{
    return 1.0 + ((double)(h >> 40) - 8388608.0) * (1.0 / 8589934592.0);
}

#endif
