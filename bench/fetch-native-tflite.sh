#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# Fetch native TensorFlow Lite 2.9's C library, the performance yardstick
# for bench/tflite-native and bench/compare-native.sh:
#
#   bench/fetch-native-tflite.sh [OUT_DIR]       default <source>/bench/out
#
# Downloads the npm package tfjs-tflite-node@0.0.2 with `npm pack` into
# OUT_DIR (gitignored), unpacks its cc_deps/linux_amd64/ and prints the path
# of libtensorflowlite_c.so on stdout. Reuses an earlier download. Needs npm
# and access to the npm registry; x86-64 Linux only.
#
# Used by benchmarks and by `make test` and .ci/run, which fetch it for the
# differential tests (difftest, modelfuzz) and go on without it (those tests
# then SKIP) when npm or its registry cannot be reached.
set -eu

pkg=tfjs-tflite-node
version=0.0.2
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/out}
dest=$out/$pkg-$version
lib=$dest/cc_deps/linux_amd64/libtensorflowlite_c.so
# sha256 of that file in tfjs-tflite-node@0.0.2 (TensorFlow Lite 2.9.0).
lib_sha256=dc89b4cd86d956516570bd483668e6dd98907f49901d0567dedc69a29a56b7f7

case "$(uname -s)-$(uname -m)" in
Linux-x86_64) ;;
*)
        echo "fetch-native-tflite: only cc_deps/linux_amd64 is used; this is $(uname -s)-$(uname -m)" >&2
        exit 1
        ;;
esac

if [ ! -f "$lib" ]; then
        command -v npm >/dev/null 2>&1 || {
                echo "fetch-native-tflite: npm not found" >&2
                exit 1
        }
        mkdir -p "$out"
        tgz=$out/$pkg-$version.tgz
        if [ ! -f "$tgz" ]; then
                # npm pack prints the tarball's file name; its notices go to stderr.
                name=$(cd "$out" && npm pack --silent "$pkg@$version" | tail -n 1)
                [ "$out/$name" = "$tgz" ] || mv "$out/$name" "$tgz"
        fi
        tmp=$(mktemp -d "$out/.unpack.XXXXXX")
        trap 'rm -rf "$tmp"' EXIT
        tar -xzf "$tgz" -C "$tmp" package/cc_deps/linux_amd64 package/cc_deps/include
        rm -rf "$dest"
        mkdir -p "$dest"
        mv "$tmp/package/cc_deps" "$dest/cc_deps"
fi

[ -f "$lib" ] || {
        echo "fetch-native-tflite: $lib missing after unpacking" >&2
        exit 1
}
sum=$(sha256sum "$lib" | cut -d' ' -f1)
[ "$sum" = "$lib_sha256" ] || {
        echo "fetch-native-tflite: $lib has sha256 $sum, expected $lib_sha256" >&2
        exit 1
}
echo "$lib"
