#!/bin/bash
# Install the Debian packages the build, the VM harness and the tools need.
# Cheap when everything is present (one dpkg query), so every entry point
# calls it.  The kernel source package itself is handled by
# tests/kernel/fetch.sh because its version is pinned.
set -euo pipefail

pkgs=(
	build-essential bc bison flex libelf-dev libssl-dev cpio xz-utils kmod
	ccache patch rsync python3 python3-matplotlib python3-yaml python3-jsonschema
	e2fsprogs xfsprogs
	qemu-system-x86 busybox-static
	libnuma-dev libnl-genl-3-dev libcap-dev
	dkms debhelper dh-dkms dpkg-dev groff-base
)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup: installing ${missing[*]}" >&2
[ "$(id -u)" -eq 0 ] && sudo= || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q >&2
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
