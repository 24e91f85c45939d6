/*
 * Internal interface of the benchmark harness (not installed).
 *
 * A case is one primitive on one backend. It declares the bytes the
 * primitive must move at least (each input read once, each output written
 * once) and measures three implementations at one point, in the same run and
 * on the same rotated inputs:
 *   subject  gpuprim itself,
 *   peer     the implementation users would otherwise call (CUB, a serial loop),
 *   ceiling  a streaming kernel of our own that moves the same bytes.
 * The harness turns times into GB/s, % of ceiling and the ratio to the peer,
 * prints tables and a verdict, and writes CSV and JSON. Adding a primitive is
 * a new case file plus one line in the case table (bench_main.c).
 *
 * Usable from C and from CUDA C++.
 */
#ifndef GP_BENCH_INTERNAL_H
#define GP_BENCH_INTERNAL_H

#include "gpuprim.h"

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes inside the harness. The process exit code is 0, 1 if any
 * check failed, 2 on a usage or runtime error. */
enum { GPB_OK = 0, GPB_CHECK_FAILED = 1, GPB_ERROR = 2 };

/* A case's check result as the timing goes on: a failed check is recorded
 * in *failed and becomes GPB_OK (the timing continues); errors stop it. */
static inline int gpb_keep_going(int rc, int *failed)
{
    if (rc != GPB_CHECK_FAILED) return rc;
    *failed = 1;
    return GPB_OK;
}

/* Options shared by every case. */
typedef struct gpb_opts {
    gp_backend backend; /* resolved: CPU or CUDA */
    int device;
    int runs;   /* timed calls per implementation and point */
    int warmup; /* untimed calls before them */
    uint64_t seed;
    int timing; /* CUDA: a gpb_timing */
} gpb_opts;

/* How a CUDA call is timed (bench/README.md): events around it on a stream
 * held until it is queued (GPU time), events alone (host launch latency
 * included), or the host clock around the call and a stream synchronise
 * (cases whose calls run or wait on the host: events would miss that work). */
enum gpb_timing { GPB_TIMING_EVENTS, GPB_TIMING_HELD, GPB_TIMING_HOST };

/* One point of a case: what to run. 2-D cases (transpose) also give the
 * shape, rows x cols = n; 1-D cases leave rows and cols 0. */
typedef struct gpb_spec {
    gp_dtype dtype;
    gp_op op;
    int64_t n;
    int64_t rows, cols;
} gpb_spec;

/* An element type the bench knows and gpuprim has no dtype for: "c16",
 * 16 bytes (complex double), for transpose, whose cuBLAS peer is Zgeam.
 * Names and sizes go through gpb_dtype_name / gpb_dtype_size. */
#define GPB_DTYPE_C16 ((gp_dtype)100)
const char *gpb_dtype_name(gp_dtype t);
size_t gpb_dtype_size(gp_dtype t);

/* Median, min and max of the timed calls, in microseconds; measured == 0
 * where the implementation was not run (unsupported, skipped). */
typedef struct gpb_time {
    int measured;
    double med_us, min_us, max_us;
} gpb_time;

/* What a case fills in for one point. */
typedef struct gpb_point {
    gpb_spec spec;
    double bytes_read, bytes_written;
    gpb_time subject, peer, ceiling;
    int check_failed;
    char note[200]; /* why something was skipped or failed; "" if nothing */
} gpb_point;

/* Targets a case is judged against (a benchmark: misses never change the
 * exit code). A bound of 0 means "no such target". */
typedef struct gpb_targets {
    double min_ratio_to_peer; /* at every size: peer time / subject time >= this */
    double min_pct_ceiling;   /* for n >= pct_from_n */
    int64_t pct_from_n;
    double max_us; /* for n <= max_us_to_n */
    int64_t max_us_to_n;
    double min_ratio_large; /* a second ratio bound, for n >= large_from_n (issue 3: 1.5x CUB at 2^28) */
    int64_t large_from_n;
} gpb_targets;

typedef struct gpb_env gpb_env;

