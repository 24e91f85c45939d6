#!/usr/bin/env bash
# Every benchmark of `gpuprim bench` on the GPU, in one call of the device
# tool: takes the tool from the GPU check's pack (.gpu-prebuilt, where
# scripts/prebuilt.sh takes it) or builds it (sm_90, the pack's flags) in
# build-gpu, brought up to date where configured there already, runs each case
# against its peer and ceiling, and packs text, CSV, JSON and a plot per case
# into $OUT/gpu-bench.tar.gz. Verdict lines are printed last. (For
# docs/RESULTS.md, scripts/gpu-results.sh runs `bench all` and the ladders.)
#   scripts/gpu-bench.sh [CASE ...]   (default: all)
set -uo pipefail
export PATH="/usr/local/cuda/bin:$PATH"
final=${OUT:-$PWD/gpu-bench-out}
out=$(mktemp -d /tmp/gpu-bench.XXXXXX)
mkdir -p "$final"
build="build-gpu"
. scripts/prebuilt.sh
if ! prebuilt_use $build "${prebuilt_flags[@]}"; then
  echo "prebuilt not used: $prebuilt_why" >>"$out/gpu.txt"
  prebuilt_clear $build
  # A folder configured already is brought up to date, not configured again.
  { { [ -d $build/CMakeFiles ] || cmake -S . -B $build "${prebuilt_flags[@]}" -DGPUPRIM_BUILD_TESTS=OFF; } &&
      cmake --build $build -j "$(nproc)" --target gpuprim; } >"$out/build.log" 2>&1 ||
    { tail -30 "$out/build.log"; exit 1; }
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader >>"$out/gpu.txt"
plot=1 # --plot needs libpng, which the device machine may lack
ldd ./$build/gpuprim 2>/dev/null | grep -q libpng || { plot=0; echo "no libpng: no plots" | tee -a "$out/gpu.txt"; }

# case name, then its arguments (sizes chosen to match the issues' tables)
cases=(
  "reduce"
  "transpose"
  "scan --dtype i32,f32 --max-log2 30"
  "select --dtype i32 --max-log2 30"
  "select-if --dtype i32 --max-log2 28"
  "partition --dtype i32 --max-log2 30"
  "partition-if --dtype i32 --max-log2 28"
  "filter --dtype i32 --max-log2 28"
  "filter-ascending --dtype i32 --max-log2 28"
  # seed 002's sizes from 10^4, and 12000 near the crossover: the case adds
  # 10^4 to 10^7 to its sweep itself (8d09d4f), but --sizes replaces them,
  # so they are listed again here (round 71)
  "filter-vs-cpu --dtype i32 --min-log2 3 --max-log2 24 --sizes 10000,12000,100000,1000000,10000000"
  "count"
  "histogram"
  "histogram-one-bin"
  "histogram-16384"
  "histogram-2^20"
  "histogram-edges"
)
want=("$@")
rc_all=0
for c in "${cases[@]}"; do
  name=${c%% *}
  if [ ${#want[@]} -gt 0 ] && [[ ! " ${want[*]} " == *" $name "* ]]; then continue; fi
  args=${c#"$name"}
  file=$(echo "$name" | tr -c 'A-Za-z0-9\n-' '_')
  plot_args=()
  [ $plot -eq 1 ] && plot_args=(--plot "$out/$file.png")
  t0=$(date +%s)
  # shellcheck disable=SC2086
  timeout 240 ./$build/gpuprim bench $name --backend cuda $args \
    --csv "$out/$file.csv" --json "$out/$file.json" "${plot_args[@]}" >"$out/$file.txt" 2>&1
  rc=$?
  [ $rc -eq 0 ] || rc_all=1
  echo "bench $name: exit $rc, $(( $(date +%s) - t0 )) s" | tee -a "$out/summary.txt"
done
tar czf "$final/gpu-bench.tar.gz" -C "$out" .
echo
cat "$out/gpu.txt"
grep -h "^verdict" "$out"/*.txt
cat "$out/summary.txt"
exit $rc_all
