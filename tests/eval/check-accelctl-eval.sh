#!/bin/sh
# accelctl eval diff | topk | detection: --local in-process and through a
# real acceld, --json printing the seed's ProcessMetrics in proto3 JSON,
# usage and data errors. Skips (77) without ../shared/models or
# python3-skimage's photographs.
# Usage: check-accelctl-eval.sh ACCELCTL ACCELD
set -eu
accelctl=$1
acceld=$2
shared=${ACCELD_SHARED_DIR:-}
data=/usr/lib/python3/dist-packages/skimage/data
v2="$shared/models/mobilenet_v2_1.0_224_quant.tflite"
v1="$shared/models/mobilenet_v1_0.25_224_float.tflite"
ssd="$shared/models/ssd_mobilenet_v1_coco_quant.tflite"
for f in "$v2" "$v1" "$ssd"; do
        if [ -z "$shared" ] || [ ! -f "$f" ]; then
                echo "SKIP: $f not found (../shared/models)" >&2
                exit 77
        fi
done
for f in chelsea.png coffee.png rocket.jpg; do
        if [ ! -f "$data/$f" ]; then
                echo "SKIP: $data/$f not found (apt-get install python3-skimage)" >&2
                exit 77
        fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-accelctl-eval.XXXXXX")
pid=
cleanup() {
        if [ -n "$pid" ]; then
                kill "$pid" 2>/dev/null || true
                wait "$pid" 2>/dev/null || true
        fi
        rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

mkdir "$tmp/images" "$tmp/det"
ln -s "$data/chelsea.png" "$data/coffee.png" "$data/rocket.jpg" "$tmp/images/"
ln -s "$data/chelsea.png" "$tmp/det/"
printf 'tabby, tabby cat\nespresso\nmissile\n' > "$tmp/gt.txt"
cat > "$tmp/det-gt.json" <<'JSON'
{"detection_results": [{"image_name": "chelsea.png", "objects": [{"class_id": 17,
 "bounding_box": {"normalized_top": 0.0, "normalized_bottom": 1.0, "normalized_left": 0.0, "normalized_right": 0.88}}]}]}
JSON

check_topk() {  # JSON on stdin
        python3 -c '
import json, sys
o = json.load(sys.stdin)
assert sorted(o) == ["imageClassificationMetrics", "totalLatency"], o
m = o["imageClassificationMetrics"]
assert sorted(m) == ["inferenceLatency", "inferenceMetrics", "preProcessingLatency", "topkAccuracyMetrics"], m
assert m["inferenceMetrics"] == {"numInferences": 3}, m
acc = m["topkAccuracyMetrics"]["topkAccuracies"]
assert len(acc) == 5 and abs(acc[0] - 1/3) < 1e-6 and acc[4] == 1, acc
lat = m["inferenceLatency"]
assert sorted(lat) == ["avgUs", "lastUs", "maxUs", "minUs", "stdDeviationUs", "sumUs"], lat
assert isinstance(lat["sumUs"], str) and int(lat["minUs"]) <= int(lat["maxUs"]), lat
'
}

check_detection() {
        python3 -c '
import json, sys
o = json.load(sys.stdin)
m = o["objectDetectionMetrics"]
ap = m["averagePrecisionMetrics"]
assert len(ap["individualAveragePrecisions"]) == 10, ap
assert ap["individualAveragePrecisions"][0] == {"iouThreshold": 0.5, "averagePrecision": 1}, ap
assert ap["overallMeanAveragePrecision"] > 0.5, ap
'
}

check_diff() {
        python3 -c '
import json, sys
o = json.load(sys.stdin)
m = o["inferenceProfilerMetrics"]
assert sorted(m) == ["outputErrors", "referenceLatency", "testLatency"], m
e = m["outputErrors"]
assert len(e) == 1 and sorted(e[0]) == ["avgValue", "maxValue", "minValue", "stdDeviation"], e
assert 0 <= e[0]["minValue"] <= e[0]["maxValue"] < 1e-3, e
'
}

# run_all local | run_all daemon SOCKET
run_all() {
        if [ "$1" = local ]; then
                g= ; l=--local
        else
                g="--socket $2"; l=
        fi
        # shellcheck disable=SC2086 # $g and $l are zero or more words
        "$accelctl" $g --json eval topk "$v2" $l --images "$tmp/images" --ground-truth "$tmp/gt.txt" | check_topk
        "$accelctl" $g eval detection "$ssd" $l --json --images "$tmp/det" --ground-truth "$tmp/det-gt.json" \
                | check_detection
        "$accelctl" $g --json eval diff "$v1" $l --settings '{"delegate":"XNNPACK"}' --runs 3 | check_diff
        # The table form names the stage's results.
        out=$("$accelctl" $g eval topk "$v2" $l --images "$tmp/images" --ground-truth "$tmp/gt.txt" --k 3)
        case "$out" in *"top-1  0.3333"*"top-3  "*) ;; *) echo "no top-1/top-3 rows in: $out" >&2; exit 1 ;; esac
}

