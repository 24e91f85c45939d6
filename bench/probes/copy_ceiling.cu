/*
 * How near an SM-driven copy comes to cudaMemcpyAsync device-to-device:
 * the ceiling the scan, selection and partition benches measure against.
 * A standalone probe, not part of the build (docs/perf/scan.md, round 72):
 *
 *   nvcc -O3 -std=c++17 -arch=sm_90 -o /tmp/copy_ceiling bench/probes/copy_ceiling.cu && /tmp/copy_ceiling
 *
 * Copies 256 MiB and 1 GiB (the bytes of an int32 scan at 2^26 and 2^28)
 * with cudaMemcpyAsync, with grid-stride 16-byte copies of several shapes,
 * and with bulk copies (cp.async.bulk in and out through shared stages, the
 * scan's data path). Each call is timed with events after an L2 flush, as
 * the bench times; medians of 20 after 3 warm-up calls.
 */
#include <cuda_runtime.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <vector>

#define CHECK(x)                                                                                          \
    do {                                                                                                  \
        cudaError_t e_ = (x);                                                                             \
        if (e_ != cudaSuccess) {                                                                          \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));          \
            exit(1);                                                                                      \
        }                                                                                                 \
    } while (0)

/* Reads `n` vectors through L2 so the timed copy finds none of its bytes there. */
__global__ void flush_l2(const int4 *a, size_t n, int *sink)
{
    int acc = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        acc ^= __ldcg(a + i).x;
    if (acc == 0x5eed) *sink = 1; /* never: the buffer is zeros */
}

/* Grid-stride copy, U vectors a thread in flight; Streaming: evict-first loads and stores. */
template <int U, bool Streaming>
__global__ void vector_copy(const int4 *__restrict__ in, int4 *__restrict__ out, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    for (; i + (U - 1) * stride < n; i += U * stride) {
        int4 v[U];
#pragma unroll
        for (int u = 0; u < U; u++) v[u] = Streaming ? __ldcs(in + i + u * stride) : in[i + u * stride];
#pragma unroll
        for (int u = 0; u < U; u++) {
            if (Streaming) __stcs(out + i + u * stride, v[u]);
            else out[i + u * stride] = v[u];
        }
    }
    for (; i < n; i += stride) out[i] = in[i];
}

__device__ __forceinline__ unsigned smem(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

/* One thread a block streams tiles blockIdx.x, + gridDim.x, ... through S
 * shared stages of T bytes: a bulk load lands a tile on its stage's
 * mbarrier, a bulk store writes it out, and the stage is refilled once the
 * store has read it. `tiles` x T must be the bytes to copy. */
template <int S, int T>
__global__ void bulk_copy(const char *in, char *out, size_t tiles)
{
    extern __shared__ __align__(128) char stage[];
    __shared__ __align__(8) uint64_t landed[S];
    if (threadIdx.x != 0) return;
    for (int s = 0; s < S; s++) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&landed[s])) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    auto load = [&](int s, size_t t) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(&landed[s])), "r"(T) : "memory");
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                         smem(stage + (size_t)s * T)),
                     "l"(in + t * T), "r"(T), "r"(smem(&landed[s]))
                     : "memory");
    };
    for (int s = 0; s < S; s++)
        if (blockIdx.x + (size_t)s * gridDim.x < tiles) load(s, blockIdx.x + (size_t)s * gridDim.x);
    for (size_t k = 0; blockIdx.x + k * gridDim.x < tiles; k++) {
        const size_t t = blockIdx.x + k * gridDim.x;
        const int s = (int)(k % S);
        unsigned done = 0;
        do {
            asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                         "selp.u32 %0, 1, 0, p;\n\t}"
                         : "=r"(done)
                         : "r"(smem(&landed[s])), "r"((unsigned)((k / S) & 1))
                         : "memory");
        } while (!done);
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(out + t * T),
                     "r"(smem(stage + (size_t)s * T)), "r"(T)
                     : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        if (k == 0) continue;
        /* The store before this one has read its stage: refill that stage. */
        asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
        const size_t next = blockIdx.x + (k - 1 + S) * gridDim.x;
        if (next < tiles) load((int)((k - 1) % S), next);
    }
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

template <int S, int T>
static void allow_stages()
{
    CHECK(cudaFuncSetAttribute(bulk_copy<S, T>, cudaFuncAttributeMaxDynamicSharedMemorySize, S * T));
}

