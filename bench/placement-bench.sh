#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# Placement (docs/architecture.md, "Placement") before and after, for the
# shared float models of microseconds (issue 27):
#
#   bench/placement-bench.sh --socket PATH [--build DIR] [--lib PATH]
#       [--shared DIR] [--models NAME,...] [--rounds N] [--runs N]
#
# Needs a running acceld on PATH (its mini-benchmark is run for each model
# first when acceld has no choice yet). Then --rounds times, for each
# model, in an order that rotates from round to round, each under
# `chrt -f 50` when the caller may (BRIEF: real-time priority preempts the
# builds of a shared machine):
#   tflite-native --use_xnnpack=true --num_threads=1   native, 1 thread
#   serving-bench selected, ACCEL_PLACEMENT=daemon      acceld's choice, served (before)
#   serving-bench selected                              acceld's choice and placement (after)
# with the model's golden inputs, 5 warm-up and --runs timed invokes.
# Prints every round's median and mean (microseconds; serving-bench's
# placement too), then per model and configuration the median of the
# round medians and of the round means, with their ranges.
# Defaults: --models magic_wand,hello_world_float, --rounds 5, --runs 2000.
# A benchmark aid only: never run by the build, CI or the tests.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
build=$src/build
lib=/work/main/bench/out/tfjs-tflite-node-0.0.2/cc_deps/linux_amd64/libtensorflowlite_c.so
shared=${ACCELD_SHARED_DIR:-$src/../shared}
models=magic_wand,hello_world_float
rounds=5
runs=2000
socket=

while [ $# -gt 0 ]; do
        case "$1" in
        --build) build=$2; shift ;;
        --lib) lib=$2; shift ;;
        --shared) shared=$2; shift ;;
        --models) models=$2; shift ;;
        --rounds) rounds=$2; shift ;;
        --runs) runs=$2; shift ;;
        --socket) socket=$2; shift ;;
        -h|--help) sed -n '3,/^set -eu/p' "$0" | sed 's/^# \{0,1\}//;/^set -eu/d'; exit 0 ;;
        *) echo "placement-bench: unknown argument '$1'" >&2; exit 2 ;;
        esac
        shift
done
[ -n "$socket" ] || { echo "placement-bench: --socket is required" >&2; exit 2; }
command -v jq >/dev/null || { echo "placement-bench: needs jq" >&2; exit 2; }
manifest=$shared/models/manifest.json
rt=
chrt -f 50 true 2>/dev/null && rt="chrt -f 50"
accelctl="$build/client/accelctl --socket $socket --json"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

file_of() { jq -r --arg n "$1" '.models[] | select(.name == $n) | .file' "$manifest"; }
files_of() {
        jq -r --arg n "$1" --arg k "$2" '.models[] | select(.name == $n) | .[$k][].file' "$manifest" |
                while read -r f; do printf ' --%s %s' "$3" "$shared/models/$f"; done
}

for m in $(echo "$models" | tr ',' ' '); do
        path=$shared/models/$(file_of "$m")
        if ! $accelctl best "$path" >/dev/null 2>&1; then
                # shellcheck disable=SC2046
                $accelctl bench "$path" $(files_of "$m" inputs input) $(files_of "$m" outputs output) >/dev/null
        fi
        echo "# $m: $($accelctl best "$path" | jq -r .reason)"
done

native() {
        $rt "$build/bench/tflite-native" --lib="$lib" --graph="$shared/models/$(file_of "$1")" --num_threads=1 \
                --use_xnnpack=true --warmup_runs=5 --num_runs="$runs" --min_secs=0 --json 2>/dev/null |
                grep '^{' | tail -n 1 | jq -r '"\(.inference_us.median) \(.inference_us.avg)"'
}
acceld() {
        # shellcheck disable=SC2046
        env ACCEL_PLACEMENT="$2" $rt "$build/bench/serving-bench" selected "$shared/models/$(file_of "$1")" \
                --socket "$socket" --runs "$runs" $(files_of "$1" inputs input) >"$tmp/out"
        jq -r '"\(.round_trip_us.median) \(.round_trip_us.avg) \(.placement)"' "$tmp/out"
}

r=1
while [ "$r" -le "$rounds" ]; do
        for m in $(echo "$models" | tr ',' ' '); do
                case $(( (r - 1) % 3 )) in
                0) order="native served placed" ;;
                1) order="served placed native" ;;
                *) order="placed native served" ;;
                esac
                for c in $order; do
                        case $c in
                        native) v=$(native "$m") ;;
                        served) v=$(acceld "$m" daemon) ;;
                        placed) v=$(acceld "$m" auto) ;;
                        esac
                        echo "round $r $m $c $v"
                        echo "$v" | cut -d' ' -f1 >>"$tmp/$m.$c"
                        echo "$v" | cut -d' ' -f2 >>"$tmp/$m.$c.avg"
                done
        done
        r=$((r + 1))
done

# Median of a file's numbers, with their range.
summary() { sort -g "$1" | awk '{v[NR]=$1} END {printf "%s (%s-%s)", v[int((NR+1)/2)], v[1], v[NR]}'; }
echo "# per configuration: median of the round medians (min-max), then median of the round means (min-max),"
echo "# microseconds (the means resolve below the 1 us clock step)"
for m in $(echo "$models" | tr ',' ' '); do
        for c in native served placed; do
                echo "$m $c median $(summary "$tmp/$m.$c") mean $(summary "$tmp/$m.$c.avg")"
        done
done
