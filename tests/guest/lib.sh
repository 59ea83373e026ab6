# Helpers shared by the guest's test scripts (sourced, busybox sh).
#
# A test is an executable under /luf/t/.  Exit status 0 is PASS, 4 is SKIP
# (kselftest convention; the last line the test printed is the reason), any
# other status is FAIL.  Its output goes to the console, prefixed with its
# name; one verdict line per test goes to the result channel (fd 3).
#
# A test runs in a process group of its own, under a watchdog: one that
# hangs is killed after LUF_TEST_TIMEOUT seconds (a list line may give its
# own: "timeout=SECONDS name args"), fails, and the rest of the suite runs.
# A line "setup [timeout=SECONDS] name args" sets the suite up for the
# tests after it: it runs whatever LUF_ONLY (make check-one) picks.
# Whatever a test changes through luf_set, luf_load_debug or luf_insmod is
# put back when it exits, however it exits (see luf_undo).

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

LUF_TEST_TIMEOUT=${LUF_TEST_TIMEOUT:-900}

# luf_run_test <output file> <timeout> <name> [args]: run one test, its
# output to the file; its exit status, or 124 when the watchdog had to stop
# it.  setsid makes the test the leader of a new process group (it is not
# one already: a background job of a shell without job control), so that
# the watchdog stops its helpers too: TERM first, so that its EXIT trap can
# undo what it changed, and KILL for whatever is left.  Call it with stderr
# to /dev/null: the shell reports the jobs it reaps ("Killed") there, and
# the test's last line must stay its own.
luf_run_test() {
	local out=$1 tmo=$2 pid wd rc mark=/tmp/luf-timeout.$$
	shift 2
	rm -f $mark
	setsid /luf/t/"$@" > "$out" 2>&1 &
	pid=$!
	setsid sh -c "sleep $tmo; touch $mark; kill -TERM -$pid" \
		> /dev/null 2>&1 &
	wd=$!
	wait $pid
	rc=$?
	kill -KILL -$wd
	wait $wd
	[ -e $mark ] || return $rc
	rm -f $mark
	sleep 1
	kill -KILL -$pid
	return 124
}

# After a test that was killed: no debug build of luf, no helper module
# left behind for the next test.
luf_reset() {
	[ -e /sys/kernel/debug/luf/debug_skip ] && luf_debug_off
	grep -q '^luf_atomic ' /proc/modules && rmmod luf_atomic
	return 0
}

luf_run_suite() {
	local list=$1 name args rc out what tmo t0 setup
	if [ ! -f "$list" ]; then
		verdict FAIL suite "no test list $list"
		return
	fi
	while read -r name args; do
		case $name in ''|'#'*) continue ;; esac
		tmo=$LUF_TEST_TIMEOUT
		# "setup name args": a line that sets the suite up for the
		# tests after it (patched-mm's selftests run with luf loaded):
		# it runs whatever LUF_ONLY picks, and its verdict says setup.
		setup=
		case $name in setup)
			setup="setup "
			# shellcheck disable=SC2086
			set -- $args
			name=$1
			shift
			args=$*
			;;
		esac
		case $name in timeout=*)
			tmo=${name#timeout=}
			# shellcheck disable=SC2086
			set -- $args
			name=$1
			shift
			args=$*
			;;
		esac
		if [ -n "$LUF_ONLY" ] && [ -z "$setup" ]; then
			case ,$LUF_ONLY, in *,"$name",*) ;; *) continue ;; esac
		fi
		what=$setup$name${args:+ $args}
		echo "luf-test: RUN $what"
		out=/tmp/out.$$
		t0=$(date +%s)
		# shellcheck disable=SC2086
		luf_run_test "$out" "$tmo" $name $args 2> /dev/null
		rc=$?
		sed "s/^/$name: /" "$out"
		echo "luf-test: TIME $what $(($(date +%s) - t0)) s"
		case $rc in
		0) verdict PASS "$what" ;;
		4) verdict SKIP "$what" "$(tail -n 1 "$out")" ;;
		124)
			luf_reset
			verdict FAIL "$what" "timed out after $tmo s: $(tail -n 1 "$out")"
			;;
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

