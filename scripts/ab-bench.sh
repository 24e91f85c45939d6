#!/usr/bin/env bash
# A/B of tools built elsewhere (here, without a GPU, with the GP_* macros of
# src/cuda/cuda_tuning.h set through CMAKE_CUDA_FLAGS) in one device call:
# each DIR holds a gpuprim tool, stripped and perhaps xz-packed as
# gpuprim.xz (copied from a build folder into an ignored one,
# build-ab/NAME, which the device tool carries). Runs every case with
# every tool, interleaved, AB_ROUNDS times, then prints one line per (case,
# size, tool): the rounds' times, the share of the copy and the ratio to
# CUB, both medians.
#   AB_CASES="partition:i32,f32 select:i64" [AB_SIZES=2^24,2^26,2^28] \
#     [AB_ROUNDS=2] [AB_RUNS=10] scripts/ab-bench.sh DIR...
# Logs go to $OUT/ab-bench.log (or ./ab-bench.log). Past AB_DEADLINE_S
# (default 540) the remaining benches are skipped and the summary says so.
set -uo pipefail
[ $# -ge 1 ] || { echo "usage: AB_CASES=\"case:dtypes ...\" scripts/ab-bench.sh DIR..." >&2; exit 2; }
read -r -a cases <<<"${AB_CASES:-partition:i32}"
sizes=${AB_SIZES:-2^24,2^26,2^28}
rounds=${AB_ROUNDS:-2}
runs=${AB_RUNS:-10}
deadline=${AB_DEADLINE_S:-540}
# A folder that does not exist yet is made: without it every bench's log
# line failed and the call's A/B was lost (round 97).
mkdir -p "${OUT:-.}" || exit 2
log=${OUT:-.}/ab-bench.log
t0=$(date +%s)
: >"$log"
for dir in "$@"; do # a tool may come xz-packed (the device tool carries 64 MiB at most)
  if [ ! -x "$dir/gpuprim" ] && [ -f "$dir/gpuprim.xz" ]; then
    python3 -c 'import lzma, sys; open(sys.argv[1][:-3], "wb").write(lzma.open(sys.argv[1]).read())' "$dir/gpuprim.xz" &&
      chmod +x "$dir/gpuprim"
  fi
  [ -x "$dir/gpuprim" ] || { echo "ab-bench: no tool at $dir/gpuprim" >&2; exit 2; }
done
skipped=0
for r in $(seq 1 "$rounds"); do
  for c in "${cases[@]}"; do
    for dir in "$@"; do
      if [ $(( $(date +%s) - t0 )) -ge "$deadline" ]; then skipped=$((skipped + 1)); continue; fi
      timeout 120 "$dir/gpuprim" bench "${c%%:*}" \
        --dtype "${c#*:}" --sizes "$sizes" --max-log2 -1 --runs "$runs" 2>&1 |
        sed "s|^|$(basename "$dir") r$r |" >>"$log"
    done
  done
done
[ "$skipped" -eq 0 ] || echo "ab-bench: $skipped benches skipped past ${deadline} s"
python3 - "$log" "$@" <<'EOF'
import re, sys, statistics
log, tools = sys.argv[1], [d.rstrip('/').split('/')[-1] for d in sys.argv[2:]]
head = re.compile(r'^(\S+) r(\d+) (.+?) on .*\((cuda|cpu)\)')
row = re.compile(r'^(\S+) r(\d+)\s+(2\^\d+|\d+)\s+([\d.]+)\s+[\d.]+\s+([\d.]+)\s+([\d.]+)')
series, times, bad = {}, {}, []
for line in open(log):
    m = head.match(line)
    if m:
        series[m.group(1)] = m.group(3)
        continue
    m = row.match(line)
    if m:
        tool, n, us, pct, cub = m.group(1), m.group(3), float(m.group(4)), float(m.group(5)), float(m.group(6))
        times.setdefault((series.get(tool, '?'), n), {}).setdefault(tool, []).append((us, pct, cub))
    elif re.search(r'FAIL|mismatch|error', line, re.I):
        bad.append(line.rstrip())
for (case, n), by_tool in times.items():
    for tool in tools:
        got = by_tool.get(tool)
        if not got: continue
        us = statistics.median(g[0] for g in got)
        cub = statistics.median(g[2] for g in got)
        print(f"{case:24s} {n:>5s} {tool:10s} " + " ".join(f"{g[0]:9.2f}" for g in got) +
              f"  ({statistics.median(g[1] for g in got):5.1f}%, {cub / us:4.2f}x cub)")
for b in bad[:20]: print("!!", b)
EOF
