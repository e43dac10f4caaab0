#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# The weights-cache and throughput figures of docs/performance.md:
#
#   bench/weights-cache.sh [BUILD_DIR]          default <source>/build
#
# 1. Memory: one model under two thread settings, with the weights cache and
#    without (serving-bench rss2), on MediaPipe's pose_landmark_heavy (float16
#    weights; fetched by bench/fetch-mediapipe-pose.sh when npm can) and on
#    style_transfer_f16_384 from ../shared.
# 2. Prepare: cold (empty cache) against after a restart (cache kept), for
#    mp_hand_landmark_full and pose_landmark_heavy, five times each.
# 3. Throughput with p50/p99 per client count (1, 2, 8, 64) on
#    mobilenet_v1_0.25_224_float and tf2_mobilenet_v2_1.0_224_ptq_int8,
#    XNNPACK at one thread, without and with dynamic batching.
# Each line printed is serving-bench's JSON; run it on an idle machine.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
build=${1:-$src/build}
models=$src/../shared/models
bench=$build/bench/serving-bench
acceld=$build/daemon/acceld
work=$(mktemp -d /tmp/acceld-wcache-bench.XXXXXX)
sock=$work/acceld.sock
pid=

stop() { [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; pid=; }
trap 'stop; rm -rf "$work"' EXIT
start() {
        stop
        "$acceld" --socket "$sock" --state-dir "$work/state" --config /dev/null "$@" >"$work/log" 2>&1 &
        pid=$!
        for _ in $(seq 100); do [ -S "$sock" ] && return; sleep 0.05; done
        echo "acceld did not start" >&2; cat "$work/log" >&2; exit 1
}

X1='{"delegate":"XNNPACK","xnnpack_settings":{"num_threads":1}}'
X2='{"delegate":"XNNPACK","xnnpack_settings":{"num_threads":2}}'
pose=$("$here/fetch-mediapipe-pose.sh" 2>/dev/null || true)

echo "# memory: a second thread setting of one model"
for m in "$pose" "$models/style_transfer_f16_384.tflite"; do
        [ -f "$m" ] || continue
        for cache in 4G 0; do
                rm -rf "$work/state"
                start --weights-cache-bytes "$cache"
                printf '{"weights_cache_bytes": "%s"} ' "$cache"
                "$bench" rss2 "$m" --socket "$sock" --settings "$X1" --settings2 "$X2" | tr -d '\n'
                echo
        done
done

echo "# prepare: cold (empty cache) vs after a restart (cache kept)"
for m in "$models/mp_hand_landmark_full.tflite" "$pose"; do
        [ -f "$m" ] || continue
        for i in 1 2 3 4 5; do
                rm -rf "$work/state"
                start
                printf '{"run": "cold"} '
                "$bench" rss2 "$m" --socket "$sock" --settings "$X1" --settings2 "$X2" | tr -d '\n'
                echo
                start
                printf '{"run": "after restart"} '
                "$bench" rss2 "$m" --socket "$sock" --settings "$X1" --settings2 "$X2" | tr -d '\n'
                echo
        done
done

echo "# throughput: clients on one model, XNNPACK 1 thread"
start
for m in mobilenet_v1_0.25_224_float tf2_mobilenet_v2_1.0_224_ptq_int8; do
        for batch in 0 4; do
                for c in 1 2 8 64; do
                        "$bench" throughput "$models/$m.tflite" --socket "$sock" --settings "$X1" --clients "$c" \
                                --seconds 5 --batch "$batch" --batch-delay-us 200
                done
                # A new daemon, so the next batch setting makes a new instance.
                start
        done
done