typedef struct gpb_case {
    const char *name;       /* the verb after `bench`: "reduce" */
    gp_backend backend;     /* CPU or CUDA */
    const char *subject;    /* column and row names */
    const char *peer;
    const char *ceiling;    /* e.g. "read-ceiling": moves the same bytes, read-only */
    const char *about;      /* one line under each table: dtypes, peer calls */
    int default_max_log2;   /* largest default size, log2 */
    gpb_targets targets;
    /* Optional: 0 when the combination means nothing for any implementation
     * (the reason goes to `why`); the harness then skips it. */
    int (*applicable)(const gpb_spec *s, char *why, size_t size);
    /* Bytes the primitive must move at least. */
    void (*bytes)(const gpb_spec *s, double *rd, double *wr);
    /* Measures one point; returns GPB_OK, GPB_CHECK_FAILED or GPB_ERROR
     * (after printing the failing call). Sizes that do not fit are not
     * errors: the case sets pt->note and leaves the times unmeasured. */
    int (*measure)(gpb_env *env, const gpb_spec *s, gpb_point *pt);
    /* 2-D cases: the shapes run instead of the size sweep, "RxC" items
     * ("1920x1080,8192x8192"), replaced by --shapes; NULL for 1-D cases. */
    const char *default_shapes;
    /* The dtypes run without --dtype; NULL: the harness default. */
    const char *default_dtypes;
    /* 1: the case takes no op (count, histograms): titles leave it out. */
    int no_op;
    /* 1: a call of the case runs or waits on the host (the CPU backend's
     * calls; gp_histogram_edges checks its edges there): on a held stream
     * the events would time none of its work, or the hold would never be
     * released. Every implementation of the case is timed with the host
     * clock (GPB_TIMING_HOST), and its title says so. */
    int host_sync;
    /* Sizes run beside the default sweep, where they fall inside it
     * ("10000,100000"); --sizes or --max-log2 -1 replace them. NULL: none. */
    const char *default_sizes;
} gpb_case;

/* How case c is timed in a run timed `run_timing` (a gpb_timing). */
static inline int gpb_case_timing(const gpb_case *c, int run_timing)
{
    return c->host_sync ? GPB_TIMING_HOST : run_timing;
}

/* "sum " for a case with ops, "" for one without: for titles and messages. */
const char *gpb_op_label(const gpb_case *c, gp_op op, char *buf, size_t size);

/* One implementation as the timers see it: call(self, in) runs it once on
 * the input at `in` and returns GPB_OK or GPB_ERROR (after printing why).
 * A NULL call is an implementation that is not run at this point. */
typedef struct gpb_impl {
    int (*call)(void *self, const void *in);
    void *self;
} gpb_impl;
enum { GPB_MAX_IMPLS = 4 };

/* Facts about the run, for the report header and the files. */
typedef struct gpb_meta {
    char backend[8];
    char device[256];       /* GPU name, or CPU model */
    char driver[32];        /* "13.0", or "n/a" on the CPU */
    char runtime[32];
    char peer_version[64];  /* "CUB 3.0.1", compiler for the serial loop */
    char gpuprim_version[32];
    char commit[64];
    char build_flags[512];
    char date[32]; /* ISO 8601, UTC */
    int parallelism; /* SMs on a GPU, OpenMP threads on the CPU */
    size_t cache_bytes; /* L2 (GPU) or last-level cache (CPU): decides rotation */
} gpb_meta;

/* Everything a case may use; the backend's runtime owns `rt`. */
struct gpb_env {
    gp_ctx *ctx;
    gpb_opts opts;
    gpb_meta meta;
    void *rt;
};

/* A backend's runtime: per-run setup (stream, caches, meta). */
typedef struct gpb_runtime {
    int (*init)(gpb_env *env); /* GPB_OK or GPB_ERROR */
    void (*fini)(gpb_env *env);
} gpb_runtime;

extern const gpb_runtime gpb_cpu_runtime;
#ifdef GPUPRIM_BENCH_CUDA
extern const gpb_runtime gpb_cuda_runtime;
#endif

/* ------------------------------------------------------------ utilities */

/* Median, min, max of v[0..n) (sorts v). */
gpb_time gpb_summarize(double *v, int n);
/* Host monotonic clock, microseconds. */
double gpb_now_us(void);
/* Rounds up to a multiple of `a` (a power of two). */
size_t gpb_round_up(size_t x, size_t a);
/*
 * Rotation arena: `nslices` copies of an input, each starting on a 256-byte
 * boundary. Every timed call, of every implementation, takes the next slice,
 * so all of them see the same cache state: a slice comes round again only
 * after about 4 x cache of other slices was read. Checks read slice 0.
 */
typedef struct gpb_arena {
    unsigned char *base;
    size_t slice_bytes, stride, nslices, next;
} gpb_arena;
/* Sets the layout for inputs of `slice_bytes` (base stays NULL); returns the
 * bytes the arena needs. */
size_t gpb_arena_layout(gpb_arena *a, size_t slice_bytes, size_t cache_bytes);
/* The slice the next timed call reads. */
const void *gpb_arena_next(gpb_arena *a);

/*
 * Relative bound for a float sum or product of n positive inputs checked
 * against a peer or a reference (u: unit roundoff of t).
 * Sums: u x max(64, 2 sqrt n). The worst case of any order, (n-1) u, is far
 * too loose to catch anything; 2 sqrt n u is what random rounding gives a
 * serial loop, so sound tree reductions land well inside it, while a stalled
 * accumulator or lost partial sums do not.
 * Products: the worst case (n-1) u / (1 - (n-1) u), capped at 0.5. Products
 * of inputs near 1 round with a bias (an accumulator hovering at 1 meets
 * ties broken by the tiny cross term), so their error grows like n, not
 * sqrt n: measured 2.4e-4 at 2^20 f32 for 16 lanes in blocks of 4096.
 */
