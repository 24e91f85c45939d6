#!/usr/bin/env bash
# Golden tests of the gpuprim command-line tool.
#
# usage: run_cli_tests.sh GPUPRIM GOLDEN_DIR WORK_DIR [golden|golden_cuda|smoke]
#
# Each golden case runs a short shell snippet in WORK_DIR and compares its
# exit status, stdout and stderr with GOLDEN_DIR/NAME.txt. The snippets call
# the tool through three functions: `gpuprim ARGS` (as is), `gen ARGS`, and
# `reduce ARGS` (which adds --backend $B). Section golden runs the cases on
# the CPU backend. Section golden_cuda runs the exact-answer cases again
# with --backend cuda, against the same golden files, in a work folder of
# its own (the fixtures alone: each exact snippet makes what else it reads);
# where CUDA is not usable it lists them as skipped, with the reason, and
# exits 77 (ctest: skipped), or fails under GPUPRIM_REQUIRE_CUDA=1: a
# separate ctest entry, so that no GPU shows as a skip, not as a pass.
# Smoke cases check only exit status and key lines.
#
# GPUPRIM_UPDATE_GOLDEN=1 rewrites the golden files from this run: review
# the diff before committing it.
set -u

if [ $# -lt 3 ]; then
    echo "usage: $0 GPUPRIM GOLDEN_DIR WORK_DIR [golden|smoke]" >&2
    exit 2
fi
GP=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
# The tool's command: in a cross build, behind the emulator that CMake was
# given (CMAKE_CROSSCOMPILING_EMULATOR, e.g. qemu-aarch64 -L SYSROOT), its
# words joined by the unit separator (0x1f) so that they may hold spaces.
IFS=$'\x1f' read -r -a RUN <<<"${GP_CLI_EMULATOR:-}"
RUN+=("$GP")
GOLDEN=$(cd "$2" && pwd)
WORK=$3
SECTION=${4:-golden}
export LC_ALL=C
# Two threads: small inputs run the same on any machine, and ctest -j stays polite.
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}

rm -rf "$WORK"
mkdir -p "$WORK" || exit 1
cd "$WORK" || exit 1

passed=0
failed=0
skipped=0
exact_names=()
exact_snippets=()
# 1 while golden_cuda collects the exact cases: nothing else runs.
collecting=0

pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; failed=$((failed + 1)); }
skip() { [ $collecting = 1 ] || { echo "SKIP $1"; skipped=$((skipped + 1)); }; }