# In-process.
run_all local

# Usage errors: exit 2; data errors: exit 1 with a JSON failure object.
set +e
"$accelctl" eval topk "$v2" --local --images "$tmp/images" >/dev/null 2>&1
[ $? -eq 2 ] || { echo "missing --ground-truth: expected exit 2" >&2; exit 1; }
"$accelctl" eval frobnicate "$v2" >/dev/null 2>&1
[ $? -eq 2 ] || { echo "unknown stage: expected exit 2" >&2; exit 1; }
printf 'tabby, tabby cat\nno such label\nmissile\n' > "$tmp/bad-gt.txt"
out=$("$accelctl" --json eval topk "$v2" --local --images "$tmp/images" --ground-truth "$tmp/bad-gt.txt")
rc=$?
set -e
[ $rc -eq 1 ] || { echo "bad ground truth: expected exit 1, got $rc" >&2; exit 1; }
echo "$out" | python3 -c '
import json, sys
o = json.load(sys.stdin)
assert o["status"] == "CLIENT_ERROR" and "coffee.png" in o["message"] and "no such label" in o["message"], o
'

# Through acceld (the default).
sock="$tmp/acceld.sock"
"$acceld" --foreground --config /dev/null --socket "$sock" --state-dir "$tmp/state" >"$tmp/acceld.log" 2>&1 &
pid=$!
i=0
until "$accelctl" --socket "$sock" status >/dev/null 2>&1; do
        i=$((i + 1))
        if [ $i -gt 100 ]; then
                echo "acceld did not come up:" >&2
                cat "$tmp/acceld.log" >&2
                exit 1
        fi
        sleep 0.1
done
run_all daemon "$sock"
out=$("$accelctl" --socket "$sock" eval diff "$v1" --settings '{"delegate":"XNNPACK"}' --runs 2)
case "$out" in *"reference  acceld, reference kernels"*"test       acceld, xnnpack 31 nodes"*"recorded by acceld as evaluation"*) ;;
*) echo "diff through acceld does not name its drivers or its record: $out" >&2; exit 1 ;; esac
# Every stage run through acceld was stored: topk twice, detection, diff twice.
"$accelctl" --socket "$sock" events --evaluations --json | python3 -c '
import json, sys
v = json.load(sys.stdin)
stages = [e["stage"] for e in v]
assert stages == ["topk", "detection", "inference_diff", "topk", "inference_diff"], stages
topk = v[0]
assert topk["source"] == "client" and abs(topk["accuracy"] - 1/3) < 1e-6 and topk["samples"] == 3, topk
assert topk["metrics"]["imageClassificationMetrics"]["inferenceMetrics"] == {"numInferences": 3}, topk
det = v[1]
assert det["source"] == "client" and det["accuracy"] > 0.5, det
diff = v[2]
assert diff["source"] == "acceld" and diff["samples"] == 3 and "XNNPACK" in diff["settings_key"], diff
assert diff["metrics"]["inferenceProfilerMetrics"]["outputErrors"][0]["maxValue"] < 1e-3, diff
assert len({e["id"] for e in v}) == 5
'
out=$("$accelctl" --socket "$sock" events --evaluations)
case "$out" in *"inference_diff  acceld"*) ;; *) echo "no diff row in: $out" >&2; exit 1 ;; esac
echo ok
