#!/bin/bash
# make demo: build what is needed, boot the patched kernel in the two-tier
# guest, load luf and show the memory tiers and luf's state.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
export LUF_CACHE=${LUF_CACHE:-$HOME/.cache/luf}
build=$top/build
out=$build/demo
mkdir -p "$out" "$build/guest"

echo "demo: preparing (first run builds the patched kernel, ~10 min; cached after)"
tests/setup.sh
kp=$(tests/kernel/build.sh patched debug)
make -s module KDIR="$kp"
for c in tests/guest/src/*.c; do
	gcc -static -O2 -Wall -o "$build/guest/$(basename "$c" .c)" "$c" -lpthread
done
tests/initramfs.sh "$build/demo.cpio" "$build/demo-stage" \
	luf.ko:luf.ko "$build/guest/.:bin"
echo "demo: booting $(cat "$kp/include/config/kernel.release") with core-hooks.patch in QEMU (TCG, 4 vCPUs, 2 nodes)"
if tests/vm.sh "$kp/arch/x86/boot/bzImage" "$build/demo.cpio" demo "$out" 600 > "$out/verdicts.txt"; then
	sed -n 's/^demo: //p' "$out/console.log"
else
	cat "$out/verdicts.txt"
	echo "demo: the guest run failed; console in $out/console.log" >&2
	exit 1
fi