double gpb_float_tol(gp_dtype t, gp_op op, int64_t n);

/* Formats one value of dtype t ("-12", "0.5", ...). */
const char *gpb_fmt_value(gp_dtype t, const void *v, char *buf, size_t size);
/* Checks a scalar reduction result of n elements against `want` (the peer's
 * or a reference): exact for integers and for min and max, within
 * gpb_float_tol relative to |want| for float sums and products (the inputs
 * are positive, so for sums |want| is sum |x|). 1 if it matches; else 0 and a
 * sentence in `why`. NaN never matches. */
int gpb_check_scalar(gp_dtype t, gp_op op, int64_t n, const void *got, const void *want, char *why,
                     size_t size);

/* Byte counts. Every count the bench allocates is at most GPB_MAX_BYTES
 * (SIZE_MAX / 64: 2^58 bytes on a 64-bit host, far past any machine's
 * memory), so that the sums, roundings and small multiples the cases make
 * of them still fit a size_t. gpb_bytes_of: n items (n >= 0) of `size`
 * bytes each into *bytes, 1; or 0 (*bytes = 0) where the product passes
 * GPB_MAX_BYTES, and the point is skipped with gpb_note_too_big, which
 * writes "skipped: needs X MiB of <space> memory, ..." into note from the
 * exact count in floating point (space: "host" or "device"). */
#define GPB_MAX_BYTES (SIZE_MAX / 64)
int gpb_bytes_of(int64_t n, size_t size, size_t *bytes);
void gpb_note_too_big(char *note, size_t note_size, double bytes, const char *space);
/* gpb_bytes_of for a point: 0, with the note written, where it passes. */
int gpb_point_fits(gpb_point *pt, int64_t n, size_t size, const char *space, size_t *bytes);

/* Why a gpuprim call failed, for a message after "failed: ": the context's
 * detail (gp_ctx_last_error, which starts with the status's name) where it
 * is this status's, else the status's name and sentence. */
const char *gpb_status_why(const gp_ctx *ctx, gp_status st);

/* Command-line pieces shared by `gpuprim bench` and `gpuprim ladder`. */
/* A decimal in [lo, hi]: 1 and *out set, or 0. */
int gpb_parse_int(const char *s, long long lo, long long hi, long long *out);
/* "N" (>= 1) or "2^K" (K <= 62): 1 and *out set, or 0. The callers bound
 * it further: the bench at GP_MAX_ELEMENTS, the ladder at 2^40. */
int gpb_parse_size(const char *s, int64_t *out);
/* A comma list: each item goes to item(token, index, ctx), which returns 1
 * if it took it. The list must be shorter than GPB_LIST_CHARS, hold 1 to
 * `max` items and no empty one (",,", a comma at either end:
 * GPB_LIST_EMPTY_ITEM, before any item is read); on GPB_LIST_BAD_ITEM the
 * refused token is copied to `bad`. *count is the number of items taken. */
enum { GPB_LIST_CHARS = 1024 };
typedef enum {
    GPB_LIST_OK,
    GPB_LIST_TOO_LONG,
    GPB_LIST_TOO_MANY,
    GPB_LIST_EMPTY,
    GPB_LIST_BAD_ITEM,
    GPB_LIST_EMPTY_ITEM
} gpb_list_status;
/* Whether the comma list s (len chars) has an empty item: two commas in a
 * row, or one at an end. Most likely a value left out: refused, not skipped. */
int gpb_list_has_empty_item(const char *s, size_t len);
gpb_list_status gpb_split_list(const char *s, int max, int (*item)(const char *token, int index, void *ctx),
                               void *ctx, int *count, char *bad, size_t bad_size);
/* What went wrong, for a message: "the list is longer than 1023
 * characters", "too many items", "empty list", "an empty item (...)" (""
 * for OK and BAD_ITEM, whose message names the token). */
const char *gpb_list_problem(gpb_list_status s);
/* Option i of argv, "--name=value" or "--name value" with a name from
 * `known`: 1 with `name` and *val set (i advanced past a separate value),
 * or 0 with `why` set (an unknown name, a missing value). */
int gpb_option(int argc, char **argv, int *i, const char *const *known, size_t nknown, char *name,
               size_t name_size, const char **val, char *why, size_t why_size);
/* Prints "gpuprim VERB: <fmt with what> (see gpuprim VERB --help)" to
 * stderr; returns GPB_ERROR. */
