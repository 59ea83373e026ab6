# Helpers shared by the guest's test scripts (sourced, busybox sh).
#
# A test is an executable under /luf/t/.  Exit status 0 is PASS, 4 is SKIP
# (kselftest convention; the last line the test printed is the reason), any
# other status is FAIL.  Its output goes to the console, prefixed with its
# name; one verdict line per test goes to the result channel (fd 3).

LUF_PASSED=0
LUF_FAILED=0
LUF_SKIPPED=0

# verdict <PASS|FAIL|SKIP> <name> [reason]
verdict() {
	echo "$1 $2${3:+: $3}" >&3
	echo "luf-test: $1 $2${3:+: $3}"
	case $1 in
	PASS) LUF_PASSED=$((LUF_PASSED + 1)) ;;
	FAIL) LUF_FAILED=$((LUF_FAILED + 1)) ;;
	SKIP) LUF_SKIPPED=$((LUF_SKIPPED + 1)) ;;
	esac
}

luf_run_suite() {
	local list=$1 name args rc out what
	if [ ! -f "$list" ]; then
		verdict FAIL suite "no test list $list"
		return
	fi
	while read -r name args; do
		case $name in ''|'#'*) continue ;; esac
		what=$name${args:+ $args}
		echo "luf-test: RUN $what"
		out=/tmp/out.$$
		# shellcheck disable=SC2086
		/luf/t/$name $args > "$out" 2>&1
		rc=$?
		sed "s/^/$name: /" "$out"
		case $rc in
		0) verdict PASS "$what" ;;
		4) verdict SKIP "$what" "$(tail -n 1 "$out")" ;;
		*) verdict FAIL "$what" "exit $rc: $(tail -n 1 "$out")" ;;
		esac
		rm -f "$out"
	done < "$list"
}

# Helpers for the test scripts themselves.
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 4; }
vmstat() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }
# Sum of one /proc/interrupts line (e.g. TLB) over all CPUs.
irq_total() {
	awk -v k="$1:" '$1 == k { s = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i; print s }' /proc/interrupts
}
luf_load() { insmod /luf/luf.ko "$@"; }
# The block device whose virtio serial is $1 (see tests/vm.sh), or nothing.
disk_by_serial() {
	local d
	for d in /sys/block/vd*; do
		[ "$(cat "$d/serial" 2>/dev/null)" = "$1" ] && { echo "/dev/${d##*/}"; return 0; }
	done
	return 1
}
luf_unload() { rmmod luf; }
# The debug build of luf in place of luf, with its debugfs file $1
# (debug_core, debug_skip) set to $2; luf_unload_debug $1 clears it and
# unloads.  Both fail the test when they cannot.
luf_load_debug() {
	[ -f /luf/luf-debug.ko ] || fail "debug build of luf missing"
	luf_loaded && { luf_unload || fail "cannot unload luf"; }
	insmod /luf/luf-debug.ko || fail "cannot load the debug build"
	echo "$2" > "/sys/kernel/debug/luf/$1" || fail "cannot set $1 to $2"
}
luf_unload_debug() {
	echo 0 > "/sys/kernel/debug/luf/$1"
	rmmod luf || fail "cannot unload the debug build"
}
luf_loaded() { grep -q '^luf ' /proc/modules; }
# One counter of luf's debugfs stats (empty when luf is not loaded).
luf_stat() { awk -v k="$1" '$1 == k { print $2 }' /sys/kernel/debug/luf/stats 2>/dev/null; }
# luf's max_defer_ms (the default when luf is not loaded).
luf_defer_ms() { cat /sys/kernel/mm/luf/max_defer_ms 2>/dev/null || echo 1000; }
# Compact memory again and again (the reuse mutation, see t/mutation).
compact_loop() {
	while :; do
		echo 1 > /proc/sys/vm/compact_memory
		sleep 0.2
	done
}
