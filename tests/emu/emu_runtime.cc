/* The CPU emulation's runtime: fibers, block and warp barriers, the grid. */
#include "cuda_emu.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>
#include <unistd.h>

#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace gp_emu {

int chaos = 0;
std::atomic<long> windows{0}, windows_past_lane0{0}, windows_without_stop{0};

namespace {

constexpr size_t kStackBytes = 64 * 1024;

struct fiber {
    ucontext_t ctx;
    unsigned tid;
    bool done;
};

struct warp_state {
    uint64_t slot[32];
    unsigned count_a, gen_a, count_b, gen_b;
};

struct block_state {
    std::vector<fiber> fibers;
    std::vector<std::vector<char>> stacks;
    unsigned nthreads = 0;
    ucontext_t sched;
    fiber *cur = nullptr;
    unsigned bar_count = 0, bar_gen = 0;
    unsigned named_count = 0, named_gen = 0;
    warp_state warps[32];
    void (*thunk)(const void *, const void *) = nullptr;
    const void *fn = nullptr, *params = nullptr;
    std::mt19937 rng{12345};
};

} // namespace
thread_local block_state *tb = nullptr;
namespace {

void yield_fiber() { swapcontext(&tb->cur->ctx, &tb->sched); }

void maybe_shake()
{
    if (chaos <= 0) return;
    const unsigned r = tb->rng() % (unsigned)(chaos * 4);
    if (r == 0) usleep(tb->rng() % 200);
    else if (r < 4) sched_yield();
}

void trampoline()
{
    tb->thunk(tb->fn, tb->params);
    tb->cur->done = true; /* uc_link returns to the scheduler */
}

void run_block(block_state &b)
{
    b.fibers.assign(b.nthreads, fiber{});
    if (b.stacks.size() < b.nthreads) b.stacks.resize(b.nthreads, std::vector<char>(kStackBytes));
    b.bar_count = 0;
    b.named_count = 0;
    memset(b.warps, 0, sizeof b.warps);
    for (unsigned t = 0; t < b.nthreads; t++) {
        fiber &f = b.fibers[t];
        f.tid = t;
        f.done = false;
        getcontext(&f.ctx);
        f.ctx.uc_stack.ss_sp = b.stacks[t].data();
        f.ctx.uc_stack.ss_size = kStackBytes;
        f.ctx.uc_link = &b.sched;
        makecontext(&f.ctx, trampoline, 0);
    }
    unsigned alive = b.nthreads;
    while (alive > 0) {
        for (fiber &f : b.fibers) {
            if (f.done) continue;
            b.cur = &f;
            swapcontext(&b.sched, &f.ctx);
            if (f.done) alive--;
        }
    }
    b.cur = nullptr;
}

std::vector<std::pair<std::string, thunk_fn>> &thunks()
{
    static std::vector<std::pair<std::string, thunk_fn>> t;
    return t;
}

} // namespace

unsigned current_thread() { return tb->cur->tid; }

void block_barrier()
{
    const unsigned gen = tb->bar_gen;
    if (++tb->bar_count == tb->nthreads) {
        tb->bar_count = 0;
        tb->bar_gen++;
        maybe_shake();
    } else {
        while (tb->bar_gen == gen) yield_fiber();
    }
}

void named_barrier(unsigned threads)
{
    const unsigned gen = tb->named_gen;
    if (++tb->named_count == threads) {
        tb->named_count = 0;
        tb->named_gen++;
        maybe_shake();
    } else {
        while (tb->named_gen == gen) yield_fiber();
    }
}

const uint64_t *warp_exchange_begin(uint64_t v)
{
    warp_state &w = tb->warps[current_thread() / 32];
    w.slot[current_thread() % 32] = v;
    const unsigned gen = w.gen_a;
    if (++w.count_a == 32) {
        w.count_a = 0;
        w.gen_a++;
    } else {
        while (w.gen_a == gen) yield_fiber();
    }
    return w.slot;
}

void warp_exchange_end()
{
    warp_state &w = tb->warps[current_thread() / 32];
    const unsigned gen = w.gen_b;
    if (++w.count_b == 32) {
        w.count_b = 0;
        w.gen_b++;
    } else {
        while (w.gen_b == gen) yield_fiber();
    }
}

void sleep_a_little()
{
    if (current_thread() % 32 == 0) sched_yield();
    yield_fiber();
}

unsigned resident_blocks()
{
    const char *env = getenv("GP_EMU_WORKERS");
    return env ? (unsigned)atoi(env) : 3;
}

unsigned char *dynamic_shared()
{
    alignas(128) static thread_local unsigned char bytes[256 << 10];
    return bytes;
}

void run_grid(void (*thunk)(const void *, const void *), const void *fn, const void *params, unsigned grid,
              unsigned block)
{
    const unsigned workers = resident_blocks();
    std::atomic<unsigned> next{0};
    std::vector<std::thread> pool;
    for (unsigned w = 0; w < workers; w++)
        pool.emplace_back([&, w] {
            block_state b;
            b.rng.seed(w * 7919u + 1);
            b.nthreads = block;
            b.thunk = thunk;
            b.fn = fn;
            b.params = params;
            tb = &b;
            for (unsigned k; (k = next.fetch_add(1)) < grid;) run_block(b);
            tb = nullptr;
        });
    for (std::thread &t : pool) t.join();
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
    if (gp_emu::chaos <= 0 || state != 1 || !gp_emu::tb) return;
    if (gp_emu::chaos >= 10) /* older tiles wait longer: later tiles see long runs of aggregates */
        usleep((unsigned)(64 - slot % 64) * 200 * (unsigned)gp_emu::chaos);
    else if (gp_emu::tb->rng() % 2 == 0)
        usleep(gp_emu::tb->rng() % (unsigned)(300 * gp_emu::chaos));
}

namespace gp_cuda {

gp_status launch(gp_ctx *ctx, const void *kernel, const char *what, unsigned grid, unsigned block, void **args,
                 const char *file, int line)
{
    for (auto &t : gp_emu::thunks())
        if (strncmp(what, t.first.c_str(), t.first.size()) == 0) {
            gp_emu::run_grid(t.second, kernel, args[0], grid, block);
            return GP_STATUS_OK;
        }
    fprintf(stderr, "emu: no thunk for %s (%s:%d)\n", what, file, line);
    return GP_STATUS_LAUNCH_FAILED;
}

/* Every worker runs one block at a time: a grid of up to `workers` blocks
 * is resident at once, as a cooperative launch guarantees. */
unsigned resident_blocks(gp_ctx *, const void *, unsigned, size_t) { return gp_emu::resident_blocks(); }

gp_status launch_resident(gp_ctx *ctx, const void *kernel, const char *what, unsigned grid, unsigned block, size_t,
                          void **args, bool *too_large, const char *file, int line)
{
    *too_large = grid > gp_emu::resident_blocks();
    return *too_large ? GP_STATUS_OK : launch(ctx, kernel, what, grid, block, args, file, line);
}

} // namespace gp_cuda
