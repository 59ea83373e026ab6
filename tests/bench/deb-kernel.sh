#!/bin/bash
# The Debian-config kernel's row of the shootdown table: the kernel of
# make kernel-deb (Debian's 6.12 config, trimmed to a host's modules),
# luf as dkms builds it from luf-dkms against that kernel's headers, both
# booted in the two-tier guest the way tests/host/path.sh does, with NUMA
# balancing as Debian's config sets it at boot.  In it, the deferral run
# (ping-ponged read-only pages under readers on every vCPU, luf off and on
# alternating) twice: luf as shipped (numa source off), then with lazy
# NUMA-hinting flushes on; then numa-pass, which times NUMA balancing's
# passes either way with a kprobe (tests/guest/path-numa.list).
#
#   make kernel-deb LSMOD=tests/kernel/lsmod.tiered-host   (30-64 min here)
#   tests/bench/deb-kernel.sh [kernel-deb dir] [out dir]
#
# Not part of make bench, which would otherwise build a second kernel of
# 30-64 minutes for one row.  Prints the deferral runs' rounds
# (IPI-sending flushes by origin, traced over the passes) and, per run,
# the share of all shootdowns over the passes that luf on saved, and
# numa-pass's passes and their times.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
kdeb=$(realpath -m "${1:-$top/build/kernel-deb}")
out=$(realpath -m "${2:-$top/build/bench/deb-kernel-$(date -u +%Y%m%d-%H%M%S)}")
build=$top/build
log() { echo "deb-kernel: $*" >&2; }

image=$(ls "$kdeb"/linux-image-*-luf_*.deb 2>/dev/null | grep -v -- -dbg_ | head -n 1)
if [ -z "$image" ]; then
	echo "deb-kernel: no linux-image-*-luf package in $kdeb; build one first:" >&2
	echo "  make kernel-deb LSMOD=tests/kernel/lsmod.tiered-host" >&2
	exit 2
fi
cfg=$(dpkg-deb --fsys-tarfile "$image" | tar -xO --wildcards './boot/config-*' 2>/dev/null)
log "kernel: $(basename "$image"); $(echo "$cfg" | grep -E '^CONFIG_NUMA_BALANCING(_DEFAULT_ENABLED)?=' | tr '\n' ' ')"
mkdir -p "$out" || exit 1
cd "$top" || exit 1
tests/setup.sh || exit 1
log "luf-dkms (make deb), the tools and the guest's helpers"
rm -rf "$out/deb" && tools/packaging/deb.sh "$out/deb" >"$out/deb.log" 2>&1 ||
	{ tail -n 20 "$out/deb.log" >&2; exit 1; }
make -s tools || exit 1
# As tests/check.sh builds them.
mkdir -p "$out/guest"
for c in tests/guest/src/*.c; do
	gcc -static -O2 -Wall -Imodule/include/uapi -Itests/tools \
		-o "$out/guest/$(basename "$c" .c)" "$c" tests/tools/bench.c -lpthread || exit 1
done
log "boot (two deferral runs and numa-pass; about 10-20 minutes under TCG)"
tests/host/path.sh "$kdeb" "$out/deb" "$out/guest" "$build/tools" "$out/path" path-numa >"$out/path.txt" 2>&1
rc=$?
cat "$out/path.txt"
# path.sh fails by its exit code only before the boot: the guest's
# verdicts are its lines, one for each line of the suite.
grep -q '^FAIL ' "$out/path.txt" && rc=1
want=$(grep -Evc '^(#|$)' tests/guest/path-numa.list)
got=$(grep -Ec '^(PASS|FAIL|SKIP) path/' "$out/path.txt")
[ "$got" -eq "$want" ] || { echo "deb-kernel: $got verdicts for the $want lines of path-numa" >&2; rc=1; }
console=$out/path/vm/console.log
if [ -f "$console" ]; then
	# The deferral runs' and numa-pass's own lines, as the guest printed them.
	grep -E '^(deferral|numa-pass): ' "$console" >"$out/runs.txt"
	echo
	cat "$out/runs.txt"
fi
exit $rc