int main()
{
    int sms = 0;
    CHECK(cudaSetDevice(0));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    printf("%s, %d SMs\n", prop.name, sms);
    cudaStream_t st;
    CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    const size_t flush_bytes = (size_t)256 << 20, most = (size_t)1 << 30;
    int4 *flush;
    int *sink;
    char *in, *out;
    CHECK(cudaMalloc(&flush, flush_bytes));
    CHECK(cudaMemset(flush, 0, flush_bytes));
    CHECK(cudaMalloc(&sink, sizeof(int)));
    CHECK(cudaMalloc(&in, most));
    CHECK(cudaMalloc(&out, most));
    CHECK(cudaMemset(in, 1, most));
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    allow_stages<4, 16384>();
    allow_stages<6, 16384>();
    allow_stages<8, 16384>();
    allow_stages<3, 32768>();
    allow_stages<6, 32768>();

    /* Median us of one call of `copy`, each after an L2 flush. */
    auto time = [&](auto copy) {
        std::vector<float> t;
        for (int r = 0; r < 23; r++) {
            flush_l2<<<sms * 4, 512, 0, st>>>(flush, flush_bytes / 16, sink);
            CHECK(cudaGetLastError());
            CHECK(cudaEventRecord(e0, st));
            copy();
            CHECK(cudaGetLastError());
            CHECK(cudaEventRecord(e1, st));
            CHECK(cudaEventSynchronize(e1));
            float ms = 0;
            CHECK(cudaEventElapsedTime(&ms, e0, e1));
            if (r >= 3) t.push_back(ms * 1e3f);
        }
        std::sort(t.begin(), t.end());
        return t[t.size() / 2];
    };

    for (size_t bytes : {(size_t)1 << 28, most}) {
        const size_t vecs = bytes / 16;
        printf("\n%zu MiB, GB/s count the bytes read and written\n%-34s %10s %9s %13s\n", bytes >> 20, "copy", "us",
               "GB/s", "of memcpy");
        const float ref = time([&] { CHECK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, st)); });
        auto row = [&](const char *name, float us) {
            printf("%-34s %10.2f %9.1f %12.1f%%\n", name, us, 2.0 * bytes / (us * 1e3), 100.0 * ref / us);
        };
        row("cudaMemcpyAsync D2D", ref);
        struct shape {
            int blocks_per_sm, threads, unroll;
            bool streaming;
        } shapes[] = {{1, 256, 4, false}, {1, 512, 4, false}, {1, 512, 8, false}, {1, 1024, 4, false},
                      {2, 256, 4, false}, {2, 256, 8, false}, {2, 512, 4, false}, {3, 256, 4, false},
                      {4, 256, 4, false}, {8, 256, 4, false}, {4, 256, 4, true}};
        for (const shape &c : shapes) {
            char name[64];
            snprintf(name, sizeof name, "16 B x %d, %d x %d threads/SM%s", c.unroll, c.blocks_per_sm, c.threads,
                     c.streaming ? ", .cs" : "");
            const dim3 grid(sms * c.blocks_per_sm), block(c.threads);
            const int4 *src = (const int4 *)in;
            int4 *dst = (int4 *)out;
            row(name, time([&] {
                    if (c.streaming) vector_copy<4, true><<<grid, block, 0, st>>>(src, dst, vecs);
                    else if (c.unroll == 8) vector_copy<8, false><<<grid, block, 0, st>>>(src, dst, vecs);
                    else vector_copy<4, false><<<grid, block, 0, st>>>(src, dst, vecs);
                }));
        }
        row("bulk, 4 x 16 KiB, 2 blocks/SM", time([&] { bulk_copy<4, 16384><<<sms * 2, 32, 4 * 16384, st>>>(in, out, bytes / 16384); }));
        row("bulk, 6 x 16 KiB, 2 blocks/SM", time([&] { bulk_copy<6, 16384><<<sms * 2, 32, 6 * 16384, st>>>(in, out, bytes / 16384); }));
        row("bulk, 8 x 16 KiB, 1 block/SM", time([&] { bulk_copy<8, 16384><<<sms, 32, 8 * 16384, st>>>(in, out, bytes / 16384); }));
        row("bulk, 3 x 32 KiB, 2 blocks/SM", time([&] { bulk_copy<3, 32768><<<sms * 2, 32, 3 * 32768, st>>>(in, out, bytes / 32768); }));
        row("bulk, 6 x 32 KiB, 1 block/SM", time([&] { bulk_copy<6, 32768><<<sms, 32, 6 * 32768, st>>>(in, out, bytes / 32768); }));
        /* The last copy (bulk) must have copied everything: check a spread of words. */
        CHECK(cudaMemset(out, 0, bytes));
        bulk_copy<4, 16384><<<sms * 2, 32, 4 * 16384, st>>>(in, out, bytes / 16384);
        CHECK(cudaGetLastError());
        CHECK(cudaStreamSynchronize(st));
        std::vector<char> h(bytes);
        CHECK(cudaMemcpy(h.data(), out, bytes, cudaMemcpyDeviceToHost));
        const size_t bad = (size_t)std::count_if(h.begin(), h.end(), [](char c) { return c != 1; });
        printf("check of the bulk copy: %s\n", bad ? "FAILED" : "ok");
        if (bad) return 1;
    }
    return 0;
}
