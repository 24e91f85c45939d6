/*
 * Why is partition_if of 2^26 bytes some 10% slower in a process whose first
 * 1-byte partition_if was small (docs/perf/scan.md, rounds 110 and 111)?
 *   pia [MODE [PAD_MIB]]
 * times the 2^26 call 40 times, one by one, after what MODE runs first on
 * the context, and prints every call's time: the bench's medians hide
 * whether the calls are bimodal. A standalone probe, not part of the build,
 * linked here against build-gpu's library (the GPU check's pack holds no
 * archives) and carried to the GPU machine in an ignored folder:
 *
 *   nvcc -O2 -std=c++17 -arch=sm_90 -Iinclude -o build-probe/pia bench/probes/partition_if_after.cu \
 *       build-gpu/libgpuprim.a -Xcompiler -fopenmp
 *   run(command="for m in fresh small; do build-probe/pia $m; done", carry=["build-probe"])
 *
 * MODE is words joined by '-': "small" runs one partition_if of 2^20 bytes
 * first (one pass, not counted first); "ws" gives the
 * context a workspace of its own for 2^26 bytes (the scratch's place no
 * longer depends on earlier calls); "big" runs five of 2^26 bytes before
 * anything else; "fresh" none of them. GPUPRIM_PARTITION_COUNT_FIRST=1
 * makes the small call count first too, as the 2^26 ones do. PAD_MIB (0 if
 * not given) allocates that many MiB before the library's first call,
 * moving its scratch and look-back pool: if the slow calls come
 * and go with it, the cause is where those land, not the small call.
 *
 * Each timed call is timed with events on the context's stream, as the
 * bench times it (bench_cuda.cu): after a flush that reads 256 MiB through
 * L2 (PIA_FLUSH=memset writes it instead, round 110's first version, which
 * leaves L2 full of dirty lines), and behind a kernel that holds the stream
 * until the host has queued the call (PIA_HOLD=0 leaves the hold out).
 * PIA_GAP_KIB allocates that much between the input and the output, to see
 * whether their distance matters (the bench's arena moves both per call).
 */
#include <cuda_runtime.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>

#include "gpuprim.h"

/* A failed call ends the probe with where and why. */
static void cuda_check(cudaError_t e, const char *what, int line)
{
    if (e == cudaSuccess) return;
    fprintf(stderr, "line %d: %s: %s\n", line, what, cudaGetErrorString(e));
    exit(1);
}
static void gp_check(const gp_ctx *ctx, gp_status s, const char *what, int line)
{
    if (s == GP_STATUS_OK) return;
    fprintf(stderr, "line %d: %s: %s\n", line, what, gp_ctx_last_error(ctx));
    exit(1);
}
#define CUDA_CHECK(x) cuda_check((x), #x, __LINE__)
#define GP_CHECK(ctx, x) gp_check((ctx), (x), #x, __LINE__)

enum { RUNS = 40, WARMUP = 3 };
static const size_t kFlushBytes = (size_t)256 << 20;

/* Reads the buffer through L2 (ld.global.cg) so that it displaces what the
 * last call left there with clean lines; the store never happens (the
 * buffer is zeros) but the compiler cannot know. */
__global__ void flush_kernel(const uint4 *in, size_t nvec, unsigned *sink)
{
    unsigned acc = 0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < nvec; i += (size_t)gridDim.x * blockDim.x) {
        const uint4 v = __ldcg(in + i);
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x5eed5eedu) *sink = acc;
}

/* Spins until the host sets *release (or 200 ms pass), so that the events
 * bracket the GPU's work and not the host's submission. */
__global__ void hold_kernel(const volatile int *release)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        if (*release) return;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < 200ull * 1000 * 1000);
}

