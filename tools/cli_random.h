/*
 * Test data: our own generator (xoshiro256** seeded through splitmix64, so
 * a seed gives the same bytes on every machine and C library) and the
 * distributions of `gpuprim gen` and `gpuprim demo`.
 */
#ifndef CLI_RANDOM_H
#define CLI_RANDOM_H

#include "gpuprim.h"

#include <stddef.h>
#include <stdint.h>

typedef struct cli_rng {
    uint64_t s[4];
} cli_rng;

void cli_rng_seed(cli_rng *r, uint64_t seed);
uint64_t cli_rng_next(cli_rng *r);
/* A seed from the clock and the address space, for runs without --seed. */
uint64_t cli_rng_fresh_seed(void);

typedef enum cli_dist {
    CLI_DIST_UNIFORM,    /* integers: every bit pattern; floats: [0, 1) */
    CLI_DIST_NORMAL,     /* floats: N(0, 1); integers: see cli_fill */
    CLI_DIST_ASCENDING,  /* element i is i, converted */
    CLI_DIST_DESCENDING, /* element i is n - 1 - i, converted */
    CLI_DIST_CONSTANT    /* every element is one value */
} cli_dist;

/* "uniform|normal|ascending|descending|constant", for messages. */
#define CLI_DIST_NAMES "uniform normal ascending descending constant"
int cli_dist_from_name(const char *name, cli_dist *out);
const char *cli_dist_name(cli_dist d);

typedef struct cli_fill_spec {
    gp_dtype dtype;
    cli_dist dist;
    int64_t n;                   /* the whole array's length (for descending) */
    unsigned char constant[8];   /* the value for CLI_DIST_CONSTANT, host order */
} cli_fill_spec;

/*
 * Writes elements first .. first+count-1 of the array into `out` (host
 * order). Random distributions draw from `r` in element order, so filling
 * an array in chunks gives the same values as filling it at once.
 * - normal on integers: centred on the middle of the dtype's range (0 for
 *   signed types), standard deviation range / 8, rounded and clamped;
 * - ascending, descending on integers: i converted with wrap-around (an i8
 *   array of 300 elements counts 0..127, -128..-1, 0..43);
 *   on floats: i rounded to the nearest representable value.
 */
void cli_fill(const cli_fill_spec *spec, cli_rng *r, int64_t first, size_t count, void *out);

#endif /* CLI_RANDOM_H */
