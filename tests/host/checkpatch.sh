#!/bin/bash
# The module is checkpatch-clean (--strict), with the pinned kernel's
# scripts/checkpatch.pl.
# check: host
set -uo pipefail
. "$(dirname "$0")/lib.sh"
log=$LUF_OUT/checkpatch.log
mkdir -p "$LUF_OUT"
if "$(luf_kernel patched)/../scripts/checkpatch.pl" --no-tree --strict -q \
	-f "$LUF_TOP"/module/*.[ch] >"$log" 2>&1; then
	echo "PASS checkpatch"
else
	echo "FAIL checkpatch: see $log"
	sed 's/^/    /' "$log" | head -n 30
fi