gpuprim() { "${RUN[@]}" "$@"; }
# Temporary files of gpuprim's output (there must be none after a run).
temp_count() { ls -a | grep -c gpuprim-tmp; }
leftovers() { echo "temporary files left: $(temp_count)"; }
# ended LABEL RC OUTPUT...: how a run ended: LABEL, its exit status, the
# temporary files left and how many of its outputs exist.
ended() { printf "%s %s %s %s" "$1" "$2" "$(temp_count)" "$(shift 2; ls "$@" 2>/dev/null | wc -l)"; }
# The files the tool at pid $1 is writing: its temporary names here, and
# its open files with no name (O_TMPFILE; `/DIR/#INODE (deleted)` in /proc).
writing_count() { echo $(($(temp_count) + $(ls -l /proc/"$1"/fd 2>/dev/null | grep -c '/#[0-9]* (deleted)$'))); }
# split_signalled SIG: a partition into two text files, sent SIG once both
# files are being written; prints SIG, the files seen, then `ended`.
split_signalled() {
    "${RUN[@]}" partition --backend "$B" --if lt:0.5 --rejected big_r.txt big.npy -o big_s.txt >/dev/null &
    local pid=$! seen=0 rc
    for _ in $(seq 3000); do seen=$(writing_count $pid); [ "$seen" -ge 2 ] && break; sleep 0.01; done
    kill -"$1" $pid
    wait $pid
    rc=$?
    ended "$1 $seen" $rc big_s.txt big_r.txt
    rm -f big_s.txt big_r.txt ./*gpuprim-tmp*
}
# The crash helper (outfile_fault.c), through the tool's emulator if any.
outfile_fault() { "${RUN[@]:0:${#RUN[@]}-1}" "$GP_OUTFILE_FAULT" "$@"; }
gen() { "${RUN[@]}" gen "$@"; }
reduce() { "${RUN[@]}" reduce --backend "$B" "$@"; }
transpose() { "${RUN[@]}" transpose --backend "$B" "$@"; }
count() { "${RUN[@]}" count --backend "$B" "$@"; }
histogram() { "${RUN[@]}" histogram --backend "$B" "$@"; }
scan() { "${RUN[@]}" scan --backend "$B" "$@"; }
sel() { "${RUN[@]}" select --backend "$B" "$@"; } # `select` is a bash keyword
partition() { "${RUN[@]}" partition --backend "$B" "$@"; }
stalin() { "${RUN[@]}" stalin --backend "$B" "$@"; }
# Whether the tool says the CUDA backend is usable here.
cuda_usable() { "${RUN[@]}" info --no-bandwidth | grep -q '^  cuda  usable'; }

# Runs a snippet with backend $1 in a subshell; leaves the rendering in actual.txt.
run_snippet() {
    B=$1
    (eval "$2") >stdout.txt 2>stderr.txt
    local rc=$?
    {
        printf 'exit %s\n--- stdout\n' "$rc"
        cat stdout.txt
        printf -- '--- stderr\n'
        cat stderr.txt
    } >actual.txt
}

# compare LABEL NAME: actual.txt against the golden file NAME.txt.
compare() {
    local label=$1 file="$GOLDEN/$2.txt"
    if [ "${GPUPRIM_UPDATE_GOLDEN:-0}" = 1 ] && [ "$label" = "$2" ]; then
        cp actual.txt "$file"
        pass "$label (golden written)"
    elif [ ! -f "$file" ]; then
        fail "$label: no golden file $file (run with GPUPRIM_UPDATE_GOLDEN=1 to create it)"
    elif cmp -s actual.txt "$file"; then
        pass "$label"
    else
        fail "$label: output differs from $file"
        diff -u "$file" actual.txt | head -40 | sed 's/^/    /'
    fi
}

# golden NAME SNIPPET: compared on the CPU backend.
golden() {
    [ $collecting = 1 ] && return
    run_snippet cpu "$2"
    compare "$1" "$1"
}

# exact NAME SNIPPET: as golden, and on CUDA in section golden_cuda (same answer).
exact() {
    golden "$1" "$2"
    exact_names+=("$1")
    exact_snippets+=("$2")
}

# check NAME EXIT PATTERN SNIPPET: exit status and an extended regex that
# must match some line of stdout or stderr.
check() {
    [ $collecting = 1 ] && return
    run_snippet cpu "$4"
    local rc
    rc=$(head -1 actual.txt | cut -d' ' -f2)
    if [ "$rc" != "$2" ]; then
        fail "$1: exit $rc, expected $2"
        sed 's/^/    /' actual.txt | head -20
    elif ! grep -Eq -- "$3" actual.txt; then
        fail "$1: no line matches /$3/"
        sed 's/^/    /' actual.txt | head -20
    else
        pass "$1"
    fi
}

# ---------------------------------------------------------------- fixtures

# le BYTES VALUE...: little-endian bytes of integers as printf escapes.
le() {
    local size=$1 v b out=""
    shift
    for v in "$@"; do
        for ((b = 0; b < size; b++)); do
            out+=$(printf '\\x%02x' $(((v >> (8 * b)) & 255)))
        done
    done
    printf '%s' "$out"
}

# npy FILE MAJOR MINOR HEADER DATA_ESCAPES: a .npy file written byte by byte.
npy() {
    local file=$1 major=$2 minor=$3 header=$4 data=$5
    local len=${#header}
    {
        printf '\x93NUMPY'
        printf "$(le 1 "$major" "$minor")"
        if [ "$major" = 1 ]; then printf "$(le 2 "$len")"; else printf "$(le 4 "$len")"; fi
        printf '%s' "$header"
        printf "$data"
    } >"$file"
}

make_fixtures() {
    # Valid files in every supported version, with headers numpy would not
    # write (no padding, double quotes, other key order, Python 2 longs).
    npy v1_i4.npy 1 0 "{'descr': '<i4', 'fortran_order': False, 'shape': (5,), }"$'\n' "$(le 4 1 2 3 4 5)"
    npy v2_f8.npy 2 0 "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }"$'\n' \
        "$(le 8 0x3FE0000000000000 0x3FD0000000000000 0x4000000000000000)" # 0.5 0.25 2
    npy v3_u2.npy 3 0 "{'descr': '<u2', 'fortran_order': False, 'shape': (4,), }"$'\n' "$(le 2 65535 1 2 3)"
    npy i1.npy 1 0 "{'descr': '|i1', 'fortran_order': False, 'shape': (3,), }"$'\n' "$(le 1 255 128 127)" # -1 -128 127
    npy u1.npy 1 0 "{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }"$'\n' "$(le 1 200 100 7)"
    npy quirky.npy 1 0 '{"shape": (3L,), "fortran_order": False, "descr": "<i8"}' "$(le 8 -5 10 -20)"
    npy f4_special.npy 1 0 "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }"$'\n' \
        "$(le 4 0x3F800000 0x7F800000 0xC0000000)" # 1 inf -2
    npy f4_nan.npy 1 0 "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }"$'\n' \
        "$(le 4 0x3F800000 0x7FC00000 0xC0000000)" # 1 nan -2
    npy empty.npy 1 0 "{'descr': '<u4', 'fortran_order': False, 'shape': (0,), }"$'\n' ""
    npy trailing.npy 1 0 "{'descr': '<i2', 'fortran_order': False, 'shape': (2,), }"$'\n' "$(le 2 7 8 9)"

    # Malformed files, one fault each.
    printf 'NUMPY\x01\x00' >bad_magic.npy
    : >zero_bytes.npy
    npy version4.npy 4 0 "{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }"$'\n' "$(le 4 1)"
    printf '\x93NUMPY\x01\x00\xff\x00{' >trunc_header.npy
    npy no_shape.npy 1 0 "{'descr': '<i4', 'fortran_order': False}"$'\n' ""
    npy not_dict.npy 1 0 "descr = <i4"$'\n' ""
    npy extra_key.npy 1 0 "{'descr': '<i4', 'fortran_order': False, 'shape': (1,), 'order': 1}"$'\n' "$(le 4 1)"
    npy big_endian.npy 1 0 "{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }"$'\n' "$(le 4 1 2)"
    npy complex.npy 1 0 "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }"$'\n' "$(le 8 0)"
    npy bool.npy 1 0 "{'descr': '|b1', 'fortran_order': False, 'shape': (1,), }"$'\n' "$(le 1 1)"
    npy half.npy 1 0 "{'descr': '<f2', 'fortran_order': False, 'shape': (1,), }"$'\n' "$(le 2 0)"
    npy record.npy 1 0 "{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (1,), }"$'\n' "$(le 4 0)"
    npy fortran.npy 1 0 "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 2), }"$'\n' "$(le 4 1 2 3 4)"
    npy two_d.npy 1 0 "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }"$'\n' "$(le 4 1 2 3 4 5 6)"
    npy scalar.npy 1 0 "{'descr': '<i4', 'fortran_order': False, 'shape': (), }"$'\n' "$(le 4 1)"
    npy trunc_data.npy 1 0 "{'descr': '<i4', 'fortran_order': False, 'shape': (5,), }"$'\n' "$(le 4 1 2)"

    # Text.
    printf '1\n2\n\n  3  \r\n4\n5\n6\n7\n8\n9\n10' >ints.txt
    printf '0.5\n-1.25\n2\n' >floats.txt
    printf '1\ninf\n-3\n' >inf.txt
    printf '1\nnan\n-3\n' >nan.txt
    printf '200\n100\n7\n' >u8.txt
    printf '9223372036854775807\n1\n' >i64_max.txt
    printf '18446744073709551615\n' >u64_max.txt
    printf '1\n2\nthree\n4\n' >garbage.txt
    printf '1\n2 3\n' >two_numbers.txt
    printf '1\n\x00\x01\n' >binary.txt
    : >empty.txt
    mkdir a_directory
}

# ----------------------------------------------------------- golden cases

golden_cases() {
    make_fixtures

    # Known answers on .npy: every version, byte order mark, odd headers.
    exact npy_v1_i4_sum 'reduce --op sum v1_i4.npy'
    exact npy_v1_i4_ops 'for op in sum prod min max and or xor; do reduce --op $op v1_i4.npy; done'
    exact npy_v2_f8_sum 'reduce --op sum v2_f8.npy; reduce --op min v2_f8.npy; reduce --op max v2_f8.npy'
    exact npy_v3_u2_wrap 'reduce --op sum v3_u2.npy; reduce --op sum --out-dtype u64 v3_u2.npy; reduce --op max v3_u2.npy'
    exact npy_i1 'reduce --op sum i1.npy; reduce --op min i1.npy; reduce --op sum --out-dtype i16 i1.npy'
    exact npy_u1_wrap 'reduce --op sum u1.npy; reduce --op sum --out-dtype u16 u1.npy; reduce --op prod --out-dtype u64 u1.npy'
    exact npy_quirky_header 'reduce --op sum quirky.npy; reduce --op min quirky.npy'
    exact npy_f4_inf 'reduce --op max f4_special.npy; reduce --op min f4_special.npy; reduce --op sum f4_special.npy'
    exact npy_f4_nan_propagates 'reduce --op max f4_nan.npy; reduce --op min f4_nan.npy'
    exact npy_empty_identities 'for op in sum prod min max and or xor; do reduce --op $op empty.npy; done'
    exact npy_trailing_bytes_ignored 'reduce --op sum trailing.npy'
    exact npy_f32_widened 'reduce --op sum --out-dtype f64 f4_special.npy'

    # Text input: dtype inference, --dtype, wrap-around, specials, stdin.
    exact text_ints_sum 'reduce --op sum ints.txt; reduce --op max ints.txt'
    exact text_floats_f64 'reduce --op sum floats.txt; reduce --op min floats.txt'
    exact text_floats_as_f32 'reduce --op sum --dtype f32 floats.txt'
    exact text_inf 'reduce --op max inf.txt; reduce --op sum inf.txt'
    exact text_nan 'reduce --op max nan.txt'
    exact text_u8_wrap 'reduce --op sum --dtype u8 u8.txt; reduce --op sum --dtype u8 --out-dtype u16 u8.txt'
    exact text_i64_wrap 'reduce --op sum i64_max.txt'
    exact text_u64_max 'reduce --op max --dtype u64 u64_max.txt'
    exact text_empty 'reduce --op sum empty.txt; reduce --op min empty.txt'
    exact text_stdin 'printf "3\n-4\n5\n" | reduce --op sum -'

    # --json shape.
    golden json_int 'reduce --op sum --out-dtype i64 --json v1_i4.npy'
    golden json_float 'reduce --op min --json floats.txt'
    golden json_nonfinite 'reduce --op max --json f4_nan.npy; reduce --op max --json inf.txt'

    # Every dtype through gen: ascending 0..99, wrapping where narrow.
    local t
    for t in i8 u8 i16 u16 i32 u32 i64 u64 f32 f64; do
        local wide=i64
        case $t in u*) wide=u64 ;; f*) wide=f64 ;; esac
        local ops='sum min max'
        case $t in f*) ;; *) ops='sum min max and or xor' ;; esac
        exact "gen_ascending_$t" "gen --dtype $t --n 100 --dist ascending -o a_$t.npy &&
            for op in $ops; do reduce --op \$op a_$t.npy; done; reduce --op sum --out-dtype $wide a_$t.npy"
    done
    exact gen_ascending_i8_wraps 'gen --dtype i8 --n 300 --dist ascending -o w.npy && reduce --op min w.npy &&
        reduce --op max w.npy && reduce --op sum --out-dtype i64 w.npy'
    exact gen_descending_u16 'gen --dtype u16 --n 1000 --dist descending -o d.txt && head -2 d.txt && tail -1 d.txt &&
        reduce --op sum --dtype u16 --out-dtype u64 d.txt'
    exact gen_constant 'gen --dtype i16 --n 10 --dist constant --value -3 -o c.npy && reduce --op sum c.npy &&
        reduce --op and c.npy'
    exact gen_text_roundtrip 'gen --dtype f32 --n 1000 --seed 11 -o f.txt && gen --dtype f32 --n 1000 --seed 11 -o f.npy &&
        reduce --op max --dtype f32 f.txt && reduce --op max f.npy'

    # Determinism: the same seed gives the same bytes (checksums are golden).
    for t in u8 i32 i64 f32 f64; do
        exact "gen_uniform_$t" "gen --dtype $t --n 1000 --seed 42 -o x.npy && gen --dtype $t --n 1000 --seed 42 -o y.npy &&
            cmp x.npy y.npy && cksum x.npy && reduce --op max x.npy"
    done
    exact gen_uniform_u64_xor 'gen --dtype u64 --n 12345 --seed 7 -o x.npy && reduce --op xor x.npy && reduce --op min x.npy'
    golden gen_uniform_text 'gen --dtype f64 --n 5 --seed 3 -o x.txt && cat x.txt'
    golden gen_json 'gen --dtype u32 --n 3 --seed 9 --json -o x.npy'
    golden gen_seed_differs 'gen --dtype i32 --n 100 --seed 1 -o x.npy && gen --dtype i32 --n 100 --seed 2 -o y.npy &&
        if cmp -s x.npy y.npy; then echo same; else echo different; fi'
    # normal goes through libm's log and cos: deterministic per machine, not golden bytes.
    check gen_normal_repeatable 0 '^ok$' 'gen --dtype f64 --n 20000 --dist normal --seed 5 -o n1.npy &&
        gen --dtype f64 --n 20000 --dist normal --seed 5 -o n2.npy && cmp n1.npy n2.npy && echo ok'
    check gen_normal_mean_near_0 0 '^ok$' 'reduce --op sum n1.npy | awk "{ m = \$1 / 20000; print (m > -0.05 && m < 0.05) ? \"ok\" : \"mean \" m }"'
    check gen_normal_int_in_range 0 '^ok$' 'gen --dtype u8 --n 10000 --dist normal --seed 5 -o n3.npy &&
        [ "$(reduce --op max n3.npy)" -gt 200 ] && [ "$(reduce --op min n3.npy)" -lt 50 ] && echo ok'
    check gen_prints_fresh_seed 0 '^gpuprim gen: seed [0-9]+ \(pass --seed [0-9]+ to repeat this data\)$' \
        'gen --dtype i8 --n 4 -o s.npy'

    # count and histogram: known answers, IEEE rules, every output form.
    exact count_cmps 'for c in lt le gt ge eq ne; do count --if $c:3 v1_i4.npy; done'
    exact count_nan 'count --if ne:nan f4_nan.npy; count --if eq:nan f4_nan.npy; count --if lt:2 f4_nan.npy;
        count --if ge:-inf f4_special.npy'
    exact count_text_and_stdin 'count --if gt:5 ints.txt; printf "1\n-2\n3\n" | count --if le:1 -; count --if eq:0 empty.txt'
    golden count_json 'count --if ge:100 --json u1.npy'
    exact histogram_text 'histogram --bins 3 --range 1:10 ints.txt'
    exact histogram_u8_full_range 'gen --dtype u8 --n 1000 --dist ascending -o b.npy && histogram --bins 4 --range 0:256 b.npy'
    exact histogram_outside_and_nan 'histogram --bins 2 --range -2:1 f4_nan.npy; histogram --bins 3 --range -3:3 f4_special.npy'
    exact histogram_edges 'printf "0\n2\n5\n10\n" >e.txt && histogram --edges e.txt ints.txt &&
        printf "1.5\ninf\n" >fe.txt && histogram --edges fe.txt --dtype f32 floats.txt'
    exact histogram_outputs 'histogram --bins 5 --range 0:10 -o h.npy ints.txt && cksum h.npy &&
        histogram --bins 5 --range 0:10 -o h.txt ints.txt && cat h.txt &&
        histogram --bins 5 --range 0:10 -o H.NPY ints.txt && cmp h.npy H.NPY && echo "H.NPY is .npy" && leftovers'
    golden histogram_json 'histogram --bins 2 --range 0:10 --json ints.txt; histogram --edges e.txt --json -o x.npy ints.txt'
    # A span near the largest double (its boundaries once printed inf), a
    # subnormal one (its ends were refused as out of range), an overflow.
    exact histogram_extreme_ranges 'histogram --bins 4 --range 0:1e308 ints.txt;
        printf "1e-320\n1.5e-320\n5e-324\n2e-320\n" >tiny.txt && histogram --bins 2 --range 0:2e-320 --dtype f64 tiny.txt;
        histogram --bins 2 --range 1:1e999 ints.txt'
    if "${RUN[@]}" histogram --bins 2 --range 0:1 --plot probe.png empty.npy 2>&1 | grep -q "without libpng"; then
        skip "histogram_plot (built without libpng)"
        skip "err_histogram_outputs (built without libpng)"
    else
        check histogram_plot 0 '^ok$' 'gen --dtype f32 --n 100000 --dist normal --seed 2 -o g.npy &&
            histogram --bins 64 --range -4:4 --plot g.png -o g_counts.npy g.npy &&
            [ "$(od -An -tx1 -N8 g.png | tr -d " ")" = 89504e470d0a1a0a ] && [ $(wc -c <g.png) -gt 2000 ] && echo ok'
        check out_stdout_plot_table_to_stderr 0 '^png on stdout, table on stderr$' 'histogram --bins 2 --range 0:10 --plot - ints.txt >p.png 2>table.txt &&
            [ "$(od -An -tx1 -N8 p.png | tr -d " ")" = 89504e470d0a1a0a ] && [ "$(tail -c 8 p.png | head -c 4)" = IEND ] &&
            [ "$(tr "\n" " " <table.txt)" = "0 5 4 5 10 5 " ] && echo "png on stdout, table on stderr"'
        # The counts and the plot: never one file, and both or neither.
        golden err_histogram_outputs 'histogram --bins 4 --range 0:10 -o hp.png --plot ./hp.png ints.txt;
            histogram --bins 4 --range 0:10 -o hc.txt --plot no_such_dir/hp.png ints.txt;
            for f in hp.png hc.txt; do test -e $f && echo "$f written"; done; leftovers'
    fi
    # An output on standard output ('-', /dev/stdout): at most one, never with
    # --json (refused before the input is read: no_such_file is never opened);
    # what is printed for people goes to stderr instead.
    golden out_stdout_json_refused 'for v in "histogram --bins 2 --range 0:10" "scan --op sum" "sel --if gt:1" "partition --if gt:1" stalin transpose; do
        $v --json -o - no_such_file.npy; echo "[exit $?]"; done;
        ln -s /dev/stdout so.txt && gen --dtype i8 --n 3 --seed 1 --json -o so.txt; echo "[exit $?]"; leftovers'
    golden out_stdout_two_outputs 'partition --if gt:1 v1_i4.npy -o - --rejected /dev/stdout; echo "[exit $?]";
        histogram --bins 2 --range 0:10 -o - --plot /dev/stdout no_such_file.txt; echo "[exit $?]"; leftovers'
    check out_stdout_count_to_stderr 0 '^count 4 on stderr, 4 values on stdout$' 'sel --if gt:1 v1_i4.npy -o - >vals.txt 2>count.txt &&
        echo "count $(cat count.txt) on stderr, $(wc -l <vals.txt) values on stdout"'
    check out_stdout_partition_count_to_stderr 0 '^count 4 on stderr, 4 values on stdout, 1 in r.txt$' 'partition --if gt:1 v1_i4.npy -o - --rejected r.txt >vals.txt 2>count.txt &&
        echo "count $(cat count.txt) on stderr, $(wc -l <vals.txt) values on stdout, $(wc -l <r.txt) in r.txt"'
    check out_null_is_not_stdout 0 '^ok$' 'sel --if gt:1 --json v1_i4.npy -o /dev/null >/dev/null && echo ok'
    # A --range the library would refuse: a usage error before the input is read.
    golden err_histogram_range_refused 'for r in 10:0 5:5 -0:0 nan:5 -inf:5 5:inf -1e308:1e308; do
        histogram --bins 2 --range $r no_such_file.txt; echo "[exit $?]"; done'
    check histogram_range_wide_finite 0 ' 7e\+307 10$' 'histogram --bins 2 --range -1e308:7e307 ints.txt'
    # Edges read by content: a .npy under any name, compared with the input's
    # dtype (no --dtype was given); --dtype's hint names --out-dtype only where the verb has it.
    golden err_histogram_edges_by_content 'cp v2_f8.npy f8_edges.bin && histogram --edges f8_edges.bin v1_i4.npy;
        cp v2_f8.npy F8.NPY && histogram --edges F8.NPY v1_i4.npy; histogram --edges - v1_i4.npy <v2_f8.npy;
        count --if gt:1 --dtype i64 v1_i4.npy; sel --if gt:1 --dtype i64 v1_i4.npy -o s.txt; echo "[exit $?]"'
    check histogram_edges_npy_any_name 0 '^3 5 2$' 'npy e_i4.bin 1 0 "{'"'"'descr'"'"': '"'"'<i4'"'"', '"'"'fortran_order'"'"': False, '"'"'shape'"'"': (3,), }"$'"'"'\n'"'"' "$(le 4 1 3 5)" &&
        histogram --edges e_i4.bin v1_i4.npy'
    # The last edge is excluded: u8 255 cannot be counted between u8 edges (README, --help).
    check histogram_edges_last_excluded 0 '^128 255 1$' 'printf "0\n128\n255\n" >e8.txt && printf "0\n200\n255\n" >d8.txt &&
        histogram --dtype u8 --edges e8.txt d8.txt'
    # f64 is the widest dtype: no --dtype hint for a float out of range.
    golden err_text_f64_out_of_range 'printf "1e400\n" >big.txt && reduce --op sum big.txt'
    golden err_histogram_args 'histogram ints.txt; histogram --bins 4 ints.txt; histogram --bins 4 --range 0:1 --edges e.txt ints.txt;
        histogram --bins 0 --range 0:1 ints.txt; histogram --bins 1048577 --range 0:1 ints.txt;
        histogram --bins 4 --range 1 ints.txt; histogram --bins 4 --range a:b ints.txt'
    golden err_histogram_range 'histogram --bins 4 --range 3:3 ints.txt; histogram --bins 4 --range 0:inf ints.txt'
    golden err_histogram_edges 'printf "0\n5\n5\n" >bad.txt && histogram --edges bad.txt ints.txt;
        printf "1\n" >one.txt && histogram --edges one.txt ints.txt; histogram --edges v2_f8.npy v1_i4.npy;
        printf "0\n5\n" | histogram --edges - -'
    # Hexadecimal refused alike, whatever dtype its digits would infer.
    golden err_hexadecimal 'printf "0x10\n0x1e\n" >h.txt; scan --op sum h.txt -o o.txt; sel --if lt:0x10 ints.txt -o o.txt;
        count --if lt:-0X1 ints.txt; test -e o.txt || echo no output'
    golden err_count_args 'count ints.txt; count --if 3 ints.txt; count --if about:3 ints.txt; count --if lt:x ints.txt;
        count --if lt:300 u1.npy; count --if lt: ints.txt'

    # scan, select, partition, stalin: known answers, every output form, errors.
    exact scan_ops 'for op in sum prod min max and or xor; do scan --op $op v1_i4.npy -o s.txt && tr "\n" " " <s.txt && echo; done'
    exact scan_exclusive 'scan --op sum --exclusive v1_i4.npy -o e.txt && cat e.txt &&
        scan --op max --exclusive --init -7 i1.npy -o m.txt && cat m.txt &&
        scan --op sum --exclusive --init 100 --out-dtype i16 i1.npy -o w.npy && cksum w.npy'
    exact scan_wrap_and_widen 'scan --op sum --dtype u8 u8.txt -o w.txt && cat w.txt &&
        scan --op sum --out-dtype u16 u1.npy -o w2.txt && cat w2.txt && scan --op prod --out-dtype i64 i1.npy -o p.txt && cat p.txt'
    exact scan_floats 'scan --op sum floats.txt -o f.txt && cat f.txt && scan --op max f4_nan.npy -o n.txt && cat n.txt &&
        scan --op min f4_special.npy -o s.txt && cat s.txt && scan --op sum --out-dtype f64 f4_special.npy -o d.txt && cat d.txt'
    exact scan_empty_and_stdin 'scan --op sum empty.npy -o e.npy && cksum e.npy && printf "3\n-4\n5\n" | scan --op sum - -o s.txt &&
        cat s.txt && leftovers'
    exact scan_large 'gen --dtype u32 --n 100000 --seed 4 -o x.npy && scan --op xor x.npy -o s.npy && cksum s.npy &&
        scan --op max --exclusive x.npy -o m.npy && cksum m.npy'
    golden scan_json 'scan --op xor --exclusive --init 1 --json v1_i4.npy -o x.npy; scan --op min --json floats.txt -o y.txt'
    exact select_if_cmps 'for c in lt le gt ge eq ne; do sel --if $c:3 v1_i4.npy -o s.txt && tr "\n" " " <s.txt; done'
    exact select_flags 'printf "1\n0\n2\n0\n-1\n" >f.txt && sel --flags f.txt v1_i4.npy -o s.txt && cat s.txt &&
        npy b.npy 1 0 "{'"'"'descr'"'"': '"'"'|b1'"'"', '"'"'fortran_order'"'"': False, '"'"'shape'"'"': (5,), }" "$(le 1 0 1 1 0 1)" &&
        sel --flags b.npy v1_i4.npy -o s.npy && cksum s.npy && sel --flags b.npy --dtype f32 ints.txt -o x.txt'
    exact select_nan 'sel --if ne:nan f4_nan.npy -o n.txt && cat n.txt && sel --if lt:2 f4_nan.npy -o l.txt && cat l.txt &&
        sel --if eq:nan f4_nan.npy -o e.txt && wc -l <e.txt'
    exact select_large 'gen --dtype f32 --n 100000 --seed 8 -o x.npy && sel --if lt:0.25 x.npy -o s.npy && cksum s.npy &&
        partition --if lt:0.25 x.npy -o p.npy && cksum p.npy && gen --dtype u8 --n 100000 --seed 9 -o f.npy &&
        sel --flags f.npy x.npy -o sf.npy && cksum sf.npy && partition --flags f.npy x.npy -o pf.npy && cksum pf.npy'
    exact partition_order 'partition --if gt:2 v1_i4.npy -o p.txt && cat p.txt && printf "0\n1\n0\n1\n0\n" >f.txt &&
        partition --flags f.txt v1_i4.npy -o q.txt && cat q.txt'
    # No values and no flags: a count of 0 and empty outputs, each way.
    exact select_flags_empty 'sel --flags empty.txt empty.npy -o s.npy && cksum s.npy &&
        partition --flags empty.npy empty.npy -o p.npy && cksum p.npy &&
        partition --flags empty.txt --rejected r.txt empty.npy -o q.txt && cat q.txt r.txt | wc -c && leftovers'
    # Booleans in any byte order; flags out of i64's range with no --dtype to suggest.
    exact select_flags_bool_orders 'for o in "|" "<" ">" "="; do
            npy b.npy 1 0 "{'"'"'descr'"'"': '"'"'${o}b1'"'"', '"'"'fortran_order'"'"': False, '"'"'shape'"'"': (5,), }" "$(le 1 1 0 0 1 1)" &&
            sel --flags b.npy v1_i4.npy -o s.txt >/dev/null && tr "\n" " " <s.txt && echo; done;
        printf "18446744073709551615\n1\n0\n1\n0\n" >fbig.txt; sel --flags fbig.txt v1_i4.npy -o s.txt'
    exact partition_copy 'partition --if gt:2 --rejected r.txt v1_i4.npy -o p.txt && cat p.txt && echo -- && cat r.txt &&
        printf "0\n1\n0\n1\n0\n" >f.txt && partition --flags f.txt --rejected r.npy v1_i4.npy -o q.npy && cksum q.npy r.npy &&
        gen --dtype f32 --n 100000 --seed 8 -o x.npy && partition --if lt:0.25 x.npy -o p.txt &&
        partition --if lt:0.25 --rejected r2.txt x.npy -o s2.txt && cat s2.txt r2.txt | cmp - p.txt && echo as one &&
        partition --if lt:0.25 --rejected r2.npy x.npy -o s2.npy && cksum s2.npy r2.npy &&
        partition --if ge:0 --rejected none.npy x.npy -o all.npy && cksum none.npy && leftovers'
    golden partition_copy_json 'printf "1\n0\n1\n" >f.txt && partition --flags f.txt --json --rejected r.txt u1.npy -o p.txt'
    golden err_partition_copy_args 'partition --if lt:3 --rejected x.txt v1_i4.npy -o x.txt;
        sel --if lt:3 --rejected r.txt v1_i4.npy -o x.txt; partition --if lt:3 --rejected v1_i4.npy -o x.txt;
        partition --if lt:3 --rejected no_such_dir/r.txt v1_i4.npy -o kept.txt; test -e kept.txt && echo kept.txt written;
        mkdir -p d && ln -s . here && partition --if lt:3 --rejected ./same.txt v1_i4.npy -o same.txt;
        partition --if lt:3 --rejected d/../same.txt v1_i4.npy -o same.txt;
        partition --if lt:3 --rejected here/same.txt v1_i4.npy -o same.txt; test -e same.txt && echo same.txt written;
        partition --if lt:3 --rejected d/same.txt v1_i4.npy -o same.txt && cat same.txt d/same.txt;
        leftovers'
    # A signal that ends the tool while a split writes its second file leaves neither output nor
    # a temporary file; one the tool started with ignored (HUP under nohup, INT in a script's
    # background job, hence set -m here) stays ignored, and both outputs appear. On the named
    # temporary files (GPUPRIM_OUTFILE_NAMED), which the handler must remove; the unnamed ones
    # are partition_copy_unnamed's, below.
    check partition_copy_signalled 0 \
        '^INT 2 130 0 0, TERM 2 143 0 0, HUP 2 129 0 0, PIPE 2 141 0 0, QUIT 2 131 0 0; ignored HUP 2 0 0 2$' \
        'export GPUPRIM_OUTFILE_NAMED=1 && gen --dtype f64 --n 2^23 --seed 5 -o big.npy >/dev/null && ulimit -c 0 && set -m &&
        for s in INT TERM HUP PIPE QUIT; do split_signalled $s; [ $s = QUIT ] && printf "; " || printf ", "; done &&
        (trap "" HUP; printf "ignored "; split_signalled HUP) && echo && rm -f big.npy'
    # The other signals whose default ends the tool, sent by kill (AddressSanitizer
    # leaves SIGSEGV, SIGBUS and SIGFPE to the tool here), then three that strike
    # for real: a write past `ulimit -f`, and in a helper that links the tool's
    # output code (outfile_fault.c) a store to a read-only page and abort(). With
    # the named temporary files, so that the handler must remove them.
    if [ -z "${GP_OUTFILE_FAULT:-}" ]; then
        skip "partition_copy_crashed (GP_OUTFILE_FAULT, the crash helper's path, is set by ctest)"
    else
        check partition_copy_crashed 0 '^ALRM 2 142 0 0, USR1 2 138 0 0, USR2 2 140 0 0, XCPU 2 152 0 0, '\
'XFSZ 2 153 0 0, ABRT 2 134 0 0, BUS 2 135 0 0, FPE 2 136 0 0, ILL 2 132 0 0, SEGV 2 139 0 0, SYS 2 159 0 0; '\
'limit 153 0 0, segv 139 0 0, abort 134 0 0$' \
            'export GPUPRIM_OUTFILE_NAMED=1 ASAN_OPTIONS=${ASAN_OPTIONS:-}:handle_segv=0:handle_sigbus=0:handle_sigfpe=0 &&
            gen --dtype f64 --n 2^23 --seed 5 -o big.npy >/dev/null && ulimit -c 0 && set -m &&
            for s in ALRM USR1 USR2 XCPU XFSZ ABRT BUS FPE ILL SEGV SYS; do
                split_signalled $s; [ $s = SYS ] && printf "; " || printf ", "; done && rm -f big.npy &&
            gen --dtype f64 --n 2^16 --seed 5 -o mid.npy >/dev/null &&
            (ulimit -f 64; partition --if lt:0.5 --rejected limit_r.txt mid.npy -o limit_s.txt >/dev/null);
            ended limit $? limit_s.txt limit_r.txt; printf ", ";
            outfile_fault segv fault.txt; ended segv $? fault.txt; printf ", ";
            outfile_fault abort fault.txt; ended abort $? fault.txt; echo; rm -f mid.npy ./*gpuprim-tmp*'
    fi
    # The unnamed files (O_TMPFILE, the default where the file system has them) leave nothing
    # however the tool ends: a signal that ends it (INT; no handler is installed for them),
    # SIGKILL, which no handler catches, and a crash that AddressSanitizer reports itself (exit 1;
    # a plain build's segv ends by the signal, 139). The named ones are left behind by SIGKILL.
    if [ -z "${GP_OUTFILE_FAULT:-}" ]; then
        skip "partition_copy_unnamed (GP_OUTFILE_FAULT, the crash helper's path, is set by ctest)"
    elif [ "$(outfile_fault tmpfile .)" != yes ]; then
        skip "partition_copy_unnamed (this folder's file system makes no files without a name, O_TMPFILE)"
    else
        check partition_copy_unnamed 0 '^INT 2 130 0 0, KILL 2 137 0 0, segv (139|1) 0 0; named KILL 2 137 2 0$' \
            'gen --dtype f64 --n 2^23 --seed 5 -o big.npy >/dev/null && ulimit -c 0 && set -m &&
            for s in INT KILL; do split_signalled $s; printf ", "; done;
            outfile_fault segv fault.txt 2>/dev/null; ended segv $? fault.txt; printf "; named ";
            GPUPRIM_OUTFILE_NAMED=1 split_signalled KILL; echo; rm -f big.npy'
    fi
    exact stalin_article 'printf "4\n8\n6\n8\n12\n2\n12\n19\n" >a.txt && stalin a.txt -o k.txt && cat k.txt &&
        stalin --descending a.txt -o d.txt && cat d.txt'
    exact stalin_nan_inf 'stalin f4_nan.npy -o n.txt && cat n.txt && printf "nan\n-inf\n-inf\n3\ninf\n2\ninf\nnan\n" | stalin - -o i.txt &&
        cat i.txt && stalin --descending --dtype f32 inf.txt -o d.txt && cat d.txt'
    exact stalin_large 'gen --dtype i32 --n 100000 --dist ascending -o up.npy && stalin up.npy -o u.npy && cmp up.npy u.npy &&
        gen --dtype i32 --n 100000 --dist descending -o dn.npy && stalin dn.npy -o d.txt && cat d.txt &&
        stalin --descending dn.npy -o dd.npy && cmp dn.npy dd.npy && gen --dtype f64 --n 100000 --seed 3 -o r.npy &&
        stalin r.npy -o r.txt && cat r.txt && leftovers'
    golden select_json 'sel --if ge:100 --json u1.npy -o s.txt; printf "1\n0\n1\n" >f.txt && partition --flags f.txt --json u1.npy -o p.npy;
        stalin --json --descending u1.npy -o k.npy'
    golden err_scan_args 'scan v1_i4.npy -o x.txt; scan --op sum v1_i4.npy; scan --op sum --init 1 v1_i4.npy -o x.txt;
        scan --op xor floats.txt -o x.txt; scan --op sum --out-dtype i16 v1_i4.npy -o x.txt;
        scan --op sum --exclusive --init 70000 --out-dtype i16 i1.npy -o x.txt; leftovers'
    golden err_select_args 'sel v1_i4.npy -o x.txt; sel --if lt:1 --flags f.txt v1_i4.npy -o x.txt; sel --if lt:3 v1_i4.npy;
        sel --if about:3 v1_i4.npy -o x.txt; sel --if lt:x v1_i4.npy -o x.txt; printf "1\n0\n" >short.txt &&
        sel --flags short.txt v1_i4.npy -o x.txt; partition --flags floats.txt floats.txt -o x.txt;
        sel --flags no_such_flags.npy v1_i4.npy -o x.txt; stalin --if lt:3 v1_i4.npy -o x.txt; stalin v1_i4.npy;
        printf "1\n0\n" | partition --flags - - -o x.txt; leftovers'

    # Errors: files.
    golden err_missing_file 'reduce --op sum no_such_file.npy'
    golden err_directory 'reduce --op sum a_directory'
    if [ "$(id -u)" = 0 ]; then
        skip "err_unreadable_file (running as root: permissions do not stop reading)"
    else
        golden err_unreadable_file 'printf "1\n" >secret.txt && chmod 000 secret.txt && reduce --op sum secret.txt'
    fi
    golden err_bad_magic 'reduce --op sum bad_magic.npy'
    golden err_zero_bytes 'reduce --op sum zero_bytes.npy'
    golden err_version 'reduce --op sum version4.npy'
    golden err_truncated_header 'reduce --op sum trunc_header.npy'
    golden err_header_no_shape 'reduce --op sum no_shape.npy'
    golden err_header_not_dict 'reduce --op sum not_dict.npy'
    golden err_header_extra_key 'reduce --op sum extra_key.npy'
    golden err_big_endian 'reduce --op sum big_endian.npy'
    golden err_unsupported_descr 'reduce --op sum complex.npy; reduce --op sum bool.npy; reduce --op sum half.npy;
        reduce --op sum record.npy'
    golden err_fortran_order 'reduce --op sum fortran.npy'
    golden err_two_d 'reduce --op sum two_d.npy'
    golden err_scalar 'reduce --op sum scalar.npy'
    golden err_truncated_data 'reduce --op sum trunc_data.npy'
    golden err_text_garbage 'reduce --op sum garbage.txt'
    golden err_text_two_numbers 'reduce --op sum two_numbers.txt'
    golden err_text_binary 'reduce --op sum binary.txt'
    golden err_text_out_of_range 'reduce --op sum u64_max.txt; reduce --op sum --dtype i8 u8.txt; printf "300\n" | reduce --op sum --dtype u8 -'
    golden err_text_not_integer 'reduce --op sum --dtype i32 floats.txt'
    golden err_dtype_mismatch 'reduce --op sum --dtype i64 v1_i4.npy'

    # Errors: the command line (exit 2) and rejected combinations (exit 1).
    golden err_unknown_op 'reduce --op avg v1_i4.npy'
    golden err_unknown_dtype 'reduce --op sum --dtype int33 ints.txt'
    golden err_unknown_out_dtype 'reduce --op sum --out-dtype float16 ints.txt'
    golden err_backend_bogus 'gpuprim reduce --op sum --backend bogus v1_i4.npy'
    golden err_missing_op 'reduce v1_i4.npy'
    golden err_missing_file_arg 'reduce --op sum'
    golden err_extra_arg 'reduce --op sum v1_i4.npy v2_f8.npy'
    golden err_unknown_option 'reduce --op sum --fast v1_i4.npy'
    golden err_option_twice 'reduce --op sum --op min v1_i4.npy'
    golden err_unknown_verb 'gpuprim transmogrify'
    golden err_no_verb 'gpuprim 2>&1 | head -1; gpuprim >/dev/null 2>&1'
    golden err_xor_on_f32 'reduce --op xor f4_special.npy'
    golden err_narrowing_out_dtype 'reduce --op sum --out-dtype i8 v1_i4.npy'
    golden err_out_dtype_other_kind 'reduce --op sum --out-dtype f64 v1_i4.npy'
    golden err_gen_args 'gen --dtype i8 --n 4 -o x.dat; gen --dtype i8 --n -1 -o x.npy; gen --dtype i8 --n 4 --dist zipf -o x.npy;
        gen --dtype i8 --n 4 --dist constant -o x.npy; gen --dtype i8 --n 4 --dist constant --value 128 -o x.npy;
        gen --dtype i8 --n 4 --value 1 -o x.npy; gen --n 4 -o x.npy; gen --dtype i8 --n 4 --seed -3 -o x.npy'
    golden err_demo_args 'gpuprim demo --n 0; gpuprim demo --runs many'
    # Without a GPU the CUDA backend is refused with the probe's reason.
    if cuda_usable; then
        skip "err_cuda_unusable (the CUDA backend is usable here)"
    else
        check err_cuda_unusable 1 '^gpuprim reduce: the cuda backend is not usable here: .+' \
            '"${RUN[@]}" reduce --op sum --backend cuda v1_i4.npy'
    fi
    # Too little memory: the message says how much was asked. AddressSanitizer
    # maps terabytes of shadow memory at start, which no `ulimit -v` allows.
    if [ "${GP_CLI_SANITIZED:-0}" = 1 ]; then
        skip "err_host_out_of_memory (AddressSanitizer build: its shadow memory defeats ulimit -v)"
        skip "err_ctx_out_of_memory (AddressSanitizer build: its shadow memory defeats ulimit -v)"
    else
        golden err_host_out_of_memory '(ulimit -v 1000000; gpuprim demo --backend cpu --n 2^36)'
        # Which allocation runs out first depends on the process's other mappings.
        if [ -n "${GP_CLI_EMULATOR:-}" ]; then
            skip "err_ctx_out_of_memory (run through an emulator, whose own 128 MiB code buffer fails ulimit -v 150000)"
        else
            check err_ctx_out_of_memory 1 \
                '^gpuprim demo: could not allocate 64 MiB \(67108864 bytes\) of host memory for the ' \
                '(ulimit -v 150000; export OMP_NUM_THREADS=1; gpuprim demo --backend cpu --n 2^24 --runs 1)'
        fi
    fi

    # Output files: nothing partial, nothing left behind, nothing clobbered.
    golden out_no_dir 'gen --dtype i8 --n 4 --seed 1 -o no_such_dir/x.npy; echo "[exit $?]"; leftovers'
    golden out_onto_directory 'mkdir dir.npy && gen --dtype i8 --n 4 --seed 1 -o dir.npy; echo "[exit $?]"; leftovers'
    # A pair whose second name is a folder: refused before the first is renamed.
    golden out_pair_onto_directory 'echo old >keep.txt && mkdir -p rdir &&
        partition --if gt:1 v1_i4.npy -o keep.txt --rejected rdir; echo "[exit $?]"; cat keep.txt; leftovers'
    # A pair whose second rename fails after the first (the helper makes the
    # second name a folder just before the commit, as a folder changed under
    # the tool would): the first is undone. Its old file comes back with its
    # mode, a link at its name stays the link, and a new one is removed.
    if [ -z "${GP_OUTFILE_FAULT:-}" ]; then
        skip "out_pair_second_fails (GP_OUTFILE_FAULT, the crash helper's path, is set by ctest)"
    else
        golden out_pair_second_fails 'for named in 0 1; do export GPUPRIM_OUTFILE_NAMED=$named && echo "named $named";
            echo old >keep.txt && chmod 600 keep.txt && outfile_fault pair keep.txt b1; cat keep.txt; stat -c %a keep.txt;
            outfile_fault pair fresh.txt b2; test -e fresh.txt || echo fresh.txt absent;
            echo target >t.txt && ln -s t.txt lnk.txt && outfile_fault pair lnk.txt b3; test -L lnk.txt && echo lnk.txt a link;
            cat t.txt; leftovers; rm -rf keep.txt b1 b2 b3 t.txt lnk.txt; done'
        # The same pair ended by SIGTERM between its two renames (the helper
        # signals itself): the handler undoes the first, and the second's
        # old file is untouched; ended after both, both stay new. (The
        # subshells keep the shell's report of the signal out of the output.)
        golden out_pair_signalled 'for named in 0 1; do export GPUPRIM_OUTFILE_NAMED=$named && echo "named $named";
            echo old >keep.txt && echo old b >b.txt && (outfile_fault pair-term 1 keep.txt b.txt) 2>/dev/null; echo "[exit $?]";
            cat keep.txt b.txt; (outfile_fault pair-term 1 fresh.txt b.txt) 2>/dev/null; echo "[exit $?]";
            test -e fresh.txt || echo fresh.txt absent; cat b.txt; (outfile_fault pair-term 2 keep.txt b.txt) 2>/dev/null;
            echo "[exit $?]"; cat keep.txt b.txt; leftovers; rm -f keep.txt b.txt; done'
    fi
    # The tool's standard output, by "-" or by a link to /dev/stdout, also
    # where that is a file: written through it (append kept), the link never
    # replaced. Never /dev/stdout itself: a tool that renamed over it (as
    # root) would break it for the whole machine.
    golden out_standard_output 'ln -s /dev/stdout so && scan --op sum v1_i4.npy -o so >res.txt; echo "[exit $?]";
        tr "\n" " " <res.txt; echo; test -L so && echo so still a link;
        echo first >app.txt && scan --op max v1_i4.npy -o so >>app.txt && tr "\n" " " <app.txt; echo;
        scan --op sum v1_i4.npy -o - | tail -1; test -e ./- || echo no file named -;
        partition --if gt:2 v1_i4.npy -o - --rejected - ; echo "[exit $?]"; leftovers'
    # A path that is not UTF-8 in --json: U+FFFD for the stray byte.
    golden out_json_not_utf8 'scan --op sum --json v1_i4.npy -o "$(printf "\xff\xc3\xa9.txt")"'
    # A file replaced keeps its mode (not the umask's); a read-only one is refused, as a plain open refuses it.
    golden out_keeps_mode 'printf "x\n" >private.txt && chmod 600 private.txt && scan --op sum v1_i4.npy -o private.txt &&
        stat -c %a private.txt && chmod 640 private.txt && gen --dtype i8 --n 3 --seed 1 -o private.txt && stat -c %a private.txt'
    if [ "$(id -u)" = 0 ]; then
        skip "out_read_only_refused (run as root, which may write any file)"
    else
        golden out_read_only_refused 'printf "precious\n" >ro.txt && chmod 444 ro.txt && scan --op sum v1_i4.npy -o ro.txt;
            echo "[exit $?]"; cat ro.txt; leftovers'
    fi
    # The same refusals made by the helper (which denies what root may do), so
    # that they are checked on every machine: a file that may not be written,
    # and one whose folder lets no file be made in it, which names the folder.
    if [ -z "${GP_OUTFILE_FAULT:-}" ]; then
        skip "out_refused_as_user (GP_OUTFILE_FAULT, the crash helper's path, is set by ctest)"
    else
        golden out_refused_as_user 'printf "precious\n" >ro.txt && outfile_fault refused file ro.txt;
            outfile_fault refused folder ro.txt; outfile_fault refused folder new.txt; cat ro.txt; test -e new.txt || echo new.txt absent; leftovers'
    fi
    # A device or a pipe (a FIFO here; /dev/null alike) is written in place, not replaced by a regular file.
    golden out_to_pipe 'mkfifo out.pipe && { timeout 20 cat out.pipe >piped.txt & } && gpuprim scan --op sum v1_i4.npy -o out.pipe;
        wait; test -p out.pipe && echo out.pipe is still a pipe; cat piped.txt; leftovers'
    # A symbolic link named as an output is replaced by the new file; what it pointed to stays (README).
    golden out_symlink_replaced 'printf "old\n" >target.txt && ln -s target.txt link.txt && gen --dtype i8 --n 2 --dist ascending -o link.txt &&
        { test -L link.txt && echo "link.txt is a link" || echo "link.txt is a file"; }; cat link.txt target.txt; leftovers'
    golden out_write_failure_keeps_old 'printf old >big.npy && (trap "" XFSZ; ulimit -f 8; gen --dtype i64 --n 100000 --seed 1 -o big.npy);
        echo "[exit $?]"; cat big.npy; echo; leftovers'
    golden out_histogram_write_failure 'printf old >hb.npy && (trap "" XFSZ; ulimit -f 8; histogram --bins 100000 --range 0:10 -o hb.npy ints.txt);
        echo "[exit $?]"; cat hb.npy; echo; leftovers'
    # The bench's --csv, --json and --plot: refused before the run where they
    # name one file or cannot be created (nothing on stdout: no benchmark
    # ran), and, as the verbs' outputs, written whole or not at all.
    golden bench_outputs_refused 'gpuprim bench reduce --backend cpu --sizes 1000 --max-log2 -1 --runs 2 --dtype i32 --op sum --csv r.x --json ./r.x;
        echo "[exit $?]"; gpuprim bench reduce --backend cpu --sizes 1000 --max-log2 -1 --runs 2 --dtype i32 --op sum --json no_such_dir/r.json;
        echo "[exit $?]"; ls r.x 2>&1; leftovers'
    golden ladder_outputs_refused 'gpuprim ladder reduce --check --csv l.x --json ./l.x; echo "[exit $?]";
        gpuprim ladder stalin --check --csv no_such_dir/l.csv; echo "[exit $?]"; ls l.x 2>&1; leftovers'
    golden bench_write_failure_keeps_old 'printf old >b.csv && (trap "" XFSZ; ulimit -f 1;
        gpuprim bench reduce --backend cpu --sizes 1000,2000 --max-log2 -1 --runs 2 --csv b.csv --json b.json >/dev/null);
        echo "[exit $?]"; cat b.csv; echo; ls b.json 2>&1; leftovers'
    golden out_replaces_existing 'gen --dtype i8 --n 3 --dist ascending -o r.txt && gen --dtype i8 --n 2 --dist descending -o r.txt && cat r.txt'
}

# ------------------------------------------------------- transpose cases

# png TYPE WIDTH HEIGHT FILE [interlace]: a PNG fixture (png_fixture.c; its
# path comes from GP_PNG_FIXTURE, set by CMake when libpng was found).
png() { "$GP_PNG_FIXTURE" "$@"; }
have_png() { [ -n "${GP_PNG_FIXTURE:-}" ] && [ -x "$GP_PNG_FIXTURE" ]; }
# npyshow FILE OD_TYPE: a .npy's header dict, then its data through od.
npyshow() {
    local hl
    hl=$(($(od -An -j8 -N2 -tu2 "$1")))
    dd if="$1" bs=1 skip=10 count="$hl" 2>/dev/null | sed 's/ *$//'
    tail -c +$((11 + hl)) "$1" | od -An -v -w65536 -t "$2" | sed 's/  */ /g; s/^ //'
}

