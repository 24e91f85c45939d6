#!/usr/bin/env bash
# The GPU check: run on the GPU machine (through the device tool) from the
# repository root. Builds for sm_90, runs the whole suite with the CUDA
# backend required (no GPU is a failure here, not a skip), runs the CUDA
# tests under compute-sanitizer memcheck and racecheck, then the benchmarks.
# Logs go to $OUT (or ./gpu-check-out); the summary is printed last.
#   scripts/gpu-check.sh [--part 1|2|3|4|5|6|7] [--no-bench] [--ladders-only] [--bench-args "..."]
#                        [--only REGEX]
# The whole check takes longer than one device call (10 minutes), so it
# comes in parts, each building first (a no-op on the same warm machine,
# ~150-260 s on a fresh one): --part 1 ctest; --part 2 the sanitizers on
# test_reduce, test_scan, test_select and test_transpose; --part 3 the
# sanitizers on persistent grids and the other hooked paths, the ladders
# and the demo; --part 4 the sanitizers on test_api, the api fuzz target,
# test_histogram and test_async; --part 6 the benchmarks (reduce,
# transpose, and issue 3's scan, selection, partition (into one buffer and
# into two) and filter rows). Part 3 held the benchmarks until, on a fresh
# machine at 8d3094f (build 201 s, its sanitizers 300 s), the call's
# deadline cut the filter rows.
# No --part: parts 1-4 and 6. --part 5, only when asked, builds again with
# AddressSanitizer and UndefinedBehaviorSanitizer on the host code
# (build-gpu-sanitize, make test-sanitize's flags; the kernels are
# compute-sanitizer's) and runs ctest's CUDA and tool tests
# (labels cuda and cli): the CUDA backend's host paths, which no machine
# without a GPU runs, under the host sanitizers. The CPU tests under them
# are `make test-sanitize`'s: with them the ctest step took 379 s and more
# (H200 host, 606342a), past one call with the 192 s build.
# Run the parts one after another, never side by side: at 8b4ddfb parts 1
# to 4 at once on one H100 took racecheck of test_reduce from 181 s to
# 399 s, and ctest finished 6 of its 66 tests in 553 s.
# --only REGEX runs, besides configure, build and info, only the steps whose
# names match (grep -E): to finish a part that an earlier call's deadline
# cut short; the summary names the filter, and its last line (resume:) the
# command that runs the steps the deadline skipped or stopped.
# GPU_CHECK_CTEST_REGEX does the same inside part 5's ctest step (ctest -R).
# GPU_CHECK_PATH_FIRST=DIR puts DIR first on PATH: stubs of nvidia-smi and
# compute-sanitizer there walk the steps on a machine without a GPU (where
# the summary's "info: cuda not usable" FAIL is the truth).
# GPUPRIM_COMMIT names the commit in the logs (default: git rev-parse HEAD,
# which on the device machine may be a stale copy of .git).
# A build packed here by scripts/gpu-prebuild.sh and carried as
# .gpu-prebuilt replaces configure and build where it matches the sources
# (below); the summary's prebuilt line says whether it was used and why not.
# Part 5's sanitized build is packed by `gpu-prebuild.sh --sanitize` into
# .gpu-prebuilt-sanitize, which a part 5 call carries instead.
# --part 7, only when asked, runs compute-sanitizer's two other tools on the
# CUDA tests of parts 2 and 4 but test_async (--quick): synccheck (a barrier
# that not every thread it names reaches: the look-back and stage barriers
# of the warp-specialised kernels) and initcheck (device memory read before
# anything wrote it).
set -uo pipefail
# Logs, CSV and JSON are written to a work folder, then packed into one
# archive in $OUT (the device tool brings back at most 8 files).
final=${OUT:-$PWD/gpu-check-out}
out=$(mktemp -d /tmp/gpu-check.XXXXXX)
mkdir -p "$final"
build=build-gpu
bench=1
only_ladders=0
bench_args=""
part=0
only=""
matched=0 # steps --only let run: none is a failure, not an empty pass
while [ $# -gt 0 ]; do
  case "$1" in
    --part) part=$2; shift
      case "$part" in 1|2|3|4|5|6|7) ;; *) echo "gpu-check: --part takes 1 to 7" >&2; exit 2 ;; esac ;;
    --no-bench) bench=0 ;;
    --ladders-only) only_ladders=1; bench=0 ;; # the tool alone: ladder sanitizers and the demo
    --bench-args) bench_args=$2; shift ;;
    --only) only=$2; shift ;;
    *) echo "gpu-check: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
