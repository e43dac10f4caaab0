#!/usr/bin/env bash
# The benchmark part of the README demo (issue 6), run by scripts/run-demo.sh:
# benchmark the first run's model's candidate settings (data/firstrun/) in
# acceld's worker processes, print the results table, then the chosen
# settings and why.
#
#   scripts/demo-bench.sh BUILD_DIR SOCKET MODEL
set -euo pipefail

build=$1
sock=$2
model=$3
accelctl="$build/client/accelctl"

echo "== accelctl --socket $sock bench $model --runs 5"
"$accelctl" --socket "$sock" bench "$model" --runs 5
echo
echo "== accelctl --socket $sock best $model --preference LOW_LATENCY"
"$accelctl" --socket "$sock" best "$model" --preference LOW_LATENCY
echo
echo "== accelctl --socket $sock events --type ERROR --limit 5"
"$accelctl" --socket "$sock" events --type ERROR --limit 5
