/*
 * The CUDA scan, select, partition and filter kernels, run on the CPU
 * emulation (cuda_emu.h) through the backend's own entry points, against
 * the serial reference. Sizes cross the tile (T = 4096 by default, from
 * cuda_tuning.h; twice that for 1-byte scans), the wide scan tile (8192
 * 4-byte items; 32768 for packed 1-byte scans), the wide selection tile
 * of each item size (8192, 8192, 6144 and 4096 for 1, 2, 4 and 8 bytes)
 * and look-back window (32 x GP_LOOKBACK_TAGS_PER_LANE tiles) boundaries; both the vector and the
 * scalar (misaligned) paths run; 8-byte scans use wide statuses (the tag
 * and the value in one 16-byte access).
 *
 * usage: emu_test [--seed S] [--chaos K] [--quick | --medium | --big]
 * The seed is fresh each run (as tests/harness.c picks it) unless --seed or
 * GPUPRIM_SEED gives one; a failing run prints the command that repeats it.
 * --quick: up to T + 1; --medium: up to 3T + 1; --big: only the largest
 * (each for T and for the wide tile).
 * --chaos 1..9: random pauses; 10 and up: long pauses after each aggregate,
 * longest for the oldest tiles, so look-backs cross whole windows of
 * aggregates (use with --big and GP_EMU_WORKERS above 2 x 32 x
 * GP_LOOKBACK_TAGS_PER_LANE, e.g. 80 at the default).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atomic>
#include <vector>

#include "cpu_reference.h"
#include "seed.h"

/* From tests/reduce_data.h, whose harness.h is C11 only (stdatomic). */
extern "C" {
/* The same order as reduce_data.h's enum (values passed to gpt_fill);
 * main checks the names of the values used here against reduce_data.c's. */
typedef enum gpt_pattern {
    PAT_RANDOM, PAT_CONST, PAT_ASC, PAT_DESC, PAT_INTVAL, PAT_POS, PAT_NAN, PAT_PINF, PAT_NINF, PAT_INFS, PAT_ZEROS,
    PAT_PZ_NZ, PAT_NZ_PZ
} gpt_pattern;
typedef struct gpt_rng {
    uint64_t s;
} gpt_rng;
uint64_t gpt_derive(uint64_t seed, uint64_t a, uint64_t b, uint64_t c, uint64_t d);
bool gpt_is_float(gp_dtype t);
bool gpt_is_signed(gp_dtype t);
size_t gpt_size(gp_dtype t);
bool gpt_op_defined(gp_op op, gp_dtype t);
void gpt_fill(void *buf, gp_dtype t, int64_t n, gpt_pattern p, bool prodsafe, uint64_t seed);
const char *gpt_pattern_name(gpt_pattern p);
void gpt_identity(gp_op op, gp_dtype out_t, void *out);
void gpt_format(gp_dtype t, const void *v, char *s, size_t size);
}
static inline uint64_t gpt_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static inline uint64_t gpt_next(gpt_rng *r) { return gpt_mix64(r->s += 0x9e3779b97f4a7c15ull); }
static inline double gpt_uniform(gpt_rng *r) { return (double)(gpt_next(r) >> 11) * 0x1p-53; }
static inline uint64_t gpt_below(gpt_rng *r, uint64_t n) { return gpt_next(r) % n; }
#include "cuda_backend.h"
#include "cuda_emu.h" /* for cuda_tuning.h: the tile and window the sizes cross */
#include "cuda_tuning.h"
#include "gp_internal.h"

namespace gp_emu {
extern int chaos;
extern std::atomic<long> windows, windows_past_lane0, windows_without_stop;
}
namespace gp_cuda {
size_t scan_workspace(const gp_ctx *ctx, const gp_scan_args *a, bool pooled);
gp_status scan(gp_ctx *ctx, const gp_scan_args *a, void *ws);
size_t select_workspace(const gp_ctx *ctx, gp_dtype t, int64_t n, bool pooled);
size_t filter_workspace(const gp_ctx *ctx, gp_dtype t, int64_t n, bool pooled);
gp_status select(gp_ctx *ctx, const gp_select_args *a, void *ws);
gp_status filter(gp_ctx *ctx, const gp_filter_args *a, void *ws);
} // namespace gp_cuda
long emu_check_compares(uint64_t seed); /* emu_select.cc */
extern long emu_counted_first_by_comparison; /* emu_select.cc: the partitions by comparison counted first */
extern std::atomic<long> emu_wide_one_pass_blocks; /* emu_select.cc: blocks of one-pass partitions on wide tiles */
extern std::atomic<long> emu_copy_blocks[4]; /* emu_select.cc: blocks of partition_copy: a tile each, persistent,
                                               wider by comparison, wider by flags */
extern std::atomic<long> emu_prefixed_wide_blocks; /* emu_select.cc: blocks of partition_prefixed_kernel for 4- and 8-byte items */
extern std::atomic<long> emu_wider_cut_calls[2]; /* emu_select.cc: selections and splits on wider tiles on a cut grid */
extern std::atomic<long> emu_wider_partition_blocks[2]; /* emu_select.cc: blocks of partitions on wider tiles, by comparison and by flags */
extern std::atomic<long> emu_compare_bits_calls; /* emu_select.cc: partitions by comparison counted with bits */
extern std::atomic<long> emu_compare_bits_wide_calls; /* emu_select.cc: of them, of 4- and 8-byte items */

