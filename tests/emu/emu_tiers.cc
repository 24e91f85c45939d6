/*
 * The tiers the CUDA selections and partitions pick at the sizes the GPU
 * tests choose to reach them (tests/test_select.c, tests/CMakeLists.txt,
 * scripts/gpu-check.sh): choose_persistent compiled for the emulator with
 * cuda_tuning.h's defaults (emu_lookback overrides two of them), on the
 * resident blocks the tests' hooks cap the device to. When a tuning change
 * moves one of those sizes to another tier, this fails, and the sizes
 * (whose comments say which path they are for) need to move with it.
 *   emu_tiers        exit 0: every size takes the path its comment names
 */
#include "cuda_emu.h"

#include "cuda_select.cu"

#include <stdio.h>
#include <stdlib.h>

void gp_emu::note_wider_cut(bool) {}

/* cuda_select.cu's calls into gp_count_if's code (cuda_histogram.cu) and
 * the look-back pool (cuda_scan.cu), neither compiled here:
 * choose_persistent makes none, and no call here runs a kernel. */
namespace gp_cuda {
size_t count_workspace(const gp_ctx *, const gp_count_args *) { return 0; }
gp_status count(gp_ctx *ctx, const gp_count_args *, void *)
{
    return gp_set_error(ctx, GP_STATUS_INTERNAL, "emu_tiers runs no kernel");
}
gp_status lookback::prepare(gp_ctx *ctx, void *, unsigned long long, arena *)
{
    return gp_set_error(ctx, GP_STATUS_INTERNAL, "emu_tiers runs no kernel");
}
} // namespace gp_cuda

namespace {

using gp_cuda::kNarrow;
using gp_cuda::kWide;
using gp_cuda::kWider;

enum kind { SELECT_IF, SELECT_FLAGS, PARTITION_IF, PARTITION_FLAGS, COPY_IF, COPY_FLAGS };
const char *const kind_names[] = {"select_if", "select_flagged",   "partition_if",
                                  "partition_flagged", "partition_copy_if", "partition_copy_flagged"};

gp_cuda::context_state g_state;
int failed, checked;

/* The state a context gets from the hooks every GPU run of the quick
 * suites sets (gpu-check.sh, part 3): look-back warps, cooperative
 * launches, 1-byte splits on wider tiles; cut grids where `wider_cut`. */
gp_ctx make_ctx(unsigned blocks, int wider_cut)
{
    gp_ctx c;
    memset(&c, 0, sizeof c);
    c.backend = GP_BACKEND_CUDA;
    c.space = GP_MEM_HOST;
    c.impl = &g_state;
    g_state = gp_cuda::context_state{};
    g_state.lookback_warps = true;
    g_state.cooperative = true;
    g_state.sm_count = 132; /* an H100's */
    g_state.max_resident = blocks;
    g_state.partition_count_first = -1;
    g_state.count_first_by_ticket = -1;
    g_state.partition_wide_one_pass = -1;
    g_state.partition_copy_wider = 1;
    g_state.wider_cut = wider_cut;
    /* The emulator's resident_blocks answers its workers for every kernel,
     * as the capped device does for every kernel that fits an SM. */
    char workers[16];
    snprintf(workers, sizeof workers, "%u", blocks);
    setenv("GP_EMU_WORKERS", workers, 1);
    return c;
}

const char *tier_name(gp_cuda::select_tier t) { return t == kNarrow ? "narrow" : t == kWide ? "wide" : "wider"; }

/* One expectation: `k` on `n` items of `t` on `blocks` blocks takes
 * `tier` with `tiles` tiles, in one pass or not; a cut grid where `cut`
 * is not 0 (its blocks). */
void expect(kind k, gp_dtype t, int64_t n, unsigned blocks, int wider_cut, gp_cuda::select_tier tier,
            unsigned long long tiles, bool one_pass, unsigned cut = 0)
{
    gp_ctx c = make_ctx(blocks, wider_cut);
    static uint8_t flag;
    static int64_t count;
    gp_select_args a;
    memset(&a, 0, sizeof a);
    a.t = t;
    a.n = n;
    a.partition = k >= PARTITION_IF;
    a.flags = k == SELECT_FLAGS || k == PARTITION_FLAGS || k == COPY_FLAGS ? &flag : NULL;
    a.rejected = k >= COPY_IF ? &flag : NULL;
    a.count = &count;
    const gp_cuda::persistent_choice ch = gp_cuda::choose_persistent(&c, &a, false);
    const bool split = k >= COPY_IF, by_flags = a.flags != NULL;
    const bool split_wider = split && gp_cuda::copy_takes_wider(&c, by_flags);
    /* The kernel of a tier, as choose_persistent asks for it (not counted first). */
    auto kernel_of = [&](gp_cuda::select_tier s) {
        return gp_cuda::select_pipelined_for(t, by_flags, a.partition, s, false, s == kWider && split_wider).fn;
    };
    const unsigned want_resident = cut ? cut : blocks;
    checked++;
    if (ch.run.fn == kernel_of(tier) && ch.tiles == tiles && ch.one_pass == one_pass && ch.resident == want_resident)
        return;
    const char *got = "another";
    for (gp_cuda::select_tier s : {kNarrow, kWide, kWider})
        if (ch.run.fn == kernel_of(s)) got = tier_name(s);
    printf("FAIL: %s %s n = %lld on %u blocks: want %s, %llu tiles, %s, grid %u; got %s, %llu tiles, %s, grid %u\n",
           kind_names[k], gp_dtype_name(t), (long long)n, blocks, tier_name(tier), tiles,
           one_pass ? "one pass" : "not one pass", want_resident, got, ch.tiles,
           ch.one_pass ? "one pass" : "not one pass", ch.resident);
    failed++;
}

} // namespace

