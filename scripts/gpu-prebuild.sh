#!/usr/bin/env bash
# Builds build-gpu here as scripts/gpu-check.sh would on the GPU machine
# (Release, the CUDA backend, sm_90) and packs what its steps run into
# .gpu-prebuilt/ (ignored by git) for a device call to carry:
#   scripts/gpu-prebuild.sh            then run(..., carry=[".gpu-prebuilt"])
# Why: a fresh GPU machine spent 150-270 s of the call's 600 s on the
# build (227 s at 6967dca, where the deadline then cut ctest), time that
# the session's 30 minutes of device time pay for; this machine has the same
# nvcc (13.0.88) and no deadline. gpu-check.sh unpacks it where it was built
# from the sources there (source-stamp.sh) and its programs start, else it
# builds as before.
# The executables link the library statically, so each holds the same
# kernels: xz with a dictionary wider than one executable stores them about
# once (some 550 MB in 20 MB).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/cuda/bin:$PATH"
build=build-gpu
pack=.gpu-prebuilt
. scripts/prebuilt.sh # prebuilt_flags: those gpu-check.sh configures with
flags=("${prebuilt_flags[@]}")
stamp=$(scripts/source-stamp.sh "${flags[@]}") # before the build: what it compiles
cmake -S . -B $build "${flags[@]}" >/dev/null
cmake --build $build -j "$(nproc)"
mkdir -p $pack
rm -f $pack/stamp $pack/$build.tar.xz
# Objects, archives and CMake's own folders are the build's, not the steps':
# ctest reads the CTestTestfile.cmake files and runs the executables.
tar cf - -C $build --exclude='*.o' --exclude='*.a' --exclude='./CMakeFiles' --exclude='*/CMakeFiles' \
  --exclude='./Testing' . | xz -T1 -6 --lzma2=preset=6,dict=96MiB >$pack/$build.tar.xz
# The stamp last (a pack without one is never used), and only where no
# source changed while it built.
if [ "$(scripts/source-stamp.sh "${flags[@]}")" != "$stamp" ]; then
  echo "gpu-prebuild: the sources changed during the build; run it again" >&2
  exit 1
fi
echo "$stamp" >$pack/stamp
echo "gpu-prebuild: $pack/$build.tar.xz ($(du -h $pack/$build.tar.xz | cut -f1)), $(sed -n 2p $pack/stamp)"