static long passed, failed;
static uint64_t seed; /* main: --seed, GPUPRIM_SEED or fresh */

static void report(bool ok, const char *what)
{
    if (ok) {
        passed++;
        return;
    }
    failed++;
    printf("FAIL: %s\n", what);
    fflush(stdout);
}

/* 256-aligned host memory with `off` elements of slack in front. */
struct buffer {
    std::vector<unsigned char> raw;
    unsigned char *p;
    buffer(size_t bytes, size_t front = 0) : raw(bytes + front + 512, 0xA5)
    {
        uintptr_t a = ((uintptr_t)raw.data() + 255) / 256 * 256;
        p = (unsigned char *)a + front;
    }
};

/* One context state for the whole run, as a real context keeps: the
 * look-back pool persists, so epochs advance, the scrub sweeps and the pool
 * grows as the sizes vary. "Device" memory is host memory. */
static gp_cuda::context_state g_state;
static long g_calls;
/* Where set, make_ctx pins the cut-grid hook to "wherever the grid has a
 * block" and runs the look-back-warp kernels on every worker (no resident
 * cap). */
static bool g_pin_wider_cut;
/* Where 0 or 1, make_ctx counts every persistent partition first and pins
 * GPUPRIM_COUNT_FIRST_BY_TICKET's hook to it, on 2 resident blocks with
 * look-back warps (the launch-path check in main). -1: not pinned. */
static int g_pin_by_ticket = -1;
/* The launches of select_case's last call, by kind (gp_ctx.launches). */
static unsigned long long g_last_launches[GP_LAUNCH_KINDS];

static void *host_alloc(void *, gp_mem_space, int, size_t bytes) { return aligned_alloc(256, (bytes + 255) / 256 * 256); }
static void host_free(void *, gp_mem_space, int, void *p) { free(p); }

/* Every third call runs in a caller's workspace instead of the pool. */
static gp_ctx make_ctx()
{
    gp_ctx c;
    memset(&c, 0, sizeof c);
    c.backend = GP_BACKEND_CUDA;
    c.space = GP_MEM_HOST;
    c.impl = &g_state;
    c.alloc.alloc = host_alloc;
    c.alloc.free = host_free;
    c.have_user_ws = ++g_calls % 3 == 0;
    g_state.lookback_warps = g_calls % 2 == 0; /* persistent scans and selections: both kernels */
    /* Of the calls with look-back warps, every other one counts a
     * partition first (by flags, with bits) wherever it runs persistent
     * and not in one pass; the others count inside (the sizes are small). */
    g_state.partition_count_first = (int)(g_calls / 2 % 2);
    /* Of those, every other one takes its tiles by ticket (on fewer
     * workers than blocks, launch_after_prior), the others by stride. */
    g_state.count_first_by_ticket = (int)(g_calls / 4 % 2);
    /* One-pass partitions on wide tiles: where they pay, and on every
     * fifth call wherever they fit (the hook's 1). */
    g_state.partition_wide_one_pass = g_calls % 5 == 0 ? 1 : -1;
    /* Splits on wider tiles, by comparison and by flags (the hook's 1,
     * as by default); --medium's stay on wide ones. */
    g_state.partition_copy_wider = 1;
    /* Wider tiles on a cut grid (wider_cut_grid): by default (one "SM",
     * so wherever the cut grid has a block) and, on every other pair of
     * calls, never, so both tiers run at the sizes in between. */
    g_state.wider_cut = (int)(g_calls / 2 % 2) - 1;
    /* The filter's chunks: 4 blocks (one "SM"), then 2 and 1 (the test
     * hook), so chunks of one tile and of many run. */
    g_state.sm_count = 1;
    g_state.max_resident = (unsigned)(g_calls % 3 == 0 ? 0 : g_calls % 3);
    if (g_pin_wider_cut) {
        g_state.wider_cut = 1;
        g_state.max_resident = 0;
        g_state.lookback_warps = true;
    }
    if (g_pin_by_ticket >= 0) {
        g_state.partition_count_first = 1;
        g_state.count_first_by_ticket = g_pin_by_ticket;
        g_state.max_resident = 2;
        g_state.lookback_warps = true;
        c.have_user_ws = false;
    }
    return c;
}

/* ---------------------------------------------------------------------- scan */

