# shellcheck shell=bash
# Sourced by the GPU scripts: prebuilt_use BUILD FLAG... unpacks the build
# that scripts/gpu-prebuild.sh packed (build-gpu into .gpu-prebuilt,
# build-gpu-sanitize into .gpu-prebuilt-sanitize: a call carries the one it
# needs, as the two pass the device tool's 64 MiB) into BUILD and returns 0
# where it stands in for configuring with FLAG... and building: it was made
# from these sources at this root with these flags (scripts/source-stamp.sh),
# every program its ctest files name outside the repository is here (the
# Python interpreter, elsewhere on this machine, by its name on PATH), and its
# tool starts (with the toolkit's libcudart, exported in LD_LIBRARY_PATH,
# where the loader does not find one). Else it returns 1 with the reason in
# prebuilt_why and leaves BUILD to the caller.
# The GPU machine's CUDA flags, and the two builds packed with them, so that
# the stamps of gpu-prebuild.sh and of the scripts agree: build-gpu
# (prebuilt_flags: gpu-check.sh but for part 5, gpu-results.sh,
# gpu-bench.sh) and build-gpu-sanitize (sanitize_flags: part 5, the host
# code under AddressSanitizer and UndefinedBehaviorSanitizer; its tool is
# started with ASAN_OPTIONS=protect_shadow_gap=0, as part 5 runs it).
prebuilt_pack() { echo ".gpu-prebuilt${1#build-gpu}"; } # BUILD's pack folder
gpu_cuda_flags=(-DGPUPRIM_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90)
prebuilt_flags=(-DCMAKE_BUILD_TYPE=Release "${gpu_cuda_flags[@]}")
sanitize_flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUPRIM_SANITIZE=ON "${gpu_cuda_flags[@]}")
# build_flags=(the flags BUILD is configured with), for the two scripts that
# configure one of the two builds by name.
prebuilt_flags_for() { if [ "$1" = build-gpu ]; then build_flags=("${prebuilt_flags[@]}"); else build_flags=("${sanitize_flags[@]}"); fi; }
prebuilt_why=""
# A pack holds no CMakeFiles: unpacked into BUILD, it is no folder to
# configure or build in, so a caller that builds there empties it first.
prebuilt_clear() { [ ! -d "$1" ] || [ -d "$1/CMakeFiles" ] || rm -rf "$1"; }
prebuilt_use() {
  local build=$1 pack stamp p q
  pack=$(prebuilt_pack "$build")
  shift
  [ -s "$pack/$build.stamp" ] && [ -s "$pack/$build.tar.xz" ] || { prebuilt_why="none carried"; return 1; }
  stamp=$(scripts/source-stamp.sh "$@")
  [ "$stamp" = "$(cat "$pack/$build.stamp")" ] || { prebuilt_why="made from other sources"; return 1; }
  if [ "$(cat "$build/.prebuilt-stamp" 2>/dev/null)" != "$stamp" ]; then
    rm -rf "$build" && mkdir -p "$build"
    if command -v xz >/dev/null; then
      tar xJf "$pack/$build.tar.xz" -C "$build"
    else
      python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$pack/$build.tar.xz" "$build"
    fi || { prebuilt_why="unpacking failed"; return 1; }
    for p in $(grep -rhoE '"/[^"]+"' --include=CTestTestfile.cmake "$build" | tr -d '"' | sort -u); do
      case "$p" in "$PWD"/*) continue ;; esac
      [ -e "$p" ] && continue
      q=$(command -v "$(basename "$p")") || { prebuilt_why="no $p here"; return 1; }
      grep -rlF --include=CTestTestfile.cmake "\"$p\"" "$build" | xargs sed -i "s|\"$p\"|\"$q\"|g"
    done
  fi
  if ldd "./$build/gpuprim" | grep -q 'not found'; then
    export LD_LIBRARY_PATH="$(dirname "$(command -v nvcc)")/../lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  fi
  # Whether it loads and runs; the caller's own steps then require the GPU.
  env -u GPUPRIM_REQUIRE_CUDA ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=0 \
    "./$build/gpuprim" info >/dev/null 2>&1 || { prebuilt_why="its tool does not start"; return 1; }
  echo "$stamp" >"$build/.prebuilt-stamp"
}
