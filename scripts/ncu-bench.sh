#!/usr/bin/env bash
# Times gpuprim's own kernels apart under Nsight Compute, on the GPU
# machine: runs `gpuprim bench CASE` (few calls) under ncu with the clocks
# left alone and the caches flushed before each kernel, and prints, per
# kernel name and case, the median time and DRAM bytes read and written.
#   NCU_CASES="partition-if:u8,i8 partition:u8" [NCU_SIZES=2^28] \
#     [NCU_KERNELS='regex:bits_kernel|select_kernel'] [NCU_TOOL=build-dev/gpuprim] \
#     scripts/ncu-bench.sh
# With NCU_FULL=1 it also writes the full report (--set full) of the first
# two matching launches of each case to $OUT/ncu-CASE.ncu-rep, and its details
# page as text to $OUT/ncu-CASE-details.txt.
set -uo pipefail
export PATH="/usr/local/cuda/bin:$PATH"
read -r -a cases <<<"${NCU_CASES:-partition-if:u8}"
sizes=${NCU_SIZES:-2^28}
kernels=${NCU_KERNELS:-regex:bits_kernel|select_kernel}
tool=${NCU_TOOL:-build-dev/gpuprim}
out=${OUT:-.}
mkdir -p "$out" || exit 2 # as ab-bench.sh: OUT may name a folder still to make
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
command -v ncu >/dev/null || { echo "ncu-bench: no ncu on PATH" >&2; exit 2; }
[ -x "$tool" ] || { echo "ncu-bench: no tool at $tool" >&2; exit 2; }
rc=0
for c in "${cases[@]}"; do
  name=${c%%:*}
  bench=("$tool" bench "$name" --dtype "${c#*:}" --sizes "$sizes" --max-log2 -1 --runs 3 --warmup 1 --hold off)
  ncu --clock-control none --cache-control all -k "$kernels" --metrics "$metrics" --csv --page raw --print-units base \
    "${bench[@]}" >"$out/ncu-$name.csv" 2>"$out/ncu-$name.err" || { rc=1; tail -5 "$out/ncu-$name.err"; }
  if [ "${NCU_FULL:-0}" = 1 ]; then
    ncu --clock-control none --cache-control all -k "$kernels" --launch-count 2 --set full \
      -o "$out/ncu-$name" -f "${bench[@]}" >/dev/null 2>&1 || rc=1
    ncu --import "$out/ncu-$name.ncu-rep" --page details >"$out/ncu-$name-details.txt" 2>&1 || rc=1
  fi
done
python3 - "$out" "${cases[@]}" <<'EOF'
import csv, statistics, sys
out = sys.argv[1]
num = lambda v: float(v.replace(',', ''))  # ncu groups digits
for c in sys.argv[2:]:
    name = c.split(':')[0]
    try:
        rows = list(csv.DictReader(l for l in open(f'{out}/ncu-{name}.csv') if l.startswith('"')))
    except OSError:
        continue
    by = {}
    for r in rows[1:]:  # the first row holds the units
        k = (r.get('Kernel Name', '?')[:160], r.get('Grid Size', ''), r.get('Block Size', ''))
        try:
            t = num(r['gpu__time_duration.sum'])
            rd, wr = num(r['dram__bytes_read.sum']), num(r['dram__bytes_write.sum'])
        except (KeyError, ValueError):
            continue
        by.setdefault(k, []).append((t, rd, wr))
    units = rows[0] if rows else {}
    if units.get('gpu__time_duration.sum') != 'ns' or units.get('dram__bytes_read.sum') != 'byte':
        print(f'== {c}: unexpected units {units}')
        continue
    print(f'== {c} (medians)')
    for (k, g, b), v in by.items():
        t = statistics.median(x[0] for x in v)
        rd = statistics.median(x[1] for x in v)
        wr = statistics.median(x[2] for x in v)
        print(f'  {len(v):2d}x  {t/1e3:9.1f} us  read {rd/1e6:8.1f} MB  written {wr/1e6:8.1f} MB  {(rd+wr)/t/1e3:5.2f} TB/s  grid {g} block {b}  {k}')
EOF
exit $rc