export PATH="${GPU_CHECK_PATH_FIRST:+$GPU_CHECK_PATH_FIRST:}/usr/local/cuda/bin:$PATH"
export GPUPRIM_REQUIRE_CUDA=1
export GPUPRIM_COMMIT=${GPUPRIM_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}

# The device tool stops a command at 600 s: every step runs under what is
# left of DEADLINE_S, and a step with too little left is recorded as skipped,
# so the summary and the logs always come back.
deadline=${DEADLINE_S:-570}
t_start=$(date +%s)
summary=()
cut=() # steps the deadline skipped or stopped, for the summary's resume line
record() { summary+=("$(printf '%-26s %-14s %4ss' "$1" "$2" "$3")"); } # name, verdict, seconds
step() { # name, command...: runs, logs to $out/name.log, records PASS/FAIL
  local name=$1; shift
  case "$name" in configure|build|info) ;; *)
    [ -z "$only" ] || grep -qE -e "$only" <<<"$name" || return 0
    matched=$((matched + 1)) ;;
  esac
  local t0=$(date +%s)
  local left=$(( deadline - (t0 - t_start) ))
  if [ $left -lt 15 ]; then
    record "$name" "SKIPPED (time)" 0
    cut+=("$name")
    echo "== $name: SKIPPED (no time left)"
    return 1
  fi
  timeout "$left" "$@" >"$out/$name.log" 2>&1
  local rc=$?
  local verdict=PASS; [ $rc -eq 0 ] || verdict="FAIL (exit $rc)"
  [ $rc -eq 124 ] && verdict="FAIL (timed out)" && cut+=("$name")
  record "$name" "$verdict" $(( $(date +%s) - t0 ))
  echo "== $name: $verdict"; tail -n 25 "$out/$name.log"
  return $rc
}
pack() {
  printf '%s\n' "${summary[@]}" >"$out/summary.txt"
  tar czf "$final/gpu-check-logs.tar.gz" -C "$out" .
  cp "$out/summary.txt" "$final/"
  [ -s "$out/verdicts.txt" ] && cp "$out/verdicts.txt" "$final/"
  return 0
}

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv | tee "$out/gpu.txt"
nvcc --version | tail -2 | tee -a "$out/gpu.txt"

# A build made on the development machine (scripts/gpu-prebuild.sh, carried
# as .gpu-prebuilt) stands in for configure and build where scripts/prebuilt.sh
# finds it made from these sources with these flags and its tool starts. Else
# configure and build run here as before, in a folder emptied of the pack.
. scripts/prebuilt.sh
if [ "$part" = 5 ]; then build=build-gpu-sanitize; fi
prebuilt_flags_for $build
configure=("${build_flags[@]}")
t0=$(date +%s)
prebuilt_used=0
if prebuilt_use $build "${configure[@]}"; then
  prebuilt_used=1
  record prebuilt "PASS (used)" $(( $(date +%s) - t0 ))
  echo "== prebuilt: used in place of configure and build"
else
  record "prebuilt: $prebuilt_why" "not used" $(( $(date +%s) - t0 ))
  echo "== prebuilt not used: $prebuilt_why"
  prebuilt_clear $build
