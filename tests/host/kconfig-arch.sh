#!/bin/bash
# CONFIG_LUF is offered only where luf's generations fit: 64-bit x86.  They
# start at BIT(62) and are compared as signed differences of unsigned
# longs, which a 32-bit kernel cannot hold.  Configures the patched source
# for i386 and for x86_64 (allnoconfig plus what CONFIG_LUF depends on,
# kconfig only, in a scratch directory) and checks which of them keeps
# CONFIG_LUF=y.
#
#   tests/host/kconfig-arch.sh [<patched source tree> <scratch dir>]
# check: host
set -uo pipefail
. "$(dirname "$0")/lib.sh"
src=${1:-$(luf_kernel patched)/..}
work=${2:-$LUF_BUILD/kconfig-arch}
rm -rf "$work" && mkdir -p "$work"
frag=$work/luf.config
cat > "$frag" <<'CFG'
CONFIG_SMP=y
CONFIG_MODULES=y
CONFIG_MMU=y
CONFIG_MIGRATION=y
CONFIG_COMPACTION=y
CONFIG_LUF=y
CFG
luf_in() {	# luf_in <ARCH> <dir>: prints y if .config has CONFIG_LUF=y
	mkdir -p "$2"
	KCONFIG_ALLCONFIG=$frag make -s -C "$src" O="$2" ARCH="$1" allnoconfig \
		>"$2.log" 2>&1 || { echo "error"; return; }
	grep -q '^CONFIG_LUF=y' "$2/.config" && echo y || echo n
}
on64=$(luf_in x86_64 "$work/x86_64")
on32=$(luf_in i386 "$work/i386")
if [ "$on64" = y ] && [ "$on32" = n ]; then
	echo "PASS kconfig-arch"
elif [ "$on64" != y ]; then
	echo "FAIL kconfig-arch: CONFIG_LUF not available on x86_64 ($on64; see $work/x86_64.log)"
else
	echo "FAIL kconfig-arch: CONFIG_LUF=y on i386, whose unsigned long cannot hold luf's generations"
fi
