#!/bin/bash
# luf's systemd units and their helpers (tools/systemd/), before packaging:
# systemd-analyze verify on luf.service, luf-metrics.service and
# luf-metrics.timer with the programs they run staged as the package has
# them; luf-kernel-check's one line on this host's kernel, which lacks the
# patch; luf-metrics writing luf.prom through a renamed temporary file.
# tests/host/deb.sh checks the same units as packaged.
#   tests/host/units.sh [<tools build dir>]
# Prints PASS/FAIL/SKIP lines.
# check: host
set -uo pipefail
. "$(dirname "$0")/lib.sh"
bin=${1:-$LUF_TOOLS}
top=$LUF_TOP
src=$top/tools/systemd
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The tree as luf-tools installs it (tools/packaging/debian/rules).
root=$tmp/root
mkdir -p "$root/usr/bin" "$root/usr/libexec/luf" "$root/usr/share/man/man8"
cp "$bin/lufctl" "$root/usr/bin/"
cp "$src/luf-kernel-check" "$src/luf-metrics" "$root/usr/libexec/luf/"
sh "$top/tools/lufctl-man.sh" "$bin/lufctl" | gzip -9n > "$root/usr/share/man/man8/lufctl.8.gz"
units=("$src/luf.service" "$src/luf-metrics.service" "$src/luf-metrics.timer")
if ! command -v systemd-analyze >/dev/null; then
	echo "FAIL units-verify: systemd-analyze is missing (tests/setup.sh installs systemd)"
elif out=$(luf_verify_units "$root" "${units[@]}"); then
	echo "PASS units-verify (systemd-analyze verify: ${units[*]##*/})"
else
	echo "FAIL units-verify: ${out//$'\n'/; }"
fi

# What the issue asks of luf.service, beyond what verify can know: a
# oneshot that stays active, modprobe then apply, unloaded when stopped
# (and after a start that failed half-way), not started by default.
u=$src/luf.service
exec_lines=$(grep '^Exec' "$u" | tr '\n' '|')
want='ExecStartPre=/usr/libexec/luf/luf-kernel-check|ExecStart=/sbin/modprobe luf|ExecStart=/usr/bin/lufctl apply|ExecReload=/usr/bin/lufctl apply|ExecStop=-/usr/bin/lufctl set enabled=0|ExecStop=/sbin/modprobe -r luf|ExecStopPost=-/sbin/modprobe -q -r luf|'
if ! grep -qx 'Type=oneshot' "$u" || ! grep -qx 'RemainAfterExit=yes' "$u"; then
	echo "FAIL units-luf-service: not a oneshot with RemainAfterExit=yes"
elif [ "$exec_lines" != "$want" ]; then
	echo "FAIL units-luf-service: its commands are '$exec_lines', not '$want'"
elif ! grep -qx 'WantedBy=multi-user.target' "$u"; then
	echo "FAIL units-luf-service: no WantedBy=multi-user.target"
elif ! grep -qx 'OnCalendar=minutely' "$src/luf-metrics.timer" ||
     ! grep -qx 'ConditionPathIsDirectory=/var/lib/prometheus/node-exporter' "$src/luf-metrics.service"; then
	echo "FAIL units-luf-service: luf-metrics.timer is not minutely, or its service not conditional on node_exporter's textfile directory"
else
	echo "PASS units-luf-service"
fi

# luf-kernel-check: this host's kernel lacks the patch, which it must say
# in one line; with a kallsyms that has it, the missing module.
# kernel_check <name> <start of its line> [<kallsyms>]
kernel_check() {
	local name=$1 want=$2 err rc

	shift 2
	err=$(sh "$src/luf-kernel-check" "$@" 2>&1 >/dev/null)
	rc=$?
	if [ $rc -eq 1 ] && [ "$(wc -l <<<"$err")" -eq 1 ] && [ "${err#"$want"}" != "$err" ]; then
		echo "PASS units-kernel-check-$name ($err)"
	else
		echo "FAIL units-kernel-check-$name: exit $rc, said '${err//$'\n'/; }'"
	fi
}
if [ -r /proc/kallsyms ] && grep -q ' luf_register$' /proc/kallsyms; then
	echo "SKIP units-kernel-check-unpatched: this host's kernel carries core-hooks.patch"
else
	kernel_check unpatched "luf: the running kernel $(uname -r) lacks core-hooks.patch"
fi
echo 'ffffffff81000000 T luf_register' > "$tmp/kallsyms"
if grep -Eq '(^|/)luf\.ko(\.[a-z]+)?:' "/lib/modules/$(uname -r)/modules.dep" 2>/dev/null; then
	echo "SKIP units-kernel-check-no-module: this host has a luf module for $(uname -r)"
else
	kernel_check no-module "luf: no luf module for the running kernel $(uname -r): install luf-dkms" "$tmp/kallsyms"
fi

# luf-metrics: without luf loaded, luf.prom has the host's counters and
# luf_loaded 0, world-readable, and no temporary file is left; when lufctl
# fails, the old luf.prom stays and the temporary file goes.
d=$tmp/textfile
mkdir -p "$d" "$tmp/fail"
printf '#!/bin/sh\necho "lufctl: broken" >&2\nexit 1\n' > "$tmp/fail/lufctl"
chmod +x "$tmp/fail/lufctl"
if [ -e /sys/module/luf ]; then
	echo "SKIP units-metrics: luf is loaded on this host"
elif ! PATH=$root/usr/bin:$PATH sh "$src/luf-metrics" "$d"; then
	echo "FAIL units-metrics: luf-metrics failed without luf loaded"
elif ! grep -qx 'luf_loaded 0' "$d/luf.prom" || [ "$(stat -c %a "$d/luf.prom")" != 644 ]; then
	echo "FAIL units-metrics: luf.prom lacks 'luf_loaded 0' or is not mode 644: $(stat -c %a "$d/luf.prom")"
elif [ "$(ls -A "$d")" != luf.prom ]; then
	echo "FAIL units-metrics: left behind: $(ls -A "$d" | tr '\n' ' ')"
else
	cp "$d/luf.prom" "$tmp/before"
	err=$(PATH=$tmp/fail:$PATH sh "$src/luf-metrics" "$d" 2>&1)
	rc=$?
	if [ $rc -ne 1 ] || ! cmp -s "$d/luf.prom" "$tmp/before" || [ "$(ls -A "$d")" != luf.prom ]; then
		echo "FAIL units-metrics: with lufctl failing: exit $rc, $(ls -A "$d" | tr '\n' ' ')"
	elif ! grep -q 'exit 1: lufctl: broken' <<<"$err"; then
		echo "FAIL units-metrics: lufctl's failure not reported: $err"
	else
		echo "PASS units-metrics"
	fi
fi
