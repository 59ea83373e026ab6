#!/bin/bash
# lufctl's argument handling on the host, where luf.ko is not loaded: usage
# errors must be caught before any netlink traffic (exit 2), a missing
# family must be reported as such (exit 3), and the bash completion must
# load and complete.  Everything that needs the module runs in the guest.
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
	for w in status stats set watch ab help \
		enabled max_defer_ms max_pages migration reclaim reserve \
		stats_interval_ms --no-check --json --interval --count \
		--rounds --settle; do
		grep -qw -- "$w" <<<"$out" || missing="$missing $w"
	done
	for s in NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS KEYS "EXIT STATUS" EXAMPLES; do
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
	COMP_WORDS=(lufctl set max_d)
	COMP_CWORD=2
	COMPREPLY=()
	_lufctl
	printf "%s " "${COMPREPLY[@]}"
' _ "$completion" 2>&1)
if [ "$got" = "0 1 max_defer_ms= " ]; then
	pass completion-set
else
	fail completion-set "set completions are '$got', not '0 1 max_defer_ms= '"
fi
exit 0