# What a test changed is undone when it exits, newest first: each helper
# below pushes the command that undoes what it did, and the EXIT trap runs
# them (fail() exits too).  One test cannot leak a knob, a debug build or
# a helper module into the tests after it.
LUF_UNDO=
luf_undo_push() {
	LUF_UNDO="$1
$LUF_UNDO"
	trap luf_undo EXIT
	# The runner's watchdog stops a test with TERM: undo then too.
	trap 'exit 143' TERM
}
luf_undo() {
	local rc=$? u=$LUF_UNDO
	LUF_UNDO=
	eval "$u"
	# A mutation the checker had to catch and did not fails the test.
	if [ -n "$LUF_CHECK_MISSED" ] && [ "$rc" = 0 ]; then
		echo "FAIL: the invariant checker found no stale entry: a hole in the checker"
		exit 1
	fi
}
# luf_set <knob> <value>: set /sys/kernel/mm/luf/<knob> (or the file <knob>
# names, if it is a path: a sysctl); its value is put back at exit (into
# whichever luf is loaded then; none: nothing to do).
luf_set() {
	local f=/sys/kernel/mm/luf/$1 old
	case $1 in /*) f=$1 ;; esac
	old=$(cat "$f") || fail "cannot read $f: luf not loaded?"
	echo "$2" > "$f" || fail "cannot set $1 to $2"
	luf_undo_push "[ -e $f ] && echo $old > $f"
}
# luf_insmod <file.ko> [params]: a helper module, unloaded at exit.
luf_insmod() {
	local m=${1##*/}
	insmod "$@" || fail "cannot load $m"
	luf_undo_push "grep -q '^${m%.ko} ' /proc/modules && rmmod ${m%.ko}"
}
# The debug build of luf in place of luf, with its debugfs file $1
# (debug_core, debug_skip, ...) set to $2, if given; luf_unload_debug clears
# the debug bits and unloads it, and so does the test's exit if it is still
# loaded, which also loads luf again if it was loaded before.  Both fail the
# test when they cannot.
luf_load_debug() {
	local back=
	[ -f /luf/luf-debug.ko ] || fail "debug build of luf missing"
	luf_breaks "$1" "$2" && luf_expect_stale
	luf_loaded && { back="; luf_loaded || luf_load"; luf_unload || fail "cannot unload luf"; }
	insmod /luf/luf-debug.ko || fail "cannot load the debug build"
	# At exit: the debug build out, and luf back if it was loaded before.
	luf_undo_push "{ [ ! -e /sys/kernel/debug/luf/debug_skip ] || luf_debug_off; }$back"
	[ -z "$1" ] || echo "$2" > "/sys/kernel/debug/luf/$1" ||
		fail "cannot set $1 to $2"
}
luf_debug_off() {
	echo 0 > /sys/kernel/debug/luf/debug_skip
	echo 0 > /sys/kernel/debug/luf/debug_core
	rmmod luf
}
luf_unload_debug() { luf_debug_off || fail "cannot unload the debug build"; }
# Does debugfs file $1 set to $2 break luf on purpose?  Every skip bit of
# debug_skip does, the debug_core bits that drop or postpone a flush
# (module/ABI): 1 2 1024 4096 8192 16384 65536 131072 262144 524288
# 1048576 2097152 4194304 8388608 16777216, debug_trim 2 and debug_numa 1.
luf_breaks() {
	case $1 in
	debug_skip) [ "${2:-0}" != 0 ] ;;
	debug_core) [ $(( ${2:-0} & 33518595 )) != 0 ] ;;
	debug_trim) [ "${2:-0}" = 2 ] ;;
	debug_numa) [ "${2:-0}" = 1 ] ;;
	*) false ;;
	esac
}
# The invariant checker of CONFIG_LUF_CHECK kernels.
LUF_CHECK=/sys/kernel/debug/luf_check
# luf_check_needed: a test of the checker itself skips, saying why, on a
# kernel built without it or booted with it off (the run that measures
# what it costs, LUF_CMDLINE=luf_check=off).
luf_check_needed() {
	[ -e $LUF_CHECK/stats ] || skip "kernel built without CONFIG_LUF_CHECK"
	! grep -qw 'luf_check=off' /proc/cmdline ||
		skip "the checker is off from boot (luf_check=off)"
}
luf_check_stat() { awk -v k="$1" '$1 == k { print $2 }' $LUF_CHECK/stats 2>/dev/null; }
# luf_expect_stale: this test breaks luf on purpose, so the stale entries
# the checker finds until it exits are expected: counted apart and reported
# without a WARN.  At exit the test prints how many it found, after the
# debug build is gone (its unload checks that nothing is left).
luf_expect_stale() {
	[ -e $LUF_CHECK/expect ] || return 0
	[ "$(cat $LUF_CHECK/expect)" = 1 ] && return 0
	LUF_EXPECTED0=$(luf_check_stat expected)
	echo 1 > $LUF_CHECK/expect || fail "cannot set $LUF_CHECK/expect"
	luf_undo_push '{ [ ! -e /sys/kernel/debug/luf/debug_skip ] || luf_debug_off; }
		luf_check_found'
}
# luf_check_seen: true once the checker found a stale entry since
# luf_expect_stale, or when the test does not ask it to (no
# luf_check_must_catch).
luf_check_seen() {
	[ -n "${LUF_CHECK_MUST:-}" ] || return 0
	[ "$(( $(luf_check_stat expected) - LUF_EXPECTED0 ))" -gt 0 ]
}
luf_check_found() {
	local n=$(( $(luf_check_stat expected) - LUF_EXPECTED0 ))
	echo 0 > $LUF_CHECK/expect
	echo "luf-check: the checker found $n stale entries"
	[ "$n" -gt 0 ] || [ -z "$LUF_CHECK_MUST" ] || LUF_CHECK_MISSED=1
}
# luf_check_must_catch: the mutation this test runs can be seen from the
# TLBs, so the checker must find it by itself, whatever the test's own
# detector says (issue 24): with none found the test fails.  A kernel
# without the checker, or one booted with luf_check=off, asks nothing.
luf_check_must_catch() {
	[ "$(cat $LUF_CHECK/enabled 2>/dev/null)" = 1 ] || return 0
	[ "$(cat $LUF_CHECK/expect)" = 1 ] || fail "luf_check_must_catch: no mutation loaded"
	LUF_CHECK_MUST=1
}
luf_loaded() { grep -q '^luf ' /proc/modules; }
# numa_fast: NUMA balancing on (mode 1), scanning every few milliseconds
# instead of every second, so that a test of a few seconds sees many hinting
# passes; put back at exit.
numa_fast() {
	[ -d $numa_sched ] || skip "no $numa_sched (kernel without NUMA balancing)"
	luf_undo_push "echo $(cat /proc/sys/kernel/numa_balancing) > /proc/sys/kernel/numa_balancing"
	numa_scan_periods 10 40 10
	echo 1 > /proc/sys/kernel/numa_balancing
}
# numa_scan_periods <min ms> <max ms> [first-scan delay ms]: NUMA
# balancing's scan period bounds (and the delay), the old values put back
# at exit.  Fails the test when they cannot be set.
numa_sched=/sys/kernel/debug/sched/numa_balancing
numa_scan_periods() {
	local k
	[ -d $numa_sched ] || fail "no $numa_sched (kernel without NUMA balancing)"
	for k in scan_delay_ms scan_period_min_ms scan_period_max_ms; do
		luf_undo_push "echo $(cat $numa_sched/$k) > $numa_sched/$k"
	done
	for k in "scan_period_min_ms $1" "scan_period_max_ms $2" "scan_delay_ms ${3:-}"; do
		set -- $k
		[ -z "${2:-}" ] || echo "$2" > $numa_sched/$1 || fail "cannot set $numa_sched/$1 to $2"
	done
}
# luf's counters of held hinting flushes, and the kernel's of NUMA balancing.
numa_counts() {
	local k
	for k in numa_held numa_done numa_ipis numa_sync; do
		printf '%s=%s ' $k "$(luf_stat $k)"
	done
	grep -E '^numa_(pte_updates|hint_faults|pages_migrated) ' /proc/vmstat | tr ' \n' '= '
}
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

