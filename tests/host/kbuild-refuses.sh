#!/bin/bash
# Building luf against a kernel without core-hooks.patch, or its debug build
# against one without CONFIG_LUF_DEBUG, stops with a message that says so,
# not with a screen of compiler errors.
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

# The debug build sets the core's fault-injection bits, which only a kernel
# with CONFIG_LUF_DEBUG (the series' last patch) has: against one without
# it, Kbuild stops and says so.  The test kernel has it, so the option is
# taken away on the command line, as a kernel configured without it would
# leave it unset.
kp=$(luf_kernel patched)
work=$LUF_BUILD/kbuild-nodebug
log=$LUF_OUT/kbuild-nodebug.log
rm -rf "$work" && mkdir -p "$work" &&
	cp -r "$LUF_TOP/Kbuild" "$LUF_TOP/dkms.conf" "$LUF_TOP/module" "$work/"
if ! grep -qx CONFIG_LUF_DEBUG=y "$kp/.config"; then
	echo "FAIL kbuild-refuses-nodebug: the test kernel $kp lacks CONFIG_LUF_DEBUG=y"
elif make -C "$kp" M="$work" LUF_DEBUG=1 CONFIG_LUF_DEBUG= modules >"$log" 2>&1; then
	echo "FAIL kbuild-refuses-nodebug: the debug build of luf built against a kernel without CONFIG_LUF_DEBUG"
elif grep -q 'LUF_DEBUG=1 needs a kernel built with CONFIG_LUF_DEBUG=y' "$log"; then
	echo "PASS kbuild-refuses-nodebug"
else
	echo "FAIL kbuild-refuses-nodebug: failed without naming CONFIG_LUF_DEBUG: see $log"
fi
