#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# Native TensorFlow Lite 2.9's libtensorflowlite_c.so against ours
# (client/tflite-c/), served by acceld and in-process, through one and the
# same program: bench/tflite-native, whose --lib picks the library.
#
#   bench/tflite-c-compare.sh [--build DIR] [--lib NATIVE_LIB] [--shared DIR]
#       [--models NAME,...] [--threads "1 2"] [--repeat N]
#
# Float models run with --use_xnnpack=true (native: TFLite's XNNPACK
# delegate; ours: acceld's XNNPACK driver), integer models with
# --use_xnnpack=false (native: builtin kernels; ours: acceld's reference
# kernels). A daemon is started on a temporary socket for the served
# column. Each cell is the lowest median of --repeat interleaved runs (the
# one least disturbed by other load); the table goes to stdout, uptime to
# stderr. A benchmark aid: never run by the build, CI or the tests.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
build=$here/../build
native=
shared=${ACCELD_SHARED_DIR:-$here/../../shared}
models=mobilenet_v1_0.25_224_float,blazeface_front_float,mobilenet_v2_1.0_224_quant
threads="1 2"
repeat=3
while [ $# -gt 0 ]; do
        case $1 in
        --build) build=$2; shift 2 ;;
        --lib) native=$2; shift 2 ;;
        --shared) shared=$2; shift 2 ;;
        --models) models=$2; shift 2 ;;
        --threads) threads=$2; shift 2 ;;
        --repeat) repeat=$2; shift 2 ;;
        *) echo "usage: $0 [--build DIR] [--lib NATIVE_LIB] [--shared DIR] [--models A,B] [--threads \"1 2\"] [--repeat N]" >&2; exit 2 ;;
        esac
done
[ -n "$native" ] || native=$("$here/fetch-native-tflite.sh")
ours=$build/client/tflite-c/libtensorflowlite_c.so
bench=$build/bench/tflite-native

tmp=$(mktemp -d)
"$build/daemon/acceld" --socket "$tmp/s" --state-dir "$tmp/state" --config /dev/null >"$tmp/log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$tmp"' EXIT
while [ ! -S "$tmp/s" ]; do sleep 0.1; done

# median_of LIB MODE MODEL THREADS XNN: the lowest median (us) of $repeat runs.
median_of() {
        best=
        for _ in $(seq "$repeat"); do
                m=$(ACCEL_TFLITE_MODE=$2 ACCELD_SOCKET=$tmp/s LD_LIBRARY_PATH=$build/client \
                        "$bench" --lib="$1" --graph="$shared/models/$3.tflite" --num_threads="$4" \
                        --use_xnnpack="$5" --warmup_runs=5 --num_runs=50 --min_secs=1 --json 2>/dev/null |
                        python3 -c 'import json,sys; print(json.load(sys.stdin)["inference_us"]["median"])') || m=
                [ -n "$m" ] || continue
                if [ -z "$best" ] || [ "$m" -lt "$best" ]; then best=$m; fi
        done
        echo "${best:-n/a}"
}

uptime >&2
echo "| model | threads | kernels | native TFLite 2.9 (us) | ours in-process (us) | ours served (us) | served / native |"
echo "|---|---|---|---|---|---|---|"
for model in $(echo "$models" | tr ',' ' '); do
        case $model in *float*) xnn=true kern="XNNPACK" ;; *) xnn=false kern="builtin / reference" ;; esac
        for t in $threads; do
                n=$(median_of "$native" local "$model" "$t" "$xnn")
                l=$(median_of "$ours" local "$model" "$t" "$xnn")
                s=$(median_of "$ours" served "$model" "$t" "$xnn")
                ratio=$(python3 -c "import sys; n,s=sys.argv[1:]; print('%.2f' % (float(s)/float(n)) if 'n/a' not in (n,s) else 'n/a')" "$n" "$s")
                echo "| $model | $t | $kern | $n | $l | $s | $ratio |"
        done
done
uptime >&2
