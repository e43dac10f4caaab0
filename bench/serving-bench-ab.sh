#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# Two builds of acceld, interleaved, on what an app sees of one setting
# (docs/performance.md, "Settings that take every CPU"; issue 27):
#
#   bench/serving-bench-ab.sh OLD_BUILD NEW_BUILD ROUNDS RUNS MODEL:THREADS...
#
# For each MODEL:THREADS, ROUNDS times, for OLD_BUILD then NEW_BUILD: a
# fresh acceld (its own state directory, client_placement_min_served = 5,
# defaults otherwise), then `serving-bench selected` with the setting
# {"delegate":"XNNPACK","xnnpack_settings":{"num_threads":THREADS}} and the
# model's golden input three times: once to give placement the compute of
# its served executions (not shown), once measured with acceld's placement
# decision ("auto"), once measured with "placement": "daemon" added
# (served whatever the decision). One JSON line per measured run on stdout:
# build, round, model, mode, placement, round trip min/median/p90 and the
# median compute (us), and the placement's reason.
#
# The script and everything it starts run in their own scheduling
# autogroup at nice -20 (it must run as root, under setsid: the kernel's
# autogroups would otherwise share the CPUs equally with every other
# session's builds). ACCELD_SHARED_DIR (default <source>/../shared) holds
# the models. A benchmark aid only: never run by the build, CI or the tests.
set -eu

[ $# -ge 5 ] || { echo "usage: $0 OLD_BUILD NEW_BUILD ROUNDS RUNS MODEL:THREADS..." >&2; exit 2; }
old=$1 new=$2 rounds=$3 runs=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
shared=${ACCELD_SHARED_DIR:-$(dirname "$here")/../shared}/models
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo -20 >/proc/self/autogroup 2>/dev/null || echo "serving-bench-ab: no autogroup priority (not root, or not under setsid)" >&2
printf 'client_placement_min_served = 5\n' >"$tmp/acceld.conf"

for spec in "$@"; do
        model=${spec%%:*} threads=${spec#*:}
        set="\"delegate\":\"XNNPACK\",\"xnnpack_settings\":{\"num_threads\":$threads}"
        for round in $(seq "$rounds"); do
                for build in "$old" "$new"; do
                        rm -rf "$tmp/state" "$tmp/a.sock"
                        "$build/daemon/acceld" --socket "$tmp/a.sock" --state-dir "$tmp/state" \
                                --config "$tmp/acceld.conf" >"$tmp/acceld.log" 2>&1 &
                        pid=$!
                        for _ in $(seq 50); do [ -S "$tmp/a.sock" ] && break; sleep 0.1; done
                        for mode in warm auto daemon; do
                                s="{$set}"
                                [ "$mode" = daemon ] && s="{$set,\"placement\":\"daemon\"}"
                                "$build/bench/serving-bench" selected "$shared/$model.tflite" --socket "$tmp/a.sock" \
                                        --settings "$s" --runs "$runs" \
                                        --input "$shared/golden/$model/input_0.bin" >"$tmp/out"
                                [ "$mode" = warm ] && continue
                                jq -c --arg b "$build" --arg r "$round" --arg m "$model" --arg mode "$mode" \
                                        '{build: $b, round: ($r | tonumber), model: $m, threads: '"$threads"',
                                          mode: $mode, placement, rt_min: .round_trip_us.min,
                                          rt_median: .round_trip_us.median, rt_p90: .round_trip_us.p90,
                                          compute_median: .compute_median_us, reason: .placement_reason}' "$tmp/out"
                        done
                        kill "$pid"
                        wait "$pid" 2>/dev/null || true
                done
        done
done
