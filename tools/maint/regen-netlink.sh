#!/bin/bash
# Regenerate luf's netlink code from module/netlink/luf.yaml with the
# kernel's own generator (tools/net/ynl/ynl-gen-c.py of the 6.12 source),
# validating the spec against the kernel's genetlink schema:
#
#   tools/maint/regen-netlink.sh [KSRC]          rewrite the generated files
#   tools/maint/regen-netlink.sh --check [KSRC]  exit 1 if any is out of date
#
# KSRC defaults to the vanilla tree tests/kernel/build.sh unpacks.  The
# generated files are committed: building luf.ko (dkms too) needs no Python.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
check=
[ "${1:-}" = --check ] && { check=1; shift; }
if [ $# -gt 0 ]; then
	ksrc=$1
else
	ver=$(grep -v '^#' "$top/tests/kernel/version" | head -n1)
	ksrc=${LUF_CACHE:-$HOME/.cache/luf}/linux-$ver/vanilla
fi
# Debian's python3, with python3-yaml and python3-jsonschema (tests/setup.sh).
python=${PYTHON:-/usr/bin/python3}
gen=$ksrc/tools/net/ynl/ynl-gen-c.py
schema=$ksrc/Documentation/netlink/genetlink.yaml
for f in "$gen" "$schema"; do
	[ -f "$f" ] || { echo "regen-netlink: $f missing (unpack the kernel source: make kernel)" >&2; exit 2; }
done

# The generator looks for the schema in the spec's grandparent directory,
# and for a MAINTAINERS file above the spec to name it relative to the top
# of the tree (in the generated files' first lines).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/module/netlink"
cp "$top/module/netlink/luf.yaml" "$tmp/module/netlink/"
cp "$schema" "$tmp/module/"
: > "$tmp/MAINTAINERS"

# <output> <mode> <--header|--source>
outputs=(
	"module/include/uapi/linux/luf_netlink.h uapi --header"
	"module/netlink/luf-nl-gen.h kernel --header"
	"module/netlink/luf-nl-gen.c kernel --source"
)
stale=0
for o in "${outputs[@]}"; do
	set -- $o
	# The output's base name goes into the generated #include lines.
	mkdir -p "$tmp/out/$(dirname "$1")"
	"$python" "$gen" --mode "$2" "$3" --spec "$tmp/module/netlink/luf.yaml" -o "$tmp/out/$1" >/dev/null
	if [ -n "$check" ]; then
		if ! cmp -s "$tmp/out/$1" "$top/$1"; then
			echo "regen-netlink: $1 is out of date with module/netlink/luf.yaml" >&2
			diff -u "$top/$1" "$tmp/out/$1" | head -n 20 >&2 || true
			stale=1
		fi
	else
		cp "$tmp/out/$1" "$top/$1"
	fi
done
exit $stale