static void scan_case(gp_dtype in_t, gp_dtype out_t, gp_op op, int64_t n, bool exclusive, bool in_place, int off)
{
    gp_ctx ctx = make_ctx();
    size_t isz = gpt_size(in_t), osz = gpt_size(out_t);
    buffer in(n * isz + 64, off * isz), out(n * osz + 64, off * osz), ref(n * osz + 64);
    uint64_t s = gpt_derive(seed, in_t * 16 + out_t, (uint64_t)n, op, exclusive * 2 + in_place);
    /* Half the float MIN and MAX cases: zeros whose sign flips at a random
     * point, where a combine that keeps the earlier of equal operands keeps
     * the wrong one (-0 < +0); the other half integer values. */
    const bool zeros = gpt_is_float(in_t) && (op == GP_OP_MIN || op == GP_OP_MAX) && ((s >> 7) & 1);
    gpt_pattern pat = zeros ? (op == GP_OP_MIN ? PAT_PZ_NZ : PAT_NZ_PZ) : gpt_is_float(in_t) ? PAT_INTVAL : PAT_RANDOM;
    gpt_fill(in.p, in_t, n, pat, op == GP_OP_PROD && gpt_is_float(in_t), s);
    unsigned char init[16] = {0};
    gpt_rng r = {s ^ 77};
    if (gpt_is_float(out_t)) {
        double v = op == GP_OP_PROD ? 1.0 : (double)((int)gpt_below(&r, 9) - 4);
        if (zeros) v = op == GP_OP_MIN ? 0.0 : -0.0; /* the data's first sign */
        if (out_t == GP_DTYPE_F32) {
            float f = (float)v;
            memcpy(init, &f, 4);
        } else {
            memcpy(init, &v, 8);
        }
    } else {
        for (size_t b = 0; b < osz; b++) init[b] = (unsigned char)gpt_next(&r);
    }
    gp_ref_scan(in.p, in_t, n, op, exclusive, exclusive ? init : NULL, ref.p, out_t);
    unsigned char *dst = in_place ? in.p : out.p;
    gp_scan_args a;
    memset(&a, 0, sizeof a);
    a.in = in.p, a.in_t = in_t, a.n = n, a.op = op, a.exclusive = exclusive, a.out = dst, a.out_t = out_t;
    if (exclusive) memcpy(a.init, init, osz);
    else gpt_identity(op, out_t, a.init);
    size_t wsb = gp_cuda::scan_workspace(&ctx, &a, !ctx.have_user_ws);
    buffer ws(wsb + 16);
    if (wsb) memset(ws.p, 0x5c, wsb); /* garbage a caller's workspace may hold */
    gp_status st = gp_cuda::scan(&ctx, &a, wsb ? ws.p : NULL);
    char what[256];
    snprintf(what, sizeof what, "scan %s %s %s->%s n=%" PRId64 "%s off=%d", exclusive ? "excl" : "incl",
             gp_op_name(op), gp_dtype_name(in_t), gp_dtype_name(out_t), n, in_place ? " in-place" : "", off);
    bool ok = st == GP_STATUS_OK;
    if (!ok) printf("  status %s: %s\n", gp_status_name(st), ctx.last_error);
    int64_t bad = -1;
    for (int64_t i = 0; ok && i < n; i++)
        if (memcmp(dst + i * osz, ref.p + i * osz, osz) != 0) {
            if (gpt_is_float(out_t)) { /* NaN bit patterns may differ; -0 == +0 but in MIN and MAX */
                const bool minmax = op == GP_OP_MIN || op == GP_OP_MAX;
                double g = out_t == GP_DTYPE_F32 ? ((float *)dst)[i] : ((double *)dst)[i];
                double w = out_t == GP_DTYPE_F32 ? ((float *)ref.p)[i] : ((double *)ref.p)[i];
                if ((g == w && (!minmax || signbit(g) == signbit(w))) || (isnan(g) && isnan(w))) continue;
            }
            bad = i;
            ok = false;
        }
    if (bad >= 0) {
        char g[64], w[64];
        gpt_format(out_t, dst + bad * osz, g, sizeof g);
        gpt_format(out_t, ref.p + bad * osz, w, sizeof w);
        printf("  out[%" PRId64 "] = %s, want %s\n", bad, g, w);
    }
    if (ok && !in_place) /* nothing past the output */
        for (size_t b = n * osz; b < n * osz + 64; b++)
            if (out.p[b] != 0xA5) {
                printf("  byte %zu past the output changed\n", b - n * osz);
                ok = false;
                break;
            }
    report(ok, what);
}

/* ---------------------------------------------------- select, partition, filter */

enum { K_SEL_FLAGS, K_SEL_IF, K_PART_FLAGS, K_PART_IF, K_FILTER, K_FILTER_DESC };

/* i/2 + noise (NaN and infinities too with `nans`); `dip`: a ramp to n/4
 * over the first half, then a steeper one from the bottom, so a chunk can
 * hold long runs of records below the maximum before it. */
static void fill_mostly_ascending(void *buf, gp_dtype t, int64_t n, uint64_t s, bool nans, bool dip = false)
{
    gpt_rng r = {s};
    for (int64_t i = 0; i < n; i++) {
        double d = dip ? (i < n / 2 ? (double)i / 2 : (double)(i - n / 2))
                       : (double)i / 2 + 8 * gpt_uniform(&r) - 4;
        size_t sz = gpt_size(t);
        if (gpt_is_float(t)) {
            if (nans && gpt_below(&r, 500) == 0) d = gpt_next(&r) & 1 ? NAN : (gpt_next(&r) & 1 ? INFINITY : -INFINITY);
            if (t == GP_DTYPE_F32) ((float *)buf)[i] = (float)d;
            else ((double *)buf)[i] = d;
        } else {
            /* scaled into the type's range, from its minimum */
            double range = sz == 8 ? 1.8e19 : ldexp(1.0, (int)(8 * sz)) - 1;
            double f = (d + 4) / ((double)n / 2 + 8);
            uint64_t v = (uint64_t)(f * range * 0.999) + (gpt_is_signed(t) ? 1ull << (8 * sz - 1) : 0);
            memcpy((char *)buf + i * sz, &v, sz);
        }
    }
}

