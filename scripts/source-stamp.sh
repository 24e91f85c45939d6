#!/usr/bin/env bash
# Prints what a build of this tree depends on, in three lines: the
# repository's absolute root (a CMake build folder names it in its files),
# one SHA-256 over the path and content of every file under the folders a
# build reads, and the configure flags given as arguments.
#   scripts/source-stamp.sh CMAKE_FLAG...
# gpu-prebuild.sh writes it beside the build it packs; gpu-check.sh uses that
# build only where it prints the same lines for its own flags.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "root $PWD"
echo "sources $(find CMakeLists.txt cmake include src tools bench tests examples -type f -print0 | LC_ALL=C sort -z |
  xargs -0 sha256sum | sha256sum | cut -d' ' -f1)"
echo "flags $*"
