#!/bin/bash
# Assemble the guest's initramfs (uncompressed cpio: it is built for every
# run and read once).
#
#   tests/initramfs.sh <out.cpio> <stage dir> <file>...
#
# Each <file> is "src:dst" (dst relative to /luf in the guest, or absolute).  The
# suites of the mm selftests (patched-mm, vanilla) get one "selftest" entry
# per line of tests/guest/selftests.list, one "selftest-moving" entry per
# line of tests/guest/selftests-load.list and that pass's verdict appended;
# those and the patched suite end with the kmemleak check, and those on the
# patched kernel with the invariant checker's verdict.
set -euo pipefail
out=${1:?}
stage=${2:?}
shift 2
guest=$(cd "$(dirname "$0")" && pwd)/guest

rm -rf "$stage"
mkdir -p "$stage"/{bin,sbin,proc,sys,dev,tmp,luf/t,luf/bin,luf/selftests}
cp /bin/busybox "$stage/bin/busybox"
install -m 755 "$guest/init" "$stage/init"
cp "$guest/lib.sh" "$stage/luf/lib.sh"
cp "$guest"/t/* "$stage/luf/t/"
for l in "$guest"/*.list; do
	case $l in
	*/selftests.list) continue ;;
	*/selftests-load.list)
		# For make soak's rounds of selftests under moveall.
		grep -Ev '^(#|$)' "$l" > "$stage/luf/selftests-load.list" ;;
	*/patched.list|*/patched-mm.list|*/vanilla.list)
		{
			cat "$l"
			case $l in */patched.list) ;; *)
				grep -Ev '^(#|$)' "$guest/selftests.list" | sed 's/^/selftest /'
				grep -Ev '^(#|$)' "$guest/selftests-load.list" |
					sed 's/^/selftest-moving /'
				echo selftest-load ;;
			esac
			echo kmemleak
			# The invariant checker watched all of the above.
			case $l in */vanilla.list) ;; *) echo luf-check ;; esac
		} > "$stage/luf/$(basename "$l")" ;;
	*/soak.list)
		# make soak's length (LUF_SOAK_MIN minutes) and its watchdog.
		m=${LUF_SOAK_MIN:-120}
		sed -e "s/@SOAK_MIN@/$m/g" -e "s/@SOAK_TMO@/$((m * 60 + 1200))/g" \
			"$l" > "$stage/luf/soak.list" ;;
	*)	cp "$l" "$stage/luf/" ;;
	esac
done
for f in "$@"; do
	src=${f%%:*}
	dst=${f#*:}
	case $dst in /*) dst=$stage$dst ;; *) dst=$stage/luf/$dst ;; esac
	mkdir -p "$(dirname "$dst")"
	cp -r "$src" "$dst"
done
(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) > "$out"