int main()
{
    /* test_select's 16385 and 18432 on one block: 2- and 4-byte
     * partitions have 5 narrow tiles (more than the 4 stages), so one pass
     * runs on 3 wide ones, every stage of the block. */
    for (gp_dtype t : {GP_DTYPE_I16, GP_DTYPE_I32, GP_DTYPE_F32})
        for (int64_t n : {16385, 18432})
            for (kind k : {PARTITION_IF, PARTITION_FLAGS}) expect(k, t, n, 1, -1, kWide, 3, true);
    /* --quick's 12289: 4 narrow tiles of items up to 4 bytes, one pass on
     * every stage. */
    for (gp_dtype t : {GP_DTYPE_U8, GP_DTYPE_I16, GP_DTYPE_I32})
        for (kind k : {PARTITION_IF, PARTITION_FLAGS}) expect(k, t, 12289, 1, -1, kNarrow, 4, true);
    /* --quick's 32769: 1-byte selections on 5 wide tiles (too few wider
     * ones for the wider tier). */
    for (kind k : {SELECT_IF, SELECT_FLAGS}) expect(k, GP_DTYPE_U8, 32769, 1, -1, kWide, 5, false);
    /* --quick's 135169 on one block: 1-byte splits by flags take wider
     * tiles (GPUPRIM_PARTITION_COPY_WIDER=1), 9 of them. */
    expect(COPY_FLAGS, GP_DTYPE_U8, 135169, 1, -1, kWider, 9, false);
    /* --quick's 65535 and 135169 on 5 blocks with GPUPRIM_WIDER_CUT=1:
     * 1-byte selections and splits of 4 to 19 wider tiles take them on a
     * grid cut to 4 tiles a block. */
    for (kind k : {SELECT_IF, SELECT_FLAGS, COPY_IF, COPY_FLAGS}) {
        expect(k, GP_DTYPE_U8, 65535, 5, 1, kWider, 4, false, 1);
        expect(k, GP_DTYPE_U8, 135169, 5, 1, kWider, 9, false, 2);
    }
    /* --quick's 135169 4-byte items on 5 blocks: 23 wide tiles, too many
     * for one pass on 3 stages a block (the count tasks' run,
     * GPUPRIM_PARTITION_COUNT_FIRST=0). */
    for (kind k : {PARTITION_IF, PARTITION_FLAGS}) expect(k, GP_DTYPE_I32, 135169, 5, -1, kWide, 23, false);
    printf("emu_tiers: %d of %d sizes take the path their tests name\n", checked - failed, checked);
    return failed ? 1 : 0;
}
