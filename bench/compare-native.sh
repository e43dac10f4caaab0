#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# acceld against the native TensorFlow Lite yardstick, side by side:
#
#   bench/compare-native.sh [--build DIR] [--lib PATH] [--shared DIR]
#       [--models NAME,NAME,...] [--threads "1 2"] [--min_secs S]
#       [--num_runs N] [--warmup_runs N] [--repeat N] [--no-reference]
#       [--socket PATH [--daemon_runs N]] [--log FILE]
#
# For each model (default: the vision-sized float and quantized models of
# <shared>/models/manifest.json listed below) and each thread count, runs
#   accel-benchmark --use_xnnpack=false      (acceld reference driver)
#   accel-benchmark --use_xnnpack=true       (acceld XNNPACK driver)
#   tflite-native   --use_xnnpack=false      (TFLite 2.9 builtin kernels)
#   tflite-native   --use_xnnpack=true       (TFLite 2.9 + XNNPACK delegate)
#   tflite-native   --use_xnnpack=true --xnnpack_quantized=...
#                                            (integer models only: the
#                                             delegate's QS8/QU8 flags)
#   serving-bench latency --settings XNNPACK (only with --socket PATH: the
#                                             same model through a running
#                                             acceld, shared-memory tensors)
# all on the model's golden inputs, and prints a markdown table of median
# latencies with the ratios acceld XNNPACK / native XNNPACK (the yardstick:
# the faster of the delegate's configurations) and acceld XNNPACK / best
# native (the fastest native configuration that ran, builtin included). Each configuration runs --repeat
# times, interleaved with the others, and the lowest median is kept, which
# is the one least disturbed by other load on the machine. tflite-native
# also checks its first inference against the goldens (column "native
# golden").
#
# The table goes to stdout; progress, `uptime` before and after, and every
# command (with its JSON result) go to stderr and to --log FILE if given.
#
# Defaults: --build <source>/build, --lib from bench/fetch-native-tflite.sh
# (downloads with npm on first use), --shared $ACCELD_SHARED_DIR or
# <source>/../shared, --threads "1 2", --min_secs 1, --num_runs 3,
# --warmup_runs 1, --repeat 1.
#
# A benchmark aid only: never run by the build, CI or the tests.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
build=$src/build
lib=
shared=${ACCELD_SHARED_DIR:-$src/../shared}
models="mobilenet_v1_0.25_224_float,mobilenet_v1_0.25_224_quant,mobilenet_v2_1.0_224_quant,\
tf2_mobilenet_v2_1.0_224_ptq_int8,deeplabv3_257_float,blazeface_front_float,facemesh_landmark_float,\
mp_hand_landmark_full,style_transfer_f16_384,ssd_mobilenet_v1_coco_quant"
threads="1 2"
min_secs=1
num_runs=3
warmup_runs=1
repeat=1
reference=1
log=
socket=
daemon_runs=20

die() {
        echo "compare-native: $*" >&2
        exit 2
}

while [ $# -gt 0 ]; do
        case "$1" in
        --build) build=$2; shift ;;
        --lib) lib=$2; shift ;;
        --shared) shared=$2; shift ;;
        --models) models=$2; shift ;;
        --threads) threads=$2; shift ;;
        --min_secs) min_secs=$2; shift ;;
        --num_runs) num_runs=$2; shift ;;
        --warmup_runs) warmup_runs=$2; shift ;;
        --repeat) repeat=$2; shift ;;
        --no-reference) reference=0 ;;
        --socket) socket=$2; shift ;;
        --daemon_runs) daemon_runs=$2; shift ;;
        --log) log=$2; shift ;;
        -h|--help) sed -n '3,/^set -eu/p' "$0" | sed 's/^# \{0,1\}//;/^set -eu/d'; exit 0 ;;
        *) die "unknown argument '$1' (see --help)" ;;
        esac
        shift
done

command -v jq >/dev/null 2>&1 || die "jq is needed to read the manifest and the JSON results"
bench=$build/bench
[ -x "$bench/accel-benchmark" ] || die "$bench/accel-benchmark not built (ninja -C $build bench/accel-benchmark)"
[ -x "$bench/tflite-native" ] || die "$bench/tflite-native not built (ninja -C $build bench/tflite-native)"
[ -n "$lib" ] || lib=$("$here/fetch-native-tflite.sh")
[ -f "$lib" ] || die "no native library at $lib"
if [ -n "$socket" ]; then
        [ -x "$bench/serving-bench" ] || die "$bench/serving-bench not built (needed by --socket)"
        [ -S "$socket" ] || die "no acceld socket at $socket"
fi
manifest=$shared/models/manifest.json
[ -f "$manifest" ] || die "no manifest at $manifest (set --shared or ACCELD_SHARED_DIR)"
shared=$(cd "$shared" && pwd)
manifest=$shared/models/manifest.json