transpose_fixtures() {
    npy m23_i4.npy 1 0 "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }"$'\n' "$(le 4 1 2 3 4 5 6)"
    npy m34_u1.npy 1 0 "{'descr': '|u1', 'fortran_order': False, 'shape': (3, 4), }"$'\n' \
        "$(le 1 1 2 3 4 5 6 7 8 9 10 11 12)"
    npy m32_be.npy 1 0 "{'descr': '>i2', 'fortran_order': False, 'shape': (3, 2), }"$'\n' \
        "$(le 1 0 1 0 2 0 3 0 4 0 5 0 6)"
    npy m22_c16.npy 1 0 "{'descr': '<c16', 'fortran_order': False, 'shape': (2, 2), }"$'\n' \
        "$(le 8 1 2 3 4 5 6 7 8)"
    npy m23_s3.npy 1 0 "{'descr': '|S3', 'fortran_order': False, 'shape': (2, 3), }"$'\n' 'abcdefghijklmnopqr'
    npy m32_u2.npy 1 0 "{'descr': '<U2', 'fortran_order': False, 'shape': (3, 2), }"$'\n' \
        "$(le 4 97 98 99 100 101 102 103 104 105 106 107 108)"
    npy m14_u8.npy 1 0 "{'descr': '<u8', 'fortran_order': False, 'shape': (1, 4), }"$'\n' "$(le 8 1 2 3 4)"
    npy m41_u8.npy 1 0 "{'descr': '<u8', 'fortran_order': False, 'shape': (4, 1), }"$'\n' "$(le 8 1 2 3 4)"
    npy m04_f8.npy 1 0 "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 4), }"$'\n' ""
    npy tp_1d.npy 1 0 "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }"$'\n' "$(le 4 1 2 3)"
    npy tp_3d.npy 1 0 "{'descr': '|u1', 'fortran_order': False, 'shape': (2, 2, 2), }"$'\n' "$(le 1 1 2 3 4 5 6 7 8)"
    npy tp_fortran.npy 1 0 "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 2), }"$'\n' "$(le 4 1 2 3 4)"
    npy tp_object.npy 1 0 "{'descr': '|O', 'fortran_order': False, 'shape': (1, 1), }"$'\n' "$(le 8 0)"
    npy tp_trunc.npy 1 0 "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }"$'\n' "$(le 4 1 2)"
    printf 'hello\n' >tp_text.txt
}

