#!/bin/bash
# The whole path from this repository to a running host, the way the README
# tells an operator to take it:
#
#  1. make kernel-deb's linux-image and linux-headers packages and make
#     deb's luf-dkms are unpacked into a scratch root (dpkg-deb -x);
#  2. dkms adds and builds luf there, against those headers (its trees and
#     the kernel source given on the command line, all in the scratch
#     root), and luf.ko is installed where dkms install puts it, with
#     depmod;
#  3. the kernel of the linux-image package boots in the test guest with
#     that module tree, and the guest suite path (tests/guest/path.list)
#     loads luf with modprobe and makes it defer;
#  4. dkms refuses the same luf-dkms for Debian's own kernel of the pinned
#     version (its linux-headers package, fetched with apt-get download),
#     which lacks the patch.
#
#   tests/host/path.sh <kernel-deb dir> <deb dir> <guest bin dir> <tools dir> <work dir> [suite]
#
# The guest suite is path unless [suite] names another of tests/guest's
# lists that starts the same way (tests/bench/deb-kernel.sh runs
# path-numa on a distribution-config kernel).
# Prints PASS/FAIL/SKIP lines (guest verdicts as path/<test>).
# check: guests
set -uo pipefail
kdeb=${1:?kernel-deb output dir}
deb=${2:?deb output dir}
gbin=${3:?guest helpers}
tools=${4:?tools}
work=${5:?work dir}
suite=${6:-path}
top=$(cd "$(dirname "$0")/../.." && pwd)
case $suite in
path*) [ -f "$top/tests/guest/$suite.list" ] ||
	{ echo "FAIL path: no guest suite tests/guest/$suite.list"; exit 1; } ;;
*) echo "FAIL path: suite '$suite' is not one of the path lists"; exit 1 ;;
esac
cache=${LUF_CACHE:-$HOME/.cache/luf}
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
rm -rf "$work" && mkdir -p "$work"
root=$work/root
log=$work/log

command -v dkms >/dev/null || { echo "SKIP path: dkms is not installed (tests/setup.sh installs it)"; exit 0; }
image=$(ls "$kdeb"/linux-image-*-luf_*.deb 2>/dev/null | grep -v -- -dbg_ | head -n 1)
headers=$(ls "$kdeb"/linux-headers-*-luf_*.deb 2>/dev/null | head -n 1)
dkmsdeb=$(ls "$deb"/luf-dkms_*_all.deb 2>/dev/null | head -n 1)
if [ -z "$image" ] || [ -z "$headers" ] || [ -z "$dkmsdeb" ]; then
	echo "FAIL path-dkms-build: packages missing (linux-image '$image', linux-headers '$headers', luf-dkms '$dkmsdeb')"
	exit 1
fi
rel=$(dpkg-deb -f "$image" Package | sed 's/^linux-image-//')
mkdir -p "$root/var/lib/dkms"
for p in "$image" "$headers" "$dkmsdeb"; do
	dpkg-deb -x "$p" "$root" || { echo "FAIL path-dkms-build: cannot unpack $(basename "$p")"; exit 1; }
done
dk=(--sourcetree "$root/usr/src" --dkmstree "$root/var/lib/dkms")

# 2. dkms builds luf against the headers package.
ko=$root/var/lib/dkms/luf/$ver/$rel/$(uname -m)/module/luf.ko
if dkms add -m luf -v "$ver" "${dk[@]}" >"$log" 2>&1 &&
   dkms build -m luf -v "$ver" -k "$rel" --kernelsourcedir "$root/usr/src/linux-headers-$rel" \
	"${dk[@]}" >>"$log" 2>&1 && [ -f "$ko" ]; then
	vm=$(modinfo -F vermagic "$ko" | awk '{ print $1 }')
	if grep -q 'bad exit status' "$log"; then
		# dkms runs dkms.conf's CLEAN before and after every build.
		echo "FAIL path-dkms-build: a dkms step failed: $(grep 'bad exit status' "$log" | head -n 1)"
		sed 's/^/    /' "$log" | tail -n 12
	elif [ "$vm" = "$rel" ] && [ "$(modinfo -F version "$ko")" = "$ver" ]; then
		echo "PASS path-dkms-build (luf $ver for $rel, from $(basename "$dkmsdeb") and $(basename "$headers"))"
	else
		echo "FAIL path-dkms-build: dkms built luf $(modinfo -F version "$ko") for '$vm', not $ver for $rel"
		exit 1
	fi
