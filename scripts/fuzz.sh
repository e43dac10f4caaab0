#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# Bounded libFuzzer run of the .tflite reader (tests/fuzz/fuzz-model.c).
#
#   scripts/fuzz.sh [SECONDS]      default 60
#
# Builds build-fuzz/ with clang and -Dfuzz=true (once; reused afterwards),
# seeds a temporary corpus with ../shared/models (models, ops/, malformed/),
# runs the target for SECONDS and exits non-zero on a finding. Crash inputs
# are kept in build-fuzz/fuzz-artifacts/.
#
# Environment: ACCELD_SHARED_DIR (default: <source>/../shared),
# FUZZ_BUILD_DIR (default: <source>/build-fuzz), FUZZ_MAX_LEN (default
# 262144 bytes; larger seeds are truncated by libFuzzer), FUZZ_JOBS (ninja
# jobs, default 2).
set -eu

seconds=${1:-60}
case "$seconds" in
''|*[!0-9]*) echo "usage: $0 [SECONDS]" >&2; exit 2 ;;
esac

root=$(cd "$(dirname "$0")/.." && pwd)
build=${FUZZ_BUILD_DIR:-"$root/build-fuzz"}
shared=${ACCELD_SHARED_DIR:-"$root/../shared"}
max_len=${FUZZ_MAX_LEN:-262144}
jobs=${FUZZ_JOBS:-2}

if [ ! -f "$build/build.ninja" ]; then
        CC=clang meson setup "$build" "$root" -Dfuzz=true -Dtests=true -Dxnnpack=disabled \
                -Dbuildtype=debugoptimized
else
        meson configure "$build" -Dfuzz=true
fi
ninja -C "$build" -j "$jobs" tests/fuzz/fuzz-model

corpus=$(mktemp -d "${TMPDIR:-/tmp}/acceld-fuzz.XXXXXX")
trap 'rm -rf "$corpus"' EXIT INT TERM
for dir in "$shared/models" "$shared/models/ops" "$shared/models/malformed"; do
        [ -d "$dir" ] || continue
        for f in "$dir"/*.tflite "$dir"/*.bin; do
                [ -f "$f" ] && cp "$f" "$corpus/"
        done
done
echo "fuzz: $(ls "$corpus" | wc -l) seeds, ${seconds}s"

artifacts="$build/fuzz-artifacts"
mkdir -p "$artifacts"
# libFuzzer exits non-zero on a crash, leak, timeout or OOM: set -e turns
# that into this script's failure.
"$build/tests/fuzz/fuzz-model" \
        -max_total_time="$seconds" \
        -max_len="$max_len" \
        -timeout=10 \
        -rss_limit_mb=2048 \
        -print_final_stats=1 \
        -artifact_prefix="$artifacts/" \
        "$corpus"
echo "fuzz: no finding in ${seconds}s"
