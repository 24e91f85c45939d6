/* Reports: a table and a verdict for people, CSV and JSON for programs. */
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rec {
    const gpb_case *c;
    gpb_point pt;
} rec;

struct gpb_report {
    rec *v;
    int n, cap;
};

gpb_report *gpb_report_new(void) { return calloc(1, sizeof(gpb_report)); }

void gpb_report_free(gpb_report *r)
{
    if (!r) return;
    free(r->v);
    free(r);
}

int gpb_report_add(gpb_report *r, const gpb_case *c, const gpb_point *pt)
{
    if (r->n == r->cap) {
        int cap = r->cap ? 2 * r->cap : 64;
        rec *v = realloc(r->v, (size_t)cap * sizeof *v);
        if (!v) return GPB_ERROR;
        r->v = v, r->cap = cap;
    }
    r->v[r->n].c = c;
    r->v[r->n].pt = *pt;
    r->n++;
    return GPB_OK;
}

int gpb_report_size(const gpb_report *r) { return r->n; }
const gpb_case *gpb_report_case(const gpb_report *r, int i) { return r->v[i].c; }
const gpb_point *gpb_report_point(const gpb_report *r, int i) { return &r->v[i].pt; }

/* ------------------------------------------------------- derived numbers */

static double total_bytes(const gpb_point *p) { return p->bytes_read + p->bytes_written; }

double gpb_point_gbs(const gpb_point *p, const gpb_time *t)
{
    return t->measured && t->med_us > 0 ? total_bytes(p) / (t->med_us * 1e3) : NAN;
}

/* Both percentages and ratios divide times: the bytes are the same. */
static double pct_ceiling(const gpb_point *p, const gpb_time *t)
{
    return t->measured && p->ceiling.measured ? 100.0 * p->ceiling.med_us / t->med_us : NAN;
}

static double ratio_to_peer(const gpb_point *p, const gpb_time *t)
{
    return t->measured && p->peer.measured ? p->peer.med_us / t->med_us : NAN;
}

/* ------------------------------------------------------------------ table */

/* One right-aligned column after a space; "-" where there is no number. */
static void put_num(int width, int decimals, double v)
{
    if (isnan(v)) printf(" %*s", width, "-");
    else printf(" %*.*f", width, decimals, v);
}

static void verdict(const gpb_case *c, const gpb_point *pts, int np);

/* How calls were timed: the JSON's "timing" and the table title's note. */
static const struct {
    const char *name, *note;
} timings[] = {{"cpu", ""},
               {"held-stream", ", GPU time (stream held until queued)"},
               {"events", ", events around the call (launch latency included)"},
               {"host-clock", ", host clock around the call and a stream synchronise"}};

static int timing_of(const gpb_opts *o)
{
    if (o->backend != GP_BACKEND_CUDA) return 0;
    return o->timing == GPB_TIMING_HELD ? 1 : o->timing == GPB_TIMING_EVENTS ? 2 : 3;
}

void gpb_print_table(const gpb_case *c, const gpb_env *env, const gpb_point *pts, int np)
{
    if (np == 0) return;
    const gpb_spec *s0 = &pts[0].spec;
    char opl[32];
    printf("\n%s %s%s on %s (%s), median of %d runs after %d warm-up%s\n", c->name,
           gpb_op_label(c, s0->op, opl, sizeof opl), gpb_dtype_name(s0->dtype), env->meta.device, env->meta.backend,
           env->opts.runs, env->opts.warmup, timings[timing_of(&env->opts)].note);
    if (c->about) printf("  %s\n", c->about);
    printf("%12s %12s %8s %7s %12s %8s %8s %10s\n", "n", c->subject, "GB/s", "%ceil", c->peer, "GB/s",
           "speedup", "ceil GB/s");
    printf("%12s %12s %8s %7s %12s %8s %8s %10s\n", "", "us", "", "", "us", "", "vs peer", "");
    for (int i = 0; i < np; i++) {
        const gpb_point *p = &pts[i];
        char nb[32];
        printf("%12s", gpb_fmt_point(&p->spec, nb, sizeof nb));
        put_num(12, 2, p->subject.measured ? p->subject.med_us : NAN);
        put_num(8, 1, gpb_point_gbs(p, &p->subject));
        put_num(7, 1, pct_ceiling(p, &p->subject));
        put_num(12, 2, p->peer.measured ? p->peer.med_us : NAN);
        put_num(8, 1, gpb_point_gbs(p, &p->peer));
        put_num(8, 2, ratio_to_peer(p, &p->subject));
        put_num(10, 1, gpb_point_gbs(p, &p->ceiling));
        if (p->check_failed) printf("  CHECK FAILED");
        if (p->note[0]) printf("  %s", p->note);
        printf("\n");
    }
    verdict(c, pts, np);
    fflush(stdout);
}

