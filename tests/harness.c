/* Test harness: see harness.h. */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { MAX_PRINTED_FAILURES = 200 }; /* a broken build should not flood the log */

uint64_t gpt_derive(uint64_t seed, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    uint64_t h = gpt_mix64(seed ^ 0x243f6a8885a308d3ull);
    h = gpt_mix64(h ^ a);
    h = gpt_mix64(h ^ b);
    h = gpt_mix64(h ^ c);
    return gpt_mix64(h ^ d);
}

/* ------------------------------------------------------ counting allocator */

static void *counting_alloc(void *user, gp_mem_space space, int device, size_t bytes)
{
    gpt_counter *c = (gpt_counter *)user;
    long k = atomic_fetch_add(&c->calls, 1) + 1;
    if (c->fail_at > 0 && k == c->fail_at) return NULL;
    const gp_allocator *d = gp_default_allocator();
    void *p = d->alloc(d->user, space, device, bytes);
    if (p) {
        atomic_fetch_add(&c->allocs, 1);
        atomic_fetch_add(&c->bytes, bytes);
    }
    return p;
}

static void counting_free(void *user, gp_mem_space space, int device, void *ptr)
{
    gpt_counter *c = (gpt_counter *)user;
    if (!ptr) return;
    atomic_fetch_add(&c->frees, 1);
    const gp_allocator *d = gp_default_allocator();
    d->free(d->user, space, device, ptr);
}

void gpt_counter_init(gpt_counter *c, long fail_at)
{
    atomic_init(&c->allocs, 0);
    atomic_init(&c->frees, 0);
    atomic_init(&c->calls, 0);
    atomic_init(&c->bytes, 0);
    c->fail_at = fail_at;
    c->allocator.alloc = counting_alloc;
    c->allocator.free = counting_free;
    c->allocator.user = c;
}

gp_status gpt_counted_ctx(gpt_counter *c, gp_backend backend, gp_ctx **ctx)
{
    gpt_counter_init(c, 0);
    gp_ctx_params p = {backend, 0, &c->allocator};
    *ctx = NULL;
    return gp_ctx_create_ex(ctx, &p);
}

/* ----------------------------------------------------------- test program */

static gpt_counter harness_counter; /* the allocator of gpt->ctx */

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s --backend cpu|cuda [--seed S] [--case K] [--size N] [--quick]\n", prog);
    exit(2);
}

