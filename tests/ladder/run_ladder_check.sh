#!/usr/bin/env bash
# ctest driver for `gpuprim ladder NAME --check`: every rung of a seed
# ladder against the serial reference, on the GPU. Exit 77 (skipped, reason
# printed) where the build has no CUDA backend or no GPU is usable, unless
# GPUPRIM_REQUIRE_CUDA=1 (scripts/gpu-check.sh), which makes that a failure.
#   run_ladder_check.sh GPUPRIM NAME
set -u
tool=$1 name=$2
skip() {
  if [ "${GPUPRIM_REQUIRE_CUDA:-0}" = 1 ]; then
    echo "FAIL: GPUPRIM_REQUIRE_CUDA=1 but $1"
    exit 1
  fi
  echo "SKIPPED: $1"
  exit 77
}
"$tool" --version | grep -q ' cuda' || skip "this build has no CUDA backend (ladders run on the GPU)"
err=$(mktemp)
trap 'rm -f "$err"' EXIT
"$tool" ladder "$name" --check 2>"$err"
rc=$?
cat "$err" >&2
if [ $rc -eq 2 ] && grep -q "no usable GPU" "$err"; then skip "no usable GPU: $(head -1 "$err")"; fi
exit $rc
