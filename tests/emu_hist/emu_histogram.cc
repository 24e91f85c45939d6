/*
 * src/cuda/cuda_histogram.cu run on the CPU (hist_emu.h), through the
 * backend's own entry points, against the serial reference: counting and
 * both histograms, every dtype, every kernel path (8-bit values; shared
 * counters with 32 down to 1 columns, with and without warp grouping; the
 * global path), one and many blocks, several flush rounds per block,
 * misaligned inputs, overwrite (cleared by the one block, by the block that
 * passes the gate first, or by a memset) and accumulate; after every call
 * the gate must hold an epoch alone.
 *
 * Build and run (no GPU, no CUDA toolkit needed; from the repository root,
 * with the CPU library built in BUILD):
 *   g++ -std=c++17 -O2 -pthread -Iinclude -Isrc/core -Isrc/cpu -Isrc/cuda -Itests/emu_core \
 *       tests/emu_hist/emu_histogram.cc tests/emu_core/emu_fibers.cc BUILD/libgpuprim.a -fopenmp \
 *       -o emu_histogram
 *   ./emu_histogram [--seed S] [--quick]
 * The seed is fresh each run (as tests/harness.c picks it) unless --seed or
 * GPUPRIM_SEED gives one; a failing run prints the command that repeats it.
 */
#include "hist_emu.h"

#include "cuda_histogram.cu"

#include "cpu_reference.h"
#include "seed.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <functional>
#include <map>
#include <random>
#include <thread>
#include <utility>
#include <vector>

/* ================================================================ launches */

/* Kernels by address: each registered instantiation unpacks its arguments. */
static std::map<const void *, std::function<void(void **)>> &kernels()
{
    static std::map<const void *, std::function<void(void **)>> k;
    return k;
}

template <class... A, size_t... I>
static void invoke(void (*fn)(A...), void **args, std::index_sequence<I...>)
{
    fn(*static_cast<std::remove_reference_t<A> *>(args[I])...);
}

template <class... A>
static void reg(void (*fn)(A...))
{
    kernels()[(const void *)fn] = [fn](void **args) { invoke(fn, args, std::index_sequence_for<A...>{}); };
}

static long launches, max_smem;

cudaError_t cudaLaunchKernel(const void *fn, dim3 grid, dim3 block, void **args, size_t smem, cudaStream_t)
{
    auto it = kernels().find(fn);
    if (it == kernels().end()) {
        fprintf(stderr, "emu: launch of an unregistered kernel\n");
        return cudaErrorInvalidValue;
    }
    if (grid.x < 1 || block.x < 1 || block.x > 1024 || block.x % 32 || smem > 232448) return cudaErrorInvalidValue;
    launches++;
    if ((long)smem > max_smem) max_smem = (long)smem;
    const std::function<void(void **)> &kernel = it->second;
    gp_emu::run_grid([&kernel, args] { kernel(args); }, grid.x, block.x, smem, 2, (unsigned)launches);
    return cudaSuccess;
}

static std::map<const void *, int> smem_limit;
cudaError_t cudaFuncSetAttribute(const void *fn, cudaFuncAttribute, int value)
{
    smem_limit[fn] = value;
    return cudaSuccess;
}
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *fn, int, size_t smem)
{
    if (smem > 48 * 1024 && smem_limit[fn] < (int)smem) {
        fprintf(stderr, "emu: %zu bytes of dynamic shared memory without cudaFuncSetAttribute\n", smem);
        return cudaErrorInvalidValue;
    }
    *blocks = 2;
    return cudaSuccess;
}
cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr, int)
{
    *value = 232448; /* Hopper's opt-in limit */
    return cudaSuccess;
}

/* ================================================================= tests */

using namespace gp_cuda;

template <class T>
static void register_type()
{
    reg(count_kernel<T, GP_CMP_LT>), reg(count_kernel<T, GP_CMP_LE>), reg(count_kernel<T, GP_CMP_GT>);
    reg(count_kernel<T, GP_CMP_GE>), reg(count_kernel<T, GP_CMP_EQ>), reg(count_kernel<T, GP_CMP_NE>);
    if constexpr (sizeof(T) == 1) {
        reg(hist_bytes_kernel<T, false>), reg(hist_bytes_kernel<T, true>);
    } else {
        reg(hist_shared_kernel<T, false, false, 1>), reg(hist_shared_kernel<T, false, true, 1>);
        reg(hist_shared_kernel<T, true, false, 1>), reg(hist_shared_kernel<T, true, true, 1>);
        reg(hist_shared_kernel<T, false, false, kHistUnroll>), reg(hist_shared_kernel<T, false, true, kHistUnroll>);
        reg(hist_shared_kernel<T, true, false, kHistUnroll>), reg(hist_shared_kernel<T, true, true, kHistUnroll>);
        reg(hist_global_kernel<T, false>), reg(hist_global_kernel<T, true>);
    }
}

