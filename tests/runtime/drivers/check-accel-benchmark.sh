#!/bin/sh
# accel-benchmark --json prints exactly the object, for the
# reference path and with --use_xnnpack (partitions name the driver).
# Usage: check-accel-benchmark.sh ACCEL_BENCHMARK
set -eu
bench=$1
shared=${ACCELD_SHARED_DIR:-}
model="$shared/models/mobilenet_v1_0.25_224_float.tflite"
if [ -z "$shared" ] || [ ! -f "$model" ]; then
        echo "no shared models: skipping" >&2
        exit 77
fi
for x in false true; do
        out=$("$bench" --graph="$model" --use_xnnpack=$x --num_threads=1 --warmup_runs=1 --num_runs=2 \
                --min_secs=0 --json)
        echo "$out" | python3 -c '
import json, sys
o = json.loads(sys.stdin.read())
assert sorted(o) == sorted(["init_us", "first_inference_us", "warmup_avg_us", "inference_us",
                            "peak_memory_kb", "partitions"]), o
i = o["inference_us"]
assert sorted(i) == sorted(["min", "median", "p90", "max", "avg", "count"]), i
assert i["count"] == 2 and i["min"] <= i["median"] <= i["p90"] <= i["max"], i
assert o["peak_memory_kb"] > 0
want = "xnnpack" if sys.argv[1] == "true" else "reference"
assert o["partitions"] == [{"driver": want, "nodes": 31}], o["partitions"]
' "$x"
done
# --min_sample_us: a sub-millisecond model's samples are batches of
# invokes timed together ("batch"), figures in microseconds with decimals.
tiny="$shared/models/hello_world_float.tflite"
if [ -f "$tiny" ]; then
        out=$("$bench" --graph="$tiny" --use_xnnpack=false --num_threads=1 --warmup_runs=3 --num_runs=4 \
                --min_secs=0 --min_sample_us=2000 --json)
        echo "$out" | python3 -c '
import json, sys
o = json.loads(sys.stdin.read())
i = o["inference_us"]
assert o["batch"] > 1, o
assert i["count"] == 4 and 0 < i["min"] <= i["median"] <= i["max"], i
assert o["cpu_us_per_run"] >= 0, o
'
fi
# An unavailable delegate fails with exit code 3 and DEVICE_UNAVAILABLE.
echo '{"delegate":"GPU"}' > "${TMPDIR:-/tmp}/accel-bench-gpu.$$.json"
set +e
err=$("$bench" --graph="$model" --settings="${TMPDIR:-/tmp}/accel-bench-gpu.$$.json" 2>&1)
rc=$?
set -e
rm -f "${TMPDIR:-/tmp}/accel-bench-gpu.$$.json"
[ "$rc" -eq 3 ] || { echo "expected exit 3, got $rc: $err" >&2; exit 1; }
case "$err" in *DEVICE_UNAVAILABLE*) ;; *) echo "no DEVICE_UNAVAILABLE in: $err" >&2; exit 1 ;; esac
echo ok
