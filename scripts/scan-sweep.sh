#!/usr/bin/env bash
# Measures tuning variants of the look-back kernels (scan, select,
# partition, the running-max filter) in one device call: builds each variant
# of the tool in parallel (the knobs are the GP_* macros of
# src/cuda/cuda_tuning.h), then runs every bench case with every variant,
# interleaved, and prints one line per (case, size, variant). Logs, CSV and
# each variant's ptxas report go to $OUT/scan-sweep.tar.gz.
#   [SWEEP_CASES="scan filter"] [SWEEP_DTYPES="i32 i64"] [SWEEP_LOG2="16 30"] \
#     scripts/scan-sweep.sh [NAME=DEFINES ...]   (default: the list below; i32, 2^16 to 2^30)
# e.g. scripts/scan-sweep.sh g8= t512="-DGP_SCAN_THREADS=512 -DGP_SELECT_THREADS=512"
# Time on a 16-core H100 (estimate): builds ~200 s (4 at once, a quarter of
# the cores each), benches ~10 s per case and variant (16 runs), ~380 s in
# all; past 480 s the remaining benches are skipped and the summary says so.
# Reasoning and predictions per variant: docs/perf/scan.md.
set -uo pipefail
export PATH="/usr/local/cuda/bin:$PATH"
. scripts/prebuilt.sh # the GPU check's flags (prebuilt_flags)
t0=$(date +%s)
budget_s=${SWEEP_BUDGET_S:-480}
final=${OUT:-$PWD/scan-sweep-out}
out=$(mktemp -d /tmp/scan-sweep.XXXXXX)
mkdir -p "$final"