fi
if [ $prebuilt_used -eq 0 ]; then
  step configure cmake -S . -B $build "${configure[@]}" || { pack; cat "$out/summary.txt"; exit 1; }
  target=()
  [ $only_ladders -eq 1 ] && target=(--target gpuprim)
  step build cmake --build $build -j "$(nproc)" "${target[@]}" || { pack; cat "$out/summary.txt"; exit 1; }
fi
# Part 5's build runs under AddressSanitizer, whose shadow gap the CUDA
# runtime maps memory into (protect_shadow_gap=0); its allocations kept to
# the end of the process are not leaks of ours (the tests count every
# allocation of the context). Exported before info: at b642aff info ran
# without them and said "cuda built, not usable here: cudaGetDeviceCount:
# cudaErrorMemoryAllocation" while ctest, with them, used the GPU.
if [ "$part" = 5 ]; then
  export ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1
fi
step info ./$build/gpuprim info
# Every part is about the GPU: a tool that cannot use it fails the check.
grep -q '^  cuda  usable' "$out/info.log" || record "info: cuda not usable" FAIL 0
first=1; second=1; third=1; fourth=1; sixth=1; seventh=0 # the parts this call runs
case "$part" in
  1) second=0; third=0; fourth=0; sixth=0 ;;
  2) first=0; third=0; fourth=0; sixth=0 ;;
  3) first=0; second=0; fourth=0; sixth=0 ;;
  4) first=0; second=0; third=0; sixth=0 ;;
  5) first=0; second=0; third=0; fourth=0; sixth=0 ;;
  6) first=0; second=0; third=0; fourth=0 ;;
  7) first=0; second=0; third=0; fourth=0; sixth=0; seventh=1 ;;
esac
[ $only_ladders -eq 1 ] && first=0 && second=0 && fourth=0
[ $first -eq 1 ] && step ctest bash -c "cd $build && ctest --output-on-failure -j 4 --timeout 900"
# GPU_CHECK_CTEST_REGEX (ctest -R) finishes what a deadline cut: at ebbb03c
# the step's 243 s ran 26 of its 27 tests, all but cli_golden.
ctest_only=()
[ -n "${GPU_CHECK_CTEST_REGEX:-}" ] && ctest_only=(-R "$GPU_CHECK_CTEST_REGEX")
[ "$part" = 5 ] && step ctest-host-sanitizers bash -c "cd $build && ctest --output-on-failure -j 4 --timeout 900 -L 'cuda|cli' \
  -LE large ${ctest_only[*]@Q}"

# The two tools' command lines. --report-api-errors no: test_api asks for
# more device memory than exists on purpose (DEVICE_OUT_OF_MEMORY); gpuprim
# checks every API call itself.
memcheck=(compute-sanitizer --tool memcheck --error-exitcode 9 --leak-check full --report-api-errors no)
racecheck=(compute-sanitizer --tool racecheck --error-exitcode 9)
synccheck=(compute-sanitizer --tool synccheck --error-exitcode 9 --report-api-errors no)
initcheck=(compute-sanitizer --tool initcheck --error-exitcode 9 --report-api-errors no)