[ -z "$log" ] || : >"$log"
say() {
        echo "$*" >&2
        [ -z "$log" ] || echo "$*" >>"$log"
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run KEY CMD...: run once, remember the lowest median under $tmp/KEY and
# the last JSON result under $tmp/KEY.json; a failure is kept as "rc=N".
run() {
        key=$1
        shift
        say "\$ $*"
        set +e
        "$@" >"$tmp/out" 2>"$tmp/err"
        rc=$?
        set -e
        json=$(grep '^{' "$tmp/out" | tail -n 1)
        if [ $rc -ne 0 ] && [ $rc -ne 4 ] || [ -z "$json" ]; then
                say "  -> exit $rc: $(grep -v '^INFO:' "$tmp/err" | tail -n 2 | tr '\n' ' ')"
                [ -f "$tmp/$key" ] || echo "rc=$rc" >"$tmp/$key"
                return 0
        fi
        say "  -> $json"
        echo "$json" >"$tmp/$key.json"
        med=$(echo "$json" | jq '.inference_us.median')
        old=$(cat "$tmp/$key" 2>/dev/null || echo)
        case "$old" in
        ''|rc=*) echo "$med" >"$tmp/$key" ;;
        *) if [ "$med" -lt "$old" ]; then echo "$med" >"$tmp/$key"; fi ;;
        esac
}

# run_daemon KEY THREADS GRAPH: the daemon path (shared-memory tensors) with
# the XNNPACK settings; keeps the lowest median like run().
run_daemon() {
        key=$1
        settings="{\"delegate\": \"XNNPACK\", \"xnnpack_settings\": {\"num_threads\": $2}, \"cpu_settings\": {\"num_threads\": $2}}"
        set -- "$bench/serving-bench" latency "$3" --socket "$socket" --settings "$settings" --runs "$daemon_runs"
        say "\$ $1 $2 $3 $4 $5 $6 '$7' $8 $9"
        set +e
        "$@" >"$tmp/out" 2>"$tmp/err"
        rc=$?
        set -e
        med=$(jq -s '.[0].median_us.daemon_shm // empty' "$tmp/out" 2>/dev/null || :)
        if [ $rc -ne 0 ] || ! isnum "$med"; then
                say "  -> exit $rc: $(tail -n 2 "$tmp/err" | tr '\n' ' ')"
                [ -f "$tmp/$key" ] || echo "rc=$rc" >"$tmp/$key"
                return 0
        fi
        say "  -> $(tr -d '\n' <"$tmp/out")"
        old=$(cat "$tmp/$key" 2>/dev/null || echo)
        if ! isnum "$old" || [ "$med" -lt "$old" ]; then
                echo "$med" >"$tmp/$key"
        fi
}

ms() {
        case "$1" in
        ''|rc=3) echo "n/a" ;;
        rc=*) echo "failed ($1)" ;;
        *) awk -v u="$1" 'BEGIN { printf "%.2f", u / 1000 }' ;;
        esac
}

isnum() {
        case "$1" in
        ''|*[!0-9]*) return 1 ;;
        *) return 0 ;;
        esac
}

ratio() {
        if isnum "$1" && isnum "$2"; then
                awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'
        else
                echo n/a
        fi
}

say "# compare-native: $(date -u '+%Y-%m-%dT%H:%M:%SZ') on $(uname -n), $(nproc) CPUs"
say "# library: $lib, sha256 $(sha256sum "$lib" | cut -d' ' -f1)"
say "# uptime before: $(uptime)"

rows=
for name in $(echo "$models" | tr ',' ' '); do
        entry=$(jq -c --arg n "$name" '.models[] | select(.name == $n)' "$manifest")
        if [ -z "$entry" ]; then
                say "# $name: not in the manifest, skipped"
                continue
        fi
        graph=$shared/models/$(echo "$entry" | jq -r '.file')
        golden=$shared/models/golden/$name
        if [ "$(echo "$entry" | jq -r '.runnable')" != true ] || [ ! -f "$graph" ]; then
                say "# $name: not runnable or file absent ($graph), skipped"
                continue
        fi
        # Both programs get the golden inputs, by tensor name.
        values=$(echo "$entry" | jq -r --arg g "$golden" \
                '[.inputs | to_entries[] | "\(.value.name):\($g)/input_\(.key).bin"] | join(",")')
        integer=$(echo "$entry" | jq -r '[.inputs[].type | select(. != "float32")] | length')
        for t in $threads; do
                common="--graph=$graph --num_threads=$t --warmup_runs=$warmup_runs --num_runs=$num_runs --min_secs=$min_secs --json"
                k=$(echo "$name-$t" | tr -c 'A-Za-z0-9_.\n-' '_')
                r=1
                while [ $r -le "$repeat" ]; do
                        say "# $name, $t thread(s), repeat $r/$repeat"
                        if [ $reference -eq 1 ]; then
                                # shellcheck disable=SC2086
                                run "$k.aref" "$bench/accel-benchmark" $common --use_xnnpack=false \
                                        "--input_layer_value_files=$values"
                        fi
                        # shellcheck disable=SC2086
                        run "$k.axnn" "$bench/accel-benchmark" $common --use_xnnpack=true \
                                "--input_layer_value_files=$values"
                        [ -z "$socket" ] || run_daemon "$k.dmn" "$t" "$graph"
                        # shellcheck disable=SC2086
                        run "$k.noff" "$bench/tflite-native" "--lib=$lib" $common --use_xnnpack=false \
                                "--check-golden=$golden"
                        # shellcheck disable=SC2086
                        run "$k.nxnn" "$bench/tflite-native" "--lib=$lib" $common --use_xnnpack=true \
                                "--check-golden=$golden"
                        if [ "$integer" -gt 0 ]; then
                                # Both integer flags first; this release refuses some graphs
                                # with them, then each flag on its own.
                                for q in true qs8 qu8; do
                                        rm -f "$tmp/$k.nq.try"
                                        # shellcheck disable=SC2086
                                        run "$k.nq.try" "$bench/tflite-native" "--lib=$lib" $common \
                                                --use_xnnpack=true "--xnnpack_quantized=$q" "--check-golden=$golden"
                                        v=$(cat "$tmp/$k.nq.try")
                                        if isnum "$v"; then
                                                old=$(cat "$tmp/$k.nq" 2>/dev/null || echo)
                                                if ! isnum "$old" || [ "$v" -lt "$old" ]; then
                                                        echo "$v" >"$tmp/$k.nq"
                                                        jq -r '.native.xnnpack' "$tmp/$k.nq.try.json" >"$tmp/$k.nq.mode"
                                                fi
                                                break
                                        fi
                                done
                                [ -f "$tmp/$k.nq" ] || echo "rc=1" >"$tmp/$k.nq"
                        fi
                        r=$((r + 1))
                done
                rows="$rows $k:$name:$t"
        done
