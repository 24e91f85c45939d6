/*
 * The fiber runtime under both CPU emulations of CUDA (tests/emu for the
 * look-back kernels, tests/emu_hist for the histograms): every GPU thread
 * is a fiber with its own stack; the fibers of a block run on one OS thread
 * and switch only where a GPU thread could wait (barriers, warp
 * collectives, polls, random yields), in a random order each pass. Several
 * OS threads run blocks at once, like SMs, so blocks race for real.
 */
#ifndef GP_EMU_FIBERS_H
#define GP_EMU_FIBERS_H

#include <stddef.h>
#include <stdint.h>

#include <functional>

namespace gp_emu {

/* The running fiber's threadIdx.x, blockIdx.x, gridDim.x, blockDim.x. */
unsigned thread_x();
unsigned block_x();
unsigned grid_x();
unsigned block_dim_x();

/* __syncthreads; bar.sync 1, threads (the block's first `threads`). */
void block_barrier();
/* __syncthreads_or: a barrier that also returns whether any thread's pred was set. */
int block_barrier_or(int pred);
void named_barrier(unsigned threads);
/* All 32 lanes of the caller's warp deposit v; returns the 32 deposits.
 * Every lane must call warp_exchange_end after reading them. */
const uint64_t *warp_exchange_begin(uint64_t v);
void warp_exchange_end();

/* A poll that found nothing yet (an OS-level yield too, once a warp). */
void sleep_a_little();
/* One time in 16: lets the block's other fibers run (at atomics). */
void maybe_yield();

/* The block's dynamic shared memory: the launch's bytes, 0xA5 at start. */
unsigned char *dynamic_shared();

/* > 0: random OS-level pauses at barriers, to shake the blocks' interleaving. */
extern int chaos;
/* Inside a block: a random number from the block's generator. */
bool in_block();
unsigned random_u32();

/* Runs blocks 0 .. grid - 1 of `block` threads, each thread calling body(),
 * `workers` blocks at a time, with `smem` bytes of dynamic shared memory. */
void run_grid(const std::function<void()> &body, unsigned grid, unsigned block, size_t smem, unsigned workers,
              unsigned seed);

} // namespace gp_emu

#endif
