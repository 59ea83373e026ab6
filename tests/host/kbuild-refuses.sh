#!/bin/bash
# Building luf against a kernel without core-hooks.patch stops with a
# message that says so, not with a screen of compiler errors.
#   tests/host/kbuild-refuses.sh [<vanilla kernel build dir>]
# check: host
set -uo pipefail
. "$(dirname "$0")/lib.sh"
kv=${1:-$(luf_kernel vanilla)}
work=$LUF_BUILD/kbuild-vanilla
log=$LUF_OUT/kbuild-vanilla.log
mkdir -p "$LUF_OUT"
rm -rf "$work" && mkdir -p "$work" &&
	cp -r "$LUF_TOP/Kbuild" "$LUF_TOP/dkms.conf" "$LUF_TOP/module" "$work/"
if make -C "$kv" M="$work" modules >"$log" 2>&1; then
	echo "FAIL kbuild-refuses-vanilla: luf built against a kernel without the patch"
elif grep -q 'lacks core-hooks.patch' "$log"; then
	echo "PASS kbuild-refuses-vanilla"
else
	echo "FAIL kbuild-refuses-vanilla: failed without naming the patch: see $log"
fi
