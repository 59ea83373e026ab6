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

# The units, their helpers and the config file: where the units say, the
# units valid (systemd-analyze verify, with the paths they name taken in
# the unpacked package), none enabled or started by the maintainer
# scripts on installation, luf.conf a conffile with every key commented at a value in its
# range, and modprobe (kmod) a dependency.
sd=lib/systemd/system
missing=$(has "$tools_deb" $sd/luf.service $sd/luf-metrics.service $sd/luf-metrics.timer \
	usr/libexec/luf/luf-kernel-check usr/libexec/luf/luf-metrics etc/luf/luf.conf)
ctrl=$x/tools-ctrl
mkdir -p "$ctrl" && dpkg-deb -e "$tools_deb" "$ctrl"
# A unit may be enabled again on upgrade if the admin had enabled it (the
# snippet then asks deb-systemd-helper debian-installed first), never
# started.
scripts=$(cat "$ctrl"/postinst "$ctrl"/preinst 2>/dev/null)
starts=$(grep -E "deb-systemd-invoke (start|restart)|systemctl (enable|start|restart)" <<<"$scripts")
for u in $(sed -n "s/.*deb-systemd-helper enable '\([^']*\)'.*/\1/p" <<<"$scripts"); do
	grep -q "deb-systemd-helper debian-installed '$u'" <<<"$scripts" ||
		starts="$starts $u enabled on installation"
done
defaults=$("$x/tools/usr/bin/lufctl" apply --dry-run --file \
	<(sed 's/^#\([a-z_]*=\)/\1/' "$x/tools/etc/luf/luf.conf") 2>&1 | cut -d= -f1 | tr '\n' ' ')
if [ -n "$missing" ]; then
	echo "FAIL deb-tools-units: missing:$missing"
elif ! out=$(luf_verify_units "$x/tools" "$x/tools/$sd"/luf.service \
	"$x/tools/$sd"/luf-metrics.service "$x/tools/$sd"/luf-metrics.timer); then
	echo "FAIL deb-tools-units: ${out//$'\n'/; }"
elif [ -n "$starts" ]; then
	echo "FAIL deb-tools-units: the maintainer scripts switch a unit on: ${starts//$'\n'/; }"
elif ! grep -qx /etc/luf/luf.conf "$ctrl/conffiles" 2>/dev/null; then
	echo "FAIL deb-tools-units: /etc/luf/luf.conf is not a conffile ($(cat "$ctrl/conffiles" 2>/dev/null))"
elif [ -n "$("$x/tools/usr/bin/lufctl" apply --dry-run --file "$x/tools/etc/luf/luf.conf" 2>&1)" ]; then
	echo "FAIL deb-tools-units: the shipped luf.conf sets something, or is refused"
elif [ "$defaults" != "enabled max_defer_ms max_pages migration reclaim numa reserve stats_interval_ms " ]; then
	echo "FAIL deb-tools-units: luf.conf's commented defaults, uncommented, give '$defaults'"
elif ! dpkg-deb -f "$tools_deb" Depends | grep -q '\bkmod\b'; then
	echo "FAIL deb-tools-units: luf-tools does not depend on kmod (modprobe)"
else
	echo "PASS deb-tools-units (luf.service, luf-metrics.service and .timer verified; not enabled; luf.conf a conffile)"
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
