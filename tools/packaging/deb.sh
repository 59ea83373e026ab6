#!/bin/bash
# make deb: build luf's Debian packages, luf-dkms and luf-tools.
#   tools/packaging/deb.sh [output dir]        (default build/deb)
# Stages what the packages are made of in <output dir>/luf-<version>/, puts
# tools/packaging/debian/ there as debian/ with a changelog for dkms.conf's
# PACKAGE_VERSION (luf's one place for its version), and runs
# dpkg-buildpackage on it.  Prints the packages' paths and sizes.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$top/build/deb}
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
[ -n "$ver" ] || { echo "deb.sh: no PACKAGE_VERSION in dkms.conf" >&2; exit 1; }
for c in dpkg-buildpackage dh dh_dkms; do
	command -v $c >/dev/null ||
		{ echo "deb.sh: $c is missing (make setup installs it)" >&2; exit 1; }
done

stage=$out/luf-$ver
rm -rf "$stage" "$out"/luf*_"$ver"_*.deb "$out"/luf_"$ver"_*.{buildinfo,changes}
cd "$top"
make -s -C "$top" dkms-source DKMS_SRC="$stage"
mkdir -p "$stage/tools" "$stage/tests/tools"
cp core-hooks.patch "$stage/"
cp tools/Makefile tools/lufctl-man.sh tools/lufctl.bash-completion tools/luf.conf "$stage/tools/"
cp -r tools/lufctl tools/systemd "$stage/tools/"
cp tests/tools/*.c tests/tools/*.h tests/tools/Makefile "$stage/tests/tools/"
cp -r tests/tools/lufstress "$stage/tests/tools/"
cp -r tools/packaging/debian "$stage/debian"
# The changelog's date: the last commit's, so that two builds of one
# commit make the same packages.
when=$(git -C "$top" log -1 --format=%cD 2>/dev/null || date -R)
cat > "$stage/debian/changelog" <<EOF
luf ($ver) unstable; urgency=medium

  * luf $ver, built from the source tree by make deb.

 -- luf developers <luf@localhost>  $when
EOF
# dpkg-buildpackage drops the binary packages next to the source tree.
(cd "$stage" && SOURCE_DATE_EPOCH=$(date -d "$when" +%s) \
	dpkg-buildpackage -us -uc -b >"$out/build.log" 2>&1) || {
	echo "deb.sh: dpkg-buildpackage failed; the end of $out/build.log:" >&2
	tail -n 30 "$out/build.log" >&2
	exit 1
}
for p in luf-dkms_"$ver"_all luf-tools_"$ver"_$(dpkg --print-architecture); do
	f=$out/$p.deb
	[ -f "$f" ] || { echo "deb.sh: $f was not built" >&2; exit 1; }
	echo "$f $(stat -c %s "$f") bytes"
done
