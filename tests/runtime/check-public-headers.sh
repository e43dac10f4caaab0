#!/bin/sh
# The public include directory (runtime/include, all runtime_dep exports)
# stands alone: each header in it compiles with -I of that directory only,
# so none of them reaches an internal header (kernel.h, graph.h, ...).
# Usage: check-public-headers.sh CC INCLUDE_DIR
set -eu
cc=$1 inc=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for h in rt.h model.h settings.h accel/driver.h; do
        printf '#include "%s"\n' "$h" > "$tmp/t.c"
        $cc -std=c11 -Wall -Wextra -Werror -I"$inc" -fsyntax-only "$tmp/t.c"
        echo "ok: $h"
done
