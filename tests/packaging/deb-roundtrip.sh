#!/usr/bin/env bash
# The Debian packages end to end, on this machine (CI runs it from .ci/run):
# build them (scripts/build-deb.sh, or take the .debs of DEB_DIR), install
# them with apt-get, start acceld the way its unit does (the unit's own
# ExecStart= line, as its User=/Group=, on the socket of acceld.socket passed
# by socket activation; systemd need not be running), use it as an
# unprivileged member of group "acceld" (and be refused as a non-member):
# accelctl, the Python module, the packaged first run (a real photo through
# the real model of /usr/share/acceld/firstrun) and an unmodified TensorFlow
# Lite C API program under accel-tflite (linked against native TensorFlow
# Lite's library when ACCELD_TFLITE_C_LIB or bench/out has it, and built
# against acceld-tflite-dev with pkg-config); then remove and purge the
# packages and check that nothing is left behind but what Debian policy
# keeps (the system user and group).
#
#   tests/packaging/deb-roundtrip.sh            build into a temporary dir
#   DEB_DIR=build-deb tests/packaging/deb-roundtrip.sh   use built .debs
#   ACCELD_TFLITE_C_LIB=/path/to/libtensorflowlite_c.so   native TFLite 2.9
#
# Exit 77 (skip) when not root, when dpkg-buildpackage or debhelper is
# missing, or when acceld's packages are already installed here (the test
# would replace and then purge them).
set -euo pipefail

src=$(cd "$(dirname "$0")/../.." && pwd)
pkgs=(acceld accelctl libaccel0 libaccel-dev python3-accel acceld-tflite acceld-tflite-dev)
member=accel-rt-member
outsider=accel-rt-outsider

skip() { echo "deb-roundtrip: SKIP: $*"; exit 77; }
fail() { echo "deb-roundtrip: FAIL: $*" >&2; exit 1; }
step() { echo "== deb-roundtrip: $*"; }

[ "$(id -u)" -eq 0 ] || skip "needs root (installs packages)"
if [ -z "${DEB_DIR:-}" ]; then
  command -v dpkg-buildpackage >/dev/null || skip "dpkg-buildpackage is missing (dpkg-dev)"
  command -v dh >/dev/null || skip "debhelper is missing"
fi
command -v systemd-socket-activate >/dev/null || skip "systemd-socket-activate is missing (systemd)"
for p in "${pkgs[@]}"; do
  if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed\|config-files'; then
    skip "$p is already installed here; not replacing it"
  fi
done

