#!/bin/bash
# make bench (and make demo): build the release kernels, boot the two-tier
# guest and run the benchmarks, then write the report.
#
#   tests/bench/bench.sh [all|demo|alloc|tier|collateral]
#
# all (make bench): three boots, each a fresh guest of the same shape:
#   vanilla  allocbench                                  (baseline kernel)
#   patched  allocbench: nomod, disabled, on in rotation (same harness)
#   patched  tierbench file, anon, anon-fork, anon-mthp (64 KiB mTHP
#            always) and xfs (the file on XFS, large page-cache folios):
#            luf off and on alternating in the one boot (file, anon and
#            anon-mthp: off, on and numa, on with lazy NUMA-hinting
#            flushes, in rotation); migbench file,
#            anon and sep: off, on and lazy (on with max_defer_ms 10000) in
#            rotation
#   patched  who else pays: tier-file quiet and beside a logger, write1
#            beside tiering, fragmentation once max_defer_ms has passed,
#            GFP_ATOMIC bursts right after a demotion: luf off and on
#            alternating; the report checks each against its goal
#            (report.py, GOALS)
# demo (make demo): one boot: the tiers and luf's state (t/demo), then
#   tierbench on the file, luf off and on, then lufctl ab beside one long
#   tierbench run on the same file (t/demo-ab).
# alloc: the two allocbench boots of all, alone.
# tier: the tiering boot of all, alone (LUF_BENCH_TIER: which of its
# workloads, by name; LUF_BENCH_ICOUNT=<shift>: under -icount, as
# allocbench, which all's tiering boot never is).  LUF_BENCH_TIER_CONFIGS,
# here and in all: the configurations of tier-file, tier-anon and
# tier-anon-mthp (default "off on numa").  LUF_BENCH_TIER_SECS: the
# measured seconds of each tier-* run of the tiering boot (default 10);
# its watchdogs grow with it.  LUF_BENCH_TIER_SCAN_MS: NUMA balancing's
# sweep period in those runs, fixed (default: the kernel's, which ramps).
# collateral: the last boot of all, alone (LUF_BENCH_COLLATERAL: which of
# its workloads, by name).
# scale (part of all): tier-file, luf off and on alternating, in boots of
#   2, 4 and 8 vCPUs (LUF_BENCH_SCALE), memory and nodes as in the others;
#   named tier-file@<n>cpu in the report, which tabulates and plots the IPIs
#   per migrated page against the vCPU count (scaling.png).  Under TCG the
#   vCPUs take turns on one host thread: only the counts mean anything.
#
# Repeats: LUF_BENCH_REPS (default 5 for all, 3 for demo), for allocbench
# LUF_BENCH_ALLOC_REPS (default 5), after one warm-up run of each
# configuration.  allocbench and write1+tier run with QEMU's -icount
# (LUF_BENCH_ICOUNT, default shift 3; empty to turn it off), in boots of
# their own: their guest-timed rates count instructions, so the 1-2% goals
# can be seen through TCG's noise.  Results go to build/bench/<name>/ (override
# with LUF_BENCH_OUT): bench.txt (the guest's BENCH lines), runs.csv,
# summary.json, report.md, ratios.png, table.txt (what make demo prints).
# Release kernels (base.config +
# release.config: no lockdep, no KASAN, no kmemleak), cached like the test
# kernels.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
export LUF_CACHE=${LUF_CACHE:-$HOME/.cache/luf}
what=${1:-all}
case $what in
all|alloc) reps=${LUF_BENCH_REPS:-5}
	areps=${LUF_BENCH_ALLOC_REPS:-5}
	# Guest clock = instructions (2^3 ns each) for allocbench and
	# write1+tier; empty: the host's clock, as the other benchmarks.
	icount=${LUF_BENCH_ICOUNT-3} ;;
demo) reps=${LUF_BENCH_REPS:-3} ;;
tier) reps=${LUF_BENCH_REPS:-5}
	# The host's clock unless asked: LUF_BENCH_ICOUNT=3 for -icount.
	tier_icount=${LUF_BENCH_ICOUNT-} ;;
scale) reps=${LUF_BENCH_REPS:-5} ;;
collateral) reps=${LUF_BENCH_REPS:-5}
	icount=${LUF_BENCH_ICOUNT-3} ;;
