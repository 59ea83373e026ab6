#!/bin/bash
# The benchmark report on known input: ratios, spreads and the files it
# writes.  Prints one verdict line.
# check: host
set -uo pipefail
. "$(dirname "$0")/lib.sh"
top=$LUF_TOP
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Paired A/B: on/off = 0.5 for tlb_ipis in every repeat, 1.1 and 1.3 for
# throughput; allocbench: vanilla 100 +- 0, on 98 and 102.  A trace count
# the guest left out (zero) counts as 0: ipi_numa off is 4 and 0, mean 2.
{
	echo "junk line"
	echo "BENCH bench=mig-file kernel=patched config=off rep=1 pages_per_sec=100.0 tlb_ipis=200 migrated=1000 ipi_numa=4 trace_overrun=0 stacks=1"
	echo "BENCH bench=mig-file kernel=patched config=on rep=1 pages_per_sec=110.0 tlb_ipis=100 migrated=1000"
	echo "luf-test: BENCH bench=mig-file kernel=patched config=off rep=2 pages_per_sec=100.0 tlb_ipis=400 migrated=1000 trace_overrun=0 stacks=1"
	echo "BENCH bench=mig-file kernel=patched config=on rep=2 pages_per_sec=130.0 tlb_ipis=200 migrated=1000"
	echo "BENCH bench=alloc kernel=vanilla config=vanilla rep=1 faults_per_sec=100.0"
	echo "BENCH bench=alloc kernel=vanilla config=vanilla rep=2 faults_per_sec=100.0"
	echo "BENCH bench=alloc kernel=patched config=on rep=1 faults_per_sec=98.0"
	echo "BENCH bench=alloc kernel=patched config=on rep=2 faults_per_sec=102.0"
	# Goals: the logger's IPI ratio 0.52 against quiet 0.50 (+2 points,
	# met) with 3 file-write flushes per run (missed); write1 at 0.97
	# (missed); atomic with no failure or park (met); tier-anon-mthp
	# with 3 of 300 folios refused for size (met) and unmap-flush IPIs
	# at 0.10 of off (missed).
	for r in 1 2; do
		echo "BENCH bench=tier-anon-mthp kernel=patched config=off rep=$r reads_per_sec=10.0 stacks=1 ipi_unmap=100 luf_refused_large=0 luf_tagged=0"
		echo "BENCH bench=tier-anon-mthp kernel=patched config=on rep=$r reads_per_sec=10.0 stacks=1 ipi_unmap=8 ipi_luf=2 luf_refused_large=3 luf_tagged=297"
		echo "BENCH bench=tier-file kernel=patched config=off rep=$r reads_per_sec=10.0 tlb_ipis=100"
		echo "BENCH bench=tier-file kernel=patched config=on rep=$r reads_per_sec=10.0 tlb_ipis=50"
		echo "BENCH bench=tier-file+logger kernel=patched config=off rep=$r reads_per_sec=10.0 tlb_ipis=100 luf_flush_file_write=0"
		echo "BENCH bench=tier-file+logger kernel=patched config=on rep=$r reads_per_sec=10.0 tlb_ipis=52 luf_flush_file_write=3"
		echo "BENCH bench=write1+tier kernel=patched config=off rep=$r w1_writes_per_sec=100.0"
		echo "BENCH bench=write1+tier kernel=patched config=on rep=$r w1_writes_per_sec=97.0"
		echo "BENCH bench=atomic kernel=patched config=off rep=$r atomic_us=10 atomic_failed=0 luf_parked=0"
		echo "BENCH bench=atomic kernel=patched config=on rep=$r atomic_us=11 atomic_failed=0 luf_parked=0"
	done
	# A pair in which kswapd gave up on node 0 (n0_unreclaimable=1) is
	# left out of the ratios: with it, tier-anon-mthp's unmap-flush
	# ratio would be 0.4, not 0.1.
	echo "BENCH bench=tier-anon-mthp kernel=patched config=off rep=3 reads_per_sec=10.0 stacks=1 ipi_unmap=100 luf_refused_large=0 luf_tagged=0 n0_unreclaimable=1"
	echo "BENCH bench=tier-anon-mthp kernel=patched config=on rep=3 reads_per_sec=10.0 stacks=1 ipi_unmap=100 luf_refused_large=3 luf_tagged=297 n0_unreclaimable=0"
	# Lazy NUMA-hinting flushes against luf on: hint faults per completed
	# scan pass, 60/1 vs 100/2 and 100/2 vs 200/4 (1.2 and 1.0: mean
	# 1.1), where per second they were 0.6 and 0.5; a pair with a run
	# that completed no pass has no per-pass figure.  System time per
	# pass: 8.0/2 vs 2.0/1, 8.0/4 vs 3.0/2 (0.5 and 0.75: mean 0.625).
	# Hint faults per armed PTE: 100/50 vs 60/40, 200/100 vs 100/50 (0.75
	# and 1.0: mean 0.875); promotions per hint fault: 50/100 vs 30/60,
	# 100/200 vs 25/100 (1.0 and 0.5: mean 0.75).
	echo "BENCH bench=tier-anon kernel=patched config=on rep=1 secs=10 reads_per_sec=10.0 numa_hint_faults=100 numa_scans=2 stime=8.0 numa_pte_updates=50 pgpromote=50"
	echo "BENCH bench=tier-anon kernel=patched config=numa rep=1 secs=10 reads_per_sec=10.0 numa_hint_faults=60 numa_scans=1 stime=2.0 numa_pte_updates=40 pgpromote=30"
	echo "BENCH bench=tier-anon kernel=patched config=on rep=2 secs=10 reads_per_sec=10.0 numa_hint_faults=200 numa_scans=4 stime=8.0 numa_pte_updates=100 pgpromote=100"
	echo "BENCH bench=tier-anon kernel=patched config=numa rep=2 secs=10 reads_per_sec=10.0 numa_hint_faults=100 numa_scans=2 stime=3.0 numa_pte_updates=50 pgpromote=25"
	echo "BENCH bench=tier-anon kernel=patched config=on rep=3 secs=10 reads_per_sec=10.0 numa_hint_faults=10 numa_scans=0"
	echo "BENCH bench=tier-anon kernel=patched config=numa rep=3 secs=10 reads_per_sec=10.0 numa_hint_faults=10 numa_scans=1"
} > "$tmp/in.txt"
fail() { echo "FAIL bench-report: $*"; exit 1; }
/usr/bin/python3 "$top/tests/bench/report.py" "$tmp/in.txt" --out "$tmp/out" --plot > "$tmp/log" 2>&1 ||
	fail "report.py failed: $(tail -n 3 "$tmp/log")"
