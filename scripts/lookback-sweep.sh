#!/usr/bin/env bash
# Measures the look-back kernels (scan, select, filter) built with three
# caps on the look-back's poll sleep (GP_LOOKBACK_MAX_SLEEP_NS in
# src/cuda/cuda_tuning.h), in one device call. Run on the GPU machine.
# Result on the H200, 2026-11-22: see docs/perf/scan.md.
export PATH=/usr/local/cuda/bin:$PATH
. scripts/prebuilt.sh # the GPU check's flags
for v in 1024 128 0; do
  ( cmake -S . -B build-s$v "${prebuilt_flags[@]}" -DGPUPRIM_BUILD_TESTS=OFF \
      -DCMAKE_CUDA_FLAGS=-DGP_LOOKBACK_MAX_SLEEP_NS=$v >/dev/null &&
    cmake --build build-s$v -j6 --target gpuprim >/dev/null ) &
done
wait
for v in 1024 128 0; do
  echo "=== max sleep $v ns"
  for c in scan select filter; do
    ./build-s$v/gpuprim bench $c --backend cuda --dtype i32 --min-log2 20 --max-log2 28 --runs 10 2>&1 |
      grep -E "^ +2\^(20|24|26|28) "
  done
done
