#!/bin/bash
# The committed netlink code is what the kernel's generator (ynl-gen-c.py
# of the pinned source) makes of the spec, module/netlink/luf.yaml.
# check: host
set -uo pipefail
. "$(dirname "$0")/lib.sh"
log=$LUF_OUT/netlink-generated.log
mkdir -p "$LUF_OUT"
if "$LUF_TOP/tools/maint/regen-netlink.sh" --check "$(luf_kernel vanilla)/.." >"$log" 2>&1; then
	echo "PASS netlink-generated"
else
	echo "FAIL netlink-generated: see $log"
	sed 's/^/    /' "$log" | head -n 20
fi