work=$(mktemp -d /tmp/deb-roundtrip.XXXXXX)
chmod 0755 "$work"
pid=
had_user=0
getent passwd acceld >/dev/null && had_user=1
cleanup() {
  set +e
  [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  userdel "$member" 2>/dev/null
  userdel "$outsider" 2>/dev/null
  # Tidy up after a failure half way; a passing run purged already.
  local left=()
  for p in "${pkgs[@]}"; do
    dpkg-query -W "$p" >/dev/null 2>&1 && left+=("$p")
  done
  [ ${#left[@]} -gt 0 ] && dpkg --purge "${left[@]}" >/dev/null 2>&1
  # The package's system user stays on purge (policy); the test, not the
  # machine, made it, so the test removes it.
  if [ "$had_user" = 0 ]; then
    userdel acceld 2>/dev/null
    groupdel acceld 2>/dev/null
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# Everything of acceld's outside the package database, before and after.
snapshot() {
  find /etc /usr /lib /var /opt -xdev \
    \( -path /var/lib/dpkg -o -path /var/cache -o -path /var/log -o -path /var/lib/apt -o -path /var/tmp \) -prune -o \
    \( -iname '*acceld*' -o -iname '*accelctl*' -o -iname '*libaccel*' -o -iname 'accel.pc' \
       -o -path '*/dist-packages/accel' -o -path '*/include/accel' -o -iname 'accel-benchmark*' \
       -o -iname 'accel-tflite*' \) -print 2>/dev/null | sort
  [ -d /run/acceld ] && echo /run/acceld
  return 0
}
snapshot >"$work/before"

if [ -n "${DEB_DIR:-}" ]; then
  debdir=$(cd "$DEB_DIR" && pwd)
else
  step "building the packages (scripts/build-deb.sh)"
  start=$SECONDS
  "$src/scripts/build-deb.sh" "$work/deb" >"$work/build.log" 2>&1 || { tail -n 60 "$work/build.log"; fail "the package build failed"; }
  echo "deb-roundtrip: packages built in $((SECONDS - start)) s"
  debdir=$work/deb
fi
debs=()
for p in "${pkgs[@]}"; do
  f=$(ls "$debdir/${p}"_*.deb 2>/dev/null | head -n 1)
  [ -n "$f" ] || fail "no ${p}_*.deb in $debdir"
  debs+=("$f")
done

step "apt-get install ${debs[*]##*/}"
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
  -o DPkg::Lock::Timeout=600 "${debs[@]}" >"$work/install.log" 2>&1 || { cat "$work/install.log"; fail "apt-get install failed"; }

# What the maintainer scripts did.
getent passwd acceld >/dev/null || fail "the system user acceld was not created (sysusers)"
getent group acceld >/dev/null || fail "the group acceld was not created (sysusers)"
[ "$(stat -c %U:%G:%a /var/lib/acceld)" = acceld:acceld:700 ] || fail "/var/lib/acceld is $(stat -c %U:%G:%a /var/lib/acceld), not acceld:acceld:700 (tmpfiles: the state is acceld's alone)"
[ -d /run/acceld ] || fail "/run/acceld was not created (tmpfiles)"
[ -f /etc/acceld/acceld.conf ] || fail "/etc/acceld/acceld.conf is missing"
dpkg-query -W -f='${Conffiles}\n' acceld | grep -q /etc/acceld/acceld.conf || fail "acceld.conf is not a conffile"
unit=
for d in /lib/systemd/system /usr/lib/systemd/system; do
  [ -f "$d/acceld.service" ] && unit=$d/acceld.service
done
[ -n "$unit" ] || fail "acceld.service is not installed"
for w in sockets.target.wants/acceld.socket multi-user.target.wants/acceld.service; do
  [ -L "/etc/systemd/system/$w" ] || fail "$w is not enabled (dh_installsystemd)"
done
[ -f /usr/share/bash-completion/completions/accelctl ] || fail "accelctl's bash completion is missing"
for m in man8/acceld.8 man5/acceld.conf.5 man1/accelctl.1 man3/libaccel.3 man1/accel-tflite.1; do
  [ -f "/usr/share/man/$m.gz" ] || fail "man page $m is missing"
done
pkg-config --exists accel || fail "pkg-config does not find accel.pc"
# The first run's files and their notice.
firstrun=/usr/share/acceld/firstrun
for f in mobilenet_v1_0.25_128_quant.tflite imagenet_labels.txt chelsea.png ground-truth.txt README.md SHA256SUMS; do
  [ -s "$firstrun/$f" ] || fail "$firstrun/$f is missing"
done
(cd "$firstrun" && sha256sum --quiet --ignore-missing -c SHA256SUMS) || fail "$firstrun does not match its SHA256SUMS"
# The TensorFlow Lite C library: in its private folder, found by nothing
# but accel-tflite and acceld-tflite.pc (it must not shadow a real one).
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
tflite_lib=/usr/lib/$multiarch/acceld/tflite/libtensorflowlite_c.so
[ -f "$tflite_lib" ] || fail "$tflite_lib is missing"
[ -x /usr/bin/accel-tflite ] || fail "/usr/bin/accel-tflite is missing"
[ -f /usr/include/acceld/tflite/tensorflow/lite/c/c_api.h ] || fail "the TensorFlow Lite C API headers are missing"
pkg-config --exists acceld-tflite || fail "pkg-config does not find acceld-tflite.pc"
if ldconfig -p | grep -q '/acceld/tflite/'; then
  ldconfig -p | grep '/acceld/tflite/' >&2
  fail "the dynamic linker's cache finds acceld's libtensorflowlite_c.so (it must stay private)"
fi

# The unit's own ExecStart=, User= and Group=, with acceld.socket's socket
# (ListenStream=, SocketUser=, SocketGroup=, SocketMode=) passed by
# socket activation as systemd would, with the environment systemd gives
# it ($RUNTIME_DIRECTORY, $STATE_DIRECTORY).
unitval() { sed -n "s/^$1=//p" "$2" | tail -n 1; }
sockunit=${unit%.service}.socket
exec_start=$(unitval ExecStart "$unit")
user=$(unitval User "$unit")
group=$(unitval Group "$unit")
listen=$(unitval ListenStream "$sockunit")
sock_group=$(unitval SocketGroup "$sockunit")
sock_mode=$(unitval SocketMode "$sockunit")
[ -n "$exec_start" ] && [ -n "$user" ] && [ -n "$listen" ] || fail "could not read the units"
step "starting, as $user:$group on $listen: $exec_start"
read -r -a cmd <<<"$exec_start"
# What systemd passes from RuntimeDirectory= and StateDirectory=.
rtdir=/run/$(unitval RuntimeDirectory "$unit")
stdir=/var/lib/$(unitval StateDirectory "$unit")
cd /
RUNTIME_DIRECTORY=$rtdir STATE_DIRECTORY=$stdir systemd-socket-activate \
  -E RUNTIME_DIRECTORY -E STATE_DIRECTORY -l "$listen" -- \
  setpriv --reuid="$user" --regid="$group" --init-groups --inh-caps=-all --no-new-privs \
  "${cmd[@]}" --log-target stderr >"$work/acceld.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do
  [ -S "$listen" ] && break
  sleep 0.1
done
[ -S "$listen" ] || { cat "$work/acceld.log"; fail "no socket at $listen"; }
chgrp "$sock_group" "$listen"
chmod "$sock_mode" "$listen"

useradd --system --no-create-home --shell /usr/sbin/nologin "$member"
usermod -aG acceld "$member"
useradd --system --no-create-home --shell /usr/sbin/nologin "$outsider"
as() {
  local u=$1
  shift
  setpriv --reuid="$u" --regid="$u" --init-groups env -i PATH=/usr/bin:/bin HOME=/ "$@"
}

# The first connection activates acceld.
step "accelctl status, caps as $member"
as "$member" accelctl --socket "$listen" status >"$work/status.txt" 2>&1 || { cat "$work/status.txt" "$work/acceld.log"; fail "accelctl status as a member of acceld failed"; }
cat "$work/status.txt"
as "$member" accelctl --socket "$listen" --json caps >"$work/caps.json" || fail "accelctl caps failed"
python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); assert c["backends"], c' "$work/caps.json" || fail "caps has no backends"
[ "$(ps -o user= -p "$pid")" = "$user" ] || fail "acceld does not run as $user (ps says $(ps -o user= -p "$pid"))"
step "python3 -c 'import accel' as $member"
as "$member" python3 -c 'import accel, sys; print("python: status", accel.Client(sys.argv[1]).status())' "$listen" \
  || fail "the Python module could not reach acceld"

# The packaged first run (docs/usage.md, "The first run"): the photo,
# preprocessed by accelctl, classified by the installed model on acceld.
step "the first run as $member: accelctl eval topk $firstrun/... --images $firstrun"
as "$member" accelctl --socket "$listen" eval topk "$firstrun/mobilenet_v1_0.25_128_quant.tflite" \
  --images "$firstrun" --ground-truth "$firstrun/ground-truth.txt" --labels "$firstrun/imagenet_labels.txt" \
  >"$work/firstrun.txt" 2>&1 || { cat "$work/firstrun.txt" "$work/acceld.log"; fail "the first run failed"; }
cat "$work/firstrun.txt"
top1=$(awk '$1 == "chelsea.png"' "$work/firstrun.txt")
case $top1 in
  *"tabby, tabby cat  "[0-9]* | *"tiger cat  "[0-9]* | *"Persian cat  "[0-9]* | *"Siamese cat, Siamese  "[0-9]* | *"Egyptian cat  "[0-9]*) ;;
  *) fail "the first run's top-1 is not a cat: $top1" ;;
esac

# An unmodified TensorFlow Lite C API program, as a member of acceld,
# forced onto the daemon (ACCEL_TFLITE_MODE=served fails without one).
# acceld's count of executions, to see that the programs ran on it.
executions() {
  as "$member" accelctl --socket "$listen" --json status |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["serving"]["executions"])'
}
# The program writes its output where the unprivileged users may write.
mkdir -m 1777 "$work/out"
tflite_run() {  # USER PROGRAM OUT [accel-tflite]: the program's report on stdout
  local u=$1 prog=$2 out=$work/out/$3
  shift 3
  as "$u" env ACCELD_SOCKET="$listen" ACCEL_TFLITE_MODE=served "$@" "$prog" \
    "$firstrun/mobilenet_v1_0.25_128_quant.tflite" "$out"
}
if command -v cc >/dev/null; then
  step "a TensorFlow Lite C API program built with pkg-config acceld-tflite, as $member"
  before=$(executions)
  # shellcheck disable=SC2046
  cc -std=c11 -Wall -Wextra -Werror -o "$work/prog-pc" "$src/tests/packaging/tflite-c-program.c" \
    $(pkg-config --cflags --libs acceld-tflite) || fail "building against acceld-tflite-dev failed"
  tflite_run "$member" "$work/prog-pc" out-pc.bin >"$work/prog-pc.txt" 2>&1 ||
    { cat "$work/prog-pc.txt" "$work/acceld.log"; fail "the program built against acceld-tflite failed"; }
  cat "$work/prog-pc.txt"
  grep -qx "library $tflite_lib" "$work/prog-pc.txt" || fail "the program did not use $tflite_lib"
  [ "$(executions)" -gt "$before" ] || fail "acceld counted no execution of the program's model"

  native=${ACCELD_TFLITE_C_LIB:-$src/bench/out/tfjs-tflite-node-0.0.2/cc_deps/linux_amd64/libtensorflowlite_c.so}
  if [ -f "$native" ]; then
    step "the program linked against native TensorFlow Lite ($native), unchanged under accel-tflite, as $member"
    mkdir -p "$work/native"
    cp "$native" "$work/native/libtensorflowlite_c.so"
    # Our header (the program's source needs one), TensorFlow Lite's library.
    # shellcheck disable=SC2046
    cc -std=c11 -Wall -Wextra -Werror -o "$work/prog-native" "$src/tests/packaging/tflite-c-program.c" \
      $(pkg-config --cflags acceld-tflite) -L"$work/native" -ltensorflowlite_c -Wl,-rpath,"$work/native" ||
      fail "linking against native TensorFlow Lite failed"
    readelf -d "$work/prog-native" | grep -q 'NEEDED.*\[libtensorflowlite_c\.so\]' || fail "prog-native does not need libtensorflowlite_c.so"
    tflite_run "$member" "$work/prog-native" out-native.bin >"$work/prog-native.txt" 2>&1 ||
      { cat "$work/prog-native.txt"; fail "the program on native TensorFlow Lite failed"; }
    grep -qx "library $work/native/libtensorflowlite_c.so" "$work/prog-native.txt" || { cat "$work/prog-native.txt"; fail "without accel-tflite the program did not run on native TensorFlow Lite"; }
    before=$(executions)
    tflite_run "$member" "$work/prog-native" out-served.bin accel-tflite >"$work/prog-served.txt" 2>&1 ||
      { cat "$work/prog-served.txt" "$work/acceld.log"; fail "the unmodified program under accel-tflite failed"; }
    cat "$work/prog-served.txt"
    grep -qx "library $tflite_lib" "$work/prog-served.txt" || fail "under accel-tflite the program did not load $tflite_lib"
    [ "$(executions)" -gt "$before" ] || fail "acceld counted no execution of the unmodified program's model"
    # Same largest class, every probability within 4/256 of TensorFlow
    # Lite's (acceld may run XNNPACK's quantized kernels).
    python3 - "$work/out/out-native.bin" "$work/out/out-served.bin" <<'PY' || fail "acceld's outputs differ from native TensorFlow Lite's"
