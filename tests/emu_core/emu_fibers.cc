/* The fiber runtime of the CPU emulations (emu_fibers.h). */
#include "emu_fibers.h"

#include <sched.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <random>
#include <thread>
#include <vector>

namespace gp_emu {

int chaos = 0;

namespace {

constexpr size_t kStackBytes = 64 * 1024;

/* A fiber starts through makecontext (one sigprocmask call) and from then on
 * switches with _setjmp/_longjmp, which leave the signal mask alone: two
 * system calls fewer per switch, most of the emulation's time otherwise. */
struct fiber {
    ucontext_t start;
    jmp_buf jb;
    unsigned tid;
    bool started, done;
};

struct warp_state {
    uint64_t slot[32];
    unsigned count_a, gen_a, count_b, gen_b;
};

struct block_state {
    std::vector<fiber> fibers;
    std::vector<std::vector<char>> stacks;
    std::vector<unsigned char> smem;
    unsigned nthreads = 0, block = 0, grid = 0;
    jmp_buf sched;
    fiber *cur = nullptr;
    unsigned bar_count = 0, bar_gen = 0;
    int bar_vote[2] = {0, 0}; /* block_barrier_or, by the parity of bar_gen */
    unsigned named_count = 0, named_gen = 0;
    long spins = 0; /* barrier waits without progress: a deadlock if it grows without end */
    warp_state warps[32];
    const std::function<void()> *body = nullptr;
    std::mt19937 rng{1};
};

thread_local block_state *tb = nullptr;

void yield_fiber()
{
    if (!_setjmp(tb->cur->jb)) _longjmp(tb->sched, 1);
}

/* A wait at a barrier or collective. Polls (sleep_a_little) count as
 * progress: a fiber may wait at a barrier while another polls for long. */
void wait_step()
{
    if (++tb->spins > 100000000L) {
        fprintf(stderr, "emu: block %u: deadlock (a barrier or warp collective not reached by all)\n", tb->block);
        abort();
    }
    yield_fiber();
}

void maybe_shake()
{
    if (chaos <= 0) return;
    const unsigned r = tb->rng() % (unsigned)(chaos * 4);
    if (r == 0) usleep(tb->rng() % 200);
    else if (r < 4) sched_yield();
}

void trampoline()
{
    (*tb->body)();
    tb->cur->done = true;
    _longjmp(tb->sched, 1); /* never returns: the stack is dropped */
}

void run_block(block_state &b)
{
    b.fibers.assign(b.nthreads, fiber{});
    if (b.stacks.size() < b.nthreads) b.stacks.resize(b.nthreads, std::vector<char>(kStackBytes));
    memset(b.smem.data(), 0xA5, b.smem.size()); /* dynamic shared memory starts as garbage */
    b.bar_count = 0;
    b.bar_vote[0] = b.bar_vote[1] = 0;
    b.named_count = 0;
    b.spins = 0;
    memset(b.warps, 0, sizeof b.warps);
    for (unsigned t = 0; t < b.nthreads; t++) {
        fiber &f = b.fibers[t];
        f.tid = t;
        getcontext(&f.start);
        f.start.uc_stack.ss_sp = b.stacks[t].data();
        f.start.uc_stack.ss_size = kStackBytes;
        f.start.uc_link = nullptr;
        makecontext(&f.start, trampoline, 0);
    }
    unsigned alive = b.nthreads;
    while (alive > 0) {
        /* A random order each pass: threads interleave differently each run. */
        const unsigned start = b.rng() % b.nthreads;
        for (unsigned k = 0; k < b.nthreads; k++) {
            fiber &f = b.fibers[(start + k) % b.nthreads];
            if (f.done) continue;
            b.cur = &f;
            if (!_setjmp(b.sched)) {
                if (!f.started) {
                    f.started = true;
                    ucontext_t here;
                    swapcontext(&here, &f.start); /* comes back by _longjmp, never by return */
                } else {
                    _longjmp(f.jb, 1);
                }
            }
            if (f.done) alive--;
        }
    }
    b.cur = nullptr;
}

/* Waits until `gen` moves past its value at entry, after counting in. */
void arrive_and_wait(unsigned &count, unsigned &gen, unsigned expected)
{
    const unsigned at = gen;
    if (++count == expected) {
        count = 0;
        gen++;
        tb->spins = 0;
        maybe_shake();
    } else {
        while (gen == at) wait_step();
    }
}

} // namespace

unsigned thread_x() { return tb->cur->tid; }
unsigned block_x() { return tb->block; }
unsigned grid_x() { return tb->grid; }
unsigned block_dim_x() { return tb->nthreads; }

void block_barrier()
{
    /* The last to arrive clears the next barrier's vote: every reader of
     * this parity's previous vote has passed it by then. */
    if (tb->bar_count + 1 == tb->nthreads) tb->bar_vote[(tb->bar_gen + 1) & 1] = 0;
    arrive_and_wait(tb->bar_count, tb->bar_gen, tb->nthreads);
}
int block_barrier_or(int pred)
{
    const unsigned at = tb->bar_gen;
    if (pred) tb->bar_vote[at & 1] = 1;
    block_barrier();
    return tb->bar_vote[at & 1];
}
void named_barrier(unsigned threads) { arrive_and_wait(tb->named_count, tb->named_gen, threads); }

const uint64_t *warp_exchange_begin(uint64_t v)
{
    warp_state &w = tb->warps[thread_x() / 32];
    w.slot[thread_x() % 32] = v;
    const unsigned gen = w.gen_a;
    if (++w.count_a == 32) {
        w.count_a = 0;
        w.gen_a++;
        tb->spins = 0;
    } else {
        while (w.gen_a == gen) wait_step();
    }
    return w.slot;
}

void warp_exchange_end()
{
    warp_state &w = tb->warps[thread_x() / 32];
    const unsigned gen = w.gen_b;
    if (++w.count_b == 32) {
        w.count_b = 0;
        w.gen_b++;
    } else {
        while (w.gen_b == gen) wait_step();
    }
}

void sleep_a_little()
{
    tb->spins = 0;
    if (thread_x() % 32 == 0) sched_yield();
    yield_fiber();
}

void maybe_yield()
{
    if (tb && tb->cur && (tb->rng() & 15) == 0) yield_fiber();
}

unsigned char *dynamic_shared() { return tb->smem.data(); }

bool in_block() { return tb != nullptr; }
unsigned random_u32() { return tb->rng(); }

void run_grid(const std::function<void()> &body, unsigned grid, unsigned block, size_t smem, unsigned workers,
              unsigned seed)
{
    std::atomic<unsigned> next{0};
    std::vector<std::thread> pool;
    for (unsigned w = 0; w < workers; w++)
        pool.emplace_back([&, w] {
            block_state b;
            b.rng.seed(w * 7919u + seed);
            b.nthreads = block;
            b.grid = grid;
            b.body = &body;
            b.smem.resize(smem ? smem : 1);
            tb = &b;
            for (unsigned k; (k = next.fetch_add(1)) < grid;) {
                b.block = k;
                run_block(b);
            }
            tb = nullptr;
        });
    for (std::thread &t : pool) t.join();
}

} // namespace gp_emu
