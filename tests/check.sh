#!/bin/bash
# make check: build everything (cached after the first run), run the host
# tests, boot the patched and the vanilla kernel and run their suites, and
# end with "N passed, N failed".  Exit status 0 only if nothing failed.
# LUF_ONLY=<test>[,<test>...] (make check-one): the same builds, then only
# those tests' lines of one suite (LUF_SUITE, default patched) in one guest.  LUF_SUITE
# alone (make check-suite): that whole suite in one guest.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
export LUF_CACHE=${LUF_CACHE:-$HOME/.cache/luf}
build=$top/build
out=$build/check
mkdir -p "$out"
results=$out/results.txt
: > "$results"
t0=$(date +%s)
only=${LUF_ONLY:-}
# One guest and no host tests: check-one or check-suite.
single=${LUF_ONLY:-}${LUF_SUITE:-}
for t in ${only//,/ }; do
	[ -x "tests/guest/t/$t" ] && continue
	echo "check.sh: no guest test tests/guest/t/$t" >&2
	exit 2
done
case $only in ,* | *, | *,,* | *[[:space:]]*)
	echo "check.sh: LUF_ONLY (make check-one T=) is <test>[,<test>...]: '$only'" >&2
	exit 2
	;;
esac

record() {	# record <PASS|FAIL|SKIP> <name> [reason]
	echo "$1 $2${3:+: $3}" | tee -a "$results"
}
step() { echo "== $* ($(( $(date +%s) - t0 ))s)"; }
summary() {
	local p f s
	p=$(grep -c '^PASS ' "$results")
	f=$(grep -c '^FAIL ' "$results")
	s=$(grep -c '^SKIP ' "$results")
	echo
	grep -E '^(FAIL|SKIP) ' "$results" | sed 's/^/  /'
	echo "make check took $(( $(date +%s) - t0 ))s; $s skipped"
	echo "$p passed, $f failed"
	[ "$f" -eq 0 ]
	exit
}
# A build step that fails ends the run: nothing after it could be trusted.
must() {	# must <name> <command...>
	local name=$1 log=$out/$1.log
	shift
	if "$@" >"$log" 2>&1; then
		return 0
	fi
	record FAIL "$name" "see $log"
	tail -n 30 "$log" | sed 's/^/    /'
	summary
}

step setup
must setup tests/setup.sh

step "kernels (vanilla and patched, debug config)"
s=$(date +%s)
must kernel-vanilla tests/kernel/build.sh vanilla debug
kv=$(tail -n 1 "$out/kernel-vanilla.log")
must kernel-patched tests/kernel/build.sh patched debug
kp=$(tail -n 1 "$out/kernel-patched.log")
echo "   kernels ready in $(( $(date +%s) - s ))s"

# The patched kernel's own modules (filesystems and drivers built =m, as a
# distribution builds them), for modprobe in the guest.
modroot=$build/modroot
rm -rf "$modroot"
must modules-install make -s -C "$kp" modules_install INSTALL_MOD_PATH="$modroot" INSTALL_MOD_STRIP=1

