#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
#   exports.sh LIB EXPECTED
#
# The dynamic symbols LIB defines are exactly EXPECTED (TensorFlow Lite
# 2.9's C library's functions, each name@@VERS_1.0), plus the version
# definition itself: nothing of libaccel or the runtime leaks out, and a
# binary linked against TensorFlow Lite finds every name at its version.
set -eu
lib=$1 expected=$2
command -v nm >/dev/null 2>&1 || { echo "SKIP: nm not found"; exit 77; }
got=$(nm -D --defined-only --with-symbol-versions "$lib" | awk '{print $3}' | grep -vx 'VERS_1.0' | sort)
if [ "$got" != "$(sort "$expected")" ]; then
        echo "exports differ (< expected, > $lib):"
        echo "$got" | diff "$expected" - || true
        exit 1
fi
# The version script gives VERS_1.0 a definition of its own.
nm -D --defined-only "$lib" | grep -q ' A VERS_1.0$' || { echo "no VERS_1.0 version definition"; exit 1; }
echo "$(echo "$got" | wc -l) functions, all @@VERS_1.0"
