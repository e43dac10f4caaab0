#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# 1 against 2 threads, several builds interleaved (docs/performance.md,
# "Two threads on the ~1 ms float models: where the second thread's time
# goes"). Per round, model, build and thread count, one
#
#   chrt -f 50 BIN --graph=M --use_xnnpack=true --num_threads=T \
#       --warmup_runs=50 --num_runs=RUNS --min_secs=0 --json
#
# (builds in the order given, then reversed in the next round, so that
# neither sits always first after the other); prints per model, build and
# thread count the median of the round medians, their range, and 2T/1T.
#
# Each round starts with PROBE --ping-pong (bench/pool-bench): the time a
# cache line takes from one CPU to the other, which on the 2-vCPU VM is
# ~33 or ~225 ns depending on where the host placed the vCPUs, and which
# the 2-thread numbers follow; printed per round.
#
# Usage: bench/compare-threads.sh ROUNDS NAME=ACCEL_BENCHMARK_BINARY... [-- MODEL...]
# Env: RUNS (default 500), MODELS_DIR (default ../shared/models), CHRT
# (default "chrt -f 50"; empty: normal priority), RAW (a file: every
# run's "model build threads median min ping-pong-ns" appended), PROBE
# (default: pool-bench beside this script's build, build/bench/pool-bench).
set -euo pipefail

rounds=$1
shift
builds=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
        builds+=("$1")
        shift
done
[ $# -gt 0 ] && shift
models=("$@")
if [ ${#models[@]} -eq 0 ]; then
        models=(blazeface_front_float facemesh_landmark_float mp_face_detection_short_range
                mobilenet_v1_0.25_224_float mp_hand_landmark_full deeplabv3_257_float)
fi
here=$(cd "$(dirname "$0")" && pwd)
dir=${MODELS_DIR:-$here/../../shared/models}
runs=${RUNS:-500}
chrt=${CHRT-chrt -f 50}
probe=${PROBE:-$here/../build/bench/pool-bench}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

for ((r = 1; r <= rounds; r++)); do
        order=("${builds[@]}")
        if ((r % 2 == 0)); then
                order=()
                for ((i = ${#builds[@]} - 1; i >= 0; i--)); do order+=("${builds[i]}"); done
        fi
        pp=$($chrt "$probe" --ping-pong | awk '{print $5}')
        echo "round $r: a cache line from one CPU to the other: $pp ns" >&2
        for m in "${models[@]}"; do
                for b in "${order[@]}"; do
                        name=${b%%=*}
                        bin=${b#*=}
                        for t in 1 2; do
                                res=$($chrt "$bin" --graph="$dir/$m.tflite" --use_xnnpack=true --num_threads=$t \
                                        --warmup_runs=50 --num_runs="$runs" --min_secs=0 --json |
                                        jq -r '"\(.inference_us.median) \(.inference_us.min)"')
                                echo "$m $name $t $res" >>"$out"
                                [ -z "${RAW:-}" ] || echo "$m $name $t $res $pp" >>"$RAW"
                        done
                done
        done
done

python3 - "$out" "${builds[@]%%=*}" <<'EOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
names = sys.argv[2:]
models = list(dict.fromkeys(r[0] for r in rows))
print("| model | build | 1 thread | 2 threads | 2T/1T |")
print("|---|---|---|---|---:|")
for m in models:
    for n in names:
        cell = {}
        for t in ("1", "2"):
            v = [float(r[3]) for r in rows if r[0] == m and r[1] == n and r[2] == t]
            cell[t] = (statistics.median(v), min(v), max(v))
        f = lambda c: "%.0f (%.0f-%.0f)" % c
        print("| %s | %s | %s | %s | %.2f |" % (m, n, f(cell["1"]), f(cell["2"]), cell["2"][0] / cell["1"][0]))
EOF
