#!/bin/bash
# make demo: boot the patched release kernel in the two-tier guest, load
# luf, show the tiers, then run the tiering workload (tests/tools/tierbench
# on an ext4 file bigger than node 0) with luf off and on alternating in the same
# boot, and print the side-by-side comparison.  Full benchmarks: make bench.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
export LUF_CACHE=${LUF_CACHE:-$HOME/.cache/luf}
out=${LUF_BENCH_OUT:-$top/build/demo}
rm -rf "$out"
echo "demo: preparing (the first run builds the patched release kernel, ~10 min; cached after)"
LUF_BENCH_OUT=$out tests/bench/bench.sh demo >/dev/null
echo "demo: the guest ($out/vm-bench-demo/console.log):"
sed -n "s/^demo: /  /p" "$out/vm-bench-demo/console.log"
cat "$out/table.txt"
echo "demo: the operator's view of the same workload (lufctl ab, luf switched under it):"
sed -n "s/^demo-ab: /  /p" "$out/vm-bench-demo/console.log"
echo "demo: report in $out/report.md, plot $out/ratios.png"