# Sanitizers on every CUDA test binary except the large ones (2^31 elements
# under memcheck would take far past the lease; they run unsanitized above).
# Part 1 is the build and ctest alone (with the sanitizers of any test
# binary not named below): on a fresh machine at 2007cda they took 561 s
# (build 233, ctest 328) and the deadline cut the sanitizers of test_api
# and the api fuzz target, so they are part 4's, beside test_histogram's,
# whose racecheck the deadline had cut in part 1 twice (at 08785b9). On a
# slow day (build 178 s, ctest 191 s) racecheck of test_reduce ran out of
# time in part 1, so test_reduce onward go in part 2. On a fresh machine
# part 2 then had room for those alone (build 192 s, racecheck of
# test_reduce 183 s), so the hooked runs, the ladders and the demo are
# part 3, the benchmarks part 6. Part 1 alone still fills a fresh machine's
# call: at 6967dca (build 227 s, ctest 346 s) the deadline stopped ctest
# with two CPU tests running; a second call on the warm machine finished
# them (cd build-gpu && ctest -R '^(name|name)$'). Both had started last,
# by number: the long tests now start first (COST, tests/CMakeLists.txt).
san_ok=0
late="test_reduce|test_scan|test_select|test_transpose"
last="test_api|test_histogram|test_async"
all_tests=$(cd $build/tests && ls test_* 2>/dev/null | grep -v large)
tests=""
[ $first -eq 1 ] && tests+=" $(grep -vxE "$late|$last" <<<"$all_tests")"
[ $second -eq 1 ] && tests+=" $(grep -xE "$late" <<<"$all_tests")"
[ $fourth -eq 1 ] && tests+=" $(grep -xE "$last" <<<"$all_tests")"
for t in $tests; do
  [ -x "$build/tests/$t" ] || continue
  step "memcheck-$t" "${memcheck[@]}" "$build/tests/$t" --backend cuda --quick || san_ok=1
  step "racecheck-$t" "${racecheck[@]}" "$build/tests/$t" --backend cuda --quick || san_ok=1
done
if [ $seventh -eq 1 ]; then
  for t in $(grep -xE "$late|test_api|test_histogram" <<<"$all_tests"); do
    step "synccheck-$t" "${synccheck[@]}" "$build/tests/$t" --backend cuda --quick || san_ok=1
    step "initcheck-$t" "${initcheck[@]}" "$build/tests/$t" --backend cuda --quick || san_ok=1
  done
fi
# The api fuzz target's calls, valid or not, on the GPU (ctest's
# fuzz_api_cuda runs 20000 unsanitized): its 48 seeds, then mutants (at
# 3cb6349 on an H200, 4000 took 2 s unsanitized, 300 under memcheck 2 s).
if [ $fourth -eq 1 ]; then
  fuzz_api=("$build/tests/fuzz/fuzz_replay" --target api --backend cuda)
  step memcheck-fuzz_api "${memcheck[@]}" "${fuzz_api[@]}" --iterations 3000 || san_ok=1
  step racecheck-fuzz_api "${racecheck[@]}" "${fuzz_api[@]}" --iterations 1000 || san_ok=1
fi

