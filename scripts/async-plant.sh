#!/usr/bin/env bash
# Does test_async catch a launch on the wrong stream? On the GPU machine,
# from the repository root: builds test_async (build-gpu, as gpu-check.sh),
# runs it on seeds 1-3, then plants the bug (every scan kernel launched on
# the legacy default stream instead of the context's: src/cuda/cuda_backend.cu,
# launch and launch_resident), rebuilds, and runs the same seeds, which must
# fail: by a mismatch or by a hang (a scan and the launch before it may
# then run at once on the context's one look-back arena), which the test's
# watchdog reports after 100 s with the chain (exit 1), or the limit here
# stops (exit 124). On an H200 at aa41dd3, before the watchdog: two seeds
# hung, one mismatched; unplanted, each seed took 10-13 s. At 4d9cc6a:
# seeds 2 and 3 mismatched, and seed 1 hung, which the watchdog reported
# (exit 1 after 102 s, the chain and `--seed 1 --case 4`). The
# source is restored and rebuilt at the end. Every step has a time limit and
# writes to $OUT/async-plant.log as it goes.
#   GPUPRIM_COMMIT=<sha> [ASYNC_PLANT_LIMIT_S=130] scripts/async-plant.sh
set -u
limit=${ASYNC_PLANT_LIMIT_S:-130} # seconds per seed, past the watchdog's 100
out=${OUT:-./gpu-check-out}
mkdir -p "$out"
exec > >(tee "$out/async-plant.log") 2>&1
export GPUPRIM_REQUIRE_CUDA=1
b=build-gpu
src=src/cuda/cuda_backend.cu
t0=$(date +%s)
at() { echo "== $1 ($(( $(date +%s) - t0 )) s)"; }
seeds() { # label: runs seeds 1-3, each under $limit s, and prints their verdicts
  for s in 1 2 3; do
    local s0=$(date +%s)
    timeout $limit $b/tests/test_async --backend cuda --seed $s >"$out/async-$1-$s.log" 2>&1
    local rc=$?
    echo "$1 seed $s: exit $rc$([ $rc -eq 124 ] && echo ', timed out (a hang)') in $(( $(date +%s) - s0 )) s ($(tail -1 "$out/async-$1-$s.log"))"
  done
}
echo "commit ${GPUPRIM_COMMIT:-$(git rev-parse HEAD 2>/dev/null)}"
. scripts/prebuilt.sh # the GPU check's flags; the plant needs a build, not the pack
prebuilt_clear $b
cmake -S . -B $b "${prebuilt_flags[@]}" >/dev/null || exit 1
timeout 400 cmake --build $b -j "$(nproc)" --target test_async 2>&1 | grep -E 'error' | head
at built
seeds plain
cp $src "$out/cuda_backend.cu.orig"
python3 - "$src" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
wrong = 'strstr(what, "scan") ? (cudaStream_t)0 : static_cast<cudaStream_t>(ctx->stream)'
s = s.replace('args, smem, static_cast<cudaStream_t>(ctx->stream));', 'args, smem, ' + wrong + ');')
s = s.replace('args, smem,\n                                                static_cast<cudaStream_t>(ctx->stream));',
              'args, smem,\n                                                ' + wrong + ');')
if '#include <cstring>' not in s: s = '#include <cstring>\n' + s
open(p, 'w').write(s)
print('planted at', s.count(wrong), 'launches')
PY
timeout 120 cmake --build $b -j "$(nproc)" --target test_async 2>&1 | grep -E 'error' | head
at "planted and rebuilt"
seeds planted
grep -h -m1 -A6 'differs\|returned' "$out"/async-planted-*.log | cut -c1-200 | head -24
cp "$out/cuda_backend.cu.orig" $src
timeout 120 cmake --build $b -j "$(nproc)" --target test_async 2>&1 | grep -E 'error' | head
at "restored and rebuilt"
