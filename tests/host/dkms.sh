#!/bin/bash
# dkms builds luf against a kernel carrying core-hooks.patch and refuses one
# without it.  Works on the host: /lib/modules/<release>/build is pointed at
# each tree in turn and restored afterwards, and the dkms tree is removed.
#
#   tests/host/dkms.sh [<patched build dir> <vanilla build dir>]
# (default: make check's kernels).  Needs root; says SKIP without.
# check: host
set -uo pipefail
. "$(dirname "$0")/lib.sh"
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP dkms: needs root to link /lib/modules/<release>/build"
	exit 0
fi
kp=${1:-$(luf_kernel patched)}
kv=${2:-$(luf_kernel vanilla)}
top=$LUF_TOP
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
rel=$(cat "$kp/include/config/kernel.release")
srcdir=/usr/src/luf-$ver
link=/lib/modules/$rel/build
log=$(mktemp)
rc=0

command -v dkms >/dev/null || { echo "SKIP dkms: dkms is not installed"; exit 0; }
saved=
[ -L "$link" ] && saved=$(readlink "$link")
cleanup() {
	dkms remove -m luf -v "$ver" --all >/dev/null 2>&1
	rm -rf "$srcdir"
	if [ -n "$saved" ]; then ln -sfn "$saved" "$link"; else rm -f "$link"; fi
	rmdir "/lib/modules/$rel" 2>/dev/null
	rm -f "$log"
}
trap cleanup EXIT

dkms remove -m luf -v "$ver" --all >/dev/null 2>&1
make -s -C "$top" dkms-source DKMS_SRC="$srcdir" >/dev/null || { echo "FAIL dkms: cannot install the source"; exit 1; }
dkms add -m luf -v "$ver" >"$log" 2>&1 || { echo "FAIL dkms: dkms add failed"; sed 's/^/    /' "$log"; exit 1; }

mkdir -p "/lib/modules/$rel"
ln -sfn "$kp" "$link"
if dkms build -m luf -v "$ver" -k "$rel" >"$log" 2>&1 &&
   modinfo "/var/lib/dkms/luf/$ver/$rel/x86_64/module/luf.ko" >/dev/null 2>&1; then
	echo "PASS dkms-build-patched"
else
	echo "FAIL dkms-build-patched: dkms build failed"
	sed 's/^/    /' "$log" | tail -n 20
	rc=1
fi

dkms unbuild -m luf -v "$ver" -k "$rel" >/dev/null 2>&1
ln -sfn "$kv" "$link"
if dkms build -m luf -v "$ver" -k "$rel" >"$log" 2>&1; then
	echo "FAIL dkms-refuses-vanilla: dkms built luf for a kernel without the patch"
	rc=1
elif grep -q "BUILD_EXCLUSIVE" "$log"; then
	echo "PASS dkms-refuses-vanilla"
else
	echo "FAIL dkms-refuses-vanilla: refused, but not for the missing patch"
	sed 's/^/    /' "$log" | tail -n 20
	rc=1
fi
exit $rc
