#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# Native TensorFlow Lite 2.9's libtensorflowlite_c.so against ours
# (client/tflite-c/), served by acceld and in-process, through one and the
# same program: bench/tflite-native, whose --lib picks the library.
#
#   bench/tflite-c-compare.sh [--build DIR] [--lib NATIVE_LIB] [--shared DIR]
#       [--models NAME,...] [--threads "1 2"] [--repeat N] [--runs N] [--acceld PATH]
#
# Float models run with --use_xnnpack=true (native: TFLite's XNNPACK
# delegate; ours: acceld's XNNPACK driver), integer models with
# --use_xnnpack=false (native: builtin kernels; ours: acceld's reference
# kernels). A daemon is started on a temporary socket for the served
# column. The three are interleaved: each of --repeat rounds runs native,
# in-process and served once, one after the other, so load from other
# programs hits all three alike. Each cell is the median over the rounds of
# each run's median, with the spread (lowest-highest run median) beside
# it; the table goes to stdout, uptime (load average) to stderr before and
# after. A benchmark aid: never run by the build, CI or the tests.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
build=$here/../build
native=
shared=${ACCELD_SHARED_DIR:-$here/../../shared}
# The float shared models (mp_pose_landmark_heavy is not stored;
# style_transfer_dynamic_range is hybrid, which TFLite's XNNPACK refuses;
# hello_world_float runs below the microsecond the medians are kept in).
models=magic_wand,dilated_conv,blazeface_front_float,mobilenet_v1_0.25_224_float
models=$models,mp_face_detection_short_range,mp_face_detection_full_range_sparse,mp_hand_landmark_full
models=$models,facemesh_landmark_float,deeplabv3_257_float,style_transfer_f16_384
threads="1 2"
repeat=5
runs=20
while [ $# -gt 0 ]; do
        case $1 in
        --build) build=$2; shift 2 ;;
        --lib) native=$2; shift 2 ;;
        --shared) shared=$2; shift 2 ;;
        --models) models=$2; shift 2 ;;
        --threads) threads=$2; shift 2 ;;
        --repeat) repeat=$2; shift 2 ;;
        --runs) runs=$2; shift 2 ;;
        --acceld) acceld=$2; shift 2 ;;
        *) echo "usage: $0 [--build DIR] [--lib NATIVE_LIB] [--shared DIR] [--models A,B] [--threads \"1 2\"] [--repeat N] [--runs N] [--acceld PATH]" >&2; exit 2 ;;
        esac
done
[ -n "$native" ] || native=$("$here/fetch-native-tflite.sh")
acceld=${acceld:-$build/daemon/acceld}
ours=$build/client/tflite-c/libtensorflowlite_c.so
bench=$build/bench/tflite-native

tmp=$(mktemp -d)
"$acceld" --socket "$tmp/s" --state-dir "$tmp/state" --config /dev/null >"$tmp/log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$tmp"' EXIT
while [ ! -S "$tmp/s" ]; do sleep 0.1; done

# one_run LIB MODE MODEL THREADS XNN: the median (us) of one run, or nothing.
one_run() {
        ACCEL_TFLITE_MODE=$2 ACCELD_SOCKET=$tmp/s LD_LIBRARY_PATH=$build/client \
                "$bench" --lib="$1" --graph="$shared/models/$3.tflite" --num_threads="$4" \
                --use_xnnpack="$5" --warmup_runs=5 --num_runs="$runs" --min_secs=0.5 --json 2>/dev/null |
                python3 -c 'import json,sys; print(json.load(sys.stdin)["inference_us"]["median"])' || true
}

# cell FILE: "median (lowest-highest)" of the run medians in FILE.
cell() {
        python3 - "$1" <<'PY'
import statistics, sys
v = [float(x) for x in open(sys.argv[1]).read().split()]
print("%.0f (%.0f-%.0f)" % (statistics.median(v), min(v), max(v)) if v else "n/a")
PY
}

ratio() {
        python3 - "$1" "$2" <<'PY'
import statistics, sys
a, b = ([float(x) for x in open(f).read().split()] for f in sys.argv[1:])
print("%.2f" % (statistics.median(b) / statistics.median(a)) if a and b and statistics.median(a) > 0 else "n/a")
PY
}

uptime >&2
echo "| model | threads | kernels | native TFLite 2.9, us | ours in-process, us | ours served, us | in-process / native | served / native |"
echo "|---|---|---|---|---|---|---|---|"
for model in $(echo "$models" | tr ',' ' '); do
        case $model in *float*|*conv*|magic_wand|mp_*) xnn=true kern="XNNPACK" ;; *) xnn=false kern="builtin / reference" ;; esac
        for t in $threads; do
                : >"$tmp/run-n"; : >"$tmp/run-l"; : >"$tmp/run-s"
                for _ in $(seq "$repeat"); do
                        one_run "$native" local "$model" "$t" "$xnn" >>"$tmp/run-n"
                        one_run "$ours" local "$model" "$t" "$xnn" >>"$tmp/run-l"
                        one_run "$ours" served "$model" "$t" "$xnn" >>"$tmp/run-s"
                done
                echo "| $model | $t | $kern | $(cell "$tmp/run-n") | $(cell "$tmp/run-l") | $(cell "$tmp/run-s") |" \
                        "$(ratio "$tmp/run-n" "$tmp/run-l") | $(ratio "$tmp/run-n" "$tmp/run-s") |"
        done
        uptime >&2
done