/* copy: a partition kind into two buffers (gp_partition_copy_*). */
static void select_case(int kind, gp_dtype t, int64_t n, int pattern, gp_cmp cmp, int off, bool copy = false)
{
    gp_ctx ctx = make_ctx();
    size_t sz = gpt_size(t);
    buffer in(n * sz + 64, off * sz), out(n * sz + 64), ref(n * sz + 64), flags(n + 64, off),
        rejected(copy ? n * sz + 64 : 0);
    uint64_t s = gpt_derive(seed, (uint64_t)t, (uint64_t)n, (uint64_t)kind * 64 + pattern, cmp * 16 + off);
    gpt_rng r = {s};
    bool filt = kind >= K_FILTER;
    if (filt) {
        if (pattern == 0) gpt_fill(in.p, t, n, PAT_RANDOM, false, s);
        else if (pattern == 1) gpt_fill(in.p, t, n, PAT_ASC, false, s);
        else if (pattern == 2) gpt_fill(in.p, t, n, PAT_DESC, false, s);
        else if (pattern == 3) gpt_fill(in.p, t, n, PAT_CONST, false, s);
        else fill_mostly_ascending(in.p, t, n, s, pattern == 5, pattern == 6);
    } else {
        gpt_fill(in.p, t, n, PAT_RANDOM, false, s);
        for (int64_t i = 0; i < n; i++) {
            uint8_t on = (uint8_t)(1 + gpt_below(&r, 255));
            flags.p[i] = pattern == 0 ? (gpt_next(&r) & 1 ? on : 0)
                       : pattern == 1 ? 0
                       : pattern == 2 ? on
                       : (gpt_below(&r, 300) == 0 ? on : 0);
        }
    }
    unsigned char value[16] = {0};
    if (n > 0) memcpy(value, in.p + gpt_below(&r, (uint64_t)n) * sz, sz);
    bool by_flags = kind == K_SEL_FLAGS || kind == K_PART_FLAGS, part = kind == K_PART_FLAGS || kind == K_PART_IF;
    int64_t want = filt ? gp_ref_filter(in.p, t, n, kind == K_FILTER_DESC, ref.p)
                 : part ? gp_ref_partition(in.p, t, n, by_flags ? flags.p : NULL, cmp, value, ref.p)
                        : gp_ref_select(in.p, t, n, by_flags ? flags.p : NULL, cmp, value, ref.p);
    int64_t count = -99;
    size_t wsb = filt ? gp_cuda::filter_workspace(&ctx, t, n, !ctx.have_user_ws)
                      : gp_cuda::select_workspace(&ctx, t, n, !ctx.have_user_ws);
    buffer ws(wsb + 16);
    if (wsb) memset(ws.p, 0x5c, wsb);
    gp_status st;
    if (filt) {
        gp_filter_args a = {in.p, t, n, kind == K_FILTER_DESC, out.p, &count};
        st = gp_cuda::filter(&ctx, &a, wsb ? ws.p : NULL);
    } else {
        gp_select_args a;
        memset(&a, 0, sizeof a);
        a.in = in.p, a.t = t, a.n = n, a.flags = by_flags ? flags.p : NULL, a.cmp = cmp, a.partition = part;
        a.out = out.p, a.count = &count;
        if (copy) a.rejected = rejected.p;
        memcpy(a.value, value, sz);
        st = gp_cuda::select(&ctx, &a, wsb ? ws.p : NULL);
    }
    static const char *const names[] = {"select_flagged", "select_if", "partition_flagged", "partition_if",
                                        "filter", "filter_desc"};
    char what[256];
    snprintf(what, sizeof what, "%s%s %s n=%" PRId64 " pattern=%d cmp=%d off=%d", names[kind], copy ? " (copy)" : "",
             gp_dtype_name(t), n, pattern, (int)cmp, off);
    bool ok = st == GP_STATUS_OK;
    if (!ok) printf("  status %s: %s\n", gp_status_name(st), ctx.last_error);
    if (ok && count != want) {
        printf("  count %" PRId64 ", want %" PRId64 "\n", count, want);
        ok = false;
    }
    /* Into one buffer, or (copy) the selected items into out and the
     * rejected ones into their own, each followed by untouched bytes. */
    auto check = [&](const char *name, const unsigned char *got, const unsigned char *from, int64_t len) {
        for (int64_t i = 0; ok && i < len; i++)
            if (memcmp(got + i * sz, from + i * sz, sz) != 0) {
                char g[64], w[64];
                gpt_format(t, got + i * sz, g, sizeof g);
                gpt_format(t, from + i * sz, w, sizeof w);
                printf("  %s[%" PRId64 "] = %s, want %s\n", name, i, g, w);
                ok = false;
            }
        for (size_t b = len * sz; ok && b < n * sz + 64; b++)
            if (got[b] != 0xA5) {
                printf("  byte %zu past %s's items changed\n", b - len * sz, name);
                ok = false;
            }
    };
    check("out", out.p, ref.p, part && !copy ? n : want);
    if (copy) check("rejected", rejected.p, ref.p + want * sz, n - want);
    memcpy(g_last_launches, ctx.launches, sizeof g_last_launches);
    report(ok, what);
}

