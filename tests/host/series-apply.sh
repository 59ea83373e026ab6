#!/bin/bash
# The series: each patch of core-hooks.patch is checkpatch-clean, and git am
# and patch -p1 both apply it to the pinned source (tools/maint/check-series.sh
# --apply; make check-series also builds the tree after each patch).
# check: host
set -uo pipefail
. "$(dirname "$0")/lib.sh"
log=$LUF_OUT/series.txt
mkdir -p "$LUF_OUT"
"$LUF_TOP/tools/maint/check-series.sh" --apply > "$log" 2>&1
rc=$?
grep -E '^(PASS|FAIL|SKIP) ' "$log"
if [ $rc -ne 0 ] && ! grep -q '^FAIL ' "$log"; then
	echo "FAIL series-apply: tools/maint/check-series.sh --apply exited $rc: see $log"
fi
exit 0
