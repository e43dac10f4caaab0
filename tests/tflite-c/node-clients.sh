#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# Node.js bindings nobody here wrote, on our libtensorflowlite_c.so:
#
#   node-clients.sh CLIENT LIB_DIR LIBACCEL_DIR INCLUDE_DIR CACHE_DIR ACCELD DRIVER_JS
#
# CLIENT is tfjs-tflite-node (TensorFlow Lite 2.9's C API) or node-tflite
# (2.2's), both at 0.0.2 from npm, installed once into CACHE_DIR (under the
# build dir; nothing is fetched again while it is there). Two builds of the
# client's addon:
#   ours   built against our header and library: runs served by acceld
#   stock  built as npm builds it, against the client's own TensorFlow Lite
#          headers and library, then run unchanged with only the loader
#          path pointing at ours (binary compatibility): runs in-process
# Each run goes over every runnable shared model against its goldens
# (DRIVER_JS), and checks that the library loaded is ours.
#
# Exit 77 (skip) without node, npm, node's headers, the shared models, or
# when the npm registry cannot be reached.
set -eu

client=$1 libdir=$2 accel_libdir=$3 incdir=$4 cache=$5 acceld=$6 driver=$7

skip() {
        echo "SKIP: $*"
        exit 77
}

[ "$(uname -s)-$(uname -m)" = Linux-x86_64 ] || skip "the clients ship x86-64 Linux libraries only"
command -v node >/dev/null 2>&1 || skip "node not found"
command -v npm >/dev/null 2>&1 || skip "npm not found"
# A sanitizer build's library needs its runtime loaded first, which node
# is not; the same code runs under the sanitizers in the C test.
if nm -D --undefined-only "$libdir/libtensorflowlite_c.so" 2>/dev/null | grep -q -E '__(asan|tsan|ubsan)_'; then
        skip "sanitizer build: node cannot load an instrumented libtensorflowlite_c.so (tflite-c covers it)"
fi
[ -n "${ACCELD_SHARED_DIR:-}" ] && [ -f "$ACCELD_SHARED_DIR/models/manifest.json" ] || skip "no shared models"

# node-gyp: on PATH, or the one npm bundles. Node's headers: the prefix
# node runs from (nodesource, Debian's libnode-dev both use /usr).
if command -v node-gyp >/dev/null 2>&1; then
        gyp=$(command -v node-gyp)
else
        npm_root=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
        gyp=$npm_root/node_modules/node-gyp/bin/node-gyp.js
        [ -f "$gyp" ] || skip "node-gyp not found"
fi
nodedir=$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")
[ -f "$nodedir/include/node/node_api.h" ] || skip "node's headers not found under $nodedir/include/node (libnode-dev)"

case $client in
tfjs-tflite-node)
        specs="tfjs-tflite-node@0.0.2 @tensorflow/tfjs-core@3.21.0 @tensorflow/tfjs-backend-cpu@3.21.0"
        inc_rel=cc_deps/include
        lib_rel=cc_deps/linux_amd64/libtensorflowlite_c.so
        ;;
node-tflite)
        specs="node-tflite@0.0.2"
        inc_rel=tflite/include
        lib_rel=tflite/linux_x86_64/libtensorflowlite_c.so
        ;;
*)
        echo "unknown client $client" >&2
        exit 2
        ;;
esac

export npm_config_cache="$cache/npm-cache" npm_config_update_notifier=false npm_config_fund=false \
        npm_config_audit=false npm_config_loglevel=error
top=$cache/$client
mkdir -p "$top"

# Install once: the package and its dependencies, without its install
# script (the addon is built below, twice).
if [ ! -f "$top/installed" ]; then
        rm -rf "$top/stock" "$top/ours"
        mkdir -p "$top/stock"
        echo '{"name": "acceld-tflite-c-node-test", "private": true}' >"$top/stock/package.json"
        # shellcheck disable=SC2086
        if ! (cd "$top/stock" && timeout 150 npm install --ignore-scripts --legacy-peer-deps $specs); then
                rm -rf "$top/stock"
                skip "npm install $specs failed (is the npm registry reachable?)"
        fi
        cp -a "$top/stock" "$top/ours"
        touch "$top/installed"
fi

gyp_build() {
        (cd "$1" && timeout 240 node "$gyp" rebuild --nodedir="$nodedir" >build.log 2>&1) || {
                cat "$1/build.log"
                echo "node-gyp failed in $1"
                exit 1
        }
}

# stock: exactly what npm would have built; built once.
stock=$top/stock/node_modules/$client
if [ ! -f "$top/stock-built" ]; then
        gyp_build "$stock"
        touch "$top/stock-built"
fi

# ours: the client's sources against our header and library; rebuilt every
# run, since they are under test.
ours=$top/ours/node_modules/$client
rm -rf "${ours:?}/$inc_rel" "$ours/$lib_rel"
ln -s "$incdir" "$ours/$inc_rel"
ln -s "$libdir/libtensorflowlite_c.so" "$ours/$lib_rel"
gyp_build "$ours"

tmp=$(mktemp -d)
pid=
cleanup() {
        [ -z "$pid" ] || kill "$pid" 2>/dev/null || true
        [ -z "$pid" ] || wait "$pid" 2>/dev/null || true
        rm -rf "$tmp"
}
trap cleanup EXIT

"$acceld" --socket "$tmp/acceld.sock" --state-dir "$tmp/state" --config /dev/null >"$tmp/acceld.log" 2>&1 &
pid=$!
i=0
while [ ! -S "$tmp/acceld.sock" ]; do
        i=$((i + 1))
        if [ $i -gt 100 ] || ! kill -0 "$pid" 2>/dev/null; then
                cat "$tmp/acceld.log"
                echo "acceld did not start"
                exit 1
        fi
        sleep 0.1
done

status=0
echo "== $client built against our header and library, served by acceld"
ACCEL_TFLITE_MODE=served ACCELD_SOCKET=$tmp/acceld.sock LD_LIBRARY_PATH="$libdir:$accel_libdir" \
        node "$driver" "$client" "$top/ours/node_modules" accelerated "$libdir/libtensorflowlite_c.so" || status=1
echo "== $client as npm built it (TensorFlow Lite's headers and library), loader pointed at ours, in-process"
ACCEL_TFLITE_MODE=local LD_LIBRARY_PATH="$libdir:$accel_libdir" \
        node "$driver" "$client" "$top/stock/node_modules" reference "$libdir/libtensorflowlite_c.so" || status=1
exit $status
