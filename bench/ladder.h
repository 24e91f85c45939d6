/*
 * Internal interface of `gpuprim ladder NAME`: the seed articles'
 * experiments rerun on the present GPU (not installed).
 *
 * A ladder is a list of rungs, from the article's naive kernel to gpuprim
 * and the best peer, each timed on the same input in the same run and
 * checked against a serial reference. Each ladder prints its own tables (the
 * seeds' layouts differ) and records one gpl_row per measurement; the
 * harness writes the rows as CSV and JSON with the run's facts (gpb_meta).
 *
 * The run's environment is the bench harness's (bench.h): a CUDA context on
 * its own stream, events, arenas, the read ceiling. Usable from C and CUDA C++.
 */
#ifndef GP_LADDER_H
#define GP_LADDER_H

#include "bench.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Options shared by every ladder. */
typedef struct gpl_opts {
    int check_only;     /* --check: correctness of every rung at small and
                           boundary sizes, no timing; exit 1 on a mismatch */
    int64_t sizes[64];  /* --sizes: replaces the ladder's default sizes */
    int nsizes;
} gpl_opts;

/* What a row's check found. */
typedef enum gpl_check {
    GPL_CHECK_OK = 0,     /* matches the reference */
    GPL_CHECK_WRONG,      /* does not: the ladder fails (exit 1) */
    GPL_CHECK_RACY,       /* seed 004's published race: a wrong or varying
                             answer is the point and does not fail the run */
    GPL_CHECK_NONE        /* nothing to check (a ceiling) */
} gpl_check;

/* One measurement. NAN where a number does not apply. */
typedef struct gpl_row {
    char section[48]; /* the table it belongs to: "reduce", "1920x1080 u8" */
    char rung[48];    /* "reduce3", "tile 32x33", "gpuprim", "CUB", "cpu serial" */
    char config[48];  /* "256 threads", "64 blocks", "" */
    int64_t n;        /* elements */
    int64_t rows, cols; /* 2-D rungs; 0 otherwise */
    gpb_time t;       /* microseconds */
    double bytes;     /* bytes the work must move at least (for GB/s); 0: none */
    double pct_peak;  /* of the datasheet peak by seed 000's formula */
    double pct_ceiling; /* of the measured ceiling in the same run */
    double ratio;     /* a ladder's own comparison (speedup vs the CPU, ...) */
    gpl_check check;
    char note[160];
} gpl_row;

/* Fills what every row starts with: NANs, check NONE, empty strings. */
void gpl_row_init(gpl_row *r, const char *section, const char *rung, const char *config, int64_t n);
/* GB/s of a row (bytes / median), NAN when it has no bytes or no time. */
double gpl_gbs(const gpl_row *r);

typedef struct gpl_report gpl_report;

/* A ladder: its name (`gpuprim ladder NAME`), one line for --help, and its
 * run, which prints its tables, adds its rows and returns GPB_OK,
 * GPB_CHECK_FAILED (a rung gave a wrong answer) or GPB_ERROR. */
typedef struct gpl_ladder {
    const char *name;
    const char *about;
    int (*run)(gpb_env *env, const gpl_opts *o, gpl_report *rep);
} gpl_ladder;

/* Records a row (copied). GPB_ERROR if out of memory (printed). */
int gpl_report_add(gpl_report *rep, const gpl_row *r);

/* A plain table of rows: rung, config, n, us, GB/s, % peak, % ceiling,
 * ratio, check, note; columns that are NAN in every row are left out. */
void gpl_print_rows(const char *title, const gpl_row *rows, int nrows);

/* `gpuprim ladder`'s command line (ladder_args.c). */
typedef struct gpl_args {
    const char *name, *csv, *json; /* pointers into argv */
    gpb_run_args run;              /* --device, --runs, --warmup, --seed */
    gpl_opts o;
} gpl_args;

/* GPB_OK, GPB_HELP_SHOWN (usage on stdout), or GPB_ERROR after a message
 * on stderr. */
int gpl_parse_args(int argc, char **argv, gpl_args *a);

/* The ladder called `name` in this build, or NULL; *known: whether any build
 * has it (the GPU ladders are absent without CUDA). */
const gpl_ladder *gpl_find_ladder(const char *name, int *known);

/* Datasheet peak of the run's GPU by seed 000's formula, bus width / 8 x
 * memory clock x 2, in GB/s; 0 when the device does not say (CUDA only). */
double gpl_peak_gbs(const gpb_env *env);

#ifdef __cplusplus
}
#endif

#endif
