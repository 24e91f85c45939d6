/* Statistics, clocks, run metadata and the progress line. */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

gpb_time gpb_summarize(double *v, int n)
{
    gpb_time t = {0, 0, 0, 0};
    if (n <= 0) return t;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    t.measured = 1;
    t.med_us = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    t.min_us = v[0];
    t.max_us = v[n - 1];
    return t;
}

double gpb_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

size_t gpb_round_up(size_t x, size_t a) { return (x + a - 1) & ~(a - 1); }

size_t gpb_arena_layout(gpb_arena *a, size_t slice_bytes, size_t cache_bytes)
{
    size_t want = 4 * cache_bytes;
    a->base = NULL;
    a->slice_bytes = slice_bytes;
    a->stride = gpb_round_up(slice_bytes ? slice_bytes : 1, 256);
    a->nslices = slice_bytes >= want ? 1 : (want + a->stride - 1) / a->stride;
    a->next = 0;
    return a->nslices * a->stride;
}

const void *gpb_arena_next(gpb_arena *a)
{
    const void *p = a->base + a->next * a->stride;
    a->next = (a->next + 1) % a->nslices;
    return p;
}

double gpb_float_tol(gp_dtype t, gp_op op, int64_t n)
{
    double u = t == GP_DTYPE_F32 ? 0x1p-24 : 0x1p-53;
    if (op == GP_OP_PROD) {
        double w = (double)(n > 1 ? n - 1 : 0) * u;
        double g = w < 1.0 / 3 ? w / (1 - w) : 0.5;
        return g > 64 * u ? (g < 0.5 ? g : 0.5) : 64 * u;
    }
    double k = 2.0 * sqrt((double)n);
    return u * (k > 64.0 ? k : 64.0);
}

const char *gpb_fmt_value(gp_dtype t, const void *v, char *buf, size_t size)
{
    switch (t) {
    case GP_DTYPE_I8: snprintf(buf, size, "%d", *(const int8_t *)v); break;
    case GP_DTYPE_U8: snprintf(buf, size, "%u", *(const uint8_t *)v); break;
    case GP_DTYPE_I16: snprintf(buf, size, "%d", *(const int16_t *)v); break;
    case GP_DTYPE_U16: snprintf(buf, size, "%u", *(const uint16_t *)v); break;
    case GP_DTYPE_I32: snprintf(buf, size, "%ld", (long)*(const int32_t *)v); break;
    case GP_DTYPE_U32: snprintf(buf, size, "%lu", (unsigned long)*(const uint32_t *)v); break;
    case GP_DTYPE_I64: snprintf(buf, size, "%lld", (long long)*(const int64_t *)v); break;
    case GP_DTYPE_U64: snprintf(buf, size, "%llu", (unsigned long long)*(const uint64_t *)v); break;
    case GP_DTYPE_F32: snprintf(buf, size, "%.9g", *(const float *)v); break;
    case GP_DTYPE_F64: snprintf(buf, size, "%.17g", *(const double *)v); break;
    default: snprintf(buf, size, "?"); break;
    }
    return buf;
}

int gpb_check_scalar(gp_dtype t, gp_op op, int64_t n, const void *got, const void *want, char *why,
                     size_t size)
{
    char g[48], w[48];
    int is_float = t == GP_DTYPE_F32 || t == GP_DTYPE_F64;
    if (!is_float || op == GP_OP_MIN || op == GP_OP_MAX) {
        int same = is_float ? (t == GP_DTYPE_F32 ? *(const float *)got == *(const float *)want
                                                 : *(const double *)got == *(const double *)want)
                            : !memcmp(got, want, gp_dtype_size(t));
        if (!same)
            snprintf(why, size, "got %s, want %s exactly", gpb_fmt_value(t, got, g, sizeof g),
                     gpb_fmt_value(t, want, w, sizeof w));
        return same;
    }
    double x = t == GP_DTYPE_F32 ? *(const float *)got : *(const double *)got;
    double y = t == GP_DTYPE_F32 ? *(const float *)want : *(const double *)want;
    double tol = gpb_float_tol(t, op, n), bound = tol * fabs(y);
    double diff = fabs(x - y);
    if (diff <= bound) return 1; /* false for NaN */
    snprintf(why, size, "got %s, want %s: |diff| %.3g exceeds %.3g (relative %.2g)",
             gpb_fmt_value(t, got, g, sizeof g), gpb_fmt_value(t, want, w, sizeof w), diff, bound, tol);
    return 0;
}