# Persistent grids (cooperative launch, tiles staged by the bulk copy engine)
# need more than ~400 tiles on the real device; capped at 5 resident blocks
# and with no clusters, every multi-tile case of the quick suites takes that
# path: the look-back-warp kernels (scan and selection), and the staged scan
# without them; every partition there that does not run in one pass is
# counted first (GPUPRIM_PARTITION_COUNT_FIRST=1; by flags, with bits; by
# default only large ones are); 1-byte ones counted first all run
# partition_prefixed_kernel, on one range of tiles or five. 1-byte
# partitions into two buffers by flags take wider tiles where those pay
# (GPUPRIM_PARTITION_COPY_WIDER=1, as by default since e31ee4c, pinned;
# on one block, --quick's 135169 items). Last, 1-byte selections and
# splits of 4 to 19 wider tiles take them on a grid cut to 4 a block
# (GPUPRIM_WIDER_CUT=1: --quick's 65535 and 135169 items). And the
# partitions' count tasks (a group counts, then its tiles write), which
# the runs above never reach (counted first, or one pass on the full grid
# of part 2): counted first never (the later GPUPRIM_PARTITION_COUNT_FIRST=0
# wins), so --quick's 135169 4-byte items are 23 wide tiles on 5 blocks
# (tests/emu/emu_tiers.cc checks this run's sizes and those above). On one
# block, partitions by flags counted first take their tiles on a
# cooperative launch after the count's (GPUPRIM_COUNT_FIRST_BY_TICKET=0),
# as by default only those past 2^26 items do; on 5, by ticket.
if [ $third -eq 1 ] && [ $only_ladders -eq 0 ]; then
  for run in test_scan-pipelined:1:5 test_select-pipelined:1:5 \
    test_select-one-block:1:1:GPUPRIM_COUNT_FIRST_BY_TICKET=0 test_scan-persistent:0:5 \
    test_select-wider-cut:1:5:GPUPRIM_WIDER_CUT=1 test_select-count-tasks:1:5:GPUPRIM_PARTITION_COUNT_FIRST=0; do
    IFS=: read -r name warps blocks extra <<<"$run"
    hook=(env GPUPRIM_MAX_RESIDENT_BLOCKS=$blocks GPUPRIM_SMALL_CLUSTER=0 GPUPRIM_PARTITION_COUNT_FIRST=1
      GPUPRIM_LOOKBACK_WARPS=$warps GPUPRIM_PARTITION_COPY_WIDER=1 ${extra:+"$extra"})
    step "memcheck-$name" "${hook[@]}" "${memcheck[@]}" "$build/tests/${name%%-*}" --backend cuda --quick || san_ok=1
    step "racecheck-$name" "${hook[@]}" "${racecheck[@]}" "$build/tests/${name%%-*}" --backend cuda --quick ||
      san_ok=1
  done
  # The runs above count 1-byte partitions first, so a 1-byte partition's
  # one pass with all 4 narrow stages filled (--quick's 12289 items on one
  # block, by default not counted first; emu_tiers checks the tier) runs
  # only here: that one size (every dtype of up to 4 bytes has it), at the
  # default.
  hook=(env GPUPRIM_MAX_RESIDENT_BLOCKS=1 GPUPRIM_SMALL_CLUSTER=0 GPUPRIM_LOOKBACK_WARPS=1)
  step "memcheck-test_select-one-pass-12289" "${hook[@]}" "${memcheck[@]}" "$build/tests/test_select" --backend cuda \
    --quick --size 12289 || san_ok=1
  step "racecheck-test_select-one-pass-12289" "${hook[@]}" "${racecheck[@]}" "$build/tests/test_select" --backend cuda \
    --quick --size 12289 || san_ok=1
  # Reductions with every grid reading a segment a block (by default only
  # from 2 GiB); the shared-memory code is the same as in racecheck-test_reduce.
  hook=(env GPUPRIM_REDUCE_SEGMENTS=1 GPUPRIM_REDUCE_CLUSTER=0)
  step "memcheck-test_reduce-segments" "${hook[@]}" "${memcheck[@]}" "$build/tests/test_reduce" --backend cuda \
    --quick || san_ok=1
  # Every byte matrix the quick suite has that 256 x 256 byte tiles can take
  # (by default only matrices of 64 MiB and more take them), with the mid
  # size class's evict-first hints on every tile kernel; then the large
  # class (16 x 16 tiles for 16-byte elements).
  hook=(env GPUPRIM_BYTE_TILES=1 GPUPRIM_TRANSPOSE_SIZE=mid)
  step "memcheck-test_transpose-byte-tiles-mid" "${hook[@]}" "${memcheck[@]}" "$build/tests/test_transpose" \
    --backend cuda --quick || san_ok=1
  step "racecheck-test_transpose-byte-tiles-mid" "${hook[@]}" "${racecheck[@]}" "$build/tests/test_transpose" \
    --backend cuda --quick || san_ok=1
  hook=(env GPUPRIM_TRANSPOSE_SIZE=large)
  step "memcheck-test_transpose-large-class" "${hook[@]}" "${memcheck[@]}" "$build/tests/test_transpose" \
    --backend cuda --quick || san_ok=1
  step "racecheck-test_transpose-large-class" "${hook[@]}" "${racecheck[@]}" "$build/tests/test_transpose" \
    --backend cuda --quick || san_ok=1
fi