int gpb_usage_error(const char *verb, const char *fmt, const char *what);
/* Option `opt`'s comma list of 1 to `max` items through gpb_split_list:
 * GPB_OK, or GPB_ERROR after gpb_usage_error names the bad item or the
 * list's problem. */
int gpb_parse_list(const char *verb, const char *opt, const char *s, int max,
                   int (*item)(const char *token, int index, void *ctx), void *ctx, int *count);
/* GPB_OK where every one of the n sizes is at most max, else GPB_ERROR after
 * "--sizes: SIZE is above <limit>" (gpb_usage_error): a size that parsed
 * but is too large is told as such. */
int gpb_sizes_at_most(const char *verb, const int64_t *sizes, int n, int64_t max, const char *limit);

/* The run's numbers, which bench and ladder both take. */
typedef struct gpb_run_args {
    int device, runs, warmup; /* --device (0), --runs (20), --warmup (3) */
    unsigned long long seed;  /* --seed (1) */
} gpb_run_args;

/* A command line of the bench's or the ladder's shape: one positional word,
 * options with values, at most one option without. */
typedef struct gpb_command {
    const char *verb;          /* "bench": for messages */
    const char *const *known;  /* options taking a value, the run's four among them */
    size_t nknown;
    const char *flag;          /* the option without a value, or NULL */
    void (*usage)(FILE *f);
    /* The command's own options: GPB_OK, or GPB_ERROR after printing why. */
    int (*take)(const char *name, const char *val, void *ctx);
} gpb_command;
enum { GPB_HELP_SHOWN = -1 }; /* gpb_parse_command: --help printed on stdout; exit 0 */

/* Reads argv[1..]: -h or --help prints the usage on stdout (GPB_HELP_SHOWN);
 * the word goes to *word (a second is a usage error, none prints the usage
 * on stderr), the flag sets *flag, the run's numbers go to *run (defaults
 * first), and every other option to c->take. An option or the flag given
 * twice is a usage error, as in the tool's other verbs. GPB_OK, or
 * GPB_ERROR after a message on stderr. */
int gpb_parse_command(const gpb_command *c, int argc, char **argv, const char **word, int *flag, gpb_run_args *run,
                      void *ctx);
/* A CSV field (quoted when it holds a comma, quote or newline) and a JSON
 * string (escaped), written to f. */
void gpb_csv_str(FILE *f, const char *s);
void gpb_json_str(FILE *f, const char *s);
/* A number as a CSV field: %.6g, or empty for NaN (not measured, no peer). */
void gpb_csv_num(FILE *f, double v);

/* Fills the fields every backend shares (version, commit, flags, date). */
void gpb_meta_common(gpb_meta *m);
/* "2^20" for a power of two, else the decimal number. */
const char *gpb_fmt_n(int64_t n, char *buf, size_t size);
/* A point's size for tables: "1920x1080" for a 2-D point, else gpb_fmt_n. */
const char *gpb_fmt_point(const gpb_spec *s, char *buf, size_t size);

/* Progress on stderr, only when stderr is a terminal. */
void gpb_progress(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
void gpb_progress_clear(void);

/* ------------------------------------------------------------- reports */

typedef struct gpb_report gpb_report;
gpb_report *gpb_report_new(void);
void gpb_report_free(gpb_report *r);
/* Records one point (its rows go to the files). GPB_ERROR if out of memory. */
int gpb_report_add(gpb_report *r, const gpb_case *c, const gpb_point *pt);
/* The records in the order added, for the plot. */
int gpb_report_size(const gpb_report *r);
const gpb_case *gpb_report_case(const gpb_report *r, int i);
const gpb_point *gpb_report_point(const gpb_report *r, int i);
/* GB/s of one implementation at a point (bytes / median), NAN if not run. */
double gpb_point_gbs(const gpb_point *p, const gpb_time *t);
/* Table of all points of one dtype, then the verdict line. */
void gpb_print_table(const gpb_case *c, const gpb_env *env, const gpb_point *pts, int npts);
/* The report into f (bench_main.c opens and commits it): GPB_OK, or
 * GPB_ERROR where a write failed (f's error flag; errno says why). */
int gpb_write_csv(const gpb_report *r, const gpb_meta *m, const gpb_opts *o, FILE *f);
int gpb_write_json(const gpb_report *r, const gpb_meta *m, const gpb_opts *o, FILE *f);
/* `--plot`: 1 if this build can write PNG (libpng); the chart of every
 * series in the report as one PNG page into f (bench_plot.c): GPB_ERROR
 * where it failed (out of memory: printed; a write: not). */
int gpb_plot_available(void);
int gpb_write_plot(const gpb_report *r, const gpb_meta *m, const gpb_opts *o, FILE *f);

#ifdef __cplusplus
}
#endif

#endif