/usr/bin/python3 - "$tmp/out/summary.json" <<'PY' || fail "wrong figures in summary.json"
import json, sys
d = json.load(open(sys.argv[1]))
c = {(x["bench"], x["metric"], x["other"]): x for x in d["comparisons"]}
ipi = c[("mig-file", "tlb_ipis", "patched/on")]
tp = c[("mig-file", "pages_per_sec", "patched/on")]
al = c[("alloc", "faults_per_sec", "patched/on")]
ok = (abs(ipi["mean"] - 0.5) < 1e-9 and abs(ipi["stdev"]) < 1e-9 and ipi["n"] == 2 and
      abs(tp["mean"] - 1.2) < 1e-9 and abs(tp["stdev"] - 0.1414213562) < 1e-6 and
      abs(al["mean"] - 1.0) < 1e-9 and abs(al["stdev"] - 0.02828427) < 1e-6 and
      abs(d["summary"]["mig-file"]["patched/off"]["tlb_ipis_per_page"]["mean"] - 0.3) < 1e-9 and
      abs(d["summary"]["mig-file"]["patched/off"]["ipi_numa"]["mean"] - 2.0) < 1e-9)
hs = c[("tier-anon", "numa_hint_faults_per_scan", "patched/numa")]
ok = ok and abs(hs["mean"] - 1.1) < 1e-9 and hs["n"] == 2
st = c[("tier-anon", "stime_per_scan", "patched/numa")]
ok = ok and abs(st["mean"] - 0.625) < 1e-9 and st["n"] == 2
hq = c[("tier-anon", "numa_hint_faults_per_pte", "patched/numa")]
ok = ok and abs(hq["mean"] - 0.875) < 1e-9 and hq["n"] == 2
ph = c[("tier-anon", "pgpromote_per_hint_fault", "patched/numa")]
ok = ok and abs(ph["mean"] - 0.75) < 1e-9 and ph["n"] == 2
hp = c[("tier-anon", "numa_hint_faults_per_sec", "patched/numa")]
ok = ok and hp["n"] == 3 and abs(hp["mean"] - 0.7) < 1e-9
sys.exit(0 if ok else 1)
PY
[ "$(grep -c '^mig-file\|^alloc' "$tmp/out/runs.csv")" -eq 8 ] || fail "runs.csv does not hold the 8 runs"
grep -q 'mig-file | tlb_ipis | patched/on / patched/off | 0.5000' "$tmp/out/report.md" || fail "report.md lacks the ratio"
for g in "tier-file+logger | TLB-IPI ratio within 3 points of quiet tier-file's | on/off 0.520 with the logger, 0.500 quiet: +2.0 points | met" \
	"tier-file+logger | flush_file_write near zero (at most 1 per run) | 3.0 per run | MISSED" \
	"write1+tier | writes/s with luf on at least 98% of off | on/off 0.970 ± 0.000 | MISSED" \
	"atomic | no allocation failure that luf off does not have | off 0.00, on 0.00 per run | met" \
	"atomic | no flush_parked that luf off does not have | off 0.00, on 0.00 per run | met" \
	"tier-anon-mthp | refused_large at most 1% of what luf saw (tagged + refused) | 3 refused for size of 300 per run (1.0%) | met" \
	"tier-anon-mthp | unmap-flush IPIs -95% or better | on/off 0.100 ± 0.000 | MISSED"; do
	grep -qF "| $g |" "$tmp/out/report.md" || fail "report.md lacks the goal row '$g'"
done
if /usr/bin/python3 -c "import matplotlib" 2>/dev/null; then
	[ -s "$tmp/out/ratios.png" ] || fail "no plot"
fi
echo "x" > "$tmp/empty.txt"
/usr/bin/python3 "$top/tests/bench/report.py" "$tmp/empty.txt" --out "$tmp/o2" >/dev/null 2>&1 &&
	fail "accepted input without BENCH lines"
echo "PASS bench-report"
