#!/usr/bin/env python3
"""Reads the clock of a GP_TIMELINE build (src/cuda/cuda_timeline.cuh).

  scripts/timeline.py DUMP TILE_BYTES

DUMP is one GP_TIMELINE_OUT.N file: two 8-byte words (grid, tiles), then 6
x 65536 tile events and 4 x 4096 block events, nanoseconds of the global
timer (0: not clocked). Prints, in us from the first block's start: the
grid's start and end, the first wave's (tiles < grid) copies, totals and
look-backs, the later tiles' look-backs, and the bytes the scan warps
took up from the stages and stored, per microsecond.
"""
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
