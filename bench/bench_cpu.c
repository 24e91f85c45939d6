/* CPU runtime of the harness: facts about the host, the rotation arena in
 * host memory, host timing, and the OpenMP streaming-read ceiling. */
#define _POSIX_C_SOURCE 200809L
#include "bench_cpu.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "model name" from /proc/cpuinfo; "cpu" where there is none. */
static void cpu_model(char *out, size_t size)
{
    snprintf(out, size, "cpu");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) || !colon) continue;
        colon += 1 + (colon[1] == ' ');
        colon[strcspn(colon, "\n")] = '\0';
        snprintf(out, size, "%s", colon);
        break;
    }
    fclose(f);
}

/* The largest cache of cpu0 (the last level, shared); 32 MiB if unknown. */
static size_t last_level_cache(void)
{
    size_t best = 0;
    for (int i = 0; i < 8; i++) {
        char path[96];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        unsigned long v = 0;
        char unit = 0;
        if (fscanf(f, "%lu%c", &v, &unit) >= 1) {
            size_t b = v * (unit == 'K' ? 1024ul : unit == 'M' ? 1024ul * 1024 : 1ul);
            if (b > best) best = b;
        }
        fclose(f);
    }
    return best ? best : (size_t)32 << 20;
}

/* MemAvailable from /proc/meminfo in bytes; 0 if unknown. */
static size_t mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return 0;
    char line[256];
    unsigned long long kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) break;
    fclose(f);
    return (size_t)kb * 1024;
}

static int cpu_init(gpb_env *env)
{
    gpb_meta *m = &env->meta;
    cpu_model(m->device, sizeof m->device);
    snprintf(m->driver, sizeof m->driver, "n/a");
    snprintf(m->runtime, sizeof m->runtime, "OpenMP %d", _OPENMP);
#if defined(__clang__)
    snprintf(m->peer_version, sizeof m->peer_version, "serial loop, clang %s", __clang_version__);
#elif defined(__GNUC__)
    snprintf(m->peer_version, sizeof m->peer_version, "serial loop, gcc %s", __VERSION__);
#else
    snprintf(m->peer_version, sizeof m->peer_version, "serial loop");
#endif
    m->parallelism = omp_get_max_threads();
    m->cache_bytes = last_level_cache();
    return GPB_OK;
}

static void cpu_fini(gpb_env *env) { (void)env; }

const gpb_runtime gpb_cpu_runtime = {cpu_init, cpu_fini};

int gpb_cpu_arena_alloc(const gpb_env *env, gpb_arena *a, size_t slice_bytes, char *note, size_t note_size)
{
    size_t bytes = gpb_arena_layout(a, slice_bytes, env->meta.cache_bytes);
    size_t avail = mem_available();
    /* Linux overcommits: malloc would succeed and the fill would be killed. */
    if (avail && bytes > avail / 10 * 8) {
        snprintf(note, note_size, "skipped: needs %.0f MiB of host memory, %.0f MiB available",
                 bytes / 1048576.0, avail / 1048576.0);
        return GPB_OK;
    }
    a->base = aligned_alloc(256, bytes);
    if (!a->base) snprintf(note, note_size, "skipped: could not allocate %.0f MiB", bytes / 1048576.0);
    return GPB_OK;
}

void gpb_cpu_arena_free(gpb_arena *a)
{
    free(a->base);
    a->base = NULL;
}

int gpb_cpu_time(const gpb_env *env, gpb_arena *a, const gpb_impl *impls, int nimpl, gpb_time *outs)
{
    int runs = env->opts.runs;
    double *v = malloc((size_t)runs * (size_t)nimpl * sizeof *v);
    if (!v) {
        fprintf(stderr, "gpuprim bench: out of host memory\n");
        return GPB_ERROR;
    }
    int rc = GPB_OK;
    for (int r = -env->opts.warmup; r < runs && rc == GPB_OK; r++) {
        for (int k = 0; k < nimpl && rc == GPB_OK; k++) {
            if (!impls[k].call) continue;
            const void *in = gpb_arena_next(a);
            double t0 = gpb_now_us();
            rc = impls[k].call(impls[k].self, in);
            if (r >= 0) v[k * runs + r] = gpb_now_us() - t0;
        }
    }
    for (int k = 0; k < nimpl && rc == GPB_OK; k++)
        outs[k] = impls[k].call ? gpb_summarize(v + k * runs, runs) : (gpb_time){0, 0, 0, 0};
    free(v);
    return rc;
}

/* Written only when the combined value hits a key nothing produces in
 * practice: the loads cannot be dropped, the store almost never happens. */
static volatile uint64_t ceiling_sink;

/* xor is associative, so the loop vectorises into wide loads. */
static uint64_t xor_words(const uint64_t *w, size_t n)
{
    uint64_t acc = 0;
#pragma omp simd reduction(^ : acc)
    for (size_t i = 0; i < n; i++) acc ^= w[i];
    return acc;
}

int gpb_cpu_read_ceiling(void *self, const void *in)
{
    size_t bytes = *(const size_t *)self;
    const uint64_t *w = in;
    size_t nw = bytes / 8;
    uint64_t acc = 0;
    /* Below 256 KiB waking the team costs more than the read: one thread,
     * and no call into the OpenMP runtime at all. */
    if (bytes < ((size_t)256 << 10)) {
        acc = xor_words(w, nw);
    } else {
#pragma omp parallel reduction(^ : acc)
        {
            size_t nt = (size_t)omp_get_num_threads(), t = (size_t)omp_get_thread_num();
            size_t lo = nw / nt * t + (t < nw % nt ? t : nw % nt);
            size_t len = nw / nt + (t < nw % nt);
            acc ^= xor_words(w + lo, len);
        }
    }
    const unsigned char *tail = (const unsigned char *)in + nw * 8;
    for (size_t i = 0; i < bytes % 8; i++) acc ^= (uint64_t)tail[i] << (8 * i);
    if (acc == 0x5eed5eed5eed5eedull) ceiling_sink = acc;
    return GPB_OK;
}

int gpb_cpu_copy_ceiling(void *self, const void *in)
{
    const gpb_copy_job *job = self;
    const size_t bytes = job->bytes;
    /* A thread a 256 KiB at most; below that one, the team not woken. A
     * team of 16 for 288 KiB (partition int32 2^16) copied at 2.5 GB/s. */
    const size_t piece_min = (size_t)256 << 10;
    const int want = omp_get_max_threads();
    const int nthreads = bytes / piece_min < (size_t)want ? (int)(bytes / piece_min) : want;
    if (nthreads <= 1) {
        memcpy(job->dst, in, bytes);
        return GPB_OK;
    }
#pragma omp parallel num_threads(nthreads)
    {
        /* Pieces of whole 64-byte lines, the last thread taking the rest. */
        size_t nt = (size_t)omp_get_num_threads(), t = (size_t)omp_get_thread_num();
        size_t piece = bytes / nt / 64 * 64, lo = piece * t, len = t + 1 == nt ? bytes - lo : piece;
        memcpy((unsigned char *)job->dst + lo, (const unsigned char *)in + lo, len);
    }
    return GPB_OK;
}
