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
  debhelper dh-python lintian chrpath
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

# A fresh machine often runs apt on its own at boot (unattended upgrades,
# cloud-init). Wait for its locks instead of failing: dpkg's frontend lock
# through apt's own timeout, and apt-get update's list lock (which that
# option does not cover on every apt) by retrying while another apt holds
# it, for up to ten minutes in all.
apt_wait() {
  local deadline=$((SECONDS + 600)) out
  while :; do
    if out=$($SUDO apt-get -o DPkg::Lock::Timeout=600 "$@" 2>&1); then
      [ -n "$out" ] && printf '%s\n' "$out"
      return 0
    fi
    if ! grep -qiE 'could not get lock|unable to acquire|is held by process' <<<"$out" ||
       [ $SECONDS -ge $deadline ]; then
      printf '%s\n' "$out" >&2
      return 1
    fi
    echo "install-deps: another apt holds the package lock; waiting" >&2
    sleep 5
  done
}
apt_wait update -qq
apt_wait install -y -qq --no-install-recommends "${missing[@]}"
