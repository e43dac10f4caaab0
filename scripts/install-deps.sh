#!/usr/bin/env bash
# Install the Debian packages acceld needs to build and test, if any are
# missing. Safe to run repeatedly; a no-op when everything is present.
set -euo pipefail

pkgs=(
  gcc clang libclang-rt-14-dev pkg-config meson ninja-build python3
  python3-dev python3-numpy python3-pytest
  protobuf-c-compiler libprotobuf-c-dev
  libuv1-dev libsqlite3-dev sqlite3 libsystemd-dev
  libjson-c-dev libinih-dev check
  libxnnpack-dev libpthreadpool-dev libcpuinfo-dev
  libseccomp-dev libssl-dev libxxhash-dev
  libjpeg62-turbo-dev libpng-dev libzip-dev
  python3-skimage
)
# Node.js, npm and node's headers for tests/tflite-c's npm clients (they
# skip without them); left alone when a node is already installed (e.g.
# nodesource's, which carries npm and the headers itself).
if ! command -v node >/dev/null 2>&1; then
  pkgs+=(nodejs npm libnode-dev)
fi

missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  SUDO=sudo
else
  SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
