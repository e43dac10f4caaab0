#!/usr/bin/env bash
# `make deb`: build the Debian binary packages of debian/ from the tree with
# dpkg-buildpackage, into OUT (build-deb by default), then run lintian on
# them when it is installed.
#
#   scripts/build-deb.sh [OUT]
#
# The tree (without .git, build directories and ./var) is copied to
# OUT/src and built there; the .deb files land in OUT. DEB_JOBS (2) is the
# parallelism; the packages are built without the tests (-Dtests=false,
# nocheck). Needs dpkg-dev, debhelper, dh-python and the build
# dependencies of debian/control (dpkg-checkbuilddeps says which are
# missing).
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-build-deb}
case $out in /*) ;; *) out=$src/$out ;; esac
jobs=${DEB_JOBS:-2}

for tool in dpkg-buildpackage dh; do
  if ! command -v "$tool" >/dev/null; then
    echo "build-deb: $tool is missing (apt-get install dpkg-dev debhelper dh-python)" >&2
    exit 1
  fi
done

rm -rf "$out"
mkdir -p "$out/src"
# Everything but version control, build trees and run-time state.
tar -C "$src" --exclude=./.git --exclude='./build*' --exclude=./var \
  --exclude=./obj-\* -cf - . | tar -C "$out/src" -xf -

cd "$out/src"
dpkg-checkbuilddeps
start=$SECONDS
DEB_BUILD_OPTIONS="nocheck parallel=$jobs ${DEB_BUILD_OPTIONS:-}" \
  dpkg-buildpackage -b -us -uc -j"$jobs"
echo "build-deb: packages built in $((SECONDS - start)) s:"
cd "$out"
ls -1 ./*.deb

if command -v lintian >/dev/null; then
  echo "build-deb: lintian"
  # Errors fail the build; warnings and notes are shown.
  lintian --fail-on error --info ./*.changes
fi
