/*
 * Reduction test data and expectations: the input patterns, what the test
 * may expect of a result (exact or within a bound), the identities and the
 * output poison. Written from the header's contract, not from the library.
 */
#ifndef GP_TEST_REDUCE_DATA_H
#define GP_TEST_REDUCE_DATA_H

#include "harness.h"

typedef enum gpt_pattern {
    PAT_RANDOM,   /* full range for integers; mixed magnitudes for floats */
    PAT_CONST,    /* one random value everywhere */
    PAT_ASC,      /* first element the smallest, last the largest */
    PAT_DESC,
    PAT_INTVAL,   /* integer-valued floats: sums stay exact */
    PAT_POS,      /* as random, all positive: sum |x| == |sum|, so sum bounds are relative */
    PAT_NAN,      /* random floats and one NaN (first, last or anywhere) */
    PAT_PINF,     /* ... and one +inf */
    PAT_NINF,     /* ... and one -inf */
    PAT_INFS,     /* ... and one +inf and one -inf */
    PAT_ZEROS,    /* +0 and -0 at random: MIN must be -0 and MAX +0 where both occur */
    PAT_PZ_NZ,    /* +0, then -0 from a random point on: MIN turns -0 there */
    PAT_NZ_PZ,    /* -0, then +0 from a random point on: MAX turns +0 there */
    PAT_COUNT
} gpt_pattern;

const char *gpt_pattern_name(gpt_pattern p);
/* Patterns 0..PAT_DESC apply to every dtype; the rest to floats only. */
bool gpt_pattern_for(gpt_pattern p, gp_dtype t);

/* Our own view of the dtypes (not the library's tables). */
bool gpt_is_float(gp_dtype t);
bool gpt_is_signed(gp_dtype t);
size_t gpt_size(gp_dtype t);
/* out_t is in_t or wider of the same kind: what gp_reduce must accept. */
bool gpt_widening_ok(gp_dtype in_t, gp_dtype out_t);
/* AND, OR, XOR are integer-only. */
bool gpt_op_defined(gp_op op, gp_dtype t);

/* What gpuprim.h documents as valid, so what gp_supports must answer 1 for
 * on every backend: reduce and scan take an op defined on in_t and out_t
 * in_t or wider of its kind; select, partition, filter, transpose, count
 * and histogram take op 0, a known dtype and out_t == in_t. */
bool gpt_header_valid(gp_primitive prim, gp_op op, gp_dtype in_t, gp_dtype out_t);
const char *gpt_prim_name(gp_primitive prim);
/* Whether a case can run: gp_supports says yes. A combination the header
 * documents as valid that the backend refuses fails (with `desc`); only
 * invalid ones are skipped, so a backend cannot drop a case unnoticed. */
bool gpt_supported(gpt *t, gp_primitive prim, gp_op op, gp_dtype in_t, gp_dtype out_t, const char *desc);

/*
 * Fills n elements of `t` at `buf` with pattern `p` from `seed`. `prodsafe`
 * keeps float products exact or bounded in every order: values of magnitude
 * 1 (and a zero) for n > 64, else magnitudes in [0.5, 2).
 */
void gpt_fill(void *buf, gp_dtype t, int64_t n, gpt_pattern p, bool prodsafe, uint64_t seed);

/* A compensated (Neumaier) running sum in long double: hi + lo is the
 * exact sum to about long double's precision at any n the tests reach (far
 * below f64's on x86; about f64's where long double is double, which the
 * bound's 4u|sum| term absorbs), so a float sum can be judged against the
 * truth rather than a serial loop's rounding. */
typedef struct gpt_ksum {
    long double hi, lo;
} gpt_ksum;
void gpt_ksum_add(gpt_ksum *k, long double x);
static inline long double gpt_ksum_value(const gpt_ksum *k) { return k->hi + k->lo; }

/* What is known about a float input, for deciding exactness. */
typedef struct gpt_facts {
    long double sum_abs; /* sum of |x| over the finite values */
    long double sum;     /* their sum (gpt_ksum): the true value of a float sum */
    bool all_int;        /* every finite value is an integer */
    bool unit;           /* every finite value is 0 or +-1 */
    bool small_pow2;     /* every finite value is 0, +-0.5, +-1 or +-2 */
} gpt_facts;
void gpt_facts_of(const void *buf, gp_dtype t, int64_t n, gpt_facts *f);

/*
 * Whether `got` is an acceptable result where the serial reference gave
 * `ref`. Integers: bitwise. Floats: NaN matches NaN, inf matches inf of the
 * same sign; min/max, integer sums below 2^mantissa and products of powers
 * of two are exact; other sums within 2 gamma(gpt_sum_depth(n)) sum|x| of
 * f->sum (the true sum), products within 2 gamma(n) |ref|. On a mismatch
 * `why` says what and by how much.
 */
bool gpt_result_ok(gp_op op, gp_dtype out_t, int64_t n, const gpt_facts *f, const void *got,
                   const void *ref, char *why, size_t why_size);

/* The unit roundoff u of float dtype t (f32 or f64), and gamma(k) = k u /
 * (1 - k u): the relative bound of k roundings (inf from k u >= 1/2). */
long double gpt_unit_roundoff(gp_dtype t);
long double gpt_gamma(gp_dtype t, int64_t k);

/* The most roundings one element can go through in an n-term reduction on
 * either backend, with a margin (reduce_data.c says how it is derived). */
int64_t gpt_sum_depth(int64_t n);

/* The documented result for n == 0, in out_t. */
void gpt_identity(gp_op op, gp_dtype out_t, void *out);
/* A poison for the output that a correct result cannot equal: 0xA5 bytes
 * (0x5A if the expected value is that), NaN for floats unless NaN is expected. */
void gpt_poison_for(gp_dtype out_t, const void *expected, void *poison);
/* Writes "0x..(decimal)" or "%.17g" for one value. */
void gpt_format(gp_dtype t, const void *v, char *s, size_t size);

#endif
