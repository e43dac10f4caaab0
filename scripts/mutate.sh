#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# Mutated real models through acceld (tests/fuzz/mutate.c): the int32s,
# bytes and offsets of ../shared/models/*.tflite changed, each mutant
# prepared (XNNPACK or NONE) and executed by a real acceld, which must
# neither die nor hang.
#
#   scripts/mutate.sh COUNT|SECONDSs [SEED]     e.g. 5000 7, or 600s 7
#
# COUNT mutants (or as many as fit in SECONDS) starting at index 0 of SEED
# (default 1). Mutant i of seed S is the same bytes everywhere: replay one
# with MUTATE_FIRST=i scripts/mutate.sh 1 S. A mutant that kills acceld
# (it is then started again) or outlives the timeout is saved, with its
# edits, in MUTATE_SAVE (default <build>/mutants), and so is acceld's log.
# Exits 1 on any death or hang. The last line is the summary.
#
# Environment: MUTATE_BUILD_DIR (default <source>/build; a build made with
# -Db_sanitize=address,undefined runs everything under ASan/UBSan),
# MUTATE_MODE (daemon, the default, or inproc: the in-process runtime in a
# forked child per mutant), MUTATE_CONFIG (an acceld config file, e.g. one
# with isolate_drivers = all), MUTATE_TIMEOUT_MS (per mutant, default
# 120000), MUTATE_MAX_MODEL_BYTES (skip larger seed models; default 0, all),
# MUTATE_EXCLUDE (space-separated parts of model names to leave out, e.g.
# style_transfer: a minute on the reference kernels of a busy machine),
# ACCELD_SHARED_DIR (default <source>/../shared).
set -eu

usage() { echo "usage: $0 COUNT|SECONDSs [SEED]" >&2; exit 2; }
[ $# -ge 1 ] && [ $# -le 2 ] || usage
case "$1" in
*s) n=${1%s}; amount="--seconds $n" ;;
*) n=$1; amount="--count $n" ;;
esac
case "$n" in ''|*[!0-9]*) usage ;; esac
seed=${2:-1}
case "$seed" in ''|*[!0-9]*) usage ;; esac

root=$(cd "$(dirname "$0")/.." && pwd)
build=${MUTATE_BUILD_DIR:-"$root/build"}
shared=${ACCELD_SHARED_DIR:-"$root/../shared"}
save=${MUTATE_SAVE:-"$build/mutants"}
mode=${MUTATE_MODE:-daemon}

[ -f "$build/build.ninja" ] || meson setup "$build" "$root"
ninja -C "$build" tests/fuzz/mutate daemon/acceld

set -- $amount --seed "$seed" --first "${MUTATE_FIRST:-0}" --save "$save" \
        --timeout-ms "${MUTATE_TIMEOUT_MS:-120000}" --max-model-bytes "${MUTATE_MAX_MODEL_BYTES:-0}"
for x in ${MUTATE_EXCLUDE:-}; do
        set -- "$@" --exclude "$x"
done
case "$mode" in
daemon)
        set -- "$@" --acceld "$build/daemon/acceld"
        [ -n "${MUTATE_CONFIG:-}" ] && set -- "$@" --config "$MUTATE_CONFIG"
        ;;
inproc) ;;
*) echo "$0: MUTATE_MODE must be daemon or inproc" >&2; exit 2 ;;
esac
# ASan's own exit code and report make a death visible; leaks of a killed
# child are not findings.
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
        exec "$build/tests/fuzz/mutate" "$@" "$shared/models"