import sys
a, b = (open(f, "rb").read() for f in sys.argv[1:3])
assert len(a) == len(b) == 1001, (len(a), len(b))
d = max(abs(x - y) for x, y in zip(a, b))
print(f"deb-roundtrip: served vs native TensorFlow Lite: largest class {b.index(max(b))} vs {a.index(max(a))}, max |diff| {d}/256")
assert a.index(max(a)) == b.index(max(b)) and d <= 4
PY
    step "the same program as $outsider (not in group acceld) must be refused"
    if tflite_run "$outsider" "$work/prog-native" out-outsider.bin accel-tflite >"$work/prog-outsider.txt" 2>&1; then
      cat "$work/prog-outsider.txt"
      fail "a user outside group acceld ran a model on acceld through accel-tflite"
    fi
    cat "$work/prog-outsider.txt"
    grep -qi 'permission denied' "$work/prog-outsider.txt" || fail "the refusal was not a permission error"
  else
    echo "deb-roundtrip: native TensorFlow Lite not found ($native; bench/fetch-native-tflite.sh): the unmodified-binary run is skipped"
  fi
else
  echo "deb-roundtrip: no C compiler: the TensorFlow Lite C API program is skipped"
fi

step "accelctl status as $outsider (not in group acceld) must be refused"
if as "$outsider" accelctl --socket "$listen" status >"$work/outsider.txt" 2>&1; then
  fail "a user outside group acceld could use the service"
