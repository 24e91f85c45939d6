/* `gpuprim bench`'s command line, and the plan made from it before anything
 * runs: the cases named, each with its own dtypes, ops, sizes or shapes.
 * Split from bench_main.c so that the args fuzz target reads it whole. */
#ifndef GPUPRIM_BENCH_ARGS_H
#define GPUPRIM_BENCH_ARGS_H

#include "bench.h"

#include <stdint.h>

enum {
    GPB_MAX_LIST = 64,                 /* items of one comma list */
    GPB_MAX_SIZES = GPB_MAX_LIST + 22, /* --sizes plus the sweep 2^0..2^40 */
    GPB_MAX_CASES = 32,                /* the case table's room (bench_cases.c) */
};

typedef struct gpb_args {
    const char *case_name; /* "all" or a comma list of case names */
    gp_backend backend;
    gpb_run_args run; /* --device, --runs, --warmup, --seed */
    int timing;       /* --hold: a gpb_timing */
    gp_dtype dtypes[GPB_MAX_LIST];
    int ndtypes;
    gp_op ops[GPB_MAX_LIST];
    int nops;
    int min_log2, max_log2; /* max_log2: -1 the case's default, -2 no sweep (--max-log2 -1) */
    int64_t sizes[GPB_MAX_LIST];
    int nsizes;
    int64_t shapes[GPB_MAX_LIST][2]; /* --shapes, for 2-D cases: rows, cols */
    int nshapes;
    int dtypes_given;
    int ops_given, sweep_given; /* --op; --sizes, --min-log2 or --max-log2 */
    const char *csv, *json, *plot;
} gpb_args;

/* Every case this build has (bench_cases.c). */
extern const gpb_case *const gpb_cases[];
extern const int gpb_ncases;
/* The CUDA cases' names, also in builds without CUDA, so that a CUDA-only
 * case asked of the CPU says so (bench_cases.c). */
extern const char *const gpb_cuda_case_names[];
extern const int gpb_ncuda_case_names;
/* NULL where those names match the table's CUDA cases in a CUDA build (and
 * always without CUDA), else the first that does not. */
const char *gpb_cuda_case_names_differ(void);

/* GPB_OK, GPB_HELP_SHOWN (usage on stdout), or GPB_ERROR after a message on
 * stderr. Strings in *a point into argv. */
int gpb_parse_args(int argc, char **argv, gpb_args *a);

/* The cases `a` names for backend b, in the order named, into sel[], and
 * each one's arguments with its defaults filled in into per_case[] (both of
 * GPB_MAX_CASES); GPB_OK, or GPB_ERROR after a message on stderr (an unknown
 * case, one not built for b, a list that does not parse, no sizes to run). */
int gpb_plan(const gpb_args *a, gp_backend b, const gpb_case **sel, gpb_args *per_case, int *nsel);

/* A 1-D case's sizes: the sweep 2^min, 2^(min+2), ... up to and including
 * 2^max, plus the extra sizes, ascending and unique; out has GPB_MAX_SIZES
 * room. Returns how many. */
int gpb_case_sizes(const gpb_args *a, const gpb_case *c, int64_t *out);

#endif