*) echo "usage: bench.sh [all|demo|alloc|tier|collateral|scale]" >&2; exit 2 ;;
esac
# positive <variable> <unit>: refuse a set variable that is not a
# positive whole number.
positive() {
	[[ ${!1} =~ ^[1-9][0-9]*$ ]] && return 0
	echo "bench.sh: $1 wants a positive number of $2: '${!1}'" >&2
	exit 2
}
# The tier-* runs' measured seconds (t/bench --secs), and how many times
# the default 10 that is, for the watchdogs.
tier_secs= tier_scale=1
if [ -n "${LUF_BENCH_TIER_SECS:-}" ]; then
	positive LUF_BENCH_TIER_SECS seconds
	tier_secs="--secs $LUF_BENCH_TIER_SECS "
	tier_scale=$(( (LUF_BENCH_TIER_SECS + 9) / 10 ))
fi
# LUF_BENCH_TIER_SCAN_MS: NUMA balancing's sweep period for the tier-*
# runs (t/bench --scan-ms), fixed instead of ramping from a second to a
# minute; unset, the kernel's defaults.
if [ -n "${LUF_BENCH_TIER_SCAN_MS:-}" ]; then
	positive LUF_BENCH_TIER_SCAN_MS milliseconds
	tier_secs="$tier_secs--scan-ms $LUF_BENCH_TIER_SCAN_MS "
fi
build=$top/build
out=${LUF_BENCH_OUT:-$build/bench/$what-$(date -u +%Y%m%d-%H%M%S)}
mkdir -p "$out/lists"
log() { echo "bench: $*" >&2; }

log "preparing (the first run builds the release kernels; cached after)"
tests/setup.sh
kp=$(tests/kernel/build.sh patched release)
case $what in all|alloc) kv=$(tests/kernel/build.sh vanilla release) ;; esac
mod=$build/bench-module
rm -rf "$mod" && mkdir -p "$mod" && cp -r Kbuild dkms.conf module "$mod/"
make -s -C "$kp" M="$mod" modules >"$out/module.log" 2>&1 ||
	{ cat "$out/module.log" >&2; exit 1; }
