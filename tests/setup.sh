#!/bin/bash
# Install the Debian packages the build, the VM harness and the tools need.
# Cheap when everything is present (one dpkg query), so every entry point
# calls it.  The kernel source package itself is handled by
# tests/kernel/fetch.sh because its version is pinned.
set -euo pipefail

pkgs=(
	build-essential bc bison flex libelf-dev libssl-dev cpio xz-utils kmod
	ccache patch rsync python3 python3-matplotlib e2fsprogs xfsprogs
	busybox-static
	libnuma-dev libnl-genl-3-dev libcap-dev
	dkms
)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing+=("$p")
done

# QEMU 10 from bookworm-backports: bookworm's 7.2 executes stale int3s with
# multi-threaded TCG while the guest patches static keys (tests/vm.sh).
qemu_min=1:10.0
qemu_ver=$(dpkg-query -W -f='${Status} ${Version}\n' qemu-system-x86 2>/dev/null |
	   sed -n 's/^install ok installed //p')
need_qemu=0
if [ -z "$qemu_ver" ] || dpkg --compare-versions "$qemu_ver" lt "$qemu_min"; then
	need_qemu=1
fi
[ ${#missing[@]} -eq 0 ] && [ $need_qemu = 0 ] && exit 0

[ "$(id -u)" -eq 0 ] && sudo= || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
if [ $need_qemu = 1 ] &&
   ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
	echo "setup: adding bookworm-backports to apt's sources (for QEMU 10)" >&2
	echo 'deb http://deb.debian.org/debian bookworm-backports main' |
		$sudo tee /etc/apt/sources.list.d/luf-bookworm-backports.list >/dev/null
fi
$sudo apt-get update -q >&2
if [ ${#missing[@]} -gt 0 ]; then
	echo "setup: installing ${missing[*]}" >&2
	$sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
fi
if [ $need_qemu = 1 ]; then
	echo "setup: installing qemu-system-x86 (>= $qemu_min) from bookworm-backports" >&2
	$sudo apt-get install -y -q --no-install-recommends \
		-t bookworm-backports qemu-system-x86 >&2
fi