transpose_cases() {
    transpose_fixtures

    # .npy: values shown, every flag, item sizes 1 to 16 and odd ones (planes).
    exact tp_npy_i4 'transpose m23_i4.npy -o t.npy && npyshow t.npy d4'
    exact tp_npy_rotations 'for r in 0 90 180 270; do transpose --rotate $r m34_u1.npy -o r.npy && npyshow r.npy u1; done'
    exact tp_npy_flips 'for f in h v; do transpose --flip $f m34_u1.npy -o f.npy && npyshow f.npy u1; done;
        transpose --rotate 90 --flip h m34_u1.npy -o rf.npy && transpose m34_u1.npy -o t.npy && cmp rf.npy t.npy && echo "rotate 90 + flip h = transpose"'
    exact tp_npy_big_endian_kept 'transpose m32_be.npy -o t.npy && npyshow t.npy x1'
    exact tp_npy_complex 'transpose m22_c16.npy -o t.npy && npyshow t.npy u8 && transpose t.npy -o tt.npy && npyshow tt.npy u8'
    exact tp_npy_strings_by_planes 'transpose m23_s3.npy -o s.npy && npyshow s.npy c && transpose --rotate 90 m32_u2.npy -o u.npy && npyshow u.npy u4'
    exact tp_npy_vectors 'transpose m14_u8.npy -o c.npy && npyshow c.npy u8 && transpose m41_u8.npy -o r.npy && npyshow r.npy u8 &&
        transpose --rotate 270 m14_u8.npy -o c2.npy && npyshow c2.npy u8'
    exact tp_npy_empty 'transpose m04_f8.npy -o e.npy && npyshow e.npy x1'
    exact tp_npy_stdin 'cat m23_i4.npy | transpose - -o s.npy && npyshow s.npy d4'
    golden tp_npy_json 'transpose --json --rotate 90 --flip v m23_s3.npy -o j.npy'

    # PNG: round trips bit for bit, rotation algebra, odd pixel sizes by planes.
    if have_png; then
        exact tp_png_roundtrip 'for t in gray8 gray16 ga8 ga16 rgb8 rgb16 rgba8 rgba16; do
            png $t 37 23 a.png && transpose a.png -o b.png && transpose b.png -o c.png && cmp a.png c.png && echo "$t: twice gives the input back"; done'
        exact tp_png_shapes 'for s in "1 1" "1 50" "50 1" "129 67" "300 257"; do
            png rgb8 $s a.png && transpose a.png -o b.png && transpose b.png -o c.png && cmp a.png c.png && echo "$s: ok"; done'
        exact tp_png_rotation_algebra 'for t in rgb8 ga16 rgba8; do png $t 41 29 a.png &&
            transpose --rotate 0 a.png -o r0.png && cmp a.png r0.png &&
            transpose --rotate 90 a.png -o r90.png && transpose --rotate 90 r90.png -o r180b.png &&
            transpose --rotate 180 a.png -o r180.png && cmp r180.png r180b.png &&
            transpose --rotate 270 a.png -o r270.png && transpose --rotate 90 r270.png -o r360.png && cmp r360.png a.png &&
            transpose --flip h a.png -o fh.png && transpose --flip v fh.png -o fhv.png && cmp fhv.png r180.png &&
            transpose --rotate 90 --flip h a.png -o t1.png && transpose a.png -o t2.png && cmp t1.png t2.png &&
            echo "$t: rotations and flips agree"; done'
        exact tp_png_interlaced 'png rgb16 40 30 i.png interlace && png rgb16 40 30 n.png && transpose i.png -o t.png &&
            transpose t.png -o tt.png && cmp tt.png n.png && echo "interlaced in, plain out, same pixels"'
        exact tp_png_expanded 'for t in palette gray1; do png $t 19 7 a.png && transpose a.png -o b.png && transpose b.png -o c.png &&
            transpose c.png -o d.png && cmp b.png d.png && echo "$t: expanded once, then round trips"; done'
        golden tp_png_json 'png rgb16 5 3 a.png && transpose --json --rotate 90 a.png -o b.png'
        golden tp_err_truncated_png 'png rgb8 20 20 a.png && head -c 100 a.png >cut.png && transpose cut.png -o x.png;
            echo "[exit $?]"; leftovers'
    else
        local c
        for c in tp_png_roundtrip tp_png_shapes tp_png_rotation_algebra tp_png_interlaced tp_png_expanded tp_png_json \
            tp_err_truncated_png; do
            skip "$c (no PNG fixture writer: libpng was not found at build time)"
        done
    fi

    # A '[...]' suffix only on datetimes: '<i4[3]' and '|S5[2]' refused, '<M8[ns]' and '<m8' kept.
    npy tp_bracket_i4.npy 1 0 "{'descr': '<i4[3]', 'fortran_order': False, 'shape': (2, 3), }"$'\n' "$(le 4 1 2 3 4 5 6)"
    npy tp_bracket_s5.npy 1 0 "{'descr': '|S5[2]', 'fortran_order': False, 'shape': (1, 1), }"$'\n' 'abcde'
    npy tp_m8_open.npy 1 0 "{'descr': '<M8[ns', 'fortran_order': False, 'shape': (1, 1), }"$'\n' "$(le 8 1)"
    npy tp_m8_ns.npy 1 0 "{'descr': '<M8[ns]', 'fortran_order': False, 'shape': (2, 3), }"$'\n' "$(le 8 1 2 3 4 5 6)"
    npy tp_m8_generic.npy 1 0 "{'descr': '<m8', 'fortran_order': False, 'shape': (2, 3), }"$'\n' "$(le 8 1 2 3 4 5 6)"
    golden tp_err_bracket_descr 'transpose tp_bracket_i4.npy -o bx.npy; transpose tp_bracket_s5.npy -o bx.npy;
        transpose tp_m8_open.npy -o bx.npy; echo "[exit $?]"; test -e bx.npy || echo "bx.npy not written"'
    exact tp_npy_datetime 'transpose tp_m8_ns.npy -o t.npy && npyshow t.npy u8 && transpose tp_m8_generic.npy -o g.npy && npyshow g.npy u8'
    # Errors.
    golden tp_err_not_2d 'transpose tp_1d.npy -o x.npy; transpose tp_3d.npy -o x.npy'
    golden tp_err_unsupported 'transpose tp_fortran.npy -o x.npy; transpose tp_object.npy -o x.npy; transpose tp_trunc.npy -o x.npy'
    golden tp_err_not_an_image 'transpose tp_text.txt -o x.npy; transpose no_such_file.png -o x.png; transpose a_directory -o x.npy'
    golden tp_err_args 'transpose m23_i4.npy; echo "[exit $?]"; transpose --rotate 45 m23_i4.npy -o x.npy; echo "[exit $?]";
        transpose --flip x m23_i4.npy -o x.npy; echo "[exit $?]"; transpose m23_i4.npy -o x.png; echo "[exit $?]";
        transpose m23_i4.npy m34_u1.npy -o x.npy; echo "[exit $?]"; leftovers'
}

