#!/bin/bash
# lufctl stats --format prometheus: the formatter (tests/host/prom.c, on
# known values) and lufctl on this host (luf not loaded: the host's
# counters) pass promtool check metrics, name every counter as
# luf_<name>_total with its value, and scale the gauges to base units;
# the README's PromQL query comparing luf-on and luf-off hosts gives the
# right answer on two synthetic hosts (promtool test rules).  promtool
# comes from Debian's prometheus package, unpacked by tests/setup.sh.
#   tests/host/prom.sh [<tools build dir>]
# Prints PASS/FAIL lines.
# check: host
set -uo pipefail
. "$(dirname "$0")/lib.sh"
bin=${1:-$LUF_TOOLS}
top=$LUF_TOP
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
promtool=$(command -v promtool || echo "${LUF_CACHE:-$HOME/.cache/luf}/prometheus/usr/bin/promtool")
if [ ! -x "$promtool" ]; then
	echo "FAIL prom-promtool: no promtool (tests/setup.sh unpacks it from Debian's prometheus package into $promtool)"
	exit 0
fi

if ! ${CC:-cc} -O2 -Wall -Wextra -Wno-unused-parameter -I"$top/tools/lufctl" \
	-I"$top/module/include/uapi" -o "$tmp/prom" "$top/tests/host/prom.c" \
	"$top/tools/lufctl/prom.c" "$top/tools/lufctl/attrs.c" \
	"$top/tools/lufctl/proc.c" >"$tmp/build.log" 2>&1 || [ -s "$tmp/build.log" ]; then
	echo "FAIL prom-format: does not build cleanly: $(head -c 300 "$tmp/build.log")"
	exit 0
fi
"$tmp/prom" > "$tmp/full.prom"
"$tmp/prom" unloaded > "$tmp/unloaded.prom"

# promtool's linter: it names each problem; nothing to say is a pass.
lint() {	# lint <name> <file>
	local out rc

	out=$("$promtool" check metrics < "$2" 2>&1)
	rc=$?
	if [ $rc -eq 0 ] && [ -z "$out" ]; then
		echo "PASS prom-promtool-$1 ($(grep -vc '^#' "$2") samples)"
	else
		echo "FAIL prom-promtool-$1: exit $rc: ${out//$'\n'/; }"
	fi
}
lint full "$tmp/full.prom"
lint unloaded "$tmp/unloaded.prom"
if [ -e /sys/module/luf ]; then
	echo "SKIP prom-promtool-host: luf is loaded on this host"
else
	"$bin/lufctl" stats --format prometheus > "$tmp/host.prom" 2>/dev/null
	lint host "$tmp/host.prom"
fi

# The values: counter i is 1000 + i (the last 2^64 - 1), every one with its
# HELP and TYPE; the knobs in base units.
bad=
i=0
for n in $(sed -n '/^const char \*const lufctl_stat_names\[\] = {/,/^};/p' \
	"$top/tools/lufctl/attrs.c" | grep -o '"[a-z_]*"' | tr -d '"'); do
	v=$((1000 + i))
	[ "$n" = numa_sync ] && v=18446744073709551615
	grep -qx "luf_${n}_total $v" "$tmp/full.prom" || bad="$bad luf_${n}_total!=$v"
	grep -qx "# TYPE luf_${n}_total counter" "$tmp/full.prom" || bad="$bad type:$n"
	grep -q "^# HELP luf_${n}_total [A-Z]" "$tmp/full.prom" || bad="$bad help:$n"
	i=$((i + 1))
done
[ $i -eq 31 ] || bad="$bad counters:$i"
for l in 'luf_loaded 1' 'luf_enabled 1' 'luf_max_defer_seconds 1.5' 'luf_max_pages 65536' \
	'luf_migration_enabled 1' 'luf_reclaim_enabled 0' 'luf_numa_enabled 1' \
	'luf_reserve_ratio 2.5' \
	'luf_stats_interval_seconds 1' 'luf_pending_pages 12' 'luf_pending_cpus 3' \
	'luf_oldest_pending_seconds 0.02' 'luf_host_tlb_shootdowns_total 500' \
	'luf_host_pgmigrate_success_total 505' 'luf_host_pgdemote_total 506' \
	'luf_host_nr_tlb_remote_flush_total 501'; do
	grep -qx "$l" "$tmp/full.prom" || bad="$bad '$l'"
done
# No labels, no other series than these.
n=$(grep -vc '^#' "$tmp/full.prom")
[ "$n" -eq $((2 + 10 + 31 + 8)) ] || bad="$bad samples:$n"
grep -v '^#' "$tmp/full.prom" | grep -q '[{}]' && bad="$bad labels"
if [ -z "$bad" ]; then
	echo "PASS prom-format"
else
	echo "FAIL prom-format:$bad"
fi
want="luf_loaded 0
luf_enabled 0
luf_host_tlb_shootdowns_total 500
luf_host_pgmigrate_success_total 505
luf_host_pgdemote_total 506
luf_host_pgpromote_success_total 507"
got=$(grep -v '^#' "$tmp/unloaded.prom")
if [ "$got" = "$want" ]; then
	echo "PASS prom-format-unloaded"
else
	echo "FAIL prom-format-unloaded: ${got//$'\n'/; }"
fi

# The README's query: luf-on hosts' TLB shootdowns per migrated page over
# luf-off hosts'.  Host a (luf on): 10 shootdowns/s for 100 pages/s; host
# b (luf off): 100/s for 200 pages/s; c (luf not loaded, so
# luf_enabled 0): 50/s for 100 pages/s.  (0.1) / (150 / 300) = 0.2.
q=$(sed -n '/^```promql$/,/^```$/p' "$top/README.md" | sed '1d;$d')
if [ -z "$q" ]; then
	echo "FAIL prom-readme-query: no \`\`\`promql block in README.md"
	exit 0
fi
{
	echo 'rule_files: []'
	echo 'evaluation_interval: 1m'
	echo 'tests:'
	echo '  - interval: 1m'
	echo '    input_series:'
	for s in 'a 1 600 6000' 'b 0 6000 12000' 'c 0 3000 6000'; do
		set -- $s
		echo "      - series: 'luf_enabled{instance=\"$1\",job=\"node\"}'"
		echo "        values: '${2}x150'"
		echo "      - series: 'luf_host_tlb_shootdowns_total{instance=\"$1\",job=\"node\"}'"
		echo "        values: '0+${3}x150'"
		echo "      - series: 'luf_host_pgmigrate_success_total{instance=\"$1\",job=\"node\"}'"
		echo "        values: '0+${4}x150'"
	done
	echo '    promql_expr_test:'
	echo "      - expr: '$(tr '\n' ' ' <<<"$q")'"
	echo '        eval_time: 2h'
	echo '        exp_samples:'
	echo "          - labels: '{}'"
	echo '            value: 0.2'
} > "$tmp/query-test.yml"
if out=$("$promtool" test rules "$tmp/query-test.yml" 2>&1); then
	echo "PASS prom-readme-query (on/off per migrated page 0.2 on synthetic hosts)"
else
	echo "FAIL prom-readme-query: ${out//$'\n'/; }"
fi
