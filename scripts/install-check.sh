#!/usr/bin/env bash
# Installs the build in BUILD_DIR into a temporary prefix, then builds and
# runs examples/sum.c against it twice: through pkg-config and through
# CMake's find_package(gpuprim), then examples/python/stalin.py on the
# installed shared library, found the way ctypes finds it (LD_LIBRARY_PATH).
# Proves another project links in one line, and Python needs none.
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
libdir=$(ls -d "$tmp"/prefix/lib*/ | head -1)

export PKG_CONFIG_PATH="$libdir/pkgconfig"
cc -std=c11 "$here/examples/sum.c" $(pkg-config --cflags --libs gpuprim) -Wl,-rpath,"$libdir" -o "$tmp/sum_pc"
"$tmp/sum_pc"

mkdir "$tmp/consumer"
cat >"$tmp/consumer/CMakeLists.txt" <<CMK
cmake_minimum_required(VERSION 3.24)
project(consumer C)
find_package(gpuprim REQUIRED)
add_executable(sum "$here/examples/sum.c")
target_link_libraries(sum PRIVATE gpuprim::gpuprim)
CMK
cmake -S "$tmp/consumer" -B "$tmp/consumer/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/consumer/build" >/dev/null
"$tmp/consumer/build/sum"
if command -v python3 >/dev/null; then
  LD_LIBRARY_PATH="$libdir" python3 "$here/examples/python/stalin.py" --backend cpu 10007
  echo "install-check: pkg-config and find_package(gpuprim) consumers built and ran; Python found the library"
else
  echo "install-check: pkg-config and find_package(gpuprim) consumers built and ran; no python3, ctypes not tried"
fi
