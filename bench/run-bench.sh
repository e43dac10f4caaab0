#!/bin/sh
# Reference vs XNNPACK latency for the float and quantized models of the
# manifest, at 1 and 2 threads, with accel-benchmark. Prints a Markdown
# table (the one in docs/performance.md) and keeps the raw JSON lines.
#
#   bench/run-bench.sh BUILD_DIR [MODELS_DIR] [OUT_DIR]
#
# Reference runs are slow: they use 3 timed runs (after 1 warm-up);
# XNNPACK runs use 20 timed runs and at least 1 second.
set -eu

build=${1:?usage: run-bench.sh BUILD_DIR [MODELS_DIR] [OUT_DIR]}
models=${2:-$(dirname "$0")/../../shared/models}
out=${3:-bench-results}
bench="$build/bench/accel-benchmark"
mkdir -p "$out"

float_models="mobilenet_v1_0.25_224_float blazeface_front_float mp_face_detection_short_range
mp_face_detection_full_range_sparse facemesh_landmark_float mp_hand_landmark_full deeplabv3_257_float
style_transfer_f16_384 magic_wand"
quant_models="mobilenet_v1_0.25_128_quant mobilenet_v1_0.25_224_quant mobilenet_v2_1.0_224_quant
tf2_mobilenet_v2_1.0_224_ptq_int8 person_detect_int8 ssd_mobilenet_v1_coco_quant micro_speech_quantized"

run() { # model xnnpack threads
        if [ "$2" = true ]; then runs="--num_runs=20 --min_secs=1"; else runs="--num_runs=3 --min_secs=0"; fi
        "$bench" --graph="$models/$1.tflite" --use_xnnpack="$2" --num_threads="$3" --warmup_runs=1 \
                $runs --json
}

: > "$out/results.jsonl"
for m in $float_models $quant_models; do
        [ -f "$models/$m.tflite" ] || { echo "skip $m: not present" >&2; continue; }
        for t in 1 2; do
                for x in false true; do
                        line=$(run "$m" "$x" "$t")
                        printf '{"model": "%s", "xnnpack": %s, "threads": %s, "result": %s}\n' \
                                "$m" "$x" "$t" "$line" >> "$out/results.jsonl"
                done
        done
done

python3 - "$out/results.jsonl" <<'PY'
import json, sys
rows = {}
for l in open(sys.argv[1]):
    r = json.loads(l)
    rows.setdefault(r["model"], {})[(r["xnnpack"], r["threads"])] = r["result"]
print("| model | reference 1T (ms) | XNNPACK 1T (ms) | speed-up 1T | reference 2T (ms) | XNNPACK 2T (ms) | speed-up 2T | XNNPACK partitions |")
print("|---|---:|---:|---:|---:|---:|---:|---|")
for m, d in rows.items():
    def med(k):
        return d[k]["inference_us"]["median"] / 1000.0
    parts = " ".join("%s:%d" % (p["driver"], p["nodes"]) for p in d[(True, 1)]["partitions"])
    if len(parts) > 60:
        n = {}
        for p in d[(True, 1)]["partitions"]:
            n[p["driver"]] = n.get(p["driver"], 0) + p["nodes"]
        parts = "%d groups; " % len(d[(True, 1)]["partitions"]) + ", ".join("%s %d nodes" % kv for kv in n.items())
    print("| %s | %.2f | %.2f | %.1fx | %.2f | %.2f | %.1fx | %s |" % (
        m, med((False, 1)), med((True, 1)), med((False, 1)) / med((True, 1)),
        med((False, 2)), med((True, 2)), med((False, 2)) / med((True, 2)), parts))
PY
