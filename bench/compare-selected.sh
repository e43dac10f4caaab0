#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# acceld's selected setting, through the daemon, against native TensorFlow
# Lite 2.9 + XNNPACK at its defaults (1 and 2 threads), for every runnable
# shared float model (issue 27; the successor of compare-native.sh for this
# question):
#
#   bench/compare-selected.sh --socket PATH [--build DIR] [--lib PATH]
#       [--shared DIR] [--models NAME,NAME,...] [--rounds N] [--runs N]
#       [--min-sample-us US] [--no-bench] [--bench-timeout-ms MS] [--log FILE]
#
# Needs a running acceld on PATH. For each model acceld has no choice for
# yet, `accelctl bench` runs its mini-benchmark first, with the golden
# inputs and outputs and --bench-timeout-ms per candidate (default 120000:
# the reference candidate of a large model is slow on a loaded machine);
# --no-bench skips such a model instead. `accelctl best` gives the choice
# and its reason.
#
# Then, --rounds times, for each model, in an order that rotates from round
# to round (so no configuration always runs first or last):
#   tflite-native --use_xnnpack=true --num_threads=1   (native, 1 thread)
#   tflite-native --use_xnnpack=true --num_threads=2   (native, 2 threads)
#   serving-bench selected                              (acceld, its choice)
# (native with --use_xnnpack=false, its built-in kernels, for a model its
# XNNPACK delegate refuses: the table says so next to the model's name),
# each with the model's golden inputs, 3 warm-up (5 for serving-bench) and
# --runs timed samples. A sample is one invoke for a model of at least
# --min-sample-us (default 2500) microseconds; for a faster one, the mean
# of as many consecutive invokes as make up that time, timed together
# (the programs' --min_sample_us / --min-sample-us: the warm-up's mean
# decides), so that a microsecond model's round lasts about
# runs x US (50 ms at the defaults) and its figures resolve well below
# the clock's microsecond. Times are in microseconds, with three decimals
# under 100 us and one above.
# Every round gives each configuration a median; the table shows the
# median of those round medians and their range (min-max), so the
# machine's noise shows, plus the CPU time (user+sys of all threads) per
# invoke: of the native process, and of the whole acceld process (worker,
# pool and loop threads) for acceld. acceld's time is the client's round
# trip (what an app sees: IPC included); its compute time is shown too.
# The ratios divide acceld's round trip by native's 1-thread median and by
# the faster of native's 1- and 2-thread medians.
#
# Defaults: --build <source>/build, --lib from bench/fetch-native-tflite.sh,
# --shared $ACCELD_SHARED_DIR or <source>/../shared, --rounds 5,
# --runs 30, models: the manifest's runnable models whose inputs are all
# float32 and whose file is present (not the ops/ test graphs).
#
# The table goes to stdout; progress, `uptime` at each round, and every
# command with its JSON go to stderr and to --log FILE. A benchmark aid
# only: never run by the build, CI or the tests.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
build=$src/build
lib=
shared=${ACCELD_SHARED_DIR:-$src/../shared}
models=
rounds=5
runs=30
min_sample=2500
bench=1
bench_timeout=120000
log=
socket=

die() {
        echo "compare-selected: $*" >&2
        exit 2
}

while [ $# -gt 0 ]; do
        case "$1" in
        --build) build=$2; shift ;;
        --lib) lib=$2; shift ;;
        --shared) shared=$2; shift ;;
        --models) models=$2; shift ;;
        --rounds) rounds=$2; shift ;;
        --runs) runs=$2; shift ;;
        --min-sample-us) min_sample=$2; shift ;;
        --no-bench) bench=0 ;;
        --bench-timeout-ms) bench_timeout=$2; shift ;;
        --socket) socket=$2; shift ;;
        --log) log=$2; shift ;;
        -h|--help) sed -n '3,/^set -eu/p' "$0" | sed 's/^# \{0,1\}//;/^set -eu/d'; exit 0 ;;
        *) die "unknown argument '$1' (see --help)" ;;
        esac
        shift
done

command -v jq >/dev/null 2>&1 || die "jq is needed to read the manifest and the JSON results"
[ -n "$socket" ] || die "--socket PATH of a running acceld is needed"
[ -S "$socket" ] || die "no acceld socket at $socket"
for p in bench/tflite-native bench/serving-bench client/accelctl; do
        [ -x "$build/$p" ] || die "$build/$p not built (ninja -C $build $p)"
done
[ -n "$lib" ] || lib=$("$here/fetch-native-tflite.sh")
[ -f "$lib" ] || die "no native library at $lib"
manifest=$shared/models/manifest.json
[ -f "$manifest" ] || die "no manifest at $manifest (set --shared or ACCELD_SHARED_DIR)"
shared=$(cd "$shared" && pwd)
manifest=$shared/models/manifest.json
accelctl="$build/client/accelctl --socket $socket --json"

