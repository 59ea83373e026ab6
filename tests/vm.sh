#!/bin/bash
# Boot a kernel in the two-tier test guest and run one suite in it.
#
#   tests/vm.sh [--only TEST] <bzImage> <initramfs> <suite> <outdir> [timeout-seconds]
#
# --only TEST runs only the suite's lines for that test (tests/guest/t/TEST),
# or TEST,TEST... for several.
#
# The guest: q35 with HMAT, 4 vCPUs all on node 0 (512 MiB), node 1 CPU-less
# (1536 MiB) with 3x the latency and 1/5 the bandwidth, so the kernel puts it
# in a lower memory tier and demotes node 0 to it, as with DRAM + CXL.
# TCG by default (nested KVM hangs on the machines this was written on; see
# below for why single-threaded); LUF_KVM=1 uses KVM on a host where it
# works.  LUF_DISK=<image> attaches a
# raw disk as virtio-blk, serial luf-ext4 (the guest mounts it on /mnt).
#
# Writes <outdir>/console.log (ttyS0) and <outdir>/results.log (ttyS1) and
# prints the verdict lines (harness notes start with '#').
set -uo pipefail
only=
if [ "${1:-}" = --only ]; then
	only=${2:?usage: vm.sh --only TEST <bzImage> ...}
	shift 2
fi
kernel=${1:?usage: vm.sh [--only TEST] <bzImage> <initramfs> <suite> <outdir> [timeout]}
initrd=${2:?}
suite=${3:?}
outdir=${4:?}
timeout=${5:-1200}
mkdir -p "$outdir"
console=$outdir/console.log
results=$outdir/results.log
rm -f "$console" "$results"

# Single-threaded TCG by default: with thread=multi, a vCPU now and then
# executes a stale int3 while another one patches a static key
# (text_poke_bp), and the guest dies with "Oops: int3" at the patched site:
# seen at boot (sched_clock_cpu, no module loaded), at luf's load (hook site
# in the fault path) and unload (free_unref_page).  Single-threaded TCG runs
# the vCPUs in turn on one host thread: slower, but no such crash.
# QEMU 10.0.2 (bookworm-backports) does it too, more rarely: three full
# make check runs with thread=multi were clean, then a benchmark boot that
# switched luf off and on (which flips its static key) under a load on all
# vCPUs died with "Oops: int3" at __free_one_page+0x38, a luf hook site.
# LUF_TCG_THREAD=multi brings the faster mode back; LUF_QEMU names another
# qemu-system-x86_64 binary to try.
if [ "${LUF_KVM:-0}" = 1 ]; then
	accel=(-accel kvm -cpu host)
else
	accel=(-accel "tcg,thread=${LUF_TCG_THREAD:-single}" -cpu max)
	# LUF_ICOUNT=<shift>: the guest clock counts instructions (2^shift ns
	# each) instead of following the host's, and idle time is skipped: a
	# guest-timed rate then counts instructions, whatever else the host
	# does.  Single-threaded TCG only.
	if [ -n "${LUF_ICOUNT:-}" ]; then
		accel+=(-icount "shift=$LUF_ICOUNT,sleep=off")
	fi
fi

# More scratch disks, found in the guest by serial (tests/guest/lib.sh
# disk_by_serial): LUF_DISK_XFS, an XFS image (the xfs module's test), and
# LUF_DISK_SQ, a raw disk on a single virtqueue: with one hardware queue
# blk-mq completes requests submitted on other CPUs in softirq (BLOCK_SOFTIRQ),
# the context in which luf's hooks must not flush; LUF_DISK_SWAP, a raw
# disk for a swap partition that hibernation writes its image to (a swap
# file would do on a kernel that lets a mounted device be written to,
# CONFIG_BLK_DEV_WRITE_MOUNTED, which allnoconfig leaves off).
extra_disks=()
if [ -n "${LUF_DISK_XFS:-}" ]; then
	extra_disks+=(-drive "file=$LUF_DISK_XFS,if=none,id=dxfs,format=raw,cache=unsafe"
		      -device virtio-blk-pci,drive=dxfs,serial=luf-xfs)
fi
if [ -n "${LUF_DISK_SQ:-}" ]; then
	extra_disks+=(-drive "file=$LUF_DISK_SQ,if=none,id=dsq,format=raw,cache=unsafe"
		      -device virtio-blk-pci,drive=dsq,serial=luf-sq,num-queues=1)
fi
if [ -n "${LUF_DISK_SWAP:-}" ]; then
	extra_disks+=(-drive "file=$LUF_DISK_SWAP,if=none,id=dswap,format=raw,cache=unsafe"
		      -device virtio-blk-pci,drive=dswap,serial=luf-swap)
fi

cmdline="console=ttyS0 luftest.suite=$suite panic_on_warn=1 panic=-1 oops=panic"
[ -z "$only" ] || cmdline+=" luftest.only=$only"
cmdline+=" softlockup_panic=1 hung_task_panic=1 ${LUF_CMDLINE:-}"

