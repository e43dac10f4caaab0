#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# Fetch MediaPipe's pose landmark models (lite, full, heavy: float16 weights)
# for the weights-cache benchmarks (bench/weights-cache.sh):
#
#   bench/fetch-mediapipe-pose.sh [OUT_DIR]      default <source>/bench/out
#
# `npm pack @mediapipe/pose@0.5.1675469404` into OUT_DIR (gitignored), unpack
# it, check pose_landmark_heavy.tflite's SHA-256 and print its path. Reuses an
# earlier download. A benchmark aid only: never run by the build or CI.
set -eu

pkg=@mediapipe/pose
version=0.5.1675469404
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/out}
dest=$out/mediapipe-pose-$version
model=$dest/package/pose_landmark_heavy.tflite
model_sha256=59e42d71bcd44cbdbabc419f0ff76686595fd265419566bd4009ef703ea8e1fe

if [ ! -f "$model" ]; then
        command -v npm >/dev/null || { echo "fetch-mediapipe-pose: npm is needed" >&2; exit 1; }
        mkdir -p "$dest"
        (cd "$dest" && npm pack --silent "$pkg@$version" >/dev/null && tar xzf mediapipe-pose-$version.tgz)
fi
echo "$model_sha256  $model" | sha256sum -c --quiet - || {
        echo "fetch-mediapipe-pose: $model has an unexpected SHA-256" >&2
        exit 1
}
echo "$model"
