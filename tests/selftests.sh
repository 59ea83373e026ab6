#!/bin/bash
# Build the kernel's own mm selftests (tools/testing/selftests/mm from the
# same linux-source package) as static binaries for the guest: those of
# both passes (selftests.list, selftests-load.list).
#
#   tests/selftests.sh <kernel build dir> <output dir>
#
# They are built once, from the vanilla source, against the uapi headers of
# the given build, and the same binaries run on the vanilla and the patched
# kernel.  The list lives in tests/guest/selftests.list (name and arguments);
# rmap is absent because 6.12's selftests do not have it yet (it arrived in
# 6.15).
set -euo pipefail
kdir=${1:?usage: selftests.sh <kernel build dir> <output dir>}
out=${2:?usage: selftests.sh <kernel build dir> <output dir>}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$kdir/.." && pwd)/tools/testing/selftests
mkdir -p "$out"

# cow.c includes local_config.h, normally written by check_config.sh to say
# whether liburing exists.  The guest has no liburing: say so.
mkdir -p "$out/.inc"
: > "$out/.inc/local_config.h"

cflags=(-static -O2 -Wall -w -no-pie -U_FORTIFY_SOURCE -D_GNU_SOURCE
	-I "$out/.inc" -I "$src" -I "$src/mm" -isystem "$kdir/usr/include"
	-I "$(cd "$kdir/.." && pwd)/tools/include/uapi")
common=("$src/mm/vm_util.c" "$src/mm/thp_settings.c")

while read -r name args; do
	case $name in ''|'#'*) continue ;; esac
	bin=$out/$name
	[ -x "$bin" ] && [ "$bin" -nt "$src/mm/$name.c" ] && continue
	libs=(-lrt -lpthread -lm)
	extra=()
	case $name in
	migration) libs+=(-lnuma) ;;
	uffd-*) extra+=("$src/mm/uffd-common.c") ;;
	esac
	gcc "${cflags[@]}" -o "$bin" "$src/mm/$name.c" "${extra[@]}" "${common[@]}" "${libs[@]}"
done < <(cat "$here/guest/selftests.list" "$here/guest/selftests-load.list")
