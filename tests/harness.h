/*
 * Test harness shared by every test program: command line, seeds, a PRNG of
 * our own, case counting, a counting allocator and guard-banded buffers.
 *
 * Command line: --backend cpu|cuda, --seed S, --case K (run one case only),
 * --quick (fewer, smaller cases: for runs under compute-sanitizer).
 * A backend that is not usable here exits 77 (ctest: skipped) unless
 * GPUPRIM_REQUIRE_CUDA=1 asks for CUDA, where it is a failure.
 */
#ifndef GP_TEST_HARNESS_H
#define GP_TEST_HARNESS_H

#include "gpuprim.h"
#include "seed.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------------- PRNG */

/* splitmix64: counter based, so element i of a stream can be had directly
 * (gpt_rng_at), which lets large inputs be generated in parallel. */
typedef struct gpt_rng {
    uint64_t s;
} gpt_rng;

static inline uint64_t gpt_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static inline uint64_t gpt_next(gpt_rng *r) { return gpt_mix64(r->s += 0x9e3779b97f4a7c15ull); }
/* The stream of `seed` positioned so that the next draw is its draw number i. */
static inline gpt_rng gpt_rng_at(uint64_t seed, uint64_t i)
{
    gpt_rng r = {seed + i * 0x9e3779b97f4a7c15ull};
    return r;
}
/* Uniform in [0, 1). */
static inline double gpt_uniform(gpt_rng *r) { return (double)(gpt_next(r) >> 11) * 0x1p-53; }
/* Uniform in [0, n), n > 0 (the modulo bias is irrelevant for tests). */
static inline uint64_t gpt_below(gpt_rng *r, uint64_t n) { return gpt_next(r) % n; }
/* A seed derived from a parent seed and a few case parameters. */
uint64_t gpt_derive(uint64_t seed, uint64_t a, uint64_t b, uint64_t c, uint64_t d);

/* ----------------------------------------------------------- test program */

typedef struct gpt {
    const char *name;
    gp_backend backend;
    gp_ctx *ctx; /* created by gpt_init through gpt->counter */
    uint64_t seed;
    long only_case; /* -1: all cases */
    int64_t only_size; /* --size: -1 for all; else only the cases of that many elements */
    bool size_asked;   /* the test consulted only_size (gpt_size_selected) */
    long size_matches; /* cases gpt_size_selected let run under --size */
    bool quick;
    long passed, failed, skipped;
} gpt;

/* 0 if backend b is usable here; else prints why and returns the exit
 * status described above: 77 (skipped), or 1 for CUDA under
 * GPUPRIM_REQUIRE_CUDA=1. */
int gpt_backend_unusable(gp_backend b);

/* Parses the command line, picks and prints the seed, probes the backend
 * (exits 77 or 1 as described above) and creates the context. */
void gpt_init(gpt *t, int argc, char **argv);
/* Frees the context, checks that every allocation it made was freed, prints
 * "N passed, N failed, N skipped" and returns the exit code: 1 on any
 * failure, 77 when every case was skipped, else 0. */
int gpt_finish(gpt *t);

/* True if case number k is to run (--case). */
bool gpt_selected(const gpt *t, long k);
/* True if a case of n elements is to run (--size). A test that takes
 * --size asks this; in one that never does, gpt_finish fails the run
 * rather than let the option pass unheeded. */
bool gpt_size_selected(gpt *t, int64_t n);
/* True when no --case or --size narrows the run (the error paths run). */
static inline bool gpt_whole_run(const gpt *t) { return t->only_case < 0 && t->only_size < 0; }
void gpt_pass(gpt *t);
void gpt_skip(gpt *t);
/* Skips a case this machine has no memory for, saying why; except on CUDA
 * under GPUPRIM_REQUIRE_CUDA=1, where it fails: the GPU machine holds every
 * case, and a skip there would hide in a run whose other cases pass. */
void gpt_skip_for_memory(gpt *t, const char *why);
/* Counts a failure and prints one line: the message, then the seed. */
void gpt_fail(gpt *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* One check is one case: passes or fails with the file, line and message. */
#define GPT_CHECK(t, cond, ...)                                                    \
    do {                                                                           \
        if (cond) gpt_pass(t);                                                     \
        else gpt_fail_at((t), __FILE__, __LINE__, #cond, __VA_ARGS__);             \
    } while (0)
void gpt_fail_at(gpt *t, const char *file, int line, const char *cond, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* ------------------------------------------------------ counting allocator */

/*
 * Wraps gp_default_allocator(): counts allocations and frees, and fails the
 * fail_at-th allocation (1-based; 0 never) to inject out-of-memory.
 */
typedef struct gpt_counter {
    atomic_long allocs, frees, calls;
    atomic_ullong bytes; /* of every block handed out, freed or not */
    long fail_at;
    gp_allocator allocator; /* hand this to gp_ctx_params */
} gpt_counter;

void gpt_counter_init(gpt_counter *c, long fail_at);
/* A context of this backend on a fresh counter (failing nothing): NULL in
 * *ctx where gp_ctx_create_ex fails, whose status it returns. */
gp_status gpt_counted_ctx(gpt_counter *c, gp_backend backend, gp_ctx **ctx);
static inline long gpt_outstanding(gpt_counter *c) { return c->allocs - c->frees; }

/* ---------------------------------------------------------- guard bands */

enum { GPT_GUARD = 256 }; /* bytes each side; keeps the payload 256-aligned */

/* A payload with a canary band before and after it, in the context's space
 * (device memory on CUDA) or in host memory (ctx NULL). */
typedef struct gpt_guarded {
    gp_ctx *ctx;
    unsigned char *base;
    unsigned char *ptr; /* the payload: base + GPT_GUARD */
    size_t bytes;
} gpt_guarded;

gp_status gpt_guarded_alloc(gp_ctx *ctx, gpt_guarded *g, size_t bytes);
void gpt_guarded_free(gpt_guarded *g);
/* Writes the canaries and fills the payload with `poison` (a pattern of
 * `plen` bytes, repeated). */
gp_status gpt_guarded_poison(gpt_guarded *g, const void *poison, size_t plen);
/* Copies the payload to `payload` (if not NULL) and checks the canaries:
 * returns false and describes the first damaged byte in `why` if any
 * canary changed (or the copy failed). */
bool gpt_guarded_check(gpt_guarded *g, void *payload, char *why, size_t why_size);

/* True when `bytes` of context memory at `dev` still equal `host`: an input
 * a call must only read. Else says "the `what` changed" in `why`. */
bool gpt_unchanged(gp_ctx *ctx, const void *dev, const void *host, size_t bytes, const char *what, char *why,
                   size_t why_size);

#endif
