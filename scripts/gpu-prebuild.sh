#!/usr/bin/env bash
# Builds here what scripts/gpu-check.sh would build on the GPU machine and
# packs what its steps run for a device call to carry (both folders are
# ignored by git):
#   scripts/gpu-prebuild.sh [--sanitize]
# build-gpu (Release, the CUDA backend, sm_90: parts 1-4 and 6,
# gpu-results.sh, gpu-bench.sh) into .gpu-prebuilt, always:
#   run(..., carry=[".gpu-prebuilt"]);
# with --sanitize also build-gpu-sanitize (part 5's: the host code under
# ASan and UBSan, with debug information; some 45 MB) into
# .gpu-prebuilt-sanitize, carried alone, as the two pass 64 MiB together:
#   run(..., command="... scripts/gpu-check.sh --part 5", carry=[".gpu-prebuilt-sanitize"]).
# Why: a fresh GPU machine spent 150-270 s of the call's 600 s on the
# build (227 s at 6967dca, where the deadline then cut ctest; part 5's
# build took 292 s, so its ctest needed a second call), time that the
# session's 30 minutes of device time pay for; this machine has the same
# nvcc (13.0.88) and no deadline. The scripts unpack a build where it was
# made from the sources there with their flags (scripts/prebuilt.sh,
# source-stamp.sh) and its programs start, else they build as before.
# The executables link the library statically, so each holds the same
# kernels: xz with a dictionary wider than one executable stores them about
# once (some 550 MB of the Release build in 20 MB).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/cuda/bin:$PATH"
. scripts/prebuilt.sh # prebuilt_flags and sanitize_flags: those the scripts configure with
builds=(build-gpu)
case "${1:-}" in
  "") ;;
  --sanitize) builds+=(build-gpu-sanitize) ;;
  *) echo "usage: scripts/gpu-prebuild.sh [--sanitize]" >&2; exit 2 ;;
esac
rm -f .gpu-prebuilt/stamp # its name in packs made before build-gpu.stamp
for build in "${builds[@]}"; do
  pack=$(prebuilt_pack $build)
  mkdir -p "$pack"
  prebuilt_flags_for $build
  flags=("${build_flags[@]}")
  stamp=$(scripts/source-stamp.sh "${flags[@]}") # before the build: what it compiles
  rm -f $pack/$build.stamp $pack/$build.tar.xz
  cmake -S . -B $build "${flags[@]}" >/dev/null
  cmake --build $build -j "$(nproc)"
  # Objects, archives and CMake's own folders are the build's, not the steps':
  # ctest reads the CTestTestfile.cmake files and runs the executables.
  tar cf - -C $build --exclude='*.o' --exclude='*.a' --exclude='./CMakeFiles' --exclude='*/CMakeFiles' \
    --exclude='./Testing' . | xz -T1 -6 --lzma2=preset=6,dict=96MiB >$pack/$build.tar.xz
  # The stamp last (a pack without one is never used), and only where no
  # source changed while it built.
  if [ "$(scripts/source-stamp.sh "${flags[@]}")" != "$stamp" ]; then
    echo "gpu-prebuild: the sources changed during the build of $build; run it again" >&2
    exit 1
  fi
  echo "$stamp" >$pack/$build.stamp
  echo "gpu-prebuild: $pack/$build.tar.xz ($(du -h $pack/$build.tar.xz | cut -f1)), $(sed -n 2p $pack/$build.stamp)"
done
# A sanitized build packed earlier stays where the sources still match it,
# and goes where they do not.
pack=$(prebuilt_pack build-gpu-sanitize)
if [ ${#builds[@]} -eq 1 ] && [ -f $pack/build-gpu-sanitize.stamp ] &&
  [ "$(cat $pack/build-gpu-sanitize.stamp)" != "$(scripts/source-stamp.sh "${sanitize_flags[@]}")" ]; then
  rm -rf "$pack"
  echo "gpu-prebuild: removed $pack (made from other sources; --sanitize remakes it)"
fi