# The TLB flushes that send IPIs, by where they come from: the tlb_flush
# tracepoint, with a kernel stack recorded for each flush of reason
# TLB_REMOTE_SEND_IPI (4).  tlb_trace_setup [buffer KiB per CPU, default
# 16384] [event filter] turns the event on and sets tlb_tracing (1: the
# kernel has the event) and tlb_stacks (1: the stack trigger is in place);
# the test's exit takes the trigger and the filter away and puts the event
# and the buffer size back, so that the tests after it trace nothing they
# did not ask for.  Whoever
# counts switches tracing_on around what it measures (BENCH_TRACE_WINDOW=1
# makes bench.c's tools and lufstress do it themselves, tlb_trace_window
# empties the buffer before) and calls tlb_trace_counts, which prints:
#   trace_<reason>=N  the flushes of each reason (all CPUs);
#   ipi_<origin>=N    the IPI-sending flushes by the first telling function
#                     on their stack: luf (luf's own flushes: by age, on
#                     reuse...), unmap (a batched unmap flush luf did not
#                     defer), numa (NUMA balancing arming hinting faults),
#                     mprotect, zap (munmap, exit, madvise), other;
#   stacks=0|1 and trace_overrun=N (events lost: the counts are short).
# "trace=na" when the kernel has no tlb_flush event.
LUF_TRACE=/sys/kernel/tracing
# luf_tracefs: tracefs mounted at $LUF_TRACE (fails if it cannot be).
luf_tracefs() {
	[ -d $LUF_TRACE/events ] || mount -t tracefs nodev $LUF_TRACE 2>/dev/null
}
# trace_overruns [instance dir]: events lost to a full buffer since it was
# last emptied, over all CPUs (of the top-level buffer by default).
trace_overruns() {
	awk '$1 == "overrun:" { o += $2 } END { print o + 0 }' ${1:-$LUF_TRACE}/per_cpu/cpu*/stats
}
tlb_trace_setup() {
	local e=$LUF_TRACE/events/tlb/tlb_flush trig='stacktrace if reason == 4'
	tlb_tracing=0 tlb_stacks=0
	luf_tracefs
	[ -e $e/enable ] || return 0
	luf_undo_push "echo $(cat $LUF_TRACE/buffer_size_kb | cut -d' ' -f1) > $LUF_TRACE/buffer_size_kb"
	luf_undo_push "echo $(cat $e/enable) > $e/enable"
	echo "${1:-16384}" > $LUF_TRACE/buffer_size_kb
	if [ -n "${2:-}" ]; then
		echo "$2" > $e/filter || fail "cannot filter the tlb_flush event with '$2'"
		luf_undo_push "echo 0 > $e/filter"
	fi
	echo 1 > $e/enable
	# A trigger is written once: a second write of the same one fails.
	if ! grep -q '^stacktrace' $e/trigger &&
	   echo "$trig" > $e/trigger 2>/dev/null; then
		luf_undo_push "echo '!$trig' > $e/trigger"
	fi
	grep -q '^stacktrace' $e/trigger && tlb_stacks=1
	tlb_tracing=1
}
tlb_trace_counts() {
	[ "$tlb_tracing" = 1 ] || { echo "trace=na"; return; }
	awk '
	function origin(st) {
		if (st ~ /luf/) return "luf"
		if (st ~ /try_to_unmap_flush|try_to_migrate_one|try_to_unmap_one/) return "unmap"
		if (st ~ /change_prot_numa|task_numa_work/) return "numa"
		if (st ~ /change_protection|mprotect/) return "mprotect"
		if (st ~ /tlb_finish_mmu|tlb_flush_mmu|zap_/) return "zap"
		return "other"
	}
	function done() { if (st != "") o[origin(st)]++; st = ""; inst = 0 }
	/reason:/ {
		done()
		r = $0; sub(/.*reason:/, "", r); sub(/ \([0-9]+\).*/, "", r)
		gsub(/ /, "_", r); n[r]++
		next
	}
	/<stack trace>/ { done(); inst = 1; next }
	inst && /^ *=> / { st = st " " $2; next }
	{ done() }
	END {
		done()
		for (k in n) printf "trace_%s=%d ", k, n[k]
		for (k in o) printf "ipi_%s=%d ", k, o[k]
	}' $LUF_TRACE/trace
	printf 'stacks=%s trace_overrun=%d\n' $tlb_stacks "$(trace_overruns)"
}
# tlb_trace_window: tracing off and the buffer empty, before a measured run.
tlb_trace_window() {
	[ "$tlb_tracing" = 1 ] || return 0
	echo 0 > $LUF_TRACE/tracing_on
	echo > $LUF_TRACE/trace
}
# The value of key $1 in "k=v ..." $2 (0 when absent).
kv_val() { echo "$2" | tr ' ' '\n' | awk -F= -v k="$1" '$1 == k { v = $2 } END { print v + 0 }'; }
# run_until <tries> <command> [args]: run the command (a shell function,
# usually: one run of a workload) until it succeeds, at most <tries> times;
# $try is the number of the run, for the command's messages and after.
# Succeeds when the command did.  For the mutation tests: whether a broken
# luf shows in one run depends on the timing of readers, migrations and
# context switches, so each gets a few runs, and only a miss pays for them.
run_until() {
	local run_until_max=$1
	shift
	try=1
	while :; do
		"$@" && return 0
		[ $try -ge "$run_until_max" ] && return 1
		try=$((try + 1))
	done
}