/* ---------------------------------------------------------------- verdict */

/* One target over the points it applies to: the worst value and where. */
typedef struct judged {
    int applicable, missed, not_run;
    double worst;
    const gpb_spec *worst_at;
} judged;

static void judge(judged *j, const gpb_spec *at, int subject_run, double v, int higher_is_better, double bound)
{
    j->applicable++;
    if (!subject_run || isnan(v)) {
        j->missed++, j->not_run++;
        return;
    }
    int miss = higher_is_better ? v < bound : v >= bound;
    if (miss) j->missed++;
    int worse = j->applicable - j->not_run == 1 || (higher_is_better ? v < j->worst : v > j->worst);
    if (worse) j->worst = v, j->worst_at = at;
}

static void say(const char *what, const judged *j, const char *unit_fmt)
{
    char nb[32], val[32];
    printf("%s: ", what);
    if (j->applicable == 0) {
        printf("n/a (no sizes in range)");
        return;
    }
    printf("%s", j->missed ? "MISS" : "PASS");
    if (j->applicable - j->not_run > 0) {
        snprintf(val, sizeof val, unit_fmt, j->worst);
        printf(" (worst %s at %s", val, gpb_fmt_point(j->worst_at, nb, sizeof nb));
        if (j->missed) printf(", %d of %d sizes missed", j->missed, j->applicable);
        if (j->not_run) printf(", %d not run", j->not_run);
        printf(")");
    } else {
        printf(" (not run)");
    }
}

static void verdict(const gpb_case *c, const gpb_point *pts, int np)
{
    const gpb_targets *t = &c->targets;
    if (t->min_ratio_to_peer <= 0 && t->min_pct_ceiling <= 0 && t->max_us <= 0 && t->min_ratio_large <= 0) return;
    judged peer = {0}, large = {0}, ceil = {0}, lat = {0};
    for (int i = 0; i < np; i++) {
        const gpb_point *p = &pts[i];
        int64_t n = p->spec.n;
        int run = p->subject.measured;
        /* A size nothing ran at (it did not fit) is not judged. */
        if (!run && !p->peer.measured && !p->ceiling.measured) continue;
        if (t->min_ratio_to_peer > 0 && p->peer.measured)
            judge(&peer, &p->spec, run, ratio_to_peer(p, &p->subject), 1, t->min_ratio_to_peer);
        if (t->min_ratio_large > 0 && n >= t->large_from_n && p->peer.measured)
            judge(&large, &p->spec, run, ratio_to_peer(p, &p->subject), 1, t->min_ratio_large);
        if (t->min_pct_ceiling > 0 && n >= t->pct_from_n && p->ceiling.measured)
            judge(&ceil, &p->spec, run, pct_ceiling(p, &p->subject), 1, t->min_pct_ceiling);
        if (t->max_us > 0 && n <= t->max_us_to_n) judge(&lat, &p->spec, run, p->subject.med_us, 0, t->max_us);
    }
    char what[96], nb[32];
    char opl[32];
    printf("verdict %s %s%s: ", c->name, gpb_op_label(c, pts[0].spec.op, opl, sizeof opl),
           gpb_dtype_name(pts[0].spec.dtype));
    const char *sep = "";
    if (t->min_ratio_to_peer > 0) {
        snprintf(what, sizeof what, ">= %.2fx %s's throughput at every size", t->min_ratio_to_peer, c->peer);
        say(what, &peer, "%.2fx");
        sep = "; ";
    }
    if (t->min_ratio_large > 0) {
        snprintf(what, sizeof what, "%s>= %.2fx %s's throughput from %s", sep, t->min_ratio_large, c->peer,
                 gpb_fmt_n(t->large_from_n, nb, sizeof nb));
        say(what, &large, "%.2fx");
        sep = "; ";
    }
    if (t->min_pct_ceiling > 0) {
        snprintf(what, sizeof what, "%s>= %.0f%% of %s from %s", sep, t->min_pct_ceiling, c->ceiling,
                 gpb_fmt_n(t->pct_from_n, nb, sizeof nb));
        say(what, &ceil, "%.1f%%");
        sep = "; ";
    }
    if (t->max_us > 0) {
        snprintf(what, sizeof what, "%s< %.0f us up to %s", sep, t->max_us,
                 gpb_fmt_n(t->max_us_to_n, nb, sizeof nb));
        say(what, &lat, "%.2f us");
    }
    /* Speed means nothing where the answer is wrong. */
    int wrong = 0;
    for (int i = 0; i < np; i++) wrong += pts[i].check_failed;
    if (wrong) printf("; WRONG RESULTS at %d size%s (CHECK FAILED)", wrong, wrong > 1 ? "s" : "");
    printf("\n");
}

