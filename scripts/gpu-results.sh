#!/usr/bin/env bash
# Every result of docs/RESULTS.md in ONE call of the device tool (600 s wall
# at most; this script keeps itself under DEADLINE_S, default 540): builds the
# tool (or uses build-dev/gpuprim when it was carried and runs, or the GPU
# check's pack, .gpu-prebuilt, where scripts/prebuilt.sh takes it), runs the four
# seed ladders and `gpuprim bench all`, each with CSV and JSON (the bench also
# with --plot), and packs text, CSV, JSON, PNG, GPU facts and timings into
# $OUT/results.tar.gz. A part that fails or runs out of time is recorded with
# its exit status (124: timed out) and the others still run. Summary last.
#   scripts/gpu-results.sh [all|ladders|bench]     (default all)
# Then, here: tar xzf results.tar.gz -C R && python3 scripts/results_md.py R > docs/RESULTS.md
#
# Time plan on an H100 (estimates; the summary prints the real seconds):
#   build         95-120 s (none with a carried build-dev/gpuprim or a matching .gpu-prebuilt)
#   ladders       4 x at most LADDER_TIMEOUT (75 s) each; expected well under
#   bench all     default dtypes per case, sizes 2^10..2^28 (BENCH_ARGS): about
#                 40 series; each point times 3 implementations x 23 calls
#                 (~0.1 s at 2^28), and checks gpuprim on the host before and
#                 after timing (~1-2 s at 2^28 for scan-like outputs), so about
#                 2-3 min. 2^30 is left out: a 4x larger top adds ~3 min of
#                 checks and the GB/s at 2^28 are already at the ceiling's
#                 plateau (docs/perf, /work/shared/PERF.md).
#   The bench gets what is left of the deadline, less 20 s for packing.
set -uo pipefail
export PATH="/usr/local/cuda/bin:$PATH"
part=${1:-all}
case "$part" in all | ladders | bench) ;; *) echo "gpu-results: unknown part '$part' (all|ladders|bench)" >&2; exit 2 ;; esac
deadline=${DEADLINE_S:-540}
ladder_timeout=${LADDER_TIMEOUT:-75}
bench_args=${BENCH_ARGS:---max-log2 28}
ladders=(reduce transpose atomics stalin)
t_start=$(date +%s)
elapsed() { echo $(( $(date +%s) - t_start )); }
final=${OUT:-$PWD/results-out}
out=$(mktemp -d /tmp/gpu-results.XXXXXX)
mkdir -p "$final"
export GPUPRIM_COMMIT=${GPUPRIM_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}

record() { # part, exit status, seconds
  printf '%-18s exit %-4s %5s s\n' "$1" "$2" "$3" | tee -a "$out/summary.txt"
}

# ---------------------------------------------------------------- facts
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "part: $part"
  echo "commit: $GPUPRIM_COMMIT"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem,pstate,temperature.gpu \
    --format=csv 2>&1
  nvcc --version 2>&1 | tail -2
  echo "cpu: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
} >"$out/facts.txt"
nvidia-smi -q >"$out/nvidia-smi.txt" 2>&1

# ---------------------------------------------------------------- the tool
# The GPU check's flags: its pack from scripts/gpu-prebuild.sh serves here too.
. scripts/prebuilt.sh
gp=""
if [ -x build-dev/gpuprim ] && build-dev/gpuprim info >"$out/info.txt" 2>&1; then
  gp=build-dev/gpuprim
  echo "tool: build-dev/gpuprim (carried)" | tee -a "$out/facts.txt"
  record build-carried 0 0
elif prebuilt_use build-gpu "${prebuilt_flags[@]}" && build-gpu/gpuprim info >"$out/info.txt" 2>&1; then
  gp=build-gpu/gpuprim
  echo "tool: build-gpu/gpuprim (from .gpu-prebuilt)" | tee -a "$out/facts.txt"
  record build-prebuilt 0 0
else
  t0=$(date +%s)
  echo "prebuilt not used: ${prebuilt_why:-its tool does not start}" >>"$out/facts.txt"
  prebuilt_clear build-gpu
  { cmake -S . -B build-gpu "${prebuilt_flags[@]}" -DGPUPRIM_BUILD_TESTS=OFF &&
      cmake --build build-gpu -j "$(nproc)" --target gpuprim; } >"$out/build.log" 2>&1
  rc=$?
  record build $rc $(( $(date +%s) - t0 ))
  if [ $rc -eq 0 ]; then
    gp=build-gpu/gpuprim
    echo "tool: build-gpu/gpuprim (built here)" >>"$out/facts.txt"
    $gp info >"$out/info.txt" 2>&1
  else
    tail -30 "$out/build.log"
  fi
fi

# ---------------------------------------------------------------- runs
rc_all=0
[ -n "$gp" ] || rc_all=1
if [ -n "$gp" ] && [ "$part" != bench ]; then
  for l in "${ladders[@]}"; do
    left=$(( deadline - 20 - $(elapsed) ))
    t=$(( left < ladder_timeout ? left : ladder_timeout ))
    if [ $t -lt 10 ]; then record "ladder-$l" skipped 0; rc_all=1; continue; fi
    t0=$(date +%s)
    timeout "$t" ./$gp ladder "$l" --csv "$out/ladder-$l.csv" --json "$out/ladder-$l.json" \
      >"$out/ladder-$l.txt" 2>&1
    rc=$?
    [ $rc -eq 0 ] || rc_all=1
    record "ladder-$l" $rc $(( $(date +%s) - t0 ))
  done
fi
plot_args=() # --plot needs libpng, which the device machine may lack
if [ -n "$gp" ] && ldd "$gp" 2>/dev/null | grep -q libpng; then
  plot_args=(--plot "$out/bench.png")
elif [ -n "$gp" ]; then
  echo "no libpng in $gp: the bench runs without --plot" | tee -a "$out/facts.txt"
fi
if [ -n "$gp" ] && [ "$part" != ladders ]; then
  left=$(( deadline - 20 - $(elapsed) ))
  if [ $left -lt 60 ]; then
    record bench-all skipped 0
    rc_all=1
  else
    t0=$(date +%s)
    # shellcheck disable=SC2086
    timeout "$left" ./$gp bench all --backend cuda $bench_args --csv "$out/bench.csv" --json "$out/bench.json" \
      "${plot_args[@]}" >"$out/bench.txt" 2>&1
    rc=$?
    [ $rc -eq 0 ] || rc_all=1
    record bench-all $rc $(( $(date +%s) - t0 ))
    echo "bench args: $bench_args" >>"$out/facts.txt"
  fi
fi
record total $rc_all "$(elapsed)"

# ---------------------------------------------------------------- pack
tar czf "$final/results.tar.gz" -C "$out" .
cp "$out/summary.txt" "$final/"
[ -f "$out/bench.png" ] && cp "$out/bench.png" "$final/"
echo
echo "==== gpu-results ($part) on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1), commit $GPUPRIM_COMMIT"
grep -h "^verdict\|CHECK FAILED\|WRONG" "$out"/*.txt 2>/dev/null | head -60
sed -n '/^bench summary/,$p' "$out/bench.txt" 2>/dev/null
cat "$out/summary.txt"
echo "packed: $final/results.tar.gz ($(du -h "$final/results.tar.gz" | cut -f1))"
exit $rc_all
