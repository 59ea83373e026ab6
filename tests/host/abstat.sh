#!/bin/bash
# The statistics lufctl ab prints (tools/lufctl/abstat.c: mean, standard
# deviation, t quantiles, on/off ratios, the 95% interval of the paired
# ratios on the log scale, and the verdict line) on samples worked out by
# hand, on synthetic rounds of known ratio and spread, and on random runs
# whose intervals must cover the true ratio 95% of the time: builds
# tests/host/abstat.c against it and runs it.  Prints one verdict line, "PASS abstat" or
# "FAIL abstat: reason"; always exits 0, the caller counts the verdicts.
# check: host
set -uo pipefail
. "$(dirname "$0")/lib.sh"
top=$LUF_TOP
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# One line per verdict: the reason keeps the first 200 characters of the
# output quoted, newlines flattened.
fail() {
	local r=${1//$'\n'/; }

	echo "FAIL abstat: ${r:0:200}"
	exit 0
}

${CC:-cc} -O2 -Wall -Wextra -I"$top/tools/lufctl" -o "$tmp/abstat" \
	"$top/tests/host/abstat.c" "$top/tools/lufctl/abstat.c" -lm \
	>"$tmp/build.log" 2>&1 || fail "does not build: $(cat "$tmp/build.log")"
[ -s "$tmp/build.log" ] && fail "builds with warnings: $(cat "$tmp/build.log")"
out=$("$tmp/abstat" 2>&1)
rc=$?
[ $rc -eq 0 ] || fail "exit $rc: $out"
[ -z "$out" ] || fail "printed on success: $out"
echo "PASS abstat"