static long passed, failed, gate_epochs;
static std::mt19937_64 rng;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (++failed <= 30) {
        printf("FAIL: ");
        vprintf(fmt, ap);
        printf("\n");
    }
    va_end(ap);
}

static double uni() { return (double)(rng() >> 11) * 0x1p-53; }

template <class T>
static T clamp_to(long double v)
{
    if constexpr (std::is_floating_point_v<T>) return (T)v;
    else {
        if (v != v) v = 0;
        v = roundl(v);
        if (v < (long double)std::numeric_limits<T>::lowest()) return std::numeric_limits<T>::lowest();
        if (v > (long double)std::numeric_limits<T>::max()) return std::numeric_limits<T>::max();
        return (T)v;
    }
}

/* Values over [lo, hi) and a little past it; pattern 1: one value; 2: the
 * marks and their neighbours; 3: NaN and infinities among them (floats). */
template <class T>
static void fill(std::vector<T> &x, size_t off, int64_t n, long double lo, long double hi, int pat,
                 const std::vector<long double> &marks)
{
    long double w = hi - lo;
    if (!(w > 0) || w > 1e30L) w = 1000, lo = isinf(lo) ? -500 : lo;
    T one = clamp_to<T>(lo + w * 0.37L);
    for (int64_t i = 0; i < n; i++) {
        long double v = lo - w / 8 + w * 1.25L * uni();
        if (pat == 1) {
            x[off + i] = one;
            continue;
        }
        if (pat == 2) {
            v = marks[rng() % marks.size()];
            T t = clamp_to<T>(v);
            int d = (int)(rng() % 3) - 1;
            if constexpr (std::is_floating_point_v<T>) t = d ? std::nextafter(t, d > 0 ? (T)INFINITY : (T)-INFINITY) : t;
            else if (d > 0 && t < std::numeric_limits<T>::max()) t++;
            else if (d < 0 && t > std::numeric_limits<T>::lowest()) t--;
            x[off + i] = t;
            continue;
        }
        if constexpr (std::is_floating_point_v<T>)
            if (pat == 3 && rng() % 3 == 0) {
                static const T sp[] = {(T)NAN, (T)INFINITY, (T)-INFINITY, (T)-0.0};
                x[off + i] = sp[rng() % 4];
                continue;
            }
        x[off + i] = clamp_to<T>(v);
    }
}

/* ticket: the zeroed 64-bit word whose low half is the backend's ticket
 * (counts below 2^32 ride in its high half: cuda_block_count.cuh); gate:
 * the histograms' (cuda_histogram.cu). */
static gp_ctx *make_ctx(context_state *st, unsigned long long *ticket, unsigned long long *gate, int sms)
{
    static gp_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.backend = GP_BACKEND_CUDA;
    ctx.space = GP_MEM_DEVICE; /* host memory here, but the code must not care */
    st->sm_count = sms;
    st->control = nullptr;
    st->reduce_counter = reinterpret_cast<unsigned *>(ticket);
    st->hist_gate = gate;
    ctx.impl = st;
    return &ctx;
}

template <class T>
static void count_case(gp_ctx *ctx, unsigned long long *ticket, gp_dtype t, int64_t n, int off, int pat)
{
    std::vector<T> x((size_t)(n + off + 4));
    fill<T>(x, (size_t)off, n, -100, 100, pat == 2 ? 0 : pat, {0});
    for (int c = GP_CMP_LT; c <= GP_CMP_NE; c++) {
        T v = n > 0 && rng() % 4 ? x[off + rng() % (uint64_t)n] : clamp_to<T>(3);
        if constexpr (std::is_floating_point_v<T>)
            if (rng() % 8 == 0) v = (T)NAN;
        gp_count_args a = {x.data() + off, t, n, (gp_cmp)c, {0}, nullptr};
        memcpy(a.value, &v, sizeof v);
        int64_t got = -12345;
        a.count = &got;
        std::vector<unsigned char> ws(count_workspace(ctx, &a) + 1);
        gp_status s = count(ctx, &a, ws.data());
        int64_t want = gp_ref_count(x.data() + off, t, n, (gp_cmp)c, &v);
        if (s != GP_STATUS_OK || got != want || *ticket != 0)
            fail("count %s n=%" PRId64 " off=%d cmp=%s pat=%d: %s, got %" PRId64 " want %" PRId64 " ticket word %llx",
                 gp_dtype_name(t), n, off, gp_cmp_name((gp_cmp)c), pat, gp_status_name(s), got, want, *ticket);
        else passed++;
    }
}

