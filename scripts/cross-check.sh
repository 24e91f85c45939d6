#!/usr/bin/env bash
# The CPU backend, the tool and their tests built for 64-bit Arm Linux and run
# under qemu-user on this x86-64 machine: what a Grace host (GH200) would
# build. It checks portability (no x86 intrinsic outside its guard; char
# unsigned, as Arm has it), not speed: timings under an emulator mean nothing.
#   scripts/cross-check.sh [BUILD_DIR]     (default build-aarch64)
# Needs Debian's gcc-aarch64-linux-gnu, g++-aarch64-linux-gnu and qemu-user.
# ctest runs the API, asynchrony, example, CLI and fuzz tests; the suites of
# reduce, scan, select (on the NEON path and on its scalar loops), transpose and histogram run
# in their quick form (--quick), as under the sanitizers: whole, under
# emulation, test_reduce alone took 9 minutes. Prints a summary; exit 1 if
# any step failed.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-aarch64}
sysroot=${GP_AARCH64_SYSROOT:-/usr/aarch64-linux-gnu} # the target's libraries, for the toolchain and qemu
for tool in aarch64-linux-gnu-gcc aarch64-linux-gnu-g++ qemu-aarch64; do
  command -v $tool >/dev/null || {
    echo "cross-check: $tool not found (apt-get install gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-user)" >&2
    exit 2
  }
done
summary=()
ok=0
step() { # name, command...: runs it, records PASS or FAIL with its time
  local name=$1 t0=$SECONDS; shift
  echo "== $name"
  if "$@"; then summary+=("$(printf '%-28s PASS %5ss' "$name" $((SECONDS - t0)))")
  else summary+=("$(printf '%-28s FAIL %5ss' "$name" $((SECONDS - t0)))"); ok=1; fi
}
step configure cmake -S . -B "$build" -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/aarch64-linux-gnu.cmake" \
  -DGP_AARCH64_SYSROOT="$sysroot" -DCMAKE_BUILD_TYPE=Release -DGPUPRIM_CUDA=OFF
step build cmake --build "$build" -j "$(nproc)"
if [ $ok -eq 0 ]; then
  step ctest bash -c "cd '$build' && ctest --output-on-failure -j 2 \
    -R '^(test_api_cpu|test_async_cpu|example_sum|example_stalin_cpu|cli_golden|cli_smoke|fuzz_inputs)$'"
  emulator=(qemu-aarch64 -L "$sysroot")
  export OMP_WAIT_POLICY=passive
  for t in test_reduce test_scan test_select test_transpose test_histogram; do
    step "$t --quick" "${emulator[@]}" "$build/tests/$t" --backend cpu --quick
  done
  step "test_select --quick scalar" env GPUPRIM_CPU_SIMD=0 "${emulator[@]}" "$build/tests/test_select" \
    --backend cpu --quick
fi
echo
echo "==== cross-check summary (aarch64 under qemu-user, $(git rev-parse --short HEAD 2>/dev/null))"
printf '%s\n' "${summary[@]}"
exit $ok