variants=("$@")
if [ ${#variants[@]} -eq 0 ]; then
  variants=(
    "base=-DGP_PARTITION_GROUP=1"          # as before this round: window 32, 256 x 16, a status per count tile
    "g8="                                    # the defaults: partition counts 8 tiles per status
    "w2=-DGP_LOOKBACK_TAGS_PER_LANE=2"       # + a look-back window of 64 tiles
    "w4=-DGP_LOOKBACK_TAGS_PER_LANE=4"       # + 128 tiles (scan: 768 threads per SM, for registers)
  )
fi
read -r -a cases <<<"${SWEEP_CASES:-scan select partition filter}" # e.g. SWEEP_CASES=scan
read -r -a dtypes <<<"${SWEEP_DTYPES:-i32}"
read -r min_log2 max_log2 <<<"${SWEEP_LOG2:-16 30}"
jobs=$(( $(nproc) / ${#variants[@]} ))
[ "$jobs" -ge 1 ] || jobs=1

# ---------------------------------------------------------------- builds
for v in "${variants[@]}"; do
  name=${v%%=*}
  defs=${v#*=}
  (
    cmake -S . -B "build-sweep-$name" "${prebuilt_flags[@]}" -DGPUPRIM_BUILD_TESTS=OFF \
      "-DCMAKE_CUDA_FLAGS=$defs -Xptxas=-v" &&
      cmake --build "build-sweep-$name" -j "$jobs" --target gpuprim
  ) >"$out/build-$name.log" 2>&1 &
done
wait
echo "builds: $(( $(date +%s) - t0 )) s"

# ptxas: registers and spills of the look-back kernels, per variant.
ptx_summary() {
  awk '/Compiling entry function/ { match($0, /_Z[A-Za-z0-9_]+/); name = substr($0, RSTART, RLENGTH) }
       /spill stores/ { spill = $5 "/" $9 }
       /Used [0-9]+ registers/ {
         for (i = 1; i <= NF; i++) if ($i == "Used") regs = $(i + 1)
         if (name ~ /scan_kernel|select_kernel|filter_kernel/) print name, regs, spill }' "$1" |
    sort -u | while read -r n r s; do
      printf '%s regs=%s spill(st/ld)=%s\n' "$(echo "$n" | c++filt | sed -E 's/gp_cuda::|\(anonymous namespace\)::|tile::|_GLOBAL__N__[0-9a-f_]+::?//g')" "$r" "$s"
    done
}
for v in "${variants[@]}"; do
  name=${v%%=*}
  if [ ! -x "build-sweep-$name/gpuprim" ]; then
    echo "variant $name: BUILD FAILED"; tail -20 "$out/build-$name.log"; continue
  fi
  ptx_summary "$out/build-$name.log" >"$out/ptxas-$name.txt"
  spills=$(grep -vc 'spill(st/ld)=0/0' "$out/ptxas-$name.txt")
  echo "variant $name (${v#*=}): look-back kernels $(wc -l <"$out/ptxas-$name.txt"), with spills $spills," \
    "registers $(sed -E 's/.*regs=([0-9]+).*/\1/' "$out/ptxas-$name.txt" | sort -n | sed -n '1p;$p' | paste -sd-)"
  grep -E '^void (scan_kernel<unsigned int, unsigned int, unsigned int, unsigned int, op_sum>|select_kernel<unsigned int, true>|select_kernel<int, false>|filter_kernel<int, false>)' \
    "$out/ptxas-$name.txt" | sed 's/^/  /'
  [ "$spills" -eq 0 ] || grep -v 'spill(st/ld)=0/0' "$out/ptxas-$name.txt" | sed 's/^/  SPILL /'
done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader >"$out/gpu.txt" 2>&1

# ---------------------------------------------------------------- benches
# Case-major, variants interleaved: if time runs out, every variant has the
# first cases, and slow drift of the GPU touches all variants alike.
rc_all=0
for c in "${cases[@]}"; do
 for d in "${dtypes[@]}"; do
  for v in "${variants[@]}"; do
    name=${v%%=*}
    [ -x "build-sweep-$name/gpuprim" ] || continue
    if [ $(( $(date +%s) - t0 )) -ge "$budget_s" ]; then
      echo "SKIPPED $c $d $name: past the ${budget_s} s budget" | tee -a "$out/summary.txt"
      continue
    fi
    t1=$(date +%s)
    limit=$(( 530 - (t1 - t0) ))   # no run may carry the call past 530 s
    [ "$limit" -le 120 ] || limit=120
    timeout "$limit" "./build-sweep-$name/gpuprim" bench "$c" --backend cuda --dtype "$d" --min-log2 "$min_log2" \
      --max-log2 "$max_log2" --runs 10 --csv "$out/$c-$d-$name.csv" >"$out/$c-$d-$name.txt" 2>&1
    rc=$?
    [ $rc -eq 0 ] || rc_all=1
    grep -q "CHECK FAILED" "$out/$c-$d-$name.txt" && echo "CHECK FAILED: $c $d $name" | tee -a "$out/summary.txt"
    echo "bench $c $d $name: exit $rc, $(( $(date +%s) - t1 )) s" >>"$out/summary.txt"
  done
 done
done

# One line per (case, n, variant): the subject's row of each CSV. Offsets
# are counted from the role field, so a comma inside the impl name is harmless.
echo
printf '%-10s %-4s %-8s %11s %9s %8s %6s %6s\n' case type variant n us GB/s %ceil xCUB
for c in "${cases[@]}"; do
 for d in "${dtypes[@]}"; do
  for v in "${variants[@]}"; do
    name=${v%%=*}
    f="$out/$c-$d-$name.csv"
    [ -s "$f" ] || continue
    awk -F, -v c="$c" -v d="$d" -v name="$name" 'NR > 1 { for (i = 6; i < NF; i++) if ($i == "subject") {
        printf "%-10s %-4s %-8s %11s %9.1f %8.1f %6.1f %6.2f\n", c, d, name, $(i + 1), $(i + 5), $(i + 8), $(i + 9), $(i + 10)
        break } }' "$f"
  done
 done
done | sort -k1,1 -k2,2 -k4,4n -s
echo
cat "$out/summary.txt"
echo "total: $(( $(date +%s) - t0 )) s"
tar czf "$final/scan-sweep.tar.gz" -C "$out" .
exit $rc_all