# -------------------------------------------------------------- smoke cases

smoke_cases() {
    check help_exits_0 0 '^usage: gpuprim VERB' 'gpuprim --help'
    check help_verb 0 '^usage: gpuprim reduce ' 'gpuprim help reduce'
    local v
    for v in info gen reduce count histogram transpose demo; do
        check "help_$v" 0 "^usage: gpuprim $v" "gpuprim $v --help"
    done
    check help_bench 0 '.' 'gpuprim bench --help'
    # The cpu filters' checks, the threaded path included (70000 on 4 threads).
    check bench_filter_cpu 0 '^  filter-ascending +ok' \
        'OMP_NUM_THREADS=4 gpuprim bench filter,filter-ascending --backend cpu --sizes 1000,70000 --max-log2 -1 --runs 2'
    # The cpu scan, selections and partitions checked against the serial loops.
    check bench_scan_select_cpu 0 '^  partition-if +ok' \
        'OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive gpuprim bench scan,select,select-if,partition,partition-if --backend cpu --dtype i32,f32 --sizes 7,70000 --max-log2 -1 --runs 2'
    # A list past the parser's 1023 characters is refused, not cut (a cut
    # item could read as another size).
    check bench_sizes_too_long 2 '^gpuprim bench: --sizes: the list is longer than 1023 characters' \
        'gpuprim bench reduce --backend cpu --sizes "$(printf "00000000000000001024,%.0s" $(seq 60))1024"'
    check ladder_size_too_large 2 '^gpuprim ladder: --sizes: 2\^41 is above 2\^40, the most the ladders take' \
        'gpuprim ladder reduce --sizes 1000,2^41'
    check ladder_sizes_too_long 2 '^gpuprim ladder: --sizes: the list is longer than 1023 characters' \
        'gpuprim ladder reduce --sizes "$(printf "00000000000000001024,%.0s" $(seq 60))1024"'
    # Sizes and shapes past GP_MAX_ELEMENTS are refused; below it, a case
    # whose bytes pass what the bench allocates says so (its byte counts once
    # wrapped past 2^64 and overran a small buffer: exit 139).
    check bench_size_above_max 2 '^gpuprim bench: --sizes: 2\^62 is above GP_MAX_ELEMENTS' \
        'gpuprim bench reduce --backend cpu --max-log2 -1 --sizes 2^62 --dtype i32 --runs 1 --warmup 0'
    check bench_shape_above_max 2 '^gpuprim bench: --shapes: 2147483648x1073741824 has 2\^61 items, above GP_MAX_ELEMENTS' \
        'gpuprim bench transpose --backend cpu --shapes 2147483648x1073741824 --dtype f64 --runs 1'
    check bench_size_too_many_bytes 0 '^ +2\^59 .*skipped: needs 4398046511104 MiB of host memory, more than the bench allocates' \
        'gpuprim bench scan --backend cpu --max-log2 -1 --sizes 2^59 --dtype f64 --runs 1 --warmup 0'
    check bench_shape_too_many_bytes 0 'skipped: needs 17592186028032 MiB of host memory' \
        'gpuprim bench transpose --backend cpu --shapes 1073741824x1073741823 --dtype c16 --runs 1 --warmup 0'
    # The reason a context was refused, not the backend's description.
    check bench_cpu_bad_device 2 '^gpuprim bench: gp_ctx_create\(cpu, device 3\) failed: INVALID_DEVICE: the cpu backend has only device 0, not 3$' \
        'gpuprim bench reduce --backend cpu --device 3'
    check bench_cuda_only_case 2 '^gpuprim bench: count is a CUDA-only case' 'gpuprim bench count --backend cpu'
    # An option that no case named reads is refused, not dropped.
    check bench_op_unread 2 '^gpuprim bench: --op: none of filter,transpose takes an op' \
        'gpuprim bench filter,transpose --backend cpu --op max'
    check bench_shapes_unread 2 '^gpuprim bench: --shapes: reduce is not 2-D' \
        'gpuprim bench reduce --backend cpu --shapes 4x4'
    check bench_sizes_unread 2 '^gpuprim bench: --sizes, --min-log2, --max-log2: transpose takes --shapes instead' \
        'gpuprim bench transpose --backend cpu --min-log2 12'
    # Options given twice and empty list items are refused, as elsewhere.
    check bench_repeated_option 2 '^gpuprim bench: option --runs is given more than once' \
        'gpuprim bench reduce --backend cpu --sizes 1000 --max-log2 -1 --runs 1 --runs 2'
    check ladder_repeated_flag 2 '^gpuprim ladder: option --check is given more than once' 'gpuprim ladder reduce --check --check'
    check bench_empty_item 2 '^gpuprim bench: --sizes: an empty item' \
        'gpuprim bench reduce --backend cpu --max-log2 -1 --sizes 1000,,2000 --runs 1'
    check bench_empty_case_item 2 '^gpuprim bench: the list of cases has an empty item' 'gpuprim bench reduce,,scan --backend cpu'
    # A case without an op has none in the files, not the first --op item.
    check bench_op_column_empty 0 '^transpose,cpu,,f32,gpuprim,subject,16,.* "op": null, "dtype": "f32", "impl": "gpuprim"' \
        'gpuprim bench reduce,transpose --backend cpu --op max --sizes 1000 --max-log2 -1 --shapes 4x4 --runs 1 --dtype f32 \
        --csv o.csv --json o.json >/dev/null && grep "^transpose,cpu,.*,subject," o.csv | tr "\n" " " &&
        grep -o "\"case\": \"transpose\", \"backend\": \"cpu\", \"op\": [^,]*, \"dtype\": \"f32\", \"impl\": \"gpuprim\"" o.json'
    # The table goes to standard output: no --csv, --json or --plot there.
    check bench_csv_on_stdout 2 '^gpuprim bench: --csv - writes to standard output, where the table goes' \
        'gpuprim bench reduce --backend cpu --sizes 1000 --max-log2 -1 --runs 1 --csv -'
    check ladder_json_on_stdout 2 '^gpuprim ladder: --json /dev/stdout writes to standard output, where the table goes' \
        'gpuprim ladder reduce --json /dev/stdout'
    check bench_commit_env 0 ', commit abc123$' \
        'GPUPRIM_COMMIT=abc123 gpuprim bench reduce --backend cpu --sizes 1000 --max-log2 -1 --runs 1 --dtype i32'
    check version 0 '^gpuprim [0-9]+\.[0-9]+\.[0-9]+ \(backends built: cpu' 'gpuprim --version'
    check info_exits_0 0 '^  cpu   usable' 'gpuprim info'
    check info_cpu_bandwidth 0 '^        copy bandwidth [0-9.]+ GB/s' 'gpuprim info --backend cpu'
    check info_json 0 '^\{"version": "[0-9.]+", "backends": \[\{"name": "cpu", "built": true, "usable": true' \
        'gpuprim info --json --no-bandwidth'
    if cuda_usable; then
        check info_gpu_lines 0 '^  measured copy bandwidth [0-9.]+ GB/s \([0-9.]+% of theoretical\)' 'gpuprim info'
        check demo_runs_all_backends 0 '^cuda +f32 ' 'gpuprim demo --n 2^20 --runs 3'
    else
        check info_explains_cuda 0 '^  cuda  (not built into this library|built, not usable here: .+)$' \
            'gpuprim info --no-bandwidth'
        check demo_says_cpu_only 0 '^CUDA backend: not usable here \(.+\); running the CPU backend only$' \
            'gpuprim demo --n 2^16 --runs 3'
    fi
    check demo_i32_exact 0 '^cpu +i32 .*\(exact: the serial loop agrees\)$' 'gpuprim demo --backend cpu --n 2^16 --runs 3'
    check demo_f32_checked 0 '^cpu +f32 .*\(checked: ' 'gpuprim demo --backend cpu --n 100003 --runs 3'
    check demo_json 0 '"passed": true\}$' 'gpuprim demo --backend cpu --n 1000 --runs 2 --json'
}

