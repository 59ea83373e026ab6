#!/bin/bash
# make deb's packages: built, versioned from dkms.conf, with the files an
# operator needs, and the module source they ship builds luf.ko.
#   tests/host/deb.sh [<patched kernel build dir> <output dir>]
# Prints PASS/FAIL lines.  Without arguments: make check's patched kernel,
# and build/deb/out, made anew (tests/host/path.sh takes the packages there).
# check: host
set -uo pipefail
. "$(dirname "$0")/lib.sh"
if [ $# -eq 0 ]; then
	set -- "$(luf_kernel patched)" "$LUF_BUILD/deb/out"
	rm -rf "$LUF_BUILD/deb" && mkdir -p "$LUF_BUILD/deb"
fi
kp=${1:?patched kernel build dir}
out=${2:?output dir}
top=$LUF_TOP
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
arch=$(dpkg --print-architecture)
dkms_deb=$out/luf-dkms_${ver}_all.deb
tools_deb=$out/luf-tools_${ver}_$arch.deb
x=$out/x

if ! "$top/tools/packaging/deb.sh" "$out" >"$out.log" 2>&1; then
	echo "FAIL deb-build: tools/packaging/deb.sh failed"
	sed 's/^/    /' "$out.log" | tail -n 20
	exit 1
fi
echo "PASS deb-build ($(awk '{printf "%s%s %s bytes", s, $1, $2; s="; "}' "$out.log" |
	sed "s#$out/##g"))"

bad=
for f in "$dkms_deb" "$tools_deb"; do
	v=$(dpkg-deb -f "$f" Version)
	[ "$v" = "$ver" ] || bad="$bad $(basename "$f"):$v"
done
if [ -z "$bad" ]; then
	echo "PASS deb-versions (dkms.conf $ver)"
else
	echo "FAIL deb-versions: dkms.conf says $ver, the packages:$bad"
fi

# has <deb> <path>...: the paths the package is missing.
has() {
	local deb=$1 p list
	shift
	list=$(dpkg-deb -c "$deb" | awk '{print $6}')
	for p in "$@"; do
		grep -qx "./$p" <<<"$list" || echo " $p"
	done
}
src=usr/src/luf-$ver
missing=$(has "$dkms_deb" "$src/dkms.conf" "$src/Kbuild" "$src/module/main.c" \
	"$src/module/netlink/luf-nl-gen.c" "$src/module/include/uapi/linux/luf_netlink.h" \
	usr/share/doc/luf-dkms/core-hooks.patch.gz)
built=$(dpkg-deb -c "$dkms_deb" | awk '{print $6}' | grep -E '\.(o|ko|cmd)$' | head -n 3)
if [ -n "$missing" ] || [ -n "$built" ]; then
	echo "FAIL deb-dkms-contents: missing:${missing:- none}; build products: ${built:-none}"
elif ! dpkg-deb -f "$dkms_deb" Depends | grep -q '\bdkms\b'; then
	echo "FAIL deb-dkms-contents: luf-dkms does not depend on dkms"
elif ! dpkg-deb --ctrl-tarfile "$dkms_deb" | tar -xO ./postinst 2>/dev/null | grep -q dkms; then
	echo "FAIL deb-dkms-contents: luf-dkms's postinst does not call dkms"
else
	echo "PASS deb-dkms-contents"
fi

missing=$(has "$tools_deb" usr/bin/lufctl usr/share/man/man8/lufctl.8.gz \
	usr/share/bash-completion/completions/lufctl usr/share/doc/luf-tools/ABI.gz \
	usr/libexec/luf/tierbench usr/libexec/luf/migbench usr/libexec/luf/allocbench \
	usr/libexec/luf/lufstress usr/libexec/luf/luflost)
rm -rf "$x" && mkdir -p "$x/tools" "$x/dkms"
dpkg-deb -x "$tools_deb" "$x/tools"
v=$("$x/tools/usr/bin/lufctl" --version 2>&1)
man_warn=$(zcat "$x/tools/usr/share/man/man8/lufctl.8.gz" 2>/dev/null | groff -man -ww -z 2>&1)
if [ -n "$missing" ]; then
	echo "FAIL deb-tools-contents: missing:$missing"
elif [ "${v#lufctl $ver }" = "$v" ]; then
	echo "FAIL deb-tools-contents: the packaged lufctl says '$v', not version $ver"
elif [ -n "$man_warn" ]; then
	echo "FAIL deb-tools-contents: lufctl.8 does not render cleanly: $man_warn"
elif ! zcat "$x/tools/usr/share/man/man8/lufctl.8.gz" | grep '^\.SH EXIT STATUS' >/dev/null; then
	echo "FAIL deb-tools-contents: lufctl.8 lacks the EXIT STATUS section"
else
	echo "PASS deb-tools-contents"
fi

# The source luf-dkms ships is what dkms builds: it must build as it is.
dpkg-deb -x "$dkms_deb" "$x/dkms"
if make -C "$kp" M="$x/dkms/$src" modules >"$out/dkms-src.log" 2>&1 &&
   [ "$(modinfo -F version "$x/dkms/$src/luf.ko" 2>/dev/null)" = "$ver" ]; then
	echo "PASS deb-dkms-source-builds (luf.ko version $ver)"
else
	echo "FAIL deb-dkms-source-builds: see $out/dkms-src.log"
	tail -n 10 "$out/dkms-src.log" | sed 's/^/    /'
fi
