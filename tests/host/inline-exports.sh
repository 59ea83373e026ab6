#!/bin/bash
# Every symbol reachable from an inline luf hook in a public header is
# exported: a module that calls each of them (inline-probe/) must build
# against the patched kernel, modpost included.  A distribution builds
# filesystems and drivers that inline file_end_write() and kiocb_end_write()
# as modules; the test kernel builds some of them too (modules.config), this
# covers every hook.  Also checks that the probe calls every inline luf
# function those headers define, so that a new hook cannot be missed.
#
#   tests/host/inline-exports.sh [<patched kernel build dir> <scratch dir>]
# check: host
set -uo pipefail
. "$(dirname "$0")/lib.sh"
kp=${1:-$(luf_kernel patched)}
work=${2:-$LUF_BUILD/inline-probe}
here=$(cd "$(dirname "$0")" && pwd)
src=$kp/..
probe=$here/inline-probe/probe.c

missing=
# Inline functions named luf_* in the public headers, in their CONFIG_LUF
# branches (the stubs of the other branch are not what modules inline; the
# CONFIG_LUF_DEBUG helpers serve the core's fault injection alone).
for f in $(awk '/^#ifdef CONFIG_LUF$/ { on = 1; next }
		/^#else|^#endif/ { on = 0 }
		on && match($0, /^static inline [a-z_ ]*[ *]luf_[a-z_]+\(/) {
			name = substr($0, RSTART, RLENGTH - 1); sub(/.*[ *]/, "", name); print name
		}' "$src/include/linux/luf.h" "$src/include/linux/mm_inline.h" | sort -u); do
	grep -qw "$f" "$probe" || missing+=" $f"
done
# Inline functions of fs.h that call a luf hook.
for f in $(awk '/^static inline/ { name = $0; sub(/\(.*/, "", name); n = split(name, w, /[ *]+/); name = w[n] }
		/luf_/ && name != "" { print name }
		/^}/ { name = "" }' "$src/include/linux/fs.h" | sort -u); do
	grep -qw "$f" "$probe" || missing+=" $f"
done
if [ -n "$missing" ]; then
	echo "FAIL inline-exports: the probe does not call:$missing"
	exit 1
fi
rm -rf "$work" && mkdir -p "$work" && cp "$here"/inline-probe/* "$work/"
if ! make -C "$kp" M="$work" modules > "$work/build.log" 2>&1; then
	echo "FAIL inline-exports: the probe module does not build: $(grep -m1 -E 'ERROR|error' "$work/build.log")"
	exit 1
fi
echo "PASS inline-exports"
