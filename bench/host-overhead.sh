#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# What isolation costs (docs/performance.md, "Driver hosts"):
#
#   bench/host-overhead.sh [BUILD_DIR] [ROUNDS]     default <source>/build, 3
#
# Two daemons side by side: isolate_drivers = none (XNNPACK in acceld) and
# all (XNNPACK in an `acceld --driver-host` child). For deeplabv3_257_float
# (a large float model whose plan has two XNNPACK groups around a reference
# node) and hello_world_float (a tiny one), serving-bench latency runs on
# each daemon in turn, ROUNDS times, XNNPACK at one thread; each line is
# serving-bench's JSON, then the ratio of medians per round. Afterwards
# `accelctl status` of the isolated daemon shows how many group tensors its
# host used in place and how many were copied. Run it on an idle machine.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
build=${1:-$src/build}
rounds=${2:-3}
models=$src/../shared/models
bench=$build/bench/serving-bench
acceld=$build/daemon/acceld
work=$(mktemp -d /tmp/acceld-host-bench.XXXXXX)
pids=

trap 'for p in $pids; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$work"' EXIT
for mode in none all; do
        "$acceld" --socket "$work/$mode.sock" --state-dir "$work/$mode" --config /dev/null \
                --isolate-drivers "$mode" >"$work/$mode.log" 2>&1 &
        pids="$pids $!"
done
for mode in none all; do
        for _ in $(seq 100); do [ -S "$work/$mode.sock" ] && break; sleep 0.05; done
done

X1='{"delegate":"XNNPACK","xnnpack_settings":{"num_threads":1}}'
median() { sed -n 's/.*"daemon_shm": *\([0-9]*\).*/\1/p'; }

for spec in ${HOST_BENCH_MODELS:-deeplabv3_257_float:100 hello_world_float:2000}; do
        m=$models/${spec%%:*}.tflite
        runs=${spec##*:}
        [ -f "$m" ] || { echo "# skipped: $m is absent"; continue; }
        echo "# $(basename "$m"), $runs runs per daemon per round"
        for r in $(seq "$rounds"); do
                a=$("$bench" latency "$m" --socket "$work/none.sock" --settings "$X1" --runs "$runs" | tr -d '\n')
                b=$("$bench" latency "$m" --socket "$work/all.sock" --settings "$X1" --runs "$runs" | tr -d '\n')
                echo "none: $a"
                echo "all:  $b"
                ma=$(echo "$a" | median)
                mb=$(echo "$b" | median)
                [ -n "$ma" ] && [ -n "$mb" ] &&
                        awk -v a="$ma" -v b="$mb" -v r="$r" \
                                'BEGIN { printf "round %s: all/none = %.3f, +%.0f us per request\n", r, b / a, b - a }'
        done
done
"$build/client/accelctl" --socket "$work/all.sock" status | sed -n '/DRIVER HOST/,$p'