else
	echo "FAIL path-dkms-build: dkms could not build luf against $(basename "$headers")"
	sed 's/^/    /' "$log" | tail -n 20
	exit 1
fi
# Where dkms install puts it (DEST_MODULE_LOCATION), and depmod as it runs.
mods=$root/lib/modules/$rel
install -D -m 0644 "$ko" "$mods/updates/dkms/luf.ko"
depmod -b "$root" "$rel" || { echo "FAIL path-modules: depmod failed"; exit 1; }

# 3. Boot the packaged kernel with that module tree.
echo "$ver" >"$work/path-version"
if ! "$top/tests/initramfs.sh" "$work/initramfs.cpio" "$work/stage" \
	"$gbin/.:bin" "$tools/.:bin" "$work/path-version:path-version" \
	"$top/tools/systemd/.:systemd" "$top/tools/luf.conf:luf.conf" \
	"$root/lib/modules:/lib/modules" >"$log" 2>&1; then
	echo "FAIL path-initramfs: see $log"
	exit 1
fi
"$top/tests/vm.sh" "$root/boot/vmlinuz-$rel" "$work/initramfs.cpio" "$suite" "$work/vm" \
	"$([ "$suite" = path ] && echo 900 || echo 2400)" >"$work/vm.txt"
rc=$?
sed -nE 's#^(PASS|FAIL|SKIP) #\1 path/#p' "$work/vm.txt"
grep '^#' "$work/vm.txt"
if [ $rc -eq 0 ]; then
	echo "PASS vm-path (the linux-image package's kernel, $rel)"
else
	echo "FAIL vm-path: see $work/vm/console.log"
fi

# 4. Debian's own kernel of the pinned version: refused, by dkms.conf.
read -r pkgver _ < <("$top/tests/kernel/fetch.sh")
if [ -z "${pkgver:-}" ]; then
	echo "FAIL path-dkms-refuses-debian: tests/kernel/fetch.sh named no kernel version"
	exit 1
fi
up=${pkgver%%-*}
dcache=$cache/debian-headers
mkdir -p "$dcache"
dh=$(ls "$dcache"/linux-headers-"$up"+deb*-amd64_*.deb 2>/dev/null | sort -V | tail -n 1)
if [ -z "$dh" ]; then
	name=$(apt-cache search --names-only "^linux-headers-$up\+deb[0-9]+-amd64\$" | awk '{ print $1 }' | head -n 1)
	[ -n "$name" ] && (cd "$dcache" && apt-get download "$name") >"$log" 2>&1
	dh=$(ls "$dcache"/linux-headers-"$up"+deb*-amd64_*.deb 2>/dev/null | sort -V | tail -n 1)
fi
if [ -z "$dh" ]; then
	echo "SKIP path-dkms-refuses-debian: Debian's linux-headers-$up+debNN-amd64 could not be downloaded (apt-cache search found '${name:-nothing}')"
	exit 0
fi
if ! dpkg-deb -x "$dh" "$root"; then
	echo "FAIL path-dkms-refuses-debian: cannot unpack $(basename "$dh")"
	exit 1
fi
drel=$(dpkg-deb -f "$dh" Package | sed 's/^linux-headers-//')
dkms build -m luf -v "$ver" -k "$drel" --kernelsourcedir "$root/usr/src/linux-headers-$drel" \
	"${dk[@]}" >"$log" 2>&1
drc=$?
if [ $drc -eq 0 ]; then
	echo "FAIL path-dkms-refuses-debian: dkms built luf for Debian's $drel, which lacks the patch"
elif grep -q 'BUILD_EXCLUSIVE' "$log" && [ ! -e "$root/var/lib/dkms/luf/$ver/$drel/$(uname -m)/module/luf.ko" ]; then
	echo "PASS path-dkms-refuses-debian ($drel: exit $drc, $(grep -o 'includes a BUILD_EXCLUSIVE directive[^.]*' "$log" | head -n 1))"
else
	echo "FAIL path-dkms-refuses-debian: dkms failed (exit $drc) without naming BUILD_EXCLUSIVE"
	sed 's/^/    /' "$log" | tail -n 10
fi