int main(int argc, char **argv)
{
    bool quick = false, medium = false, big = false;
    bool have_seed = gpt_parse_u64(getenv("GPUPRIM_SEED"), &seed);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            if (!gpt_parse_u64(argv[++i], &seed)) {
                fprintf(stderr, "emu_test: bad --seed %s\n", argv[i]);
                return 2;
            }
            have_seed = true;
        } else if (!strcmp(argv[i], "--chaos") && i + 1 < argc) gp_emu::chaos = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--quick")) quick = true;
        else if (!strcmp(argv[i], "--medium")) medium = true;
        else if (!strcmp(argv[i], "--big")) big = true;
    }
    /* The enum above is a copy: a reordered reduce_data.h would hand gpt_fill
     * other patterns than the ones these cases mean. */
    const struct {
        gpt_pattern p;
        const char *name;
    } used[] = {{PAT_RANDOM, "random"}, {PAT_CONST, "const"}, {PAT_ASC, "ascending"}, {PAT_DESC, "descending"},
                {PAT_INTVAL, "intval"}, {PAT_PZ_NZ, "+0,-0"}, {PAT_NZ_PZ, "-0,+0"}};
    for (const auto &u : used)
        if (strcmp(gpt_pattern_name(u.p), u.name)) {
            fprintf(stderr, "emu_test: pattern %d is \"%s\" in reduce_data.c, not \"%s\": update the copied enum\n",
                    (int)u.p, gpt_pattern_name(u.p), u.name);
            return 2;
        }
    if (!have_seed) seed = gpt_fresh_seed();
    printf("emu_test: seed %" PRIu64 ", chaos %d\n", seed, gp_emu::chaos);
    fflush(stdout); /* the seed shows even if the run is killed (a hang) */
    /* Sizes by tile T of 4-byte items, for the narrow tiles and then the
     * wide ones (cuda_tuning.h; the test builds with wide tiles from 2 a
     * block). The last size is two look-back windows of tiles and then
     * some, so a tile can find a whole window of aggregates (--big --chaos
     * 10). */
    const int64_t W = 32 * gp_cuda::kLookbackTagsPerLane;
    const int64_t T = gp_cuda::select_tile(4); /* scan_kernel's too */
    const int64_t scan_wide_T = (int64_t)gp_cuda::kScanThreads * gp_cuda::scan_wide_items(4);
    /* Wide selection tiles by item size: 1, 2, 4 and 8 bytes. */
    const int64_t select_wide_Ts[4] = {gp_cuda::select_wide_tile(1), gp_cuda::select_wide_tile(2),
                                       gp_cuda::select_wide_tile(4), gp_cuda::select_wide_tile(8)};
    auto size_slot = [](size_t bytes) { return bytes == 1 ? 0 : bytes == 2 ? 1 : bytes == 4 ? 2 : 3; };
    constexpr int kPerTile = 9; /* sizes for each tile size */
    auto sizes_for = [W](int64_t t, int64_t *out) {
        const int64_t s[kPerTile] = {1, 33, t - 1, t, t + 1, 2 * t - 1, 2 * t + 1, 3 * t + 1, (2 * W + 1) * t + 1};
        for (int i = 0; i < kPerTile; i++) out[i] = s[i];
    };
    /* 1- and 2-byte scans kept packed take wide tiles of 4 and 2 x scan_wide_T items. */
    const int64_t packed_wide_T = (int64_t)gp_cuda::kScanThreads * gp_cuda::scan_wide_items(1);
    const int64_t packed_half_T = (int64_t)gp_cuda::kScanThreads * gp_cuda::scan_wide_items(2);
    /* Wider tiles: 1-byte selections, and partitions counted first. */
    const int64_t select_wider_T = gp_cuda::select_wider_tile(1);
    /* Scans: narrow, wide, packed wide. Selections: narrow, wide by item
     * size (four), wider. kPerTile sizes each. */
    enum { kSelectNarrow = 0, kSelectWide = 1, kSelectWider = 5, kSelectTiles = 6 };
    int64_t sizes[4 * kPerTile], select_sizes[kSelectTiles * kPerTile];
    sizes_for(T, sizes);
    sizes_for(scan_wide_T, sizes + kPerTile);
    sizes_for(packed_wide_T, sizes + 2 * kPerTile);
    sizes_for(packed_half_T, sizes + 3 * kPerTile);
    const int64_t select_Ts[kSelectTiles] = {T, select_wide_Ts[0], select_wide_Ts[1], select_wide_Ts[2],
                                             select_wide_Ts[3], select_wider_T};
    for (int b = 0; b < kSelectTiles; b++) sizes_for(select_Ts[b], select_sizes + kPerTile * b);
    printf("tiles: %lld, wide %lld (scan), %lld/%lld/%lld/%lld (select, 1/2/4/8-byte items), wider %lld (1-byte "
           "selections, partitions counted first); look-back window %lld tiles\n",
           (long long)T, (long long)scan_wide_T, (long long)select_wide_Ts[0], (long long)select_wide_Ts[1],
           (long long)select_wide_Ts[2], (long long)select_wide_Ts[3], (long long)select_wider_T, (long long)W);
    const int nsizes = quick ? 5 : medium ? 8 : kPerTile, first = big ? kPerTile - 1 : 0;
    const gp_dtype dtypes[] = {GP_DTYPE_I8, GP_DTYPE_U8,  GP_DTYPE_I16, GP_DTYPE_U16, GP_DTYPE_I32,
                               GP_DTYPE_U32, GP_DTYPE_I64, GP_DTYPE_U64, GP_DTYPE_F32, GP_DTYPE_F64};
    /* Scans: each dtype into itself and its widest, ops in rotation. */
    const gp_op ops[] = {GP_OP_SUM, GP_OP_MAX, GP_OP_XOR, GP_OP_MIN, GP_OP_PROD, GP_OP_AND, GP_OP_OR};
    int k = 0;
    for (gp_dtype t : dtypes)
        for (int set = 0; set < 2; set++)
        for (int si = first; si < nsizes; si++)
            for (int w = 0; w < 2; w++) {
                const bool packed_wide = set == 1 && gpt_size(t) <= 2;
                const int packed_set = gpt_size(t) == 1 ? 2 : 3;
                const int64_t n = sizes[kPerTile * (packed_wide ? packed_set : set) + si];
                const int64_t tile = packed_wide ? (gpt_size(t) == 1 ? packed_wide_T : packed_half_T)
                                     : set     ? scan_wide_T
                                               : T;
                gp_dtype out_t = t;
                if (w == 1) {
                    if (gpt_is_float(t)) out_t = GP_DTYPE_F64;
                    else out_t = gpt_is_signed(t) ? GP_DTYPE_I64 : GP_DTYPE_U64;
                    if (out_t == t) continue;
                }
                gp_op op = ops[k++ % 7];
                if (gpt_is_float(t) && !gpt_op_defined(op, t)) op = GP_OP_SUM;
                scan_case(t, out_t, op, n, k % 2 == 0, false, 0);
                if (w == 0 && n > tile)
                    scan_case(t, out_t, gpt_is_float(t) ? GP_OP_MAX : ops[k % 4], n, k % 2 == 1, true, 0);
                if (si == 4 || si == 8) scan_case(t, out_t, op, n, true, false, 3);
                /* Every packed op, whatever the rotation gave: 1-byte
                 * narrow tiles at 32769 (5 of them), wide at 98305 (4; two
                 * resident blocks, emu_lookback_persistent); 2-byte narrow
                 * at 16385, wide at 49153. */
                if (packed_wide && w == 0 && (si == 4 || si == 7)) {
                    for (gp_op pop : {GP_OP_SUM, GP_OP_AND, GP_OP_OR, GP_OP_XOR, GP_OP_MIN, GP_OP_MAX})
                        scan_case(t, t, pop, n, pop == GP_OP_SUM || pop == GP_OP_AND || pop == GP_OP_MAX, false, 0);
                    /* min and max the other way; an exclusive int8_t scan's init is negative
                     * half the time, where a wrong identity byte shows in its first output */
                    scan_case(t, t, GP_OP_MIN, n, true, false, 0);
                    scan_case(t, t, GP_OP_MAX, n, false, false, 0);
                    scan_case(t, t, GP_OP_SUM, n, false, false, 0); /* sums both ways (bytes::sum_word) */
                }
            }
    printf("scan: %ld passed, %ld failed\n", passed, failed);
    /* select-if's comparisons (ranges, word at a time) against C's. */
    report(emu_check_compares(seed) == 0, "comparisons: every dtype, every CMP, the ends of the ranges");
    for (gp_dtype t : dtypes)
        for (int set = 0; set < 3; set++)
        for (int si = first; si < nsizes; si++) {
            for (int kind = 0; kind < 6; kind++) {
                if (set >= 1 && kind >= K_FILTER) continue; /* the filter has no wide tiles */
                if (set == 2 && (!select_wider_T || gpt_size(t) != 1 || kind >= K_FILTER)) continue;
                const int slot = size_slot(gpt_size(t));
                const int tile_set = set == 2 ? kSelectWider : set ? kSelectWide + slot : kSelectNarrow;
                const int64_t n = select_sizes[kPerTile * tile_set + si], tile = select_Ts[tile_set];
                /* filter patterns: 5 is NaN and infinities (floats), 6 the dip */
                int patterns = kind >= K_FILTER ? 7 : (kind == K_SEL_FLAGS || kind == K_PART_FLAGS ? 4 : 1);
                for (int p = 0; p < patterns; p++) {
                    if (kind >= K_FILTER && p == 5 && !gpt_is_float(t)) continue;
                    if (n > 2 * tile + 1 && p > 0 && p < 4) continue;
                    gp_cmp cmp = (gp_cmp)(1 + (k++ % 6));
                    select_case(kind, t, n, p, cmp, 0);
                    /* and into two buffers (partition_copy), on the first pattern */
                    if ((kind == K_PART_FLAGS || kind == K_PART_IF) && p == 0) select_case(kind, t, n, p, cmp, 0, true);
                }
                if (si == 4 || si == 8) select_case(kind, t, n, 0, GP_CMP_LT, 5);
                /* Three times more, so that both kernels take it, and the
                 * pipelined one both counted first and counting inside
                 * (make_ctx alternates them): the largest partitions are
                 * the ones whose count groups are whole (--big); --medium's
                 * largest, 4 tiles, run persistent on two blocks. */
                if ((si == 8 || (medium && si == nsizes - 1)) && (kind == K_PART_FLAGS || kind == K_PART_IF))
                    for (int again = 0; again < 3; again++) select_case(kind, t, n, 0, GP_CMP_LT, 0);
            }
        }
    /* --quick's sizes are two tiles at most, so no block of a persistent
     * selection gets past its first stages. One size of many tiles a
     * block for each selection and partition, 1-byte (wider tiles) and
     * int32 (narrow), four times (make_ctx rotates the kernels, the
     * resident blocks and how partitions count): blocks refill stages
     * as they write runs there, where a missing barrier failed the full
     * suite only (GP_SELECT_EARLY_REFILL, docs/perf/scan.md, round 58). */
    if (quick)
        for (gp_dtype t : {GP_DTYPE_U8, GP_DTYPE_I32}) {
            const int set = gpt_size(t) == 1 && select_wider_T ? kSelectWider : kSelectNarrow;
            const int64_t n = select_sizes[kPerTile * set + kPerTile - 1];
            for (int kind = 0; kind < K_FILTER; kind++)
                for (int again = 0; again < 6; again++) { /* partitions twice more into two buffers */
                    const bool part = kind == K_PART_FLAGS || kind == K_PART_IF;
                    if (again >= 4 && !part) break;
                    select_case(kind, t, n, 0, (gp_cmp)(1 + (k++ % 6)), 0, again >= 4);
                }
        }
    /* Wider tiles on a cut grid (wider_cut_grid): too few of them for the
     * workers to get kWideMinTilesPerBlock each, with the hook pinned to
     * "wherever the grid has a block", so that every 1-byte selection and
     * split takes it in every mode (the rotation above reaches it by luck
     * only): grids of one block and of two, the last tile whole or not. */
    if (select_wider_T && gp_emu::resident_blocks() > 2) {
        g_pin_wider_cut = true;
        const int64_t per = (int64_t)gp_cuda::kWideMinTilesPerBlock * select_wider_T;
        for (gp_dtype t : {GP_DTYPE_U8, GP_DTYPE_I8})
            for (int64_t n : {per + 1, 2 * per, 2 * per + select_wider_T - 1})
                for (int kind = 0; kind < K_FILTER; kind++) {
                    const bool part = kind == K_PART_FLAGS || kind == K_PART_IF;
                    select_case(kind, t, n, kind == K_SEL_FLAGS ? 3 : 0, (gp_cmp)(1 + (k++ % 6)), 0, part);
                }
        g_pin_wider_cut = false;
        report(emu_wider_cut_calls[0] > 0 && emu_wider_cut_calls[1] > 0,
               "some 1-byte selections and splits ran on wider tiles on a cut grid");
    }
    printf("wider tiles on a cut grid: %ld selections, %ld splits\n", emu_wider_cut_calls[0].load(),
           emu_wider_cut_calls[1].load());
    /* Which launch a 2-byte partition counted first takes (as
     * test_launch_paths checks on the GPU): under the by-ticket hook's 0
     * one cooperative launch after the count; under 1 none, its grid
     * launched after the count's. 2-byte items, because 1-, 4- and 8-byte
     * ones take the prefixed kernel when counted first; 16 wide tiles, far
     * from one pass on 2 blocks. */
    for (int by_ticket = 0; by_ticket < 2; by_ticket++) {
        g_pin_by_ticket = by_ticket;
        const int64_t n = 16 * gp_cuda::select_wide_tile(2) + 1;
        for (int kind : {K_PART_FLAGS, K_PART_IF}) {
            select_case(kind, GP_DTYPE_I16, n, 0, GP_CMP_LT, 0);
            const unsigned long long coop = g_last_launches[GP_LAUNCH_COOPERATIVE],
                                     after = g_last_launches[GP_LAUNCH_OVERLAPPED],
                                     plain = g_last_launches[GP_LAUNCH_PLAIN];
            char what[160];
            snprintf(what, sizeof what,
                     "%s i16 n=%" PRId64 " counted first, by ticket %d: %llu cooperative, %llu after the prior, "
                     "%llu plain launches",
                     kind == K_PART_FLAGS ? "partition_flagged" : "partition_if", n, by_ticket, coop, after, plain);
            /* By comparison the count is the emulator's host stand-in
             * (emu_select.cc), no launch; by flags flag_bits_kernel. */
            const bool counted = kind == K_PART_IF || plain + after >= 1;
            report(by_ticket ? coop == 0 && after >= 1 : coop == 1 && counted, what);
        }
    }
    g_pin_by_ticket = -1;
    /* make_ctx's hook sends every other persistent partition by
     * comparison that does not run in one pass through count(): past
     * --quick's sizes (two tiles at most, one pass), some must, but for
     * --medium's (four tiles at most) on three or more workers (the
     * default without ctest's GP_EMU_WORKERS), which all run in one pass. */
    const bool some_not_one_pass = !quick && !(medium && gp_emu::resident_blocks() > 2);
    if (some_not_one_pass)
        report(emu_counted_first_by_comparison > 0, "some partitions by comparison were counted first");
    printf("partitions by comparison counted first: %ld\n", emu_counted_first_by_comparison);
    /* Partitions whose narrow tiles outnumber the blocks run in one pass on
     * wide ones where each block has a stage for every tile
     * (choose_persistent): --medium's sizes on one or two blocks have
     * such. */
    /* Partitions into two buffers, persistent in every run, and a tile a
     * block where a run has sizes of one tile (all but --big). */
    report((big || emu_copy_blocks[0] > 0) && emu_copy_blocks[1] > 0, "partitions into two buffers ran in both kernels");
    /* 1-byte ones on wider tiles, by comparison and by flags: --big's sizes
     * and --quick's added one of many tiles a block (--medium's stay on
     * wide tiles). */
    if ((quick || big) && GP_PARTITION_COPY_WIDER && select_wider_T) {
        report(emu_copy_blocks[2] > 0, "some partitions into two buffers by comparison ran on wider tiles");
        report(emu_copy_blocks[3] > 0, "some partitions into two buffers by flags ran on wider tiles");
    }
    printf("blocks of partitions into two buffers: %ld a tile each, %ld persistent (%ld and %ld on wider tiles, "
           "by comparison and by flags)\n",
           emu_copy_blocks[0].load(), emu_copy_blocks[1].load(), emu_copy_blocks[2].load(), emu_copy_blocks[3].load());
    if (medium) report(emu_wide_one_pass_blocks > 0, "some partitions ran in one pass on wide tiles");
    printf("blocks of one-pass partitions on wide tiles: %ld\n", emu_wide_one_pass_blocks.load());
    /* Partitions counted first on wider tiles: every 1-byte one counted
     * first runs partition_prefixed_kernel (GP_PARTITION_PREFIXED; make_ctx
     * counts every other one first, by flags too); without it, --medium's
     * and --big's largest ones run the wider Bits kernel, on two blocks.
     * By comparison they run as a partition by flags where
     * compare_bits_kernel counts them (checked below), so only without it
     * do they have a kernel to count. */
    if ((medium || big) && GP_PARTITION_WIDER && select_wider_T) {
        if (!GP_PARTITION_IF_BITS)
            report(emu_wider_partition_blocks[0] > 0, "some partitions by comparison ran on wider tiles");
        report(emu_wider_partition_blocks[1] > 0, "some partitions by flags (or with bits) ran on wider tiles");
    }
    if (!quick && GP_PARTITION_IF_BITS) report(emu_compare_bits_calls > 0, "some partitions by comparison were counted with bits");
    /* 4- and 8-byte partitions by flags counted first, where they do not run
     * in one pass (--big's sizes on two blocks), take partition_prefixed_kernel
     * (GP_PARTITION_PREFIXED_WIDE). */
    if (big && GP_PARTITION_PREFIXED_WIDE)
        report(emu_prefixed_wide_blocks > 0, "some 4- or 8-byte partitions by flags ran prefixed");
    /* So do those by comparison, counted with bits (GP_PARTITION_IF_PREFIXED_WIDE). */
    if (big && GP_PARTITION_PREFIXED_WIDE && GP_PARTITION_IF_PREFIXED_WIDE)
        report(emu_compare_bits_wide_calls > 0, "some 4- or 8-byte partitions by comparison were counted with bits");
    printf("blocks of 4- and 8-byte prefixed partitions: %ld; 4- and 8-byte partitions by comparison counted with bits: %ld\n",
           emu_prefixed_wide_blocks.load(), emu_compare_bits_wide_calls.load());
    printf("blocks of partitions on wider tiles: %ld by comparison, %ld by flags (or with bits); partitions by "
           "comparison counted with bits: %ld\n",
           emu_wider_partition_blocks[0].load(), emu_wider_partition_blocks[1].load(), emu_compare_bits_calls.load());
    printf("look-back windows: %ld, %ld combined aggregates before the first inclusive prefix, %ld had none\n",
           gp_emu::windows.load(), gp_emu::windows_past_lane0.load(), gp_emu::windows_without_stop.load());
    printf("all: %ld passed, %ld failed (look-back pool: %llu slots)\n", passed, failed, g_state.lookback_slots);
    if (failed) { /* the data repeat; the interleaving (threads, --chaos) may not */
        const char *workers = getenv("GP_EMU_WORKERS");
        printf("reproduce with: %s%s%s%s --seed %" PRIu64 " --chaos %d%s%s%s\n", workers ? "GP_EMU_WORKERS=" : "",
               workers ? workers : "", workers ? " " : "", argv[0], seed, gp_emu::chaos, quick ? " --quick" : "",
               medium ? " --medium" : "", big ? " --big" : "");
    }
    free(g_state.lookback_pool);
    return failed ? 1 : 0;
}
