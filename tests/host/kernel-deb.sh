#!/bin/bash
# make kernel-deb's recipe on the test config: the kernel packages build,
# under the local version -luf, with luf in them.
#   tests/host/kernel-deb.sh <output dir> [jobs]
# Prints PASS/FAIL lines.  make check runs it on the host core that the
# short guests leave idle, with one job.
# check: guests
set -uo pipefail
out=${1:?output dir}
jobs=${2:-1}
top=$(cd "$(dirname "$0")/../.." && pwd)
start=$(date +%s)
if ! "$top/tools/packaging/kernel-deb.sh" --config test --jobs "$jobs" --out "$out" >"$out.log" 2>&1; then
	echo "FAIL kernel-deb-build: tools/packaging/kernel-deb.sh --config test failed"
	tail -n 20 "$out.log" | sed 's/^/    /'
	exit 1
fi
image=$(ls "$out"/linux-image-*-luf_*.deb 2>/dev/null | grep -v -- -dbg_ | head -n 1)
headers=$(ls "$out"/linux-headers-*-luf_*.deb 2>/dev/null | head -n 1)
if [ -z "$image" ] || [ -z "$headers" ]; then
	echo "FAIL kernel-deb-build: no linux-image/linux-headers package named -luf in $out"
	exit 1
fi
echo "PASS kernel-deb-build ($(basename "$image") $(stat -c %s "$image") bytes," \
	"$(basename "$headers") $(stat -c %s "$headers") bytes; $(( $(date +%s) - start )) s with $jobs job(s))"

rel=$(dpkg-deb -f "$image" Package | sed 's/^linux-image-//')
x=$out/x
rm -rf "$x" && mkdir -p "$x/image" "$x/headers"
dpkg-deb -x "$image" "$x/image"
dpkg-deb -x "$headers" "$x/headers"
hdir=$x/headers/usr/src/linux-headers-$rel
bad=
[ -f "$x/image/boot/vmlinuz-$rel" ] || bad="$bad no /boot/vmlinuz-$rel;"
grep -qx CONFIG_LUF=y "$x/image/boot/config-$rel" 2>/dev/null || bad="$bad the image's config lacks CONFIG_LUF=y;"
[ -f "$hdir/include/linux/luf.h" ] || bad="$bad the headers lack include/linux/luf.h;"
# What Kbuild (and so luf's Kbuild) reads of the config; bindeb-pkg's
# headers package carries no .config.
grep -qx CONFIG_LUF=y "$hdir/include/config/auto.conf" 2>/dev/null ||
	bad="$bad the headers' auto.conf lacks CONFIG_LUF=y;"
grep -q '\bluf_register\b' "$hdir/Module.symvers" 2>/dev/null || bad="$bad Module.symvers lacks luf_register;"
if [ -z "$bad" ]; then
	echo "PASS kernel-deb-contents ($rel: vmlinuz, config and headers with luf)"
else
	echo "FAIL kernel-deb-contents:$bad"
fi
rm -rf "$x"
