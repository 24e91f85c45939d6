#!/usr/bin/env python3
"""Reads the clock of a GP_TIMELINE build (src/cuda/cuda_timeline.cuh).

  scripts/timeline.py DUMP TILE_BYTES

DUMP is one GP_TIMELINE_OUT.N file: two 8-byte words (grid, tiles), then 6
x 65536 tile events and 4 x 4096 block events, nanoseconds of the global
timer (0: not clocked). Prints, in us from the first block's start: the
grid's start and end, the first wave's (tiles < grid) copies, totals and
look-backs, the later tiles' look-backs, where the steady tiles wait
(steady()), and the bytes the scan warps took up from the stages and
stored, per microsecond. Persistent launches deal tiles by stride: block
b's use u is tile u * grid + b.
"""
import itertools
import statistics
import struct
import sys

TILES, BLOCKS = 1 << 16, 4096
FETCH, FULL, TOTAL, PREFIX, FINISH_START, FINISH_END = range(6)
ENTRY, TICKET, EXIT = range(3)


def load(path):
    raw = open(path, 'rb').read()
    grid, tiles = struct.unpack_from('<QQ', raw)
    words = struct.unpack_from(f'<{6 * TILES + 4 * BLOCKS}Q', raw, 16)
    tile = [words[e * TILES:e * TILES + min(tiles, TILES)] for e in range(6)]
    block = [words[6 * TILES + e * BLOCKS:6 * TILES + e * BLOCKS + min(grid, BLOCKS)] for e in range(4)]
    return grid, tiles, tile, block


def spread(xs):
    xs = sorted(xs)
    if not xs:
        return 'none'
    pick = lambda q: xs[min(len(xs) - 1, int(q * len(xs)))]
    return f'min {xs[0]:.2f} p50 {pick(0.5):.2f} p90 {pick(0.9):.2f} max {xs[-1]:.2f}'


def steady(ev, grid, n):
    """Where a whole tile past the first and before the last wave waits:
    its copy, its rank, its look-back split into the wait for every earlier
    tile's count and the walk after it, the slack before its runs are
    written (near 0: the scan warps waited on the look-back), a block's
    time from one use to the next, and how far each tenth of the blocks'
    counts lag behind the median of their use."""
    ks = [k for k in range(grid, n - grid) if ev[FULL][k] > ev[FETCH][k]]
    if not ks:
        return
    d = lambda a, b: [ev[a][k] - ev[b][k] for k in ks]
    print('steady: copy in flight (full - fetch)', spread(d(FULL, FETCH)))
    print('steady: rank (total - full)', spread(d(TOTAL, FULL)))
    before = list(itertools.accumulate(ev[TOTAL], max))  # when every tile up to k had been counted
    print('steady: waiting for earlier counts (all counted - total)', spread([before[k] - ev[TOTAL][k] for k in ks]))
    print('steady: the walk after them (prefix - all counted)', spread([ev[PREFIX][k] - before[k] for k in ks]))
    print('steady: slack (finish start - prefix)', spread(d(FINISH_START, PREFIX)))
    print('steady: runs written (finish end - start)', spread(d(FINISH_END, FINISH_START)))
    print('steady: a block\'s use (full of its next tile - full)',
          spread([ev[FULL][k + grid] - ev[FULL][k] for k in ks if ev[FULL][k + grid] > 0]))
    uses = n // grid  # tiles by stride: use u of block b is tile u * grid + b
    if uses < 3:
        return
    lag = [0.0] * grid
    for u in range(1, uses - 1):
        m = statistics.median(ev[TOTAL][u * grid + b] for b in range(grid))
        for b in range(grid):
            lag[b] += (ev[TOTAL][u * grid + b] - m) / (uses - 2)
    tenth = max(1, grid // 10)
    print('steady: mean lag of a block\'s counts behind its use\'s median, by tenth of the blocks:',
          ' '.join(f'{statistics.mean(lag[b:b + tenth]):+.2f}' for b in range(0, grid, tenth)))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    grid, tiles, tile, block = load(sys.argv[1])
    tile_bytes = int(sys.argv[2])
    t0 = min(block[ENTRY])
    us = lambda v: (v - t0) / 1000.0
    ev = [[us(v) for v in e] for e in tile]
    n = len(ev[0])
    print(f'grid {grid}, tiles {tiles} ({n} clocked), {tiles * tile_bytes / 2**20:.1f} MiB')
    exits = [us(v) for v in block[EXIT]]
    print(f'blocks: started by {max(us(v) for v in block[ENTRY]):.2f}, ticketed by '
          f'{max(us(v) for v in block[TICKET]):.2f}, ended {min(exits):.2f} .. {max(exits):.2f} '
          f'(median {statistics.median(exits):.2f})')
    first = range(min(grid, n))
    later = range(min(grid, n), n)
    d = lambda a, b, ks: [ev[a][k] - ev[b][k] for k in ks]
    print('first wave: copies taken up', spread([ev[FULL][k] for k in first]))
    print('first wave: look-back (prefix - total)', spread(d(PREFIX, TOTAL, first)))
    print('first wave: prefix known', spread([ev[PREFIX][k] for k in first]))
    print('first wave: stores issued', spread([ev[FINISH_END][k] for k in first]))
    if later:
        print('later: look-back (prefix - total)', spread(d(PREFIX, TOTAL, later)))
        print('later: waiting to finish (finish start - total)', spread(d(FINISH_START, TOTAL, later)))
        steady(ev, grid, n)
    print(f'last copy asked {max(ev[FETCH]):.2f}, taken up {max(ev[FULL]):.2f}, prefix {max(ev[PREFIX]):.2f}, '
          f'stores issued {max(ev[FINISH_END]):.2f}')
    end = int(max(exits)) + 1
    taken, written = [0] * (end + 1), [0] * (end + 1)
    for k in range(n):
        taken[min(end, max(0, int(ev[FULL][k])))] += tile_bytes
        written[min(end, max(0, int(ev[FINISH_END][k])))] += tile_bytes
    print('us  taken up GB/s  written GB/s (1-us bins: copies the scan warps took up, stores they issued)')
    for i in range(end + 1):
        print(f'{i:3d} {taken[i] / 1e3:10.0f} {written[i] / 1e3:12.0f}')


if __name__ == '__main__':
    main()
