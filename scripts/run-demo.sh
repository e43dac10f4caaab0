#!/usr/bin/env bash
# The README's run command (`make run`): start acceld in the foreground on
# ./var/acceld.sock with its state in ./var, show it answering, classify a
# real photo with a real model through it (data/firstrun/: a quantized
# MobileNet v1 and scikit-image's "chelsea", each with its note of origin
# and licence), benchmark that model and show the setting acceld chose,
# and keep acceld running until Ctrl-C.
#
#   scripts/run-demo.sh BUILD_DIR
#
# ACCELD_DEMO_EXIT=1 stops acceld after the demo and exits with its exit
# code, or 1 when a step of the demo failed (a smoke test of the whole
# path). ACCELD_FIRSTRUN_DIR replaces
# data/firstrun (the installed copy is /usr/share/acceld/firstrun).
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
acceld="$build/daemon/acceld"
accelctl="$build/client/accelctl"
var=./var
sock="$var/acceld.sock"
data=${ACCELD_FIRSTRUN_DIR:-$src/data/firstrun}
model="$data/mobilenet_v1_0.25_128_quant.tflite"
labels="$data/imagenet_labels.txt"

for b in "$acceld" "$accelctl"; do
  if [ ! -x "$b" ]; then
    echo "run-demo: $b is missing; build first (make run does)" >&2
    exit 1
  fi
done
for f in "$model" "$labels" "$data/chelsea.png" "$data/ground-truth.txt"; do
  if [ ! -s "$f" ]; then
    echo "run-demo: $f is missing (data/firstrun/ of the source tree)" >&2
    exit 1
  fi
done
mkdir -p "$var"

# --config /dev/null: the demo uses the built-in defaults, not an installed
# /etc/acceld/acceld.conf. The state directory is given as an absolute
# path (acceld resolves a relative one against its start directory too:
# its benchmark workers enter their sandbox by absolute path).
"$acceld" --foreground --config /dev/null --socket "$sock" --state-dir "$PWD/${var#./}" &
pid=$!

# A step of the demo that failed; with ACCELD_DEMO_EXIT=1 the script then
# exits 1 (after stopping acceld) whatever acceld's own status.
failed=0
stop() {
  trap - INT TERM
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
  fi
  rc=0
  wait "$pid" || rc=$?
  [ "$rc" = 0 ] && [ "$failed" != 0 ] && rc=1
  exit "$rc"
}
step_failed() {
  echo "run-demo: $* failed" >&2
  failed=1
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
"$accelctl" --socket "$sock" status || step_failed status
echo
echo "== accelctl --socket $sock caps"
"$accelctl" --socket "$sock" caps || step_failed caps
echo
echo "== accelctl --socket $sock ops $model (first nodes)"
"$accelctl" --socket "$sock" ops "$model" >"$var/demo-ops.txt" || step_failed ops
head -n 6 "$var/demo-ops.txt"
echo
# accelctl decodes the photo (libpng), centre-crops it, resizes it to the
# model's 128x128 and quantizes it to its uint8 input with the project's
# image code (runtime/eval/); the model goes to acceld as an fd, the tensor
# through shared memory, and acceld runs it with the setting it picks.
# "rank" is where the model puts ground-truth.txt's label in its top 5.
echo "== accelctl --socket $sock eval topk $model --images $data --labels $labels (a real photo, a real model)"
"$accelctl" --socket "$sock" eval topk "$model" --images "$data" \
  --ground-truth "$data/ground-truth.txt" --labels "$labels" || step_failed "eval topk"
echo

# The benchmarks (issue 6): the model's candidate settings measured in
# acceld's worker processes, the table, then the chosen setting and why.
echo "== scripts/demo-bench.sh"
"$src/scripts/demo-bench.sh" "$build" "$sock" "$model" || step_failed scripts/demo-bench.sh
echo

if [ "${ACCELD_DEMO_EXIT:-0}" = 1 ]; then
  stop
fi

echo "acceld (pid $pid) is serving on $sock; press Ctrl-C to stop it."
# `wait` returns early when a trapped signal arrives; stop() then exits.
rc=0
wait "$pid" || rc=$?
exit "$rc"