uint64_t gpt_fresh_seed(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return gpt_mix64((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec) ^
           gpt_mix64((uint64_t)getpid());
}

bool gpt_parse_u64(const char *s, uint64_t *v)
{
    char *end;
    if (!s || !*s) return false;
    *v = strtoull(s, &end, 0);
    return *end == '\0';
}

int gpt_backend_unusable(gp_backend b)
{
    char detail[256] = "";
    gp_status s = gp_backend_probe(b, detail, sizeof detail);
    if (s == GP_STATUS_OK) return 0;
    const char *req = getenv("GPUPRIM_REQUIRE_CUDA");
    bool required = b == GP_BACKEND_CUDA && req && strcmp(req, "1") == 0;
    printf("%s: %s backend: %s (%s)\n", required ? "FAILED" : "SKIPPED", gp_backend_name(b),
           detail[0] ? detail : gp_status_string(s), gp_status_name(s));
    if (required) printf("GPUPRIM_REQUIRE_CUDA=1: an unusable CUDA backend is a failure\n");
    fflush(stdout);
    return required ? 1 : 77;
}

/* " --size N" when the run was narrowed to one size, else "". */
static const char *size_arg(const gpt *t)
{
    static char buf[32];
    if (t->only_size < 0) return "";
    snprintf(buf, sizeof buf, " --size %" PRId64, t->only_size);
    return buf;
}

void gpt_init(gpt *t, int argc, char **argv)
{
    memset(t, 0, sizeof *t);
    const char *slash = strrchr(argv[0], '/');
    t->name = slash ? slash + 1 : argv[0];
    t->backend = GP_BACKEND_CPU;
    t->only_case = -1;
    t->only_size = -1;
    bool have_seed = gpt_parse_u64(getenv("GPUPRIM_SEED"), &t->seed);
    for (int i = 1; i < argc; i++) {
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t v;
        if (strcmp(argv[i], "--quick") == 0) {
            t->quick = true;
            continue;
        }
        if (strcmp(argv[i], "--backend") == 0 && val) {
            if (gp_backend_from_name(val, &t->backend) != GP_STATUS_OK || t->backend == GP_BACKEND_AUTO)
                usage(t->name);
        } else if (strcmp(argv[i], "--seed") == 0 && gpt_parse_u64(val, &v)) {
            t->seed = v;
            have_seed = true;
        } else if (strcmp(argv[i], "--case") == 0 && gpt_parse_u64(val, &v)) {
            t->only_case = (long)v;
        } else if (strcmp(argv[i], "--size") == 0 && gpt_parse_u64(val, &v) && v <= (uint64_t)INT64_MAX) {
            t->only_size = (int64_t)v;
        } else {
            usage(t->name);
        }
        i++;
    }
    if (!have_seed) t->seed = gpt_fresh_seed();
    printf("%s: backend %s, seed = %" PRIu64 "%s%s\n", t->name, gp_backend_name(t->backend), t->seed,
           t->quick ? " (quick)" : "", size_arg(t));
    fflush(stdout); /* the seed shows even if the test is killed (a hang) */

    const int unusable = gpt_backend_unusable(t->backend);
    if (unusable) exit(unusable);
    gp_status s = gpt_counted_ctx(&harness_counter, t->backend, &t->ctx);
    if (s != GP_STATUS_OK) {
        printf("FAILED: the %s backend probes usable but gp_ctx_create_ex gave %s\n",
               gp_backend_name(t->backend), gp_status_name(s));
        exit(1);
    }
}

int gpt_finish(gpt *t)
{
    gp_ctx_free(t->ctx);
    t->ctx = NULL;
    long left = gpt_outstanding(&harness_counter);
    if (left != 0) gpt_fail(t, "%ld allocations of the test context were never freed", left);
    if (t->only_size >= 0 && !t->size_asked) gpt_fail(t, "--size: %s does not take it", t->name);
    if (t->only_size >= 0 && t->size_asked && t->size_matches == 0)
        gpt_fail(t, "--size %" PRId64 ": no case has that many elements", t->only_size);
    if (t->failed)
        printf("reproduce with: %s --backend %s --seed %" PRIu64 "%s%s (--case K for one case)\n", t->name,
               gp_backend_name(t->backend), t->seed, t->quick ? " --quick" : "", size_arg(t));
    printf("%ld passed, %ld failed, %ld skipped\n", t->passed, t->failed, t->skipped);
    fflush(stdout);
    if (t->failed) return 1;
    return t->passed == 0 && t->skipped > 0 ? 77 : 0;
}

bool gpt_selected(const gpt *t, long k) { return t->only_case < 0 || t->only_case == k; }
bool gpt_size_selected(gpt *t, int64_t n)
{
    t->size_asked = true;
    if (t->only_size < 0) return true;
    t->size_matches += t->only_size == n;
    return t->only_size == n;
}
void gpt_pass(gpt *t) { t->passed++; }
void gpt_skip(gpt *t) { t->skipped++; }

void gpt_skip_for_memory(gpt *t, const char *why)
{
    const char *require = getenv("GPUPRIM_REQUIRE_CUDA");
    if (t->backend == GP_BACKEND_CUDA && require && strcmp(require, "1") == 0) {
        gpt_fail(t, "%s (GPUPRIM_REQUIRE_CUDA=1: a case that does not fit is a failure)", why);
        return;
    }
    printf("SKIPPED: %s\n", why);
    gpt_skip(t);
}

static void vfail(gpt *t, const char *prefix, const char *fmt, va_list ap)
{
    if (++t->failed > MAX_PRINTED_FAILURES) {
        if (t->failed == MAX_PRINTED_FAILURES + 1) printf("FAIL: (further failures are counted, not printed)\n");
        return;
    }
    printf("FAIL: %s", prefix);
    vprintf(fmt, ap);
    printf(" (backend %s, seed = %" PRIu64 ")\n", gp_backend_name(t->backend), t->seed);
    fflush(stdout);
}

void gpt_fail(gpt *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(t, "", fmt, ap);
    va_end(ap);
}

void gpt_fail_at(gpt *t, const char *file, int line, const char *cond, const char *fmt, ...)
{
    char prefix[512];
    const char *slash = strrchr(file, '/');
    snprintf(prefix, sizeof prefix, "%s:%d: (%s) ", slash ? slash + 1 : file, line, cond);
    va_list ap;
    va_start(ap, fmt);
    vfail(t, prefix, fmt, ap);
    va_end(ap);
}

/* ---------------------------------------------------------- guard bands */

/* Not one repeated byte, so a shifted or partial write shows. */
static unsigned char canary(size_t i) { return (unsigned char)(0xC3u ^ (i * 0x9Du) ^ (i >> 8)); }

gp_status gpt_guarded_alloc(gp_ctx *ctx, gpt_guarded *g, size_t bytes)
{
    g->ctx = ctx;
    g->bytes = bytes;
    g->base = g->ptr = NULL;
    size_t total = bytes + 2 * GPT_GUARD;
    void *p = NULL;
    gp_status s = GP_STATUS_OK;
    if (ctx) s = gp_malloc(ctx, &p, total);
    else if (!(p = aligned_alloc(GPT_GUARD, (total + GPT_GUARD - 1) / GPT_GUARD * GPT_GUARD)))
        s = GP_STATUS_OUT_OF_MEMORY;
    if (s != GP_STATUS_OK) return s;
    g->base = (unsigned char *)p;
    g->ptr = g->base + GPT_GUARD;
    return GP_STATUS_OK;
}

void gpt_guarded_free(gpt_guarded *g)
{
    if (g->ctx) gp_free(g->ctx, g->base);
    else free(g->base);
    g->base = g->ptr = NULL;
}

gp_status gpt_guarded_poison(gpt_guarded *g, const void *poison, size_t plen)
{
    if (plen == 0 && g->bytes) return GP_STATUS_INVALID_ARGUMENT; /* no pattern to repeat */
    size_t total = g->bytes + 2 * GPT_GUARD;
    unsigned char *img = g->ctx ? malloc(total) : g->base;
    if (!img) return GP_STATUS_OUT_OF_MEMORY;
    for (size_t i = 0; i < GPT_GUARD; i++) {
        img[i] = canary(i);
        img[GPT_GUARD + g->bytes + i] = canary(GPT_GUARD + i);
    }
    /* The pattern repeated by doubling copies: a byte loop with a division
     * each took an eighth of test_histogram's time on 8 MiB histograms. */
    unsigned char *payload = img + GPT_GUARD;
    size_t done = plen < g->bytes ? plen : g->bytes;
    if (done) memcpy(payload, poison, done);
    while (done < g->bytes) {
        size_t k = done < g->bytes - done ? done : g->bytes - done;
        memcpy(payload + done, payload, k);
        done += k;
    }
    gp_status s = GP_STATUS_OK;
    if (g->ctx) {
        s = gp_copy_from_host(g->ctx, g->base, img, total);
        free(img);
    }
    return s;
}

bool gpt_guarded_check(gpt_guarded *g, void *payload, char *why, size_t why_size)
{
    size_t total = g->bytes + 2 * GPT_GUARD;
    unsigned char *img = g->ctx ? malloc(total) : g->base;
    if (!img) {
        snprintf(why, why_size, "out of host memory reading the guard bands");
        return false;
    }
    bool ok = true;
    if (g->ctx) {
        gp_status s = gp_copy_to_host(g->ctx, img, g->base, total);
        if (s != GP_STATUS_OK) {
            snprintf(why, why_size, "gp_copy_to_host of the guarded buffer gave %s", gp_status_name(s));
            ok = false;
        }
    }
    for (size_t i = 0; ok && i < GPT_GUARD; i++) {
        if (img[i] != canary(i)) {
            snprintf(why, why_size, "canary byte %zu before the output changed", GPT_GUARD - i);
            ok = false;
        } else if (img[GPT_GUARD + g->bytes + i] != canary(GPT_GUARD + i)) {
            snprintf(why, why_size, "canary byte %zu after the output changed", i);
            ok = false;
        }
    }
    if (ok && payload) memcpy(payload, img + GPT_GUARD, g->bytes);
    if (g->ctx) free(img);
    return ok;
}

bool gpt_unchanged(gp_ctx *ctx, const void *dev, const void *host, size_t bytes, const char *what, char *why,
                   size_t why_size)
{
    unsigned char *back = malloc(bytes + 1);
    if (!back) abort();
    gp_status s = gp_copy_to_host(ctx, back, dev, bytes);
    bool ok = s == GP_STATUS_OK && memcmp(back, host, bytes) == 0;
    if (!ok) snprintf(why, why_size, "the %s changed (%s)", what, gp_status_name(s));
    free(back);
    return ok;
}