/* The build system may pass these: the commit as the build found it, in a
 * header it rewrites where the commit changed (bench/CMakeLists.txt), and the
 * flags as configured. */
#ifdef GPUPRIM_BENCH_COMMIT_HEADER
#  include "gp_bench_commit.h"
#endif
#ifndef GPUPRIM_COMMIT
#  define GPUPRIM_COMMIT ""
#endif
#ifndef GPUPRIM_BUILD_FLAGS
#  define GPUPRIM_BUILD_FLAGS ""
#endif

static void copy_str(char *dst, size_t size, const char *src)
{
    snprintf(dst, size, "%s", src && *src ? src : "unknown");
}

void gpb_meta_common(gpb_meta *m)
{
    copy_str(m->gpuprim_version, sizeof m->gpuprim_version, gp_version_string());
    /* The environment wins: the GPU scripts name the commit there, where the
     * tree they build is no git checkout (or a stale copy of one). */
    const char *commit = getenv("GPUPRIM_COMMIT");
    if (!commit || !*commit) commit = GPUPRIM_COMMIT;
    copy_str(m->commit, sizeof m->commit, commit);
    copy_str(m->build_flags, sizeof m->build_flags, GPUPRIM_BUILD_FLAGS);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(m->date, sizeof m->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int gpb_bytes_of(int64_t n, size_t size, size_t *bytes)
{
    *bytes = 0;
    if (n < 0 || (size && (uint64_t)n > GPB_MAX_BYTES / size)) return 0;
    *bytes = (size_t)n * size;
    return 1;
}

void gpb_note_too_big(char *note, size_t note_size, double bytes, const char *space)
{
    snprintf(note, note_size, "skipped: needs %.0f MiB of %s memory, more than the bench allocates (%.0f MiB at most)",
             bytes / 1048576.0, space, (double)GPB_MAX_BYTES / 1048576.0);
}

int gpb_point_fits(gpb_point *pt, int64_t n, size_t size, const char *space, size_t *bytes)
{
    if (gpb_bytes_of(n, size, bytes)) return 1;
    gpb_note_too_big(pt->note, sizeof pt->note, (double)n * (double)size, space);
    return 0;
}

const char *gpb_status_why(const gp_ctx *ctx, gp_status st)
{
    const char *name = gp_status_name(st), *detail = ctx ? gp_ctx_last_error(ctx) : "";
    const size_t k = strlen(name);
    /* A failure that left no detail would show an earlier one's. */
    if (detail && !strncmp(detail, name, k) && detail[k] == ':') return detail;
    static _Thread_local char buf[160];
    snprintf(buf, sizeof buf, "%s: %s", name, gp_status_string(st));
    return buf;
}

const char *gpb_op_label(const gpb_case *c, gp_op op, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s", c->no_op ? "" : gp_op_name(op), c->no_op ? "" : " ");
    return buf;
}

const char *gpb_dtype_name(gp_dtype t) { return t == GPB_DTYPE_C16 ? "c16" : gp_dtype_name(t); }
size_t gpb_dtype_size(gp_dtype t) { return t == GPB_DTYPE_C16 ? 16 : gp_dtype_size(t); }

const char *gpb_fmt_point(const gpb_spec *s, char *buf, size_t size)
{
    if (s->rows <= 0) return gpb_fmt_n(s->n, buf, size);
    snprintf(buf, size, "%lldx%lld", (long long)s->rows, (long long)s->cols);
    return buf;
}

const char *gpb_fmt_n(int64_t n, char *buf, size_t size)
{
    if (n > 0 && (n & (n - 1)) == 0) {
        int e = 0;
        while ((INT64_C(1) << e) < n) e++;
        snprintf(buf, size, "2^%d", e);
    } else {
        snprintf(buf, size, "%lld", (long long)n);
    }
    return buf;
}

static int progress_on = -1;

void gpb_progress(const char *fmt, ...)
{
    if (progress_on < 0) progress_on = isatty(STDERR_FILENO);
    if (!progress_on) return;
    va_list ap;
    va_start(ap, fmt);
    fputs("\r\033[K", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fflush(stderr);
}

void gpb_progress_clear(void)
{
    if (progress_on < 0) progress_on = isatty(STDERR_FILENO);
    if (progress_on) fputs("\r\033[K", stderr), fflush(stderr);
}

int gpb_parse_int(const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return 0;
    *out = v;
    return 1;
}

int gpb_parse_size(const char *s, int64_t *out)
{
    long long v;
    if (!strncmp(s, "2^", 2)) {
        if (!gpb_parse_int(s + 2, 0, 62, &v)) return 0;
        *out = INT64_C(1) << v;
        return 1;
    }
    if (!gpb_parse_int(s, 1, INT64_MAX, &v)) return 0;
    *out = v;
    return 1;
}

int gpb_list_has_empty_item(const char *s, size_t len)
{
    return len && (s[0] == ',' || s[len - 1] == ',' || strstr(s, ",,"));
}

int gpb_sizes_at_most(const char *verb, const int64_t *sizes, int n, int64_t max, const char *limit)
{
    for (int i = 0; i < n; i++) {
        if (sizes[i] <= max) continue;
        char nb[32], msg[192];
        snprintf(msg, sizeof msg, "--sizes: %s is above %s", gpb_fmt_n(sizes[i], nb, sizeof nb), limit);
        return gpb_usage_error(verb, "%s", msg);
    }
    return GPB_OK;
}

gpb_list_status gpb_split_list(const char *s, int max, int (*item)(const char *token, int index, void *ctx),
                               void *ctx, int *count, char *bad, size_t bad_size)
{
    char buf[GPB_LIST_CHARS];
    *count = 0;
    /* A longer list is refused, not cut: a cut last item could read as
     * another value. */
    const size_t len = strlen(s);
    if (len >= sizeof buf) return GPB_LIST_TOO_LONG;
    if (len == 0) return GPB_LIST_EMPTY;
    if (gpb_list_has_empty_item(s, len)) return GPB_LIST_EMPTY_ITEM;
    memcpy(buf, s, len + 1);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (*count == max) return GPB_LIST_TOO_MANY;
        if (!item(tok, *count, ctx)) {
            snprintf(bad, bad_size, "%s", tok);
            return GPB_LIST_BAD_ITEM;
        }
        (*count)++;
    }
    return *count ? GPB_LIST_OK : GPB_LIST_EMPTY;
}

const char *gpb_list_problem(gpb_list_status s)
{
    switch (s) {
    case GPB_LIST_TOO_LONG: return "the list is longer than 1023 characters";
    case GPB_LIST_TOO_MANY: return "too many items";
    case GPB_LIST_EMPTY: return "empty list";
    case GPB_LIST_EMPTY_ITEM: return "an empty item (two commas in a row, or a comma at an end)";
    default: return "";
    }
}

int gpb_option(int argc, char **argv, int *i, const char *const *known, size_t nknown, char *name,
               size_t name_size, const char **val, char *why, size_t why_size)
{
    const char *opt = argv[*i];
    *val = strchr(opt, '=');
    if (*val) {
        snprintf(name, name_size, "%.*s", (int)(*val - opt), opt);
        (*val)++;
    } else {
        snprintf(name, name_size, "%s", opt);
    }
    int is_known = 0;
    for (size_t k = 0; k < nknown; k++) is_known |= !strcmp(name, known[k]);
    if (!is_known) {
        snprintf(why, why_size, "unknown option '%s'", name);
        return 0;
    }
    if (!*val) {
        if (*i + 1 >= argc) {
            snprintf(why, why_size, "%s needs a value", opt);
            return 0;
        }
        *val = argv[++*i];
    }
    return 1;
}

int gpb_usage_error(const char *verb, const char *fmt, const char *what)
{
    fprintf(stderr, "gpuprim %s: ", verb);
    fprintf(stderr, fmt, what);
    fprintf(stderr, " (see gpuprim %s --help)\n", verb);
    return GPB_ERROR;
}

int gpb_parse_list(const char *verb, const char *opt, const char *s, int max,
                   int (*item)(const char *token, int index, void *ctx), void *ctx, int *count)
{
    char token[GPB_LIST_CHARS], msg[GPB_LIST_CHARS + 64];
    const gpb_list_status st = gpb_split_list(s, max, item, ctx, count, token, sizeof token);
    if (st == GPB_LIST_OK) return GPB_OK;
    if (st == GPB_LIST_BAD_ITEM) snprintf(msg, sizeof msg, "%s: cannot parse '%s'", opt, token);
    else snprintf(msg, sizeof msg, "%s: %s", opt, gpb_list_problem(st));
    return gpb_usage_error(verb, "%s", msg);
}