# LUF_SMP: the vCPUs, all on node 0 (default 4; the kernels take up to
# NR_CPUS=8).  Only make bench's scaling curve changes it: memory and
# nodes stay as they are.
smp=${LUF_SMP:-4}
case $smp in
[1-8]) ;;
*) echo "vm.sh: LUF_SMP=$smp: 1 to 8 vCPUs (NR_CPUS=8)" >&2; exit 2 ;;
esac

# One boot.  Returns qemu's exit status.
boot() {
	rm -f "$console" "$results"
	timeout -k 10 "$timeout" "${LUF_QEMU:-qemu-system-x86_64}" \
		-machine q35,hmat=on "${accel[@]}" -smp "$smp" -m 2G \
		-object memory-backend-ram,id=m0,size=512M \
		-object memory-backend-ram,id=m1,size=1536M \
		-numa node,nodeid=0,cpus=0-$((smp - 1)),memdev=m0 \
		-numa node,nodeid=1,memdev=m1,initiator=0 \
		-numa hmat-lb,initiator=0,target=0,hierarchy=memory,data-type=access-latency,latency=10 \
		-numa hmat-lb,initiator=0,target=0,hierarchy=memory,data-type=access-bandwidth,bandwidth=10G \
		-numa hmat-lb,initiator=0,target=1,hierarchy=memory,data-type=access-latency,latency=30 \
		-numa hmat-lb,initiator=0,target=1,hierarchy=memory,data-type=access-bandwidth,bandwidth=2G \
		-kernel "$kernel" -initrd "$initrd" -append "$cmdline" \
		-nodefaults -display none -no-reboot \
		-serial "file:$console" -serial "file:$results" \
		${LUF_DISK:+-drive file=$LUF_DISK,if=none,id=dext4,format=raw,cache=unsafe} \
		${LUF_DISK:+-device virtio-blk-pci,drive=dext4,serial=luf-ext4} \
		"${extra_disks[@]}" \
		${LUF_QEMU_EXTRA:-} </dev/null >"$outdir/qemu.log" 2>&1
}

start=$(date +%s)
boot
qrc=$?
# Multi-threaded TCG now and then executes a stale int3 while the kernel
# patches a static key (text_poke_bp) on another vCPU; it was seen at boot
# (sched_clock_cpu) with no module loaded.  One retry, and only when the
# guest died that way before reporting any verdict: later it counts.
if [ "${LUF_KVM:-0}" != 1 ] && ! grep -qE '^(PASS|FAIL|SKIP) ' "$results" 2>/dev/null &&
   grep -q 'Oops: int3' "$console" 2>/dev/null; then
	echo "# vm-$suite: int3 Oops before the first verdict (TCG, see tests/vm.sh); retrying once"
	mv "$console" "$outdir/console.int3.log"
	boot
	qrc=$?
fi
elapsed=$(( $(date +%s) - start ))

ok=1
# Verdict lines, as reported by the guest.
tr -d '\r' < "$results" 2>/dev/null | grep -E '^(PASS|FAIL|SKIP) '
if [ $qrc -eq 124 ] || [ $qrc -eq 137 ]; then
	echo "# vm-$suite: timed out after ${timeout}s"
	ok=0
elif [ $qrc -ne 0 ]; then
	echo "# vm-$suite: qemu exited with $qrc ($(tail -n 1 "$outdir/qemu.log"))"
	ok=0
fi
if ! grep -qE '^SUMMARY [0-9]+ passed, [0-9]+ failed' "$results" 2>/dev/null; then
	echo "# vm-$suite: the guest never reported its summary (console: $console)"
	ok=0
fi
# Kernel splats.  Test output on the console is prefixed with the test's
# name, so only the kernel's own lines can match these anchored patterns.
splat='^(\[ *[0-9]+\.[0-9]+\] )?(WARNING:|BUG:|BUG |Oops|Kernel panic|kernel BUG|general protection fault|WARNING: possible|INFO: (possible|task|rcu)|DEBUG_LOCKS_WARN_ON|UBSAN:|KASAN:|list_(add|del) corruption|unreferenced object|Modules linked in:|Call Trace:|RIP:)'
if grep -qE "$splat" "$console" 2>/dev/null; then
	echo "# vm-$suite: kernel splat on the console"
	# What a CI log needs to tell what happened without the console:
	# the test that ran, the first splat's own lines and the luf
	# checker's first report (an expected one is a mutation test's).
	awk -v re="$splat" '
		/luf-test: RUN / { test = $0 }
		$0 ~ re && !n++ { print "# vm-" s ": the first splat, in " (test == "" ? "no test" : test) ":"; left = 40 }
		left > 0 { print "#    " $0; left-- }
	' s="$suite" "$console"
	grep -n -m 1 'luf_check: stale TLB entry' "$console" | cut -d: -f1 |
	while read -r l; do
		echo "# vm-$suite: the luf checker's first report:"
		sed -n "$l,$((l + 35))p" "$console" | sed 's/^/#    /'
	done
	ok=0
fi
echo "vm-$suite: ${elapsed}s, $(grep -E '^SUMMARY' "$results" 2>/dev/null || echo 'no summary')" >&2
[ $ok -eq 1 ]