done

say "# uptime after: $(uptime)"
for f in "$tmp"/*.noff.json; do
        [ -f "$f" ] || continue
        say "# library version (TfLiteVersion): $(jq -r '.native.version' "$f")"
        break
done

dhead=
dsep=
if [ -n "$socket" ]; then
        dhead=" acceld daemon XNNPACK (shm) | daemon / native XNNPACK |"
        dsep="---:|---:|"
fi
echo "| model | threads | acceld reference | acceld XNNPACK | acceld XNNPACK partitions (driver: nodes in partitions) | native builtin | native XNNPACK | native XNNPACK int8 flags | acceld XNNPACK / native XNNPACK | best native | acceld XNNPACK / best native |$dhead native golden (builtin/XNNPACK) |"
echo "|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|$dsep---|"
for row in $rows; do
        k=${row%%:*}
        rest=${row#*:}
        name=${rest%:*}
        t=${rest##*:}
        get() { cat "$tmp/$k.$1" 2>/dev/null || echo; }
        aref=$(get aref)
        axnn=$(get axnn)
        noff=$(get noff)
        nxnn=$(get nxnn)
        nq=$(get nq)
        parts=n/a
        [ ! -f "$tmp/$k.axnn.json" ] ||
                parts=$(jq -r '.partitions | group_by(.driver) | map("\(.[0].driver) \(map(.nodes) | add) in \(length)")
                        | join(", ")' "$tmp/$k.axnn.json")
        # The rule's yardstick: native with its XNNPACK delegate, in the
        # faster of its configurations (float only, or with integer flags).
        yard=$nxnn
        if isnum "$nq" && { ! isnum "$yard" || [ "$nq" -lt "$yard" ]; }; then
                yard=$nq
        fi
        best=
        bestname=
        for c in noff:builtin nxnn:XNNPACK nq:int8; do
                v=$(get "${c%%:*}")
                if isnum "$v" && { [ -z "$best" ] || [ "$v" -lt "$best" ]; }; then
                        best=$v
                        bestname=${c#*:}
                fi
        done
        [ "$bestname" != int8 ] || bestname="XNNPACK $(sed 's/^delegate+//' "$tmp/$k.nq.mode" 2>/dev/null)"
        goldens=
        for c in noff nxnn; do
                [ -f "$tmp/$k.$c.json" ] || continue
                goldens="$goldens$(jq -r '.native.golden | if . == null then "?" elif .pass then
                        (if .bit_exact then "exact" else "pass" end) else "FAIL" end' "$tmp/$k.$c.json")/"
        done
        nqcell=$(ms "$nq")
        [ -z "$nq" ] || [ ! -f "$tmp/$k.nq.mode" ] || nqcell="$nqcell ($(sed 's/^delegate+//' "$tmp/$k.nq.mode"))"
        [ -n "$nq" ] || nqcell="-"
        [ $reference -eq 1 ] || aref=
        dcells=
        if [ -n "$socket" ]; then
                dmn=$(get dmn)
                dcells=" $(ms "$dmn") | $(ratio "$dmn" "$yard") |"
        fi
        echo "| $name | $t | $(ms "$aref") | $(ms "$axnn") | $parts | $(ms "$noff") | $(ms "$nxnn") | $nqcell |" \
             "$(ratio "$axnn" "$yard") | $(ms "$best") ($bestname) | $(ratio "$axnn" "$best") |$dcells ${goldens%/} |"
done