template <class T>
static void hist_case(gp_ctx *ctx, gp_dtype t, int64_t n, int64_t bins, bool edges, int pat, int off)
{
    std::vector<T> x((size_t)(n + off + 4)), e;
    std::vector<long double> marks;
    double lo = 0, hi = 0;
    if (edges) {
        /* bins + 1 ascending values of T. */
        long double span = std::is_floating_point_v<T> ? 1e6L
                                                       : (long double)std::numeric_limits<T>::max() -
                                                             (long double)std::numeric_limits<T>::lowest();
        if ((long double)bins + 1 > span + 1) return; /* T has too few values */
        long double step = std::min(span / (long double)(bins + 1), 50.0L);
        if (!std::is_floating_point_v<T>) step = floorl(step);
        if (step < 1 && !std::is_floating_point_v<T>) step = 1;
        long double v = std::is_floating_point_v<T> ? -0.25L * step * bins : (long double)std::numeric_limits<T>::lowest();
        e.resize((size_t)bins + 1);
        for (int64_t i = 0; i <= bins; i++) {
            T ev = clamp_to<T>(v);
            if (i > 0 && !(ev > e[i - 1])) {
                if constexpr (std::is_floating_point_v<T>) ev = std::nextafter(e[i - 1], (T)INFINITY);
                else ev = e[i - 1] + 1;
            }
            e[i] = ev;
            marks.push_back((long double)ev);
            v = (long double)ev + step * (std::is_floating_point_v<T> ? 0.5L + uni() : 1.0L);
        }
        if constexpr (std::is_floating_point_v<T>)
            if (pat == 3 && bins >= 2) e[0] = -INFINITY, e[bins] = INFINITY;
        fill<T>(x, (size_t)off, n, (long double)e[0], (long double)e[bins], pat, marks);
    } else {
        if (std::is_floating_point_v<T>) lo = -3.75 + uni(), hi = lo + 0.001 + 10 * uni();
        else lo = -7, hi = 250; /* integers: both ends inside every dtype's range but u8's upper */
        if (!std::is_floating_point_v<T> && !std::is_signed_v<T>) lo = 3;
        for (int64_t i = 0; i <= bins; i++) marks.push_back(lo + (hi - lo) * (double)i / (double)bins);
        fill<T>(x, (size_t)off, n, lo, hi, pat, marks);
    }
    for (int acc = 0; acc <= 1; acc++) {
        std::vector<uint64_t> h((size_t)bins + 2), want((size_t)bins);
        for (auto &c : h) c = acc ? rng() >> 20 : 0xA5A5A5A5A5A5A5A5ull;
        const uint64_t canary = h[bins] = h[bins + 1] = 0x5eed5eed5eed5eedull;
        for (int64_t b = 0; b < bins; b++) want[b] = acc ? h[b] : 0;
        if (edges) gp_ref_histogram_edges(x.data() + off, t, n, bins, e.data(), want.data(), GP_HISTOGRAM_ACCUMULATE);
        else gp_ref_histogram_even(x.data() + off, t, n, bins, lo, hi, want.data(), GP_HISTOGRAM_ACCUMULATE);
        gp_histogram_args a = {x.data() + off, t, n, bins, lo, hi, edges ? e.data() : nullptr, h.data(), acc == 1};
        const unsigned long long epoch = *state(ctx)->hist_gate >> kGateEpochShift;
        gp_status s = histogram(ctx, &a, nullptr);
        /* Between launches the gate holds an epoch alone, one more after a
         * launch that passed it. */
        const unsigned long long gate = *state(ctx)->hist_gate;
        const bool gate_ok =
            (gate & ((1ull << kGateEpochShift) - 1)) == 0 && (gate >> kGateEpochShift) - epoch <= 1;
        gate_epochs += (gate >> kGateEpochShift) - epoch;
        int64_t bad = -1;
        for (int64_t b = 0; b < bins && bad < 0; b++)
            if (h[b] != want[b]) bad = b;
        if (s != GP_STATUS_OK || bad >= 0 || h[bins] != canary || h[bins + 1] != canary || !gate_ok)
            fail("%s %s n=%" PRId64 " bins=%" PRId64 " pat=%d off=%d %s: %s, bin %" PRId64 " got %" PRIu64
                 " want %" PRIu64 "%s, gate word %llx",
                 edges ? "edges" : "even", gp_dtype_name(t), n, bins, pat, off, acc ? "accumulate" : "overwrite",
                 gp_status_name(s), bad, bad >= 0 ? h[bad] : 0, bad >= 0 ? want[bad] : 0,
                 h[bins] != canary || h[bins + 1] != canary ? " (canary overwritten)" : "", gate);
        else passed++;
    }
}

