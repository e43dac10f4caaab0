#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# acceld's own thread pool (runtime/threadpool/) against the build before
# it and native TensorFlow Lite, interleaved:
#
#   bench/compare-pool.sh OLD_BUILD NEW_BUILD [ROUNDS] [MODELS...]
#
# For each round, model and thread count (1 and 2), runs one after another
#   OLD_BUILD/bench/accel-benchmark                    ("old": libpthreadpool)
#   NEW_BUILD/bench/accel-benchmark                    ("new": learned schedule)
#   NEW_BUILD/bench/accel-benchmark, ACCEL_POOL_LEARN=0 ("new-par": every call parallel)
#   OLD_BUILD/bench/tflite-native --lib=$NATIVE_LIB    ("native")
# each with --use_xnnpack=true --num_threads=T --warmup_runs=5
# --num_runs=200 --min_secs=0 --json, under `chrt -f 50` unless CHRT= is
# set empty. Prints one line per run (round model variant T median min p90)
# and then, per model, variant and T, the median of the round medians and
# the range of the round medians. Models default to the issue 27 set;
# ACCELD_SHARED_DIR (default <source>/../shared) holds them.
#
# A benchmark aid only: never run by the build, CI or the tests.
set -eu
OLD=$1 NEW=$2
ROUNDS=${3:-3}
[ $# -ge 3 ] && shift 3 || shift $#
SRC=$(cd "$(dirname "$0")/.." && pwd)
SHARED=${ACCELD_SHARED_DIR:-$SRC/../shared}
NATIVE_LIB=${NATIVE_LIB:-/work/main/bench/out/tfjs-tflite-node-0.0.2/cc_deps/linux_amd64/libtensorflowlite_c.so}
CHRT=${CHRT-chrt -f 50}
MODELS=${*:-blazeface_front_float facemesh_landmark_float mobilenet_v1_0.25_224_float mp_face_detection_short_range mp_face_detection_full_range_sparse deeplabv3_257_float mp_hand_landmark_full mobilenet_v2_1.0_224_quant tf2_mobilenet_v2_1.0_224_ptq_int8 mobilenet_v1_0.25_224_quant}
FLAGS="--use_xnnpack=true --warmup_runs=5 --num_runs=200 --min_secs=0 --json"
OUT=$(mktemp)
uptime >&2
for r in $(seq 1 "$ROUNDS"); do
  for m in $MODELS; do
    g=$SHARED/models/$m.tflite
    for T in 1 2; do
      for v in old new new-par native; do
        case $v in
        old) cmd="$OLD/bench/accel-benchmark" ;;
        new) cmd="$NEW/bench/accel-benchmark" ;;
        new-par) cmd="env ACCEL_POOL_LEARN=0 $NEW/bench/accel-benchmark" ;;
        native) cmd="$OLD/bench/tflite-native --lib=$NATIVE_LIB" ;;
        esac
        j=$($CHRT $cmd --graph="$g" --num_threads=$T $FLAGS 2>/dev/null | tail -n 1) || j='{}'
        echo "$j" | python3 -c '
import json, sys
try:
    d = json.load(sys.stdin)["inference_us"]
    print(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], d["median"], d["min"], d["p90"])
except Exception:
    print(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], "fail", "fail", "fail")
' "$r" "$m" "$v" "$T" | tee -a "$OUT"
      done
    done
  done
done
uptime >&2
python3 - "$OUT" <<'PY'
import statistics, sys
rows = {}
order = []
for line in open(sys.argv[1]):
    r, m, v, t, med, mn, p90 = line.split()
    if med == "fail":
        continue
    k = (m, int(t))
    if k not in rows:
        rows[k] = {}
        order.append(k)
    rows[k].setdefault(v, []).append(float(med))
vs = ["old", "new", "new-par", "native"]
print("| model | T | " + " | ".join(vs) + " | new/old | new/native |")
print("|---|---|" + "---|" * (len(vs) + 2))
for k in order:
    cells, meds = [], {}
    for v in vs:
        xs = rows[k].get(v, [])
        if xs:
            meds[v] = statistics.median(xs)
            cells.append("%.0f (%.0f-%.0f)" % (meds[v], min(xs), max(xs)))
        else:
            cells.append("-")
    ratio = lambda a, b: "%.2f" % (meds[a] / meds[b]) if a in meds and b in meds else "-"
    print("| %s | %d | %s | %s | %s |" % (k[0], k[1], " | ".join(cells), ratio("new", "old"), ratio("new", "native")))
PY
rm -f "$OUT"