[ -z "$log" ] || : >"$log"
say() {
        echo "$*" >&2
        [ -z "$log" ] || echo "$*" >>"$log"
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ -z "$models" ]; then
        models=$(jq -r '.models[] | select(.runnable and (.inputs | length > 0) and all(.inputs[]; .type == "float32")
                        and (.file | startswith("ops/") | not)) | "\(.name) \(.file)"' "$manifest" |
                while read -r n f; do [ -f "$shared/models/$f" ] && printf '%s,' "$n"; done)
        models=${models%,}
fi
[ -n "$models" ] || die "no models"

file_of() { jq -r --arg n "$1" '.models[] | select(.name == $n) | .file' "$manifest"; }
# The golden inputs of model $1 as "--input F" pairs for serving-bench.
inputs_of() {
        jq -r --arg n "$1" '.models[] | select(.name == $n) | .inputs[].file' "$manifest" |
                while read -r f; do printf ' --input %s' "$shared/models/$f"; done
}
# ... and its golden outputs as "--output F" pairs for accelctl bench (so
# that correctness does not wait for the slow reference candidate).
outputs_of() {
        jq -r --arg n "$1" '.models[] | select(.name == $n) | .outputs[].file' "$manifest" |
                while read -r f; do printf ' --output %s' "$shared/models/$f"; done
}

# ---- acceld's choice for every model ----
say "# $(date -u '+%Y-%m-%d %H:%M UTC'), load: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
list=
for m in $(echo "$models" | tr ',' ' '); do
        f=$(file_of "$m")
        [ -n "$f" ] || die "model $m is not in the manifest"
        path=$shared/models/$f
        if ! $accelctl best "$path" >"$tmp/$m.best" 2>/dev/null || ! jq -e .settings "$tmp/$m.best" >/dev/null 2>&1; then
                if [ $bench -eq 0 ]; then
                        say "$m: acceld has no choice yet; skipped (--no-bench)"
                        continue
                fi
                say "\$ accelctl bench $path$(inputs_of "$m")$(outputs_of "$m") --timeout-ms $bench_timeout"
                # shellcheck disable=SC2046
                if ! $accelctl bench "$path" $(inputs_of "$m") $(outputs_of "$m") --timeout-ms "$bench_timeout" \
                        >"$tmp/$m.bench" 2>"$tmp/err"; then
                        say "  -> mini-benchmark failed: $(tail -n 2 "$tmp/err" | tr '\n' ' ')"
                        continue
                fi
                $accelctl best "$path" >"$tmp/$m.best" 2>/dev/null || { say "$m: no choice after the mini-benchmark"; continue; }
        fi
        say "$m: $(jq -c '.settings' "$tmp/$m.best") -- $(jq -r '.reason' "$tmp/$m.best")"
        list="$list $m"
done

# run_native KEY MODEL THREADS: one tflite-native run; appends "median cpu"
# to $tmp/KEY (nothing on failure). TensorFlow Lite 2.9's XNNPACK delegate
# refuses some graphs (dilated_conv's shapes are only known at invoke
# time): the interpreter cannot be created with it, and native's default
# is then its built-in kernels. Such a model is run with
# --use_xnnpack=false from then on, and its native figures are marked.
run_native() {
        key=$1
        model=$2
        threads=$3
        xnn=true
        [ -f "$tmp/$model.builtin" ] && xnn=false
        set -- "$build/bench/tflite-native" --lib="$lib" --graph="$shared/models/$(file_of "$2")" --num_threads="$3" \
                --use_xnnpack=$xnn --warmup_runs=3 --num_runs="$runs" --min_secs=0 --min_sample_us="$min_sample" --json \
                --check-golden="$shared/models/golden/$2"
        say "\$ $*"
        set +e
        "$@" >"$tmp/out" 2>"$tmp/err"
        rc=$?
        set -e
        json=$(grep '^{' "$tmp/out" | tail -n 1)
        if [ $xnn = true ] && [ -z "$json" ] && grep -q 'cannot create the interpreter' "$tmp/err"; then
                say "  -> TensorFlow Lite's XNNPACK delegate refuses $model: its built-in kernels instead"
                : >"$tmp/$model.builtin"
                run_native "$key" "$model" "$threads"
                return 0
        fi
        if [ $rc -ne 0 ] && [ $rc -ne 4 ] || [ -z "$json" ]; then
                say "  -> exit $rc: $(grep -v '^INFO:' "$tmp/err" | tail -n 2 | tr '\n' ' ')"
                return 0
        fi
        say "  -> $json"
        echo "$json" | jq -r '"\(.inference_us.median) \(.cpu_us_per_run)"' >>"$tmp/$key"
        echo "$json" | jq -r 'if .native.golden == null then "-" elif .native.golden.bit_exact then "exact"
                               elif .native.golden.pass then "pass" else "FAIL" end' >"$tmp/$key.golden"
}