/* ------------------------------------------------------------ file rows */

typedef struct row {
    const char *impl, *role;
    const gpb_time *t;
} row;

static void rows_of(const rec *r, row out[3])
{
    out[0] = (row){r->c->subject, "subject", &r->pt.subject};
    out[1] = (row){r->c->peer, "peer", &r->pt.peer};
    out[2] = (row){r->c->ceiling, "ceiling", &r->pt.ceiling};
}

static const char *row_status(const rec *r, const row *w)
{
    if (w->t == &r->pt.subject && r->pt.check_failed) return "check_failed";
    return w->t->measured ? "ok" : "not_run";
}

/* ------------------------------------------------------------------- CSV */

void gpb_csv_str(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

void gpb_csv_num(FILE *f, double v)
{
    if (!isnan(v)) fprintf(f, "%.6g", v);
}

int gpb_write_csv(const gpb_report *rp, const gpb_meta *m, const gpb_opts *o, FILE *f)
{
    /* Tidy rows: the run's facts repeat on every row so files concatenate. */
    fputs("case,backend,op,dtype,impl,role,n,bytes_read,bytes_written,runs,time_us,min_us,max_us,"
          "gbs,pct_ceiling,ratio_to_peer,status,note,device,driver,runtime,peer_version,"
          "gpuprim_version,commit,build_flags,date,rows,cols\n",
          f);
    for (int i = 0; i < rp->n; i++) {
        const rec *r = &rp->v[i];
        const gpb_point *p = &r->pt;
        row rows[3];
        rows_of(r, rows);
        for (int k = 0; k < 3; k++) {
            const gpb_time *t = rows[k].t;
            fprintf(f, "%s,%s,%s,%s,", r->c->name, m->backend, r->c->no_op ? "" : gp_op_name(p->spec.op),
                    gpb_dtype_name(p->spec.dtype)); /* no op: empty, not the first --op item */
            gpb_csv_str(f, rows[k].impl);
            fprintf(f, ",%s,%lld,%.0f,%.0f,%d,", rows[k].role, (long long)p->spec.n, p->bytes_read,
                    p->bytes_written, t->measured ? o->runs : 0);
            gpb_csv_num(f, t->measured ? t->med_us : NAN), fputc(',', f);
            gpb_csv_num(f, t->measured ? t->min_us : NAN), fputc(',', f);
            gpb_csv_num(f, t->measured ? t->max_us : NAN), fputc(',', f);
            gpb_csv_num(f, gpb_point_gbs(p, t)), fputc(',', f);
            gpb_csv_num(f, pct_ceiling(p, t)), fputc(',', f);
            gpb_csv_num(f, ratio_to_peer(p, t)), fputc(',', f);
            fprintf(f, "%s,", row_status(r, &rows[k]));
            const char *fields[] = {p->note, m->device, m->driver, m->runtime, m->peer_version,
                                    m->gpuprim_version, m->commit, m->build_flags, m->date};
            for (size_t j = 0; j < sizeof fields / sizeof *fields; j++) {
                if (j) fputc(',', f);
                gpb_csv_str(f, fields[j]);
            }
            fprintf(f, ",%lld,%lld\n", (long long)p->spec.rows, (long long)p->spec.cols); /* 0, 0: 1-D */
        }
    }
    return ferror(f) ? GPB_ERROR : GPB_OK;
}

/* ------------------------------------------------------------------ JSON */

void gpb_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *u = (const unsigned char *)s; *u; u++) {
        if (*u == '"' || *u == '\\') fprintf(f, "\\%c", *u);
        else if (*u < 0x20) fprintf(f, "\\u%04x", *u);
        else fputc(*u, f);
    }
    fputc('"', f);
}

static void json_num(FILE *f, double v)
{
    if (isnan(v) || isinf(v)) fputs("null", f);
    else fprintf(f, "%.6g", v);
}

static void json_kv(FILE *f, const char *k, const char *v, int last)
{
    fprintf(f, "    ");
    gpb_json_str(f, k);
    fputs(": ", f);
    gpb_json_str(f, v);
    fputs(last ? "\n" : ",\n", f);
}

/* The index of the first record of record i's case. */
static int first_of_case(const gpb_report *rp, int i)
{
    int k = 0;
    while (rp->v[k].c != rp->v[i].c) k++;
    return k;
}

static int distinct_cases(const gpb_report *rp)
{
    int n = 0;
    for (int i = 0; i < rp->n; i++) n += first_of_case(rp, i) == i;
    return n;
}