# The seed ladders' --check runs (every rung against the reference) under
# both tools. Racecheck leaves out seed 004's published kernel, whose shared-
# memory race is the point of its rung (GPUPRIM_LADDER_NO_RACE=1).
# Racecheck of the reduce ladder stops at 10^6 + 3 elements: its shared-
# memory kernels at 2^24 + 7 took it past a minute on an H100.
ladders="reduce transpose atomics stalin"
[ $third -eq 1 ] || ladders=""
for l in $ladders; do
  step "memcheck-ladder-$l" "${memcheck[@]}" ./$build/gpuprim ladder $l --check || san_ok=1
  sizes=()
  [ $l = reduce ] && sizes=(--sizes 1,2,3,31,32,33,63,64,65,1023,1024,1025,4096,65537,1000003)
  step "racecheck-ladder-$l" env GPUPRIM_LADDER_NO_RACE=1 "${racecheck[@]}" ./$build/gpuprim ladder $l --check \
    "${sizes[@]}" || san_ok=1
done

[ $third -eq 1 ] && step demo ./$build/gpuprim demo
if [ $bench -eq 1 ] && [ $sixth -eq 1 ]; then
  step bench-reduce ./$build/gpuprim bench reduce --csv "$out/bench-reduce.csv" \
    --json "$out/bench-reduce.json" $bench_args
  # Shapes and element sizes of issue 4 (1920x1080 ... 7x30000; u8 u16 f32 f64 c16).
  step bench-transpose ./$build/gpuprim bench transpose --csv "$out/bench-transpose.csv" \
    --json "$out/bench-transpose.json"
  # Issue 3's rows, from the sizes its targets name (about 45 s on an H200).
  issue3=("scan scan --dtype i32,i64 --min-log2 10 --max-log2 28"
    "select select,select-if --dtype i32,i64,u8 --min-log2 20 --max-log2 28"
    "partition partition,partition-if --dtype i32,i64,u8 --min-log2 20 --max-log2 28"
    "partition-copy partition-copy,partition-copy-if --dtype i32,i64,u8 --min-log2 20 --max-log2 28"
    "filter filter,filter-ascending --dtype i32,f32 --min-log2 20 --max-log2 28"
    "filter-vs-cpu filter-vs-cpu --dtype i32")
  for row in "${issue3[@]}"; do
    read -r name cases rest <<<"$row"
    step "bench-$name" ./$build/gpuprim bench $cases $rest --csv "$out/bench-$name.csv" --json "$out/bench-$name.json"
  done
  # 1-byte partitions into two buffers kept on wide tiles, which they left
  # for wider ones by flags at 68dd574 (cuda_tuning.h,
  # GP_PARTITION_COPY_WIDER_FLAGS): beside bench-partition-copy's u8 rows.
  step bench-partition-copy-wide env GPUPRIM_PARTITION_COPY_WIDER=0 ./$build/gpuprim bench partition-copy \
    --dtype u8 --min-log2 20 --max-log2 28 --csv "$out/bench-partition-copy-wide.csv" \
    --json "$out/bench-partition-copy-wide.json"
  # Every case's verdict, which the steps' log tails above may cut.
  grep -h '^verdict' "$out"/bench-*.log >"$out/verdicts.txt" 2>/dev/null
fi

[ -n "$only" ] && [ $matched -eq 0 ] &&
  record "--only $only" "FAIL (no step)" 0
echo
echo "==== gpu-check summary ($(date -u +%Y-%m-%dT%H:%MZ), commit $GPUPRIM_COMMIT, part ${part/#0/all}${only:+, only steps matching $only})"
cat "$out/gpu.txt" | head -2
[ -s "$out/verdicts.txt" ] && cat "$out/verdicts.txt"
# The summary's last line: the command that finishes what the deadline cut.
if [ ${#cut[@]} -gt 0 ]; then
  names=$(IFS='|'; echo "${cut[*]}")
  resume_part=""; [ "$part" = 0 ] || resume_part=" --part $part"
  summary+=("resume: scripts/gpu-check.sh$resume_part --only '^($names)\$'")
fi
pack
cat "$out/summary.txt"
grep -qE "FAIL|SKIPPED" "$out/summary.txt" && exit 1
exit 0
