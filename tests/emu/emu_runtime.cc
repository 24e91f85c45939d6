/* The look-back emulation's launches and hooks, on the shared fibers
 * (tests/emu_core/emu_fibers.h). */
#include "cuda_emu.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <string>
#include <utility>
#include <vector>

namespace gp_emu {

std::atomic<long> windows{0}, windows_past_lane0{0}, windows_without_stop{0};

namespace {

std::vector<std::pair<std::string, thunk_fn>> &thunks()
{
    static std::vector<std::pair<std::string, thunk_fn>> t;
    return t;
}

} // namespace

unsigned resident_blocks()
{
    const char *env = getenv("GP_EMU_WORKERS");
    return env ? (unsigned)atoi(env) : 3;
}

void register_thunk(const char *prefix, thunk_fn t) { thunks().emplace_back(prefix, t); }

} // namespace gp_emu

void gp_emu_lookback_window(unsigned stop_mask, unsigned upto)
{
    gp_emu::windows++;
    if (stop_mask == 0) gp_emu::windows_without_stop++;
    else if (upto != 1u) gp_emu::windows_past_lane0++;
}

void gp_emu_published(unsigned state, unsigned long long slot)
{
    if (gp_emu::chaos <= 0 || state != 1 || !gp_emu::in_block()) return;
    if (gp_emu::chaos >= 10) /* older tiles wait longer: later tiles see long runs of aggregates */
        usleep((unsigned)(64 - slot % 64) * 200 * (unsigned)gp_emu::chaos);
    else if (gp_emu::random_u32() % 2 == 0)
        usleep(gp_emu::random_u32() % (unsigned)(300 * gp_emu::chaos));
}

namespace gp_cuda {

/* Every worker runs one block at a time: a grid of up to `workers` blocks
 * is resident at once, as a cooperative launch guarantees. */
static gp_status run(const void *kernel, const char *what, unsigned grid, unsigned block, size_t smem, void **args,
                     const char *file, int line, unsigned workers = gp_emu::resident_blocks())
{
    for (auto &t : gp_emu::thunks())
        if (strncmp(what, t.first.c_str(), t.first.size()) == 0) {
            const gp_emu::thunk_fn thunk = t.second;
            const void *params = args[0];
            gp_emu::run_grid([=] { thunk(kernel, params); }, grid, block, smem, workers, 1);
            return GP_STATUS_OK;
        }
    fprintf(stderr, "emu: no thunk for %s (%s:%d)\n", what, file, line);
    return GP_STATUS_LAUNCH_FAILED;
}

/* The launch tally of cuda_backend.cu (gp_ctx.launches), kept by kind as
 * there, for the launches that run. */
static gp_status counted(gp_ctx *ctx, gp_launch_kind how, gp_status s)
{
    if (s == GP_STATUS_OK) ctx->launches[how]++;
    return s;
}

gp_status launch(gp_ctx *ctx, const void *kernel, const char *what, unsigned grid, unsigned block, void **args,
                 const char *file, int line, size_t smem)
{
    return counted(ctx, GP_LAUNCH_PLAIN, run(kernel, what, grid, block, smem, args, file, line));
}

unsigned resident_blocks(gp_ctx *, const void *, unsigned, size_t) { return gp_emu::resident_blocks(); }

gp_status launch_resident(gp_ctx *ctx, const void *kernel, const char *what, unsigned grid, unsigned block,
                          size_t smem, void **args, bool *too_large, const char *file, int line)
{
    *too_large = grid > gp_emu::resident_blocks();
    if (*too_large) return GP_STATUS_OK;
    return counted(ctx, GP_LAUNCH_COOPERATIVE, run(kernel, what, grid, block, smem, args, file, line));
}

gp_status launch_after_prior(gp_ctx *ctx, const void *kernel, const char *what, unsigned grid, unsigned block,
                             size_t smem, void **args, const char *file, int line)
{
    const unsigned workers = gp_emu::resident_blocks();
    return counted(ctx, GP_LAUNCH_OVERLAPPED,
                   run(kernel, what, grid, block, smem, args, file, line,
                       grid > 1 && workers >= grid ? grid - 1 : workers));
}

unsigned small_cluster_blocks(gp_ctx *, const void *, unsigned) { return 0; }

gp_status launch_cluster(gp_ctx *ctx, const void *, const char *what, unsigned, unsigned, unsigned, void **,
                         const char *file, int line)
{
    return gp_set_error(ctx, GP_STATUS_INTERNAL, "emu: no thread-block clusters (%s at %s:%d)", what, file, line);
}

} // namespace gp_cuda