# The atomic workload's helper module (tests/bench/atomicmod).
amod=$build/bench-atomicmod
rm -rf "$amod" && mkdir -p "$amod" && cp tests/bench/atomicmod/* "$amod/"
make -s -C "$kp" M="$amod" modules >"$out/atomicmod.log" 2>&1 ||
	{ cat "$out/atomicmod.log" >&2; exit 1; }
make -s tools
# The patched kernel's modules (XFS for tier-xfs), as make check installs them.
modroot=$build/bench-modroot
rm -rf "$modroot"
make -s -C "$kp" modules_install INSTALL_MOD_PATH="$modroot" \
	INSTALL_MOD_STRIP=1 >"$out/modules_install.log" 2>&1 ||
	{ cat "$out/modules_install.log" >&2; exit 1; }

# One boot: bench_boot <name> <kernel build dir> <timeout> <list lines...>
bench_boot() {
	local name=$1 kdir=$2 tmo=$3
	shift 3
	printf '%s\n' "$@" > "$out/lists/$name.list"
	local mods=()
	[ "$kdir" != "$kp" ] || mods=("$modroot/lib/modules:/lib/modules")
	tests/initramfs.sh "$out/$name.cpio" "$out/stage" \
		"$mod/luf.ko:luf.ko" "$amod/luf_atomic.ko:luf_atomic.ko" \
		"$build/tools/.:bin" "${mods[@]}" \
		"$out/lists/$name.list:$name.list" >/dev/null
	rm -f "$out/disk.img" "$out/xfs.img"
	truncate -s 1200M "$out/disk.img"
	mkfs.ext4 -q -F "$out/disk.img"
	# tier-xfs: its data on XFS, whose page cache uses large folios.
	local xfs=
	case " $* " in
	*" tier-xfs "*) truncate -s 1200M "$out/xfs.img"
		mkfs.xfs -q -f "$out/xfs.img"
		xfs=$out/xfs.img ;;
	esac
	log "boot $name: $(cat "$kdir/include/config/kernel.release") ($*)"
	local rc=0
	LUF_DISK=$out/disk.img LUF_DISK_XFS=$xfs \
		tests/vm.sh "$kdir/arch/x86/boot/bzImage" \
		"$out/$name.cpio" "$name" "$out/vm-$name" "$tmo" > "$out/vm-$name.txt" || rc=$?
	rm -f "$out/disk.img" "$out/xfs.img" "$out/$name.cpio"
	# LUF_BENCH_TAG: appended to the benchmarks' names (the scaling boots).
	tr -d '\r' < "$out/vm-$name/results.log" | grep '^BENCH ' |
		sed "s/ bench=\([^ ]*\)/ bench=\1${LUF_BENCH_TAG:-}/" >> "$out/bench.txt" || true
	if [ $rc -ne 0 ]; then
		cat "$out/vm-$name.txt" >&2
		log "boot $name failed; console: $out/vm-$name/console.log"
		return 1
	fi
}

: > "$out/bench.txt"
start=$(date +%s)
collateral() {
	local w w1=
	# LUF_BENCH_COLLATERAL: a subset of the workloads.  Quiet tier-file
	# runs in this boot too: tier-file+logger's goal is relative to it.
	set -- ${LUF_BENCH_COLLATERAL:-tier-file tier-file+logger write1+tier frag atomic}
	local lines=()
	for w; do
		if [ "$w" = write1+tier ]; then w1=1; else lines+=("bench ab $w $reps"); fi
	done
	[ ${#lines[@]} = 0 ] || bench_boot collateral "$kp" 5400 "${lines[@]}"
	# write1+tier in a boot of its own under -icount: on the host's clock
	# its four vCPUs share two host cores, so the writers' rate falls with
	# every page the tiering vCPUs migrate (luf on migrates more: up to
	# twice as many pages in the same 10 s), which is TCG's doing, not the
	# guest's.  Under -icount every vCPU gets its share of emulated time.
	[ -z "$w1" ] || LUF_ICOUNT=$icount bench_boot collateral-w1 "$kp" 5400 \
		"bench ab write1+tier $reps"
}
tiering() {
	local w lines=()
	# LUF_BENCH_TIER: a subset of the tiering workloads, by name.
	set -- ${LUF_BENCH_TIER:-tier-file tier-anon tier-anon-fork tier-anon-mthp tier-xfs mig-file mig-anon mig-sep}
	for w; do
		case $w in
		mig-*) lines+=("bench configs $w $reps off on lazy") ;;
		# Off, on, and on with lazy NUMA-hinting flushes.
		tier-file|tier-anon|tier-anon-mthp)
			lines+=("bench ${tier_secs}configs $w $reps ${LUF_BENCH_TIER_CONFIGS:-off on numa}") ;;
		tier-*) lines+=("bench ${tier_secs}ab $w $reps") ;;
		*) lines+=("bench ab $w $reps") ;;
		esac
	done
	# Each line under a watchdog of 100 minutes of guest time, not the
	# suite's 900 s: under -icount a run takes about 62 s of guest time,
	# and 7 rotations of two configurations ran into the 900 s.  Longer
	# runs (LUF_BENCH_TIER_SECS) get proportionally longer watchdogs.
	LUF_ICOUNT=${tier_icount-} bench_boot ab "$kp" $((7200 * tier_scale)) \
		"${lines[@]/#/timeout=$((6000 * tier_scale)) }"
}
scaling() {
	local n
	for n in ${LUF_BENCH_SCALE:-2 4 8}; do
		LUF_SMP=$n LUF_BENCH_TAG=@${n}cpu bench_boot scale-$n "$kp" 3600 \
			"bench ab tier-file $reps"
	done
}
if [ "$what" = demo ]; then
	bench_boot bench-demo "$kp" 1800 demo "bench ab tier-file $reps" "demo-ab 3 10"
elif [ "$what" = collateral ]; then
	collateral
elif [ "$what" = tier ]; then
	tiering
elif [ "$what" = scale ]; then
	scaling
else
	# allocbench under -icount: its rate is then pages per instruction
	# executed, not per host second, which another tenant of the host or
	# a turbo step used to move by 10-20% from run to run.
	LUF_ICOUNT=$icount bench_boot alloc-vanilla "$kv" 1800 \
		"bench configs alloc $areps vanilla"
	LUF_ICOUNT=$icount bench_boot alloc-patched "$kp" 2400 \
		"bench configs alloc $areps nomod disabled on"
	[ "$what" = alloc ] || tiering
	[ "$what" = alloc ] || collateral
	[ "$what" = alloc ] || scaling
fi
log "guest runs took $(( $(date +%s) - start ))s"

# The system python: the one python3-matplotlib (tests/setup.sh) is for.
/usr/bin/python3 tests/bench/report.py "$out/bench.txt" --out "$out" --plot \
	--table > "$out/table.txt"
log "report: $out/report.md ($out/summary.json, $out/runs.csv, $out/ratios.png)"
