#!/bin/bash
# Install the Debian packages the build, the VM harness and the tools need,
# and unpack promtool.  Cheap when everything is present (one dpkg query),
# so every entry point calls it.  The kernel source package itself is
# handled by tests/kernel/fetch.sh because its version is pinned.
set -euo pipefail

pkgs=(
	build-essential bc bison flex libelf-dev libssl-dev cpio xz-utils kmod
	ccache patch rsync python3 python3-matplotlib python3-yaml python3-jsonschema
	e2fsprogs xfsprogs
	qemu-system-x86 busybox-static
	libnuma-dev libnl-genl-3-dev libcap-dev
	dkms debhelper dh-dkms dpkg-dev groff-base
	systemd man-db
)

[ "$(id -u)" -eq 0 ] && sudo= || sudo=sudo

# promtool, Prometheus's linter (tests/host/prom.sh), from Debian's
# prometheus package, unpacked into the cache: installing the package would
# start a Prometheus server.  A failure here is reported by that test.
fetch_promtool() {
	local dir=${LUF_CACHE:-$HOME/.cache/luf}/prometheus

	command -v promtool >/dev/null && return 0
	[ -x "$dir/usr/bin/promtool" ] && return 0
	echo "setup: unpacking promtool from Debian's prometheus package into $dir" >&2
	mkdir -p "$dir" && cd "$dir" || return 1
	rm -f prometheus_*.deb
	apt-get download -q prometheus >&2 2>/dev/null ||
		{ $sudo apt-get update -q >&2 && apt-get download -q prometheus >&2; } ||
		{ echo "setup: cannot download the prometheus package" >&2; return 1; }
	dpkg-deb --fsys-tarfile prometheus_*.deb | tar -x ./usr/bin/promtool
	rm -f prometheus_*.deb
	cd - >/dev/null
}

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	fetch_promtool || true
	exit 0
fi

echo "setup: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q >&2
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
fetch_promtool || true