step "luf.ko and test modules"
must module make -s module KDIR="$kp"
abi=$build/abi999
rm -rf "$abi" && mkdir -p "$abi" && cp -r Kbuild dkms.conf module "$abi/"
must module-abi999 make -s -C "$kp" M="$abi" LUF_TEST_ABI_VERSION=999 modules
dbg=$build/luf-debug
rm -rf "$dbg" && mkdir -p "$dbg" && cp -r Kbuild dkms.conf module "$dbg/"
must module-debug make -s -C "$kp" M="$dbg" LUF_DEBUG=1 modules
warn=$build/warnmod
rm -rf "$warn" && mkdir -p "$warn" && cp tests/guest/warnmod/* "$warn/"
must module-warn make -s -C "$kp" M="$warn" modules
amod=$build/atomicmod
rm -rf "$amod" && mkdir -p "$amod" && cp tests/bench/atomicmod/* "$amod/"
must module-atomic make -s -C "$kp" M="$amod" modules

step "guest binaries"
must tools make -s tools
mkdir -p "$build/guest"
# The guest's helpers link the test programs' library, tests/tools/bench.c.
for c in tests/guest/src/*.c; do
	must "helper-$(basename "$c" .c)" gcc -static -O2 -Wall -Imodule/include/uapi -Itests/tools \
		-o "$build/guest/$(basename "$c" .c)" "$c" tests/tools/bench.c -lpthread
done
must selftests tests/selftests.sh "$kv" "$build/selftests"

if [ -z "$single" ]; then
step "host tests"
# Every tests/host/*.sh marked "# check: host" (tests/host/lib.sh), in
# name order; what they need comes from these.
export LUF_TOP=$top LUF_BUILD=$build LUF_OUT=$out LUF_TOOLS=$build/tools \
	LUF_KP=$kp LUF_KV=$kv LUF_MOD_RELEASE=$top LUF_MOD_DEBUG=$dbg
for t in tests/host/*.sh; do
	grep -qx '# check: host' "$t" || continue
	name=$(basename "$t" .sh)
	"$t" > "$out/host-$name.txt" 2>&1
	grep -E '^(PASS|FAIL|SKIP) ' "$out/host-$name.txt" | tee -a "$results"
	grep -E '^    ' "$out/host-$name.txt" | head -n 30
	grep -qE '^(PASS|FAIL|SKIP) ' "$out/host-$name.txt" ||
		record FAIL "host-$name" "no verdict: see $out/host-$name.txt"
done
fi

step "initramfs"
must initramfs tests/initramfs.sh "$build/initramfs.cpio" "$build/stage" \
	luf.ko:luf.ko "$abi/luf.ko:luf-abi999.ko" "$dbg/luf.ko:luf-debug.ko" \
	"$warn/warn_on_load.ko:warn_on_load.ko" "$amod/luf_atomic.ko:luf_atomic.ko" \
	"$build/guest/.:bin" "$build/tools/.:bin" "$build/selftests/.:selftests" \
	"tools/systemd/.:systemd" "tools/luf.conf:luf.conf" \
	"$modroot/lib/modules:/lib/modules"

# run_vm <suite> <kernel build dir> <timeout>: verdict lines go to
# $out/vm-<suite>.txt; the harness's own verdict is the exit status.
run_vm() {
	tests/vm.sh ${only:+--only "$only"} "$2/arch/x86/boot/bzImage" \
		"$build/initramfs.cpio" "$1" "$out/vm-$1" "$3" > "$out/vm-$1.txt"
}

# The guest's verdicts, named <suite>/<test>.  The run's own verdict
# (vm-<suite>) says whether the guest reported a summary in time and the
# console stayed free of kernel splats.
guest_verdicts() {	# guest_verdicts <suite>
	sed -nE "s#^(PASS|FAIL|SKIP) #\1 $1/#p" "$out/vm-$1.txt"
}
vm_verdict() {		# vm_verdict <suite> <rc>
	grep '^#' "$out/vm-$1.txt"
	if [ "$2" -eq 0 ]; then
		record PASS "vm-$1"
	else
		record FAIL "vm-$1" "see $out/vm-$1/console.log"
	fi
}

# Each guest runs single-threaded TCG (tests/vm.sh): one host core.  The
# patched suite, the long one, runs on one core while the others (vanilla,
# init_on_free, harness self-test, softirq mutation, the patched kernel's mm
# selftests) run one after the other on the other, with the kernel packages'
# build and boot; the verdicts are read in this order afterwards.
rm -f "$build/disk.img" "$build/xfs.img" "$build/sq.img" "$build/swap.img" "$out"/rc-* \
	"$out/kernel-deb.txt" "$out/path.txt"
# A fresh scratch ext4 disk for the tests that need a real filesystem.
truncate -s 256M "$build/disk.img" && mkfs.ext4 -q -F "$build/disk.img" ||
	record FAIL disk-image "mkfs.ext4 failed"
# An XFS disk for the xfs module, and a blank one on a single virtqueue
# (tests/vm.sh) that the guest formats as vfat.
truncate -s 320M "$build/xfs.img" && mkfs.xfs -q -f "$build/xfs.img" ||
	record FAIL disk-image "mkfs.xfs failed"
truncate -s 64M "$build/sq.img"
# A blank one for a swap partition that hibernation writes its image to.
truncate -s 256M "$build/swap.img"
disks=(LUF_DISK="$build/disk.img" LUF_DISK_XFS="$build/xfs.img" LUF_DISK_SQ="$build/sq.img"
       LUF_DISK_SWAP="$build/swap.img")
if [ -n "$single" ]; then
	suite=${LUF_SUITE:-patched}
	k=$kp
	[ "$suite" = vanilla ] && k=$kv
	tmo=4500
	# make soak: its minutes, and the set-up and the summary after them.
	[ "$suite" = soak ] && tmo=$(( ${LUF_SOAK_MIN:-120} * 60 + 1800 ))
	step "guest: the $suite suite${only:+, only $only}"
	( export "${disks[@]}"; run_vm "$suite" "$k" $tmo )
	rc=$?
	guest_verdicts "$suite" | tee -a "$results"
	vm_verdict "$suite" $rc
	# A test that no line of the suite runs (the mm selftests are in
	# patched-mm) reports nothing, which is not a pass.
	for t in ${only//,/ }; do
		guest_verdicts "$suite" | grep -Eq "^[A-Z]+ $suite/(setup )?$t( |:|\$)" ||
			record FAIL "$suite/$t" "no line of tests/guest/$suite.list runs it (SUITE=patched-mm for the mm selftests)"
	done
	summary
fi
step "guests: patched kernel | vanilla kernel, init_on_free=1, harness self-test, softirq mutation, patched kernel's mm selftests, kernel packages"
(
	run_vm vanilla "$kv" 1500; echo $? > "$out/rc-vanilla"
	LUF_CMDLINE="init_on_free=1" run_vm initfree "$kp" 300; echo $? > "$out/rc-initfree"
	run_vm harness "$kp" 300; echo $? > "$out/rc-harness"
	run_vm softirq-mutation "$kp" 300; echo $? > "$out/rc-softirq-mutation"
	# The mm selftests need no scratch disk: the patched suite has those.
	run_vm patched-mm "$kp" 1500; echo $? > "$out/rc-patched-mm"
	# make kernel-deb's recipe on the test config, on this core too (one
	# job: the patched guest has the other core).  In a directory of its
	# own: build/kernel-deb holds what make kernel-deb built, which can
	# take hours.
	rm -rf "$build/check-kernel-deb" && mkdir -p "$build/check-kernel-deb"
	tests/host/kernel-deb.sh "$build/check-kernel-deb/out" 1 > "$out/kernel-deb.txt" 2>&1
	# The whole path: those packages and luf-dkms, dkms in a scratch
	# root, the packaged kernel booted with the module dkms built.
	if grep -q '^PASS kernel-deb-build' "$out/kernel-deb.txt"; then
		tests/host/path.sh "$build/check-kernel-deb/out" "$build/deb/out" \
			"$build/guest" "$build/tools" "$build/path" > "$out/path.txt" 2>&1
	fi
) &
others=$!
( export "${disks[@]}"; run_vm patched "$kp" 4500 )
rc_patched=$?
wait $others
echo "   guests done"

step "verdicts: kernel packages (make kernel-deb, test config)"
if grep -q '^PASS kernel-deb-build' "$out/kernel-deb.txt"; then
	grep -E '^(PASS|FAIL|SKIP) ' "$out/kernel-deb.txt" | tee -a "$results"
else
	record FAIL kernel-deb-build "see $out/kernel-deb.txt"
	sed 's/^/    /' "$out/kernel-deb.txt" | head -n 20
fi

step "verdicts: the path from packages to a loaded luf (dkms, the packaged kernel)"
if grep -qE '^(PASS|FAIL|SKIP) path' "$out/path.txt" 2>/dev/null; then
	grep -E '^(PASS|FAIL|SKIP) ' "$out/path.txt" | tee -a "$results"
	grep '^#' "$out/path.txt"
	# Once the guest ran, every test of its suite reported.
	grep -qE '^(PASS|FAIL) vm-path' "$out/path.txt" &&
	grep -Ev '^(#|$)' tests/guest/path.list | while IFS= read -r t; do
		grep -qE "^(PASS|FAIL|SKIP) path/$t(\$|:)" "$out/path.txt" ||
			record FAIL "path/$t" "no verdict: see $build/path/vm/console.log"
	done
elif grep -q '^PASS kernel-deb-build' "$out/kernel-deb.txt"; then
	record FAIL path "tests/host/path.sh reported nothing: see $out/path.txt"
else
	record FAIL path "no kernel packages to take the path with (kernel-deb-build failed)"
fi

step "verdicts: vanilla kernel (luf refused; mm selftest baseline)"
rc=$(cat "$out/rc-vanilla" 2>/dev/null || echo 1)
# The vanilla kernel's selftest results are the baseline, not verdicts: of
# both passes, "selftest" (quiet) and "selftest-moving" (pages moving under
# it, tests/guest/selftests-load.list).  $base lists the lines that passed,
# "<pass> <test> [args]", one per line: a test may have several (each
# uffd-unit-tests filter of the second pass).
selftest_re='^[A-Z]* vanilla/selftest(-moving)? '
guest_verdicts vanilla | grep -Ev "$selftest_re" | tee -a "$results"
guest_verdicts vanilla | grep -E "$selftest_re" > "$out/selftests-vanilla.txt"
vm_verdict vanilla $rc
base=$(sed -nE 's#^PASS vanilla/(selftest(-moving)?) ([^:]*)$#\1 \3#p' "$out/selftests-vanilla.txt")
echo "   mm selftests passing on vanilla: $(echo "$base" | grep -c .)"

step "verdicts: patched kernel"
guest_verdicts patched | sed 's/ *$//' | tee -a "$results"
vm_verdict patched $rc_patched

step "verdicts: patched kernel, mm selftests (luf enabled; against the baseline)"
rc=$(cat "$out/rc-patched-mm" 2>/dev/null || echo 1)
# A selftest that does not pass on vanilla cannot be held against luf: its
# patched result is reported as a skip with the vanilla result as the reason.
guest_verdicts patched-mm | while read -r v name rest; do
	case $name in
	patched-mm/selftest|patched-mm/selftest-moving)
		t=${rest%%:*}
		k=${name#patched-mm/}
		if [ "$v" != PASS ] && ! echo "$base" | grep -qxF "$k $t"; then
			echo "SKIP $name $t: does not pass on vanilla either ($(grep -m1 -F " vanilla/$k $t" "$out/selftests-vanilla.txt" | cut -c1-80))"
			continue
		fi ;;
	esac
	echo "$v $name $rest"
done | sed 's/ *$//' | tee -a "$results"
vm_verdict patched-mm $rc

# Every selftest line that passes on vanilla passes on patched with luf
# enabled.  One skip may stand in for a pass: t/selftest's for 6.12's
# UFFDIO_MOVE bug (uffd-unit-tests' move-pmd cases under moveall), and
# only when t/upstream-move-pmd showed that bug on vanilla in this run.
upstream_move=
grep -qx 'PASS vanilla/upstream-move-pmd' "$results" && upstream_move=1
missing=
while IFS= read -r kt; do
	[ -n "$kt" ] || continue
	grep -qxF "PASS patched-mm/$kt" "$results" && continue
	[ -n "$upstream_move" ] &&
		grep -qF "SKIP patched-mm/$kt: 6.12 bug shown by t/upstream-move-pmd:" "$results" && continue
	missing+=" [$kt]"
done <<< "$base"
echo "   mm selftests passing on patched: $(grep -cE '^PASS patched-mm/selftest(-moving)? ' "$results")"
if [ -z "$base" ]; then
	record FAIL selftests-match "no selftest passed on vanilla: the baseline is broken"
elif [ -n "$missing" ]; then
	[ -n "$upstream_move" ] || missing+=" (vanilla/upstream-move-pmd did not pass: no skip stands in for a pass)"
	record FAIL selftests-match "pass on vanilla, not on patched:$missing"
else
	record PASS selftests-match
fi

# The export t/prometheus printed in the guest, with luf loaded and busy,
# passes promtool (tests/host/prom.sh lints the formatter and the host's
# luf-less export; the guest has no promtool).
prom=$out/prometheus-guest.prom
sed -n 's/^prometheus: \(# HELP \|# TYPE \|luf_\)/\1/p' "$out/vm-patched/console.log" |
	tr -d '\r' > "$prom"
promtool=$(command -v promtool || echo "$LUF_CACHE/prometheus/usr/bin/promtool")
if ! grep -q '^luf_loaded 1$' "$prom"; then
	record FAIL prometheus-guest-promtool "t/prometheus printed no export with luf loaded: see $out/vm-patched/console.log"
elif "$promtool" check metrics < "$prom" > "$out/prometheus-guest.txt" 2>&1; then
	record PASS "prometheus-guest-promtool ($(grep -vc "^#" "$prom") samples)"
else
	record FAIL prometheus-guest-promtool "see $out/prometheus-guest.txt"
	head -n 5 "$out/prometheus-guest.txt" | sed 's/^/    /'
fi

step "verdicts: patched kernel booted with init_on_free=1"
rc=$(cat "$out/rc-initfree" 2>/dev/null || echo 1)
guest_verdicts initfree | tee -a "$results"
vm_verdict initfree $rc

step "verdicts: harness self-test: a WARN at module load fails the run; a hung test is killed"
rc=$(cat "$out/rc-harness" 2>/dev/null || echo 0)
if [ "$rc" -ne 0 ] && grep -q 'warn_on_load: deliberate warning' "$out/vm-harness/console.log" &&
   grep -q '^# vm-harness: kernel splat' "$out/vm-harness.txt"; then
	record PASS harness-catches-warn
else
	record FAIL harness-catches-warn "a run whose console shows a WARN was not failed"
	sed 's/^/    /' "$out/vm-harness.txt"
fi
# The same run begins with a test that hangs (timeout=3): the watchdog
# kills it and its helper, and the next test runs.
if grep -q '^FAIL hang: timed out after 3 s' "$out/vm-harness.txt" &&
   grep -q '^PASS hang-after' "$out/vm-harness.txt"; then
	record PASS harness-timeout
else
	record FAIL harness-timeout "a hung test was not killed, or the suite did not go on"
	grep -E '^(PASS|FAIL|SKIP) hang' "$out/vm-harness.txt" | sed 's/^/    /'
fi

step "verdicts: mutation: a flush from softirq is caught"
# The debug build makes the core flush from the softirq hook, as it did
# before it queued such flushes: the guest must die of the kernel's own
# WARN about waiting for IPIs outside task context.
rc=$(cat "$out/rc-softirq-mutation" 2>/dev/null || echo 0)
if [ "$rc" -ne 0 ] &&
   grep -q 'WARNING: .* smp_call_function_many_cond' "$out/vm-softirq-mutation/console.log"; then
	record PASS softirq-mutation-caught
else
	record FAIL softirq-mutation-caught "flushes from softirq went unnoticed"
	sed 's/^/    /' "$out/vm-softirq-mutation.txt"
fi

summary