int gpb_write_json(const gpb_report *rp, const gpb_meta *m, const gpb_opts *o, FILE *f)
{
    fputs("{\n  \"meta\": {\n", f);
    json_kv(f, "backend", m->backend, 0);
    json_kv(f, "device", m->device, 0);
    json_kv(f, "driver", m->driver, 0);
    json_kv(f, "runtime", m->runtime, 0);
    json_kv(f, "peer_version", m->peer_version, 0);
    json_kv(f, "gpuprim_version", m->gpuprim_version, 0);
    json_kv(f, "commit", m->commit, 0);
    json_kv(f, "build_flags", m->build_flags, 0);
    json_kv(f, "date", m->date, 0);
    if (rp->n && distinct_cases(rp) == 1) json_kv(f, "about", rp->v[0].c->about ? rp->v[0].c->about : "", 0);
    fprintf(f, "    \"parallelism\": %d,\n    \"cache_bytes\": %zu,\n", m->parallelism, m->cache_bytes);
    fprintf(f, "    \"runs\": %d,\n    \"warmup\": %d,\n    \"timing\": \"%s\",\n    \"seed\": %llu\n  },\n", o->runs,
            o->warmup, timings[timing_of(o)].name, (unsigned long long)o->seed);
    /* What each case's implementations are, by name (a run may hold several). */
    fputs("  \"cases\": {", f);
    for (int i = 0, k = 0; i < rp->n; i++) {
        const gpb_case *c = rp->v[i].c;
        if (first_of_case(rp, i) != i) continue;
        fputs(k++ ? ",\n    " : "\n    ", f);
        gpb_json_str(f, c->name);
        fputs(": {\"subject\": ", f), gpb_json_str(f, c->subject);
        fputs(", \"peer\": ", f), gpb_json_str(f, c->peer);
        fputs(", \"ceiling\": ", f), gpb_json_str(f, c->ceiling);
        fputs(", \"about\": ", f), gpb_json_str(f, c->about ? c->about : "");
        gpb_opts co = *o;
        co.timing = gpb_case_timing(c, o->timing);
        fprintf(f, ", \"takes_op\": %s, \"timing\": \"%s\"}", c->no_op ? "false" : "true",
                timings[timing_of(&co)].name);
    }
    fputs("\n  },\n", f);
    fputs("  \"rows\": [", f);
    const char *sep = "\n";
    for (int i = 0; i < rp->n; i++) {
        const rec *r = &rp->v[i];
        const gpb_point *p = &r->pt;
        row rows[3];
        rows_of(r, rows);
        for (int k = 0; k < 3; k++) {
            const gpb_time *t = rows[k].t;
            fprintf(f, "%s    {\"case\": ", sep);
            gpb_json_str(f, r->c->name);
            fprintf(f, ", \"backend\": \"%s\", \"op\": ", m->backend);
            if (r->c->no_op) fputs("null", f);
            else gpb_json_str(f, gp_op_name(p->spec.op));
            fprintf(f, ", \"dtype\": \"%s\", \"impl\": ", gpb_dtype_name(p->spec.dtype));
            gpb_json_str(f, rows[k].impl);
            fprintf(f, ", \"role\": \"%s\", \"n\": %lld, \"bytes_read\": %.0f, \"bytes_written\": %.0f, "
                       "\"runs\": %d",
                    rows[k].role, (long long)p->spec.n, p->bytes_read, p->bytes_written,
                    t->measured ? o->runs : 0);
            fputs(", \"time_us\": ", f), json_num(f, t->measured ? t->med_us : NAN);
            fputs(", \"min_us\": ", f), json_num(f, t->measured ? t->min_us : NAN);
            fputs(", \"max_us\": ", f), json_num(f, t->measured ? t->max_us : NAN);
            fputs(", \"gbs\": ", f), json_num(f, gpb_point_gbs(p, t));
            fputs(", \"pct_ceiling\": ", f), json_num(f, pct_ceiling(p, t));
            fputs(", \"ratio_to_peer\": ", f), json_num(f, ratio_to_peer(p, t));
            if (p->spec.rows > 0)
                fprintf(f, ", \"rows\": %lld, \"cols\": %lld", (long long)p->spec.rows, (long long)p->spec.cols);
            fprintf(f, ", \"status\": \"%s\", \"note\": ", row_status(r, &rows[k]));
            gpb_json_str(f, p->note);
            fputs("}", f);
            sep = ",\n";
        }
    }
    fputs("\n  ]\n}\n", f);
    return ferror(f) ? GPB_ERROR : GPB_OK;
}
