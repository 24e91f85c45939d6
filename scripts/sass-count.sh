#!/usr/bin/env bash
# Instruction counts of the CUDA kernels, read off their SASS on a machine
# without a GPU: compiles one CUDA source (default src/cuda/cuda_select.cu)
# for sm_90 as the Release build does, plus any -D flags given (an A/B
# knob of src/cuda/cuda_tuning.h), and prints, for each kernel whose
# demangled name contains one of the PATTERNs: its instructions, its
# predicated shared stores (the compaction's) and the instructions from
# the first of those to the last (a thread's compaction of a tile, where
# its stores are unrolled in one run). The whole SASS, addresses and
# encodings stripped, goes to $OUT (default /tmp/sass-count)/kernels.sass:
# two runs' files diff to show that a knob left off changes nothing.
#   scripts/sass-count.sh [-s SOURCE] [-D NAME=VALUE ...] PATTERN...
#   e.g. scripts/sass-count.sh 'pipelined<unsigned char, false, false, 2, false>'
# The toolkit here has nvcc but no cuobjdump or nvdisasm; both come from
# PyPI: pip install --target DIR nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm,
# then SASS_TOOLS=DIR/nvidia/cu13/bin (cuobjdump runs nvdisasm).
set -euo pipefail
cd "$(dirname "$0")/.."
source=src/cuda/cuda_select.cu
defines=()
while getopts "s:D:" opt; do
  case $opt in
    s) source=$OPTARG ;;
    D) defines+=("-D$OPTARG") ;;
    *) echo "usage: scripts/sass-count.sh [-s SOURCE] [-D NAME=VALUE ...] PATTERN..." >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { echo "sass-count: name at least one kernel pattern" >&2; exit 2; }
tools=${SASS_TOOLS:-}
[ -n "$tools" ] && [ -x "$tools/cuobjdump" ] && [ -x "$tools/nvdisasm" ] || {
  echo "sass-count: set SASS_TOOLS to a folder with cuobjdump and nvdisasm (PyPI's nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm)" >&2
  exit 2
}
out=${OUT:-/tmp/sass-count}
mkdir -p "$out"
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
# The Release build's flags (CMakeLists.txt), without -lineinfo, which
# changes no instruction.
"$nvcc" -DGPUPRIM_BUILDING -DGPUPRIM_HAVE_CUDA -Iinclude -Isrc/core -Isrc/cpu -Isrc/cuda -O3 -DNDEBUG \
  -arch=sm_90 --expt-relaxed-constexpr "${defines[@]}" -cubin "$source" -o "$out/kernels.cubin"
NVDISASM_PATH=$tools PATH="$tools:$PATH" "$tools/cuobjdump" -sass "$out/kernels.cubin" >"$out/raw.sass"
python3 - "$out" "$@" <<'EOF'
import re, subprocess, sys
out, patterns = sys.argv[1], sys.argv[2:]
text = open(f"{out}/raw.sass").read()
insn = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(.*?)\s*;")
store = re.compile(r"^@!?U?P\d+ STS(\.\w+)* \[")
kernels, found = [], 0
for chunk in re.split(r"\n\s*Function : ", text)[1:]:
    name = chunk.split("\n", 1)[0].strip()
    pretty = subprocess.run(["c++filt", name], capture_output=True, text=True).stdout.strip()
    body = insn.findall(chunk)
    kernels.append((pretty, body))
    if not any(p in pretty for p in patterns):
        continue
    found += 1
    at = [i for i, s in enumerate(body) if store.match(s)]
    span = at[-1] - at[0] + 1 if at else 0
    print(f"{pretty}\n  instructions {len(body)}, predicated shared stores {len(at)}, first to last store {span}")
with open(f"{out}/kernels.sass", "w") as f:
    for pretty, body in kernels:
        f.write(f"== {pretty}\n" + "".join(s + "\n" for s in body))
if not found:
    sys.exit("sass-count: no kernel matches " + ", ".join(patterns))
EOF