# run_acceld KEY MODEL: one serving-bench selected run; appends
# "round_trip_median cpu compute_median" to $tmp/KEY.
run_acceld() {
        key=$1
        # shellcheck disable=SC2046
        set -- "$build/bench/serving-bench" selected "$shared/models/$(file_of "$2")" --socket "$socket" \
                --runs "$runs" --min-sample-us "$min_sample" $(inputs_of "$2")
        say "\$ $*"
        set +e
        "$@" >"$tmp/out" 2>"$tmp/err"
        rc=$?
        set -e
        if [ $rc -ne 0 ]; then
                say "  -> exit $rc: $(tail -n 2 "$tmp/err" | tr '\n' ' ')"
                return 0
        fi
        say "  -> $(tr -d '\n' <"$tmp/out")"
        jq -r '"\(.round_trip_us.median) \(.daemon_cpu_us_per_run) \(.compute_median_us)"' "$tmp/out" >>"$tmp/$key"
        jq -r '.settings_key' "$tmp/out" >"$tmp/$key.setting"
}

r=1
while [ "$r" -le "$rounds" ]; do
        say "# round $r of $rounds, load: $(cut -d' ' -f1-3 /proc/loadavg)"
        for m in $list; do
                case $(( (r - 1) % 3 )) in
                0) order="n1 n2 acc" ;;
                1) order="n2 acc n1" ;;
                *) order="acc n1 n2" ;;
                esac
                for c in $order; do
                        case $c in
                        n1) run_native "$m.n1" "$m" 1 ;;
                        n2) run_native "$m.n2" "$m" 2 ;;
                        acc) run_acceld "$m.acc" "$m" ;;
                        esac
                done
        done
        r=$((r + 1))
done
say "# done, load: $(cut -d' ' -f1-3 /proc/loadavg)"

# col_stat FILE COLUMN: "median min max" of that column (in us), or "".
col_stat() {
        [ -s "$1" ] || return 0
        cut -d' ' -f"$2" "$1" | sort -n | awk '{ v[NR] = $1 } END {
                m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
                printf "%s %s %s\n", m, v[1], v[NR] }'
}
# us MEDIAN MIN MAX: "m.m (min-max)" in microseconds: one decimal, three
# under 100 us (hello_world's 0.1 us needs them to show 3%).
us() {
        [ -n "${1:-}" ] || { echo "n/a"; return; }
        awk -v m="$1" -v a="$2" -v b="$3" 'BEGIN { f = m < 100 ? "%.3f" : "%.1f"
                printf f " (" f "-" f ")", m, a, b }'
}
cpu() {
        [ -n "${1:-}" ] || { echo "n/a"; return; }
        awk -v m="$1" 'BEGIN { printf (m < 100 ? "%.3f" : "%.1f"), m }'
}
ratio() {
        if [ -z "${1:-}" ] || [ -z "${2:-}" ]; then echo "n/a"; return; fi
        awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else printf "n/a" }'
}

echo "| model | acceld's setting | native XNNPACK 1T us | native XNNPACK 2T us | acceld round trip us | acceld compute us | acceld / native 1T | acceld / best native | CPU us per invoke: native 1T / 2T / acceld | native golden |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---|---|"
for m in $list; do
        # shellcheck disable=SC2046
        set -- $(col_stat "$tmp/$m.n1" 1); n1=${1:-}; n1a=${2:-}; n1b=${3:-}
        # shellcheck disable=SC2046
        set -- $(col_stat "$tmp/$m.n2" 1); n2=${1:-}; n2a=${2:-}; n2b=${3:-}
        # shellcheck disable=SC2046
        set -- $(col_stat "$tmp/$m.acc" 1); ac=${1:-}; aca=${2:-}; acb=${3:-}
        # shellcheck disable=SC2046
        set -- $(col_stat "$tmp/$m.acc" 3); co=${1:-}; coa=${2:-}; cob=${3:-}
        c1=$(col_stat "$tmp/$m.n1" 2 | cut -d' ' -f1)
        c2=$(col_stat "$tmp/$m.n2" 2 | cut -d' ' -f1)
        ca=$(col_stat "$tmp/$m.acc" 2 | cut -d' ' -f1)
        best=$n1
        if [ -n "$n2" ] && { [ -z "$best" ] || [ "$(awk -v a="$n2" -v b="$best" 'BEGIN { print (a < b) }')" = 1 ]; }; then
                best=$n2
        fi
        setting=$(sed 's/;max_partitions=0//;s/;fallback=[0-9]*//;s/;plugin=$//;s/;xnnpack_flags=0//' \
                "$tmp/$m.acc.setting" 2>/dev/null || echo "n/a")
        golden=$(cat "$tmp/$m.n1.golden" 2>/dev/null || echo "n/a")
        name=$m
        [ -f "$tmp/$m.builtin" ] && name="$m (native: built-in kernels, its XNNPACK delegate refuses the graph)"
        echo "| $name | $setting | $(us "$n1" "$n1a" "$n1b") | $(us "$n2" "$n2a" "$n2b") | $(us "$ac" "$aca" "$acb") | $(us "$co" "$coa" "$cob") | $(ratio "$ac" "$n1") | $(ratio "$ac" "$best") | $(cpu "$c1") / $(cpu "$c2") / $(cpu "$ca") | $golden |"
done
