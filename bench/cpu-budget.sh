#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The CPU budget (docs/performance.md, "Threads and the CPU budget"): one
# client asking for 1, 2, 4 and 8 XNNPACK threads, then 8 clients asking for
# 2 threads each (and 1 each), through a fresh acceld of BUILD_DIR.
#   bench/cpu-budget.sh BUILD_DIR [MODEL] [SECONDS]
set -eu
B=$(cd "$1" && pwd)
M=${2:-$(dirname "$0")/../../shared/models/mobilenet_v1_0.25_224_float.tflite}
S=${3:-5}
D=$(mktemp -d)
trap 'kill $P 2>/dev/null; wait $P 2>/dev/null; rm -rf "$D"' EXIT
"$B/daemon/acceld" --socket "$D/s" --state-dir "$D/state" --log-level warning 2>"$D/log" &
P=$!
for i in $(seq 100); do [ -S "$D/s" ] && break; sleep 0.1; done
run() {  # threads clients
        printf 'threads=%s clients=%s ' "$1" "$2"
        "$B/bench/serving-bench" throughput "$M" --socket "$D/s" --clients "$2" --seconds "$S" \
                --settings "{\"delegate\":\"XNNPACK\",\"xnnpack_settings\":{\"num_threads\":$1}}"
}
for t in 1 2 4 8; do run "$t" 1; done
run 2 8
run 1 8
