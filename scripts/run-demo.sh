#!/usr/bin/env bash
# The README's run command (`make run`): start acceld in the foreground on
# ./var/acceld.sock with its state in ./var, show it answering, serve a real
# model (a MobileNet-shaped float network the project generates itself with
# bench/make-demo-model into ./var), print its top-5 and timings, and keep
# acceld running until Ctrl-C.
#
#   scripts/run-demo.sh BUILD_DIR
#
# ACCELD_DEMO_EXIT=1 stops acceld after the demo and exits with its exit
# code (a smoke test of the whole path).
set -euo pipefail

build=${1:-build}
acceld="$build/daemon/acceld"
accelctl="$build/client/accelctl"
make_model="$build/bench/make-demo-model"
var=./var
sock="$var/acceld.sock"
model="$var/demo-mobilenet.tflite"
input="$var/demo-input.bin"

for b in "$acceld" "$accelctl" "$make_model"; do
  if [ ! -x "$b" ]; then
    echo "run-demo: $b is missing; build first (make run does)" >&2
    exit 1
  fi
done
mkdir -p "$var"
# The demo model and a deterministic input image (same bytes every build).
if [ ! -s "$model" ] || [ ! -s "$input" ]; then
  "$make_model" "$model" "$input"
fi

# --config /dev/null: the demo uses the built-in defaults, not an installed
# /etc/acceld/acceld.conf.
"$acceld" --foreground --config /dev/null --socket "$sock" --state-dir "$var" &
pid=$!

stop() {
  trap - INT TERM
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
  fi
  rc=0
  wait "$pid" || rc=$?
  exit "$rc"
}
trap stop INT TERM

# Wait (up to 10 s) until acceld answers.
ready=0
for _ in $(seq 1 100); do
  if ! kill -0 "$pid" 2>/dev/null; then
    rc=0
    wait "$pid" || rc=$?
    echo "run-demo: acceld exited early (status $rc)" >&2
    exit 1
  fi
  if "$accelctl" --socket "$sock" status >/dev/null 2>&1; then
    ready=1
    break
  fi
  sleep 0.1
done
if [ "$ready" != 1 ]; then
  echo "run-demo: acceld did not answer on $sock" >&2
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" || true
  exit 1
fi

echo
echo "== accelctl --socket $sock status"
"$accelctl" --socket "$sock" status
echo
echo "== accelctl --socket $sock caps"
"$accelctl" --socket "$sock" caps
echo
echo "== accelctl --socket $sock ops $model (first nodes)"
"$accelctl" --socket "$sock" ops "$model" >"$var/demo-ops.txt"
head -n 6 "$var/demo-ops.txt"
echo
# The model goes to acceld as an fd, the tensors through shared memory; the
# daemon picks the delegate (XNNPACK when built in).
echo "== accelctl --socket $sock run $model --input $input --runs 10"
"$accelctl" --socket "$sock" run "$model" --input "$input" --runs 10
echo

# Hook for issue 6 (benchmarks): when scripts/demo-bench.sh exists it is run
# here with the socket and the model, and prints the benchmark results.
if [ -x scripts/demo-bench.sh ]; then
  echo "== scripts/demo-bench.sh"
  scripts/demo-bench.sh "$build" "$sock" "$model" || echo "run-demo: demo-bench.sh failed" >&2
  echo
fi

if [ "${ACCELD_DEMO_EXIT:-0}" = 1 ]; then
  stop
fi

echo "acceld (pid $pid) is serving on $sock; press Ctrl-C to stop it."
# `wait` returns early when a trapped signal arrives; stop() then exits.
rc=0
wait "$pid" || rc=$?
exit "$rc"
