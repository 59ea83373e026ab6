#!/bin/bash
# lufctl's argument handling on the host, where luf.ko is not loaded: usage
# errors must be caught before any netlink traffic (exit 2), a missing
# family must be reported as such (exit 3), apply must name every bad line
# of its file, stats --format prometheus must still export the host's
# counters, and the bash completion must load and complete.  Everything
# that needs the module runs in the guest.
#
#   tests/host/lufctl.sh <path-to-lufctl>
#
# Prints one verdict line per check ("PASS lufctl-host/<name>",
# "FAIL lufctl-host/<name>: reason" or "SKIP ..."); always exits 0, the
# caller counts the verdicts.
# check: host
set -uo pipefail
. "$(dirname "$0")/lib.sh"
top=$LUF_TOP
lufctl=${1:-$LUF_TOOLS/lufctl}
completion=$top/tools/lufctl.bash-completion
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

pass() { echo "PASS lufctl-host/$1"; }
# One line per verdict: a reason quoting output keeps only its first 200
# characters, newlines flattened.
fail() {
	local r=${2//$'\n'/ }

	echo "FAIL lufctl-host/$1: ${r:0:200}"
}
skip() { echo "SKIP lufctl-host/$1: $2"; }

if [ -z "$lufctl" ] || [ ! -x "$lufctl" ]; then
	fail setup "lufctl binary '${lufctl}' is not executable (usage: $0 <path-to-lufctl>)"
	exit 0
fi

# run <args...>: sets rc, out (stdout) and err (stderr).
run() {
	"$lufctl" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
}

# expect <name> <rc> <pattern in stderr, or ''> <args...>
expect() {
	local name=$1 want=$2 pat=$3

	shift 3
	run "$@"
	if [ "$rc" -ne "$want" ]; then
		fail "$name" "'lufctl $*' exited $rc, not $want (stderr: ${err:-none})"
	elif [ -n "$pat" ] && ! grep -qE -- "$pat" <<<"$err"; then
		fail "$name" "'lufctl $*': stderr does not match /$pat/ (stderr: ${err:-none})"
	elif [ -n "$out" ]; then
		fail "$name" "'lufctl $*' printed on stdout: $out"
	else
		pass "$name"
	fi
}

# --help: exit 0, and it documents every command, key and exit status.
run --help
if [ "$rc" -ne 0 ]; then
	fail help "exit $rc"
else
	missing=
	for w in status stats set apply watch ab help \
		enabled max_defer_ms max_pages migration reclaim numa reserve \
		stats_interval_ms --no-check --json --interval --count \
		--rounds --settle --format --file --dry-run prometheus \
		/etc/luf/luf.conf luf.service luf-metrics.timer; do
		grep -qw -- "$w" <<<"$out" || missing="$missing $w"
	done
	for s in NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS KEYS "EXIT STATUS" EXAMPLES FILES; do
		grep -q "^$s" <<<"$out" || missing="$missing section:$s"
	done
	for code in 0 1 2 3 4 130; do
		grep -qE "^ +$code +[A-Za-z]" <<<"$out" || missing="$missing exit:$code"
	done
	# The ranges of the keys, as set checks them.
	for r in 0..1 1..60000 1..1073741824 0..1000 100..60000; do
		grep -qF -- "$r" <<<"$out" || missing="$missing range:$r"
	done
	if [ -n "$missing" ]; then
		fail help "--help does not mention:$missing"
	else
		pass help
	fi
fi
run help
if [ "$rc" -eq 0 ] && [ "$out" = "$("$lufctl" --help)" ]; then
	pass help-command
else
	fail help-command "'lufctl help' exited $rc or differs from --help"
fi

run --version
if [ "$rc" -eq 0 ] && grep -q '^lufctl ' <<<"$out"; then
	pass version
else
	fail version "exit $rc, output '$out'"
fi

expect no-command 2 'no command'
expect unknown-command 2 "unknown command 'frobnicate'" frobnicate
expect unknown-option 2 "unknown option '--frob'" --frob status
expect option-with-value 2 "'--json=x'" --json=x status
expect option-wrong-command 2 'rounds' status --rounds 3
expect extra-argument 2 "unexpected argument 'now'" status now
expect set-empty 2 'nothing to set' set
expect set-unknown-key 2 "unknown key 'foo'" set foo=1
expect set-not-pair 2 "not KEY=VALUE" set enabled
expect set-malformed 2 "max_pages.*'abc'" set max_pages=abc
expect set-negative 2 "reserve.*'-1'" set reserve=-1
expect set-overflow 2 "max_pages.*'4294967296'" set max_pages=4294967296
expect set-out-of-range 2 'reserve=1001 .*0\.\.1000' set reserve=1001
expect set-below-range 2 'stats_interval_ms=99 .*100\.\.60000' set stats_interval_ms=99
expect set-numa-range 2 'numa=2 .*0\.\.1' set numa=2
expect set-duplicate 2 'enabled.*more than once' set enabled=1 enabled=0
# A bad pair anywhere refuses the whole request before anything is sent.
expect set-all-or-nothing 2 'reserve=1001' set enabled=1 reserve=1001
expect set-options-after 2 "unknown key 'foo'" set foo=1 --json
# Too many pairs for one request: a usage error, even with --no-check.
expect set-too-many 2 'at most [0-9]+ fit in one request' \
	--no-check set $(for i in $(seq 300); do echo enabled=1; done)
expect ab-rounds-zero 2 'rounds' ab --rounds 0
expect ab-rounds-junk 2 'rounds' ab --rounds 2x
expect ab-interval-junk 2 'interval' ab --interval abc
expect ab-settle-negative 2 'settle' ab --settle -1
expect watch-count-zero 2 'count' watch --count 0
expect watch-interval-tiny 2 'interval' watch --interval 0.001
expect watch-interval-missing 2 'needs a value' watch --interval
expect watch-json 2 'json' watch --json
expect format-unknown 2 "--format: 'xml'" stats --format xml
expect format-json-prometheus 2 'exclude each other' stats --json --format prometheus
expect format-wrong-command 2 'status: option --format does not apply' status --format json
expect file-wrong-command 2 'set: option --file does not apply' set --file x enabled=1
expect dry-run-wrong-command 2 'option --dry-run does not apply' ab --dry-run
expect apply-file-empty 2 'file name is empty' apply --file ''
expect apply-extra-argument 2 "unexpected argument 'x'" apply x

# apply: a file of each kind of bad line is refused with the line's number
# and reason, exit 2, before anything is sent (so, here, before lufctl can
# notice that luf is not loaded).
conf() { printf "$2" > "$tmp/$1.conf"; }
conf good '# the defaults but two\n\nmax_pages = 4096   # a comment\n\treserve=200\r\nenabled=1\n'
conf unknown 'max_pages=4096\nfoo=1\n'
conf range 'reserve=200\n\nstats_interval_ms=99\n'
conf dup 'enabled=1\nmax_pages=10\nenabled=0\n'
conf garbage 'enabled=1\nthis is not a setting\n'
conf number 'max_pages=4k\n'
conf nul 'enabled=1\nreserve=1\0000\n'
conf many 'foo=1\nreserve=5000\nreserve=6000\n=1\n'
expect apply-unknown-key 2 "^lufctl: $tmp/unknown.conf:2: unknown key 'foo'" apply --file "$tmp/unknown.conf"
expect apply-out-of-range 2 "^lufctl: $tmp/range.conf:3: stats_interval_ms=99 is out of range" apply --file "$tmp/range.conf"
expect apply-duplicate 2 "^lufctl: $tmp/dup.conf:3: enabled given more than once \(first on line 1\)" apply --file "$tmp/dup.conf"
expect apply-garbage 2 "^lufctl: $tmp/garbage.conf:2: 'this is not a setting' is not KEY=VALUE" apply --file "$tmp/garbage.conf"
expect apply-not-a-number 2 "$tmp/number.conf:1: max_pages: '4k' is not a decimal number" apply --file "$tmp/number.conf"
expect apply-nul 2 "$tmp/nul.conf:2: the line holds a NUL byte" apply --file "$tmp/nul.conf"
expect apply-missing-file 1 "apply: cannot read $tmp/none.conf: No such file" apply --file "$tmp/none.conf"
# Every bad line is named, then one line says that nothing was applied.
run apply --file "$tmp/many.conf"
want="many.conf:1: unknown key 'foo' (keys: enabled, max_defer_ms, max_pages, migration, reclaim, numa, reserve, stats_interval_ms)
many.conf:2: reserve=5000 is out of range: reserve takes 0..1000
many.conf:3: reserve=6000 is out of range: reserve takes 0..1000
many.conf:4: '=1' is not KEY=VALUE
many.conf: 4 bad lines: nothing applied"
got=$(sed "s#^lufctl: $tmp/##" <<<"$err")
if [ "$rc" -eq 2 ] && [ "$got" = "$want" ] && [ -z "$out" ]; then
	pass apply-every-bad-line
else
	fail apply-every-bad-line "exit $rc, stderr: $got"
fi
run apply --dry-run --file "$tmp/good.conf"
if [ "$rc" -eq 0 ] && [ "$out" = "$(printf 'max_pages=4096\nreserve=200\nenabled=1')" ] && [ -z "$err" ]; then
	pass apply-dry-run
else
	fail apply-dry-run "exit $rc, stdout '$out', stderr '$err'"
fi
run apply --dry-run --file "$top/tools/luf.conf"
if [ "$rc" -eq 0 ] && [ -z "$out" ] && [ -z "$err" ]; then
	pass apply-shipped-conf
else
	fail apply-shipped-conf "tools/luf.conf: exit $rc, stdout '$out', stderr '$err' (it should set nothing)"
fi

# Without the family: exit 3 and the "not loaded" message.  Valid usage
# only, so that nothing but the missing family can be the reason.
notloaded='the luf generic netlink family is not registered: is the luf module loaded\? \(modprobe luf\)'
if [ -e /sys/module/luf ]; then
	for n in status-not-loaded stats-json-not-loaded set-not-loaded; do
		skip "$n" "luf is loaded on this host (/sys/module/luf exists)"
	done
else
	expect status-not-loaded 3 "$notloaded" status
	expect stats-json-not-loaded 3 "$notloaded" stats --json
	expect set-not-loaded 3 "$notloaded" set enabled=1
	expect apply-not-loaded 3 "$notloaded" apply --file "$tmp/good.conf"
	# Prometheus: the host's counters all the same, luf_loaded 0, exit 3.
	run stats --format prometheus
	if [ "$rc" -ne 3 ] || ! grep -qE -- "$notloaded" <<<"$err"; then
		fail prometheus-not-loaded "exit $rc, stderr: ${err:-none}"
	elif ! grep -qx 'luf_loaded 0' <<<"$out" || ! grep -qx 'luf_enabled 0' <<<"$out"; then
		fail prometheus-not-loaded "no 'luf_loaded 0' and 'luf_enabled 0': $out"
	elif grep -q '^luf_[a-z_]*_total ' <<<"$(grep -v '^luf_host_' <<<"$out")"; then
		fail prometheus-not-loaded "luf counters without luf: $out"
	elif grep -q '^TLB:' /proc/interrupts && ! grep -q '^luf_host_tlb_shootdowns_total [0-9][0-9]*$' <<<"$out"; then
		fail prometheus-not-loaded "no luf_host_tlb_shootdowns_total: $out"
	else
		pass prometheus-not-loaded
		cp "$tmp/out" "$tmp/prom-not-loaded"
	fi
fi

# The completion: valid bash, and "lufctl s<TAB>" offers status, stats, set.
if bash -n "$completion" 2>"$tmp/err"; then
	pass completion-syntax
else
	fail completion-syntax "bash -n: $(head -n1 "$tmp/err")"
fi
got=$(bash -c '
	source "$1" || exit 1
	fn=$(complete -p lufctl 2>/dev/null | sed -n "s/.*-F \([^ ]*\).*/\1/p")
	[ -n "$fn" ] || exit 2
	COMP_WORDS=(lufctl s)
	COMP_CWORD=1
	COMP_LINE="lufctl s"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	"$fn" lufctl s lufctl
	printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "
' _ "$completion" 2>&1)
if [ "$got" = "set stats status " ]; then
	pass completion-commands
else
	fail completion-commands "'lufctl s' completes to '$got', not 'set stats status'"
fi
got=$(bash -c '
	source "$1" || exit 1
	COMP_WORDS=(lufctl set enabled =)
	COMP_CWORD=3
	COMPREPLY=()
	_lufctl
	printf "%s " "${COMPREPLY[@]}"
	COMP_WORDS=(lufctl set numa =)
	COMPREPLY=()
	_lufctl
	printf "%s " "${COMPREPLY[@]}"
	COMP_WORDS=(lufctl set max_d)
	COMP_CWORD=2
	COMPREPLY=()
	_lufctl
	printf "%s " "${COMPREPLY[@]}"
' _ "$completion" 2>&1)
if [ "$got" = "0 1 0 1 max_defer_ms= " ]; then
	pass completion-set
else
	fail completion-set "set completions are '$got', not '0 1 0 1 max_defer_ms= '"
fi
got=$(bash -c '
	source "$1" || exit 1
	c() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _lufctl; printf "%s " "${COMPREPLY[@]}"; printf "| "; }
	c lufctl a
	c lufctl stats --format ""
	c lufctl apply --d
' _ "$completion" 2>&1)
if [ "$got" = "apply ab | text json prometheus | --dry-run | " ]; then
	pass completion-apply-format
else
	fail completion-apply-format "completions are '$got', not 'apply ab | text json prometheus | --dry-run | '"
fi
exit 0