# ----------------------------------------------------------- CUDA reruns

# The exact cases (the golden section's list, its fixtures made, nothing
# else run) on CUDA; where it is not usable, each listed as skipped and
# exit 77, or failed under GPUPRIM_REQUIRE_CUDA=1.
cuda_reruns() {
    local reason i
    collecting=1
    golden_cases >/dev/null
    transpose_cases >/dev/null
    collecting=0
    # A list emptied by a change to the sections would pass, testing nothing.
    if [ "${#exact_names[@]}" -eq 0 ]; then
        fail "no exact case was collected for the CUDA reruns"
        return
    fi
    # 'info' failing says nothing of CUDA: that is a failure, not a skip.
    if ! "${RUN[@]}" info --no-bandwidth >info.txt 2>&1; then
        fail "'gpuprim info' failed, so whether CUDA is usable is unknown: $(head -3 info.txt)"
        return
    fi
    if cuda_usable; then
        for i in "${!exact_names[@]}"; do
            run_snippet cuda "${exact_snippets[$i]}"
            compare "${exact_names[$i]} [cuda]" "${exact_names[$i]}"
        done
        return
    fi
    reason=$("${RUN[@]}" info --no-bandwidth | sed -n 's/^  cuda  //p')
    [ -n "$reason" ] || reason="unknown ('gpuprim info' printed no cuda line)"
    for i in "${!exact_names[@]}"; do
        if [ "${GPUPRIM_REQUIRE_CUDA:-0}" = 1 ]; then
            fail "${exact_names[$i]} [cuda]: GPUPRIM_REQUIRE_CUDA=1 but the CUDA backend is $reason"
        else
            skip "${exact_names[$i]} [cuda] (CUDA backend: $reason)"
        fi
    done
    if [ "$failed" -eq 0 ]; then
        echo "$skipped skipped: the CUDA backend is not usable here"
        exit 77
    fi
}

case $SECTION in
golden)
    golden_cases
    transpose_cases
    ;;
golden_cuda) cuda_reruns ;;
smoke) smoke_cases ;;
*)
    echo "unknown section '$SECTION' (golden, golden_cuda or smoke)" >&2
    exit 2
    ;;
esac

echo "$skipped skipped (not counted as passed)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