template <class T>
static void run_type(gp_ctx *ctx, unsigned long long *ticket, gp_dtype t, bool quick)
{
    register_type<T>();
    const int64_t cn[] = {0, 1, 33, 1000, 100003, 3 * (1 << 20) + 5};
    for (int64_t n : cn)
        for (int pat = 0; pat < 4; pat += quick ? 3 : 1) count_case<T>(ctx, ticket, t, n, (int)(n % 3), pat);

    /* 4097 and 12345: counters whose bytes are no multiple of 16 (1 and 2
     * copies of them), which once put the gate ticket past the end. */
    const int64_t bins_list[] = {1, 2, 255, 256, 257, 1024, 2048, 4096, 4097, 12345, 16384, 65536, 1 << 20};
    const int64_t sizes[] = {0, 5, 4097, 200003};
    for (int64_t bins : bins_list)
        for (int ed = 0; ed <= 1; ed++)
            for (int64_t n : sizes) {
                if (bins >= 65536 && n > 4097) continue;
                for (int pat = 0; pat < 4; pat += quick ? 2 : 1) hist_case<T>(ctx, t, n, bins, ed, pat, (int)(n % 4));
            }
    /* Several flush rounds per block (2^20 elements each): one SM, so two
     * blocks; on three, six blocks count under a round each and flush once. */
    if (!quick) {
        context_state *st = static_cast<context_state *>(ctx->impl);
        const int sms = st->sm_count;
        st->sm_count = 1;
        hist_case<T>(ctx, t, 5 * (1 << 20) + 7, 256, false, 0, 1);
        hist_case<T>(ctx, t, 5 * (1 << 20) + 7, 1024, true, 1, 0);
        hist_case<T>(ctx, t, 3 * (1 << 20), 4096, false, 1, 2);
        st->sm_count = sms;
    }
}

int main(int argc, char **argv)
{
    uint64_t seed = 0;
    bool quick = false;
    bool have_seed = gpt_parse_u64(getenv("GPUPRIM_SEED"), &seed);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            if (!gpt_parse_u64(argv[++i], &seed)) {
                fprintf(stderr, "emu_histogram: bad --seed %s\n", argv[i]);
                return 2;
            }
            have_seed = true;
        } else if (!strcmp(argv[i], "--quick")) quick = true;
    }
    if (!have_seed) seed = gpt_fresh_seed();
    rng.seed(seed);
    printf("emu_histogram: seed %" PRIu64 "%s\n", seed, quick ? " (quick)" : "");
    fflush(stdout); /* the seed shows even if the run is killed (a hang) */
    context_state st;
    unsigned long long ticket = 0, gate = 0;
    gp_ctx *ctx = make_ctx(&st, &ticket, &gate, 3);
    run_type<int8_t>(ctx, &ticket, GP_DTYPE_I8, quick);
    run_type<uint8_t>(ctx, &ticket, GP_DTYPE_U8, quick);
    run_type<int16_t>(ctx, &ticket, GP_DTYPE_I16, quick);
    run_type<uint16_t>(ctx, &ticket, GP_DTYPE_U16, quick);
    run_type<int32_t>(ctx, &ticket, GP_DTYPE_I32, quick);
    run_type<uint32_t>(ctx, &ticket, GP_DTYPE_U32, quick);
    run_type<long long>(ctx, &ticket, GP_DTYPE_I64, quick);
    run_type<unsigned long long>(ctx, &ticket, GP_DTYPE_U64, quick);
    run_type<float>(ctx, &ticket, GP_DTYPE_F32, quick);
    run_type<double>(ctx, &ticket, GP_DTYPE_F64, quick);
    printf("%ld launches (%ld through the gate), largest dynamic shared memory %ld bytes\n", launches, gate_epochs,
           max_smem);
    if (gate_epochs == 0) fail("no histogram went through the gate");
    printf("%ld passed, %ld failed\n", passed, failed);
    if (failed) /* the data repeat; the fibers' interleaving may not */
        printf("reproduce with: %s --seed %" PRIu64 "%s\n", argv[0], seed, quick ? " --quick" : "");
    return failed ? 1 : 0;
}
