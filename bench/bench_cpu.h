/* The CPU backend's side of the harness: host arena, host timing, and the
 * OpenMP read and copy ceilings. */
#ifndef GP_BENCH_CPU_H
#define GP_BENCH_CPU_H

#include "bench.h"

/* Allocates the arena for inputs of `slice_bytes`. Returns GPB_OK, or GPB_OK
 * with a->base == NULL and `note` set when it does not fit in memory. */
int gpb_cpu_arena_alloc(const gpb_env *env, gpb_arena *a, size_t slice_bytes, char *note, size_t note_size);
void gpb_cpu_arena_free(gpb_arena *a);

/* Times nimpl (<= GPB_MAX_IMPLS) implementations in rounds: warm-up rounds,
 * then env->opts.runs rounds in which each implementation runs once, each
 * call on the arena's next slice and timed alone with the monotonic clock.
 * Interleaving keeps a drifting clock or a noisy neighbour from favouring
 * whichever implementation happened to run first. */
int gpb_cpu_time(const gpb_env *env, gpb_arena *a, const gpb_impl *impls, int nimpl, gpb_time *outs);

/* The ceiling as an implementation: self points to the size_t byte count,
 * read from `in` with every OpenMP thread. */
int gpb_cpu_read_ceiling(void *self, const void *in);

/* The copy ceiling as an implementation: self points to a gpb_copy_job;
 * its `bytes` from `in` to `dst`, split among every OpenMP thread. */
typedef struct gpb_copy_job {
    size_t bytes;
    void *dst;
} gpb_copy_job;
int gpb_cpu_copy_ceiling(void *self, const void *in);

#endif