fi
grep -qi 'permission denied\|EACCES' "$work/outsider.txt" || { cat "$work/outsider.txt"; fail "the refusal was not a permission error"; }

step "SIGTERM"
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
pid=
[ "$rc" = 0 ] || { cat "$work/acceld.log"; fail "acceld exited with $rc on SIGTERM"; }
rm -f "$listen"
[ -s /var/lib/acceld/acceld.db ] || fail "acceld kept no state in /var/lib/acceld: $(ls -la /var/lib/acceld)"

step "apt-get remove"
DEBIAN_FRONTEND=noninteractive apt-get remove -y -q -o DPkg::Lock::Timeout=600 "${pkgs[@]}" >"$work/remove.log" 2>&1 || { cat "$work/remove.log"; fail "apt-get remove failed"; }
[ -d /var/lib/acceld ] || fail "remove deleted /var/lib/acceld (state must stay until purge)"
[ -f /etc/acceld/acceld.conf ] || fail "remove deleted the conffile"
[ ! -e /usr/sbin/acceld ] || fail "/usr/sbin/acceld is still there after remove"

# Packages without conffiles are gone after remove; purge what dpkg knows.
left=()
for p in "${pkgs[@]}"; do
  dpkg-query -W "$p" >/dev/null 2>&1 && left+=("$p")
done
[ ${#left[@]} -gt 0 ] || fail "nothing left to purge: acceld's conffile went with remove"
step "apt-get purge ${left[*]}"
DEBIAN_FRONTEND=noninteractive apt-get purge -y -q -o DPkg::Lock::Timeout=600 "${left[@]}" >"$work/purge.log" 2>&1 || { cat "$work/purge.log"; fail "apt-get purge failed"; }
for p in "${pkgs[@]}"; do
  if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'installed\|config-files'; then
    fail "$p is still known to dpkg after purge"
  fi
done
snapshot >"$work/after"
if ! diff -u "$work/before" "$work/after"; then
  fail "purge left the files above behind"
fi
getent passwd acceld >/dev/null || fail "purge deleted the system user (policy keeps it)"
echo "deb-roundtrip: PASS (the user and group acceld stay, as Debian policy keeps system users)"