static int has_word(const char *mode, const char *word)
{
    const size_t len = strlen(word);
    for (const char *p = mode; (p = strstr(p, word)) != NULL; p += len)
        if ((p == mode || p[-1] == '-') && (p[len] == '\0' || p[len] == '-')) return 1;
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "fresh";
    const long pad_mib = argc > 2 ? strtol(argv[2], NULL, 10) : 0;
    const int64_t n = (int64_t)1 << 26, small = (int64_t)1 << 20;
    const uint8_t below = 128; /* about half kept */
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    gp_ctx *ctx = NULL;
    const gp_status made = gp_ctx_create(&ctx, GP_BACKEND_CUDA, 0);
    if (made != GP_STATUS_OK) {
        fprintf(stderr, "no CUDA context: %s\n", gp_status_string(made));
        return 1;
    }
    GP_CHECK(ctx, gp_ctx_set_stream(ctx, stream));

    uint8_t *host = (uint8_t *)malloc((size_t)n), *in, *out, *flush;
    int64_t *count;
    if (!host) return 1;
    uint64_t x = 88172645463325252ull; /* xorshift64: the same bytes every run */
    for (int64_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        host[i] = (uint8_t)(x >> 56);
    }
    CUDA_CHECK(cudaMalloc((void **)&in, (size_t)n));
    const long gap_kib = getenv("PIA_GAP_KIB") ? strtol(getenv("PIA_GAP_KIB"), NULL, 10) : 0;
    if (gap_kib > 0) { /* moves the output against the input: do their DRAM channels collide? */
        void *gap = NULL;
        CUDA_CHECK(cudaMalloc(&gap, (size_t)gap_kib << 10));
    }
    CUDA_CHECK(cudaMalloc((void **)&out, (size_t)n));
    CUDA_CHECK(cudaMalloc((void **)&count, sizeof *count));
    CUDA_CHECK(cudaMalloc((void **)&flush, kFlushBytes));
    CUDA_CHECK(cudaMemcpy(in, host, (size_t)n, cudaMemcpyHostToDevice));

    if (pad_mib > 0) {
        void *pad = NULL;
        CUDA_CHECK(cudaMalloc(&pad, (size_t)pad_mib << 20));
        printf("pad: %ld MiB at %p\n", pad_mib, pad);
    }
    if (has_word(mode, "ws")) {
        size_t bytes = 0;
        void *ws = NULL;
        GP_CHECK(ctx, gp_select_workspace_size(ctx, GP_DTYPE_U8, n, &bytes));
        CUDA_CHECK(cudaMalloc(&ws, bytes));
        GP_CHECK(ctx, gp_ctx_set_workspace(ctx, ws, bytes));
        printf("workspace: %zu bytes at %p\n", bytes, ws);
    }
    if (has_word(mode, "big"))
        for (int i = 0; i < 5; i++)
            GP_CHECK(ctx, gp_partition_if(ctx, in, GP_DTYPE_U8, n, GP_CMP_LT, &below, out, count, NULL));
    if (has_word(mode, "small"))
        GP_CHECK(ctx, gp_partition_if(ctx, in, GP_DTYPE_U8, small, GP_CMP_LT, &below, out, count, NULL));
    GP_CHECK(ctx, gp_ctx_synchronize(ctx));

    const char *flush_how = getenv("PIA_FLUSH") && !strcmp(getenv("PIA_FLUSH"), "memset") ? "memset" : "read";
    const int held = !(getenv("PIA_HOLD") && !strcmp(getenv("PIA_HOLD"), "0"));
    int *release = NULL;
    unsigned *sink = NULL;
    CUDA_CHECK(cudaHostAlloc((void **)&release, sizeof *release, cudaHostAllocMapped));
    CUDA_CHECK(cudaMalloc((void **)&sink, sizeof *sink));
    CUDA_CHECK(cudaMemset(flush, 0, kFlushBytes));
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    float us[RUNS];
    for (int r = -WARMUP; r < RUNS; r++) {
        if (flush_how[0] == 'm') {
            CUDA_CHECK(cudaMemsetAsync(flush, r & 255, kFlushBytes, stream));
        } else {
            flush_kernel<<<132 * 8, 256, 0, stream>>>((const uint4 *)flush, kFlushBytes / 16, sink);
            CUDA_CHECK(cudaGetLastError());
        }
        if (held) {
            *(volatile int *)release = 0;
            hold_kernel<<<1, 1, 0, stream>>>(release);
            CUDA_CHECK(cudaGetLastError());
        }
        CUDA_CHECK(cudaEventRecord(start, stream));
        GP_CHECK(ctx, gp_partition_if(ctx, in, GP_DTYPE_U8, n, GP_CMP_LT, &below, out, count, NULL));
        CUDA_CHECK(cudaEventRecord(stop, stream));
        if (held) *(volatile int *)release = 1;
        CUDA_CHECK(cudaStreamSynchronize(stream));
        if (r >= 0) {
            CUDA_CHECK(cudaEventElapsedTime(&us[r], start, stop));
            us[r] *= 1000.0f;
        }
    }
    int64_t kept = 0, want = 0;
    CUDA_CHECK(cudaMemcpy(&kept, count, sizeof kept, cudaMemcpyDeviceToHost));
    for (int64_t i = 0; i < n; i++) want += host[i] < below;
    int fast = 0;
    for (int r = 0; r < RUNS; r++) fast += us[r] < 82.0f;
    printf("%-12s pad %ld MiB, flush %s, %s, out - in = %lld KiB, us:", mode, pad_mib, flush_how,
           held ? "held" : "not held", (long long)((char *)out - (char *)in) / 1024);
    for (int r = 0; r < RUNS; r++) printf(" %.1f", us[r]);
    std::sort(us, us + RUNS);
    printf("\n%-12s %d of %d under 82 us; median %.2f, min %.2f, max %.2f us; count %s\n", mode, fast, RUNS,
           (us[RUNS / 2 - 1] + us[RUNS / 2]) / 2,
           us[0], us[RUNS - 1], kept == want ? "right" : "WRONG");
    gp_ctx_free(ctx);
    return kept == want ? 0 : 1;
}
