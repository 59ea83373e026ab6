#!/bin/bash
# Make sure the pinned linux-source-6.12 package is installed and print the
# path of its tarball.  If the archive no longer offers the pinned version,
# take the newest 6.12.y offered and warn loudly: results are then not
# comparable with the numbers recorded against the pinned version.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
pin=$(grep -v '^#' "$here/version" | head -n1)
pkg=linux-source-6.12
tarball=/usr/src/linux-source-6.12.tar.xz
[ "$(id -u)" -eq 0 ] && sudo= || sudo=sudo

installed=$(dpkg-query -W -f='${Version}' $pkg 2>/dev/null || true)
if [ "$installed" != "$pin" ]; then
	export DEBIAN_FRONTEND=noninteractive
	# (grep -q would close the pipe early: under pipefail, madison's
	# SIGPIPE then reads as "not offered".)
	offered() { apt-cache madison $pkg 2>/dev/null | grep -c "| $pin |" >/dev/null; }
	offered || $sudo apt-get update -q >&2
	if offered; then
		$sudo apt-get install -y -q --no-install-recommends --allow-downgrades \
			"$pkg=$pin" >&2
	else
		newest=$(apt-cache madison $pkg | awk -F'|' '{gsub(/ /,"",$2); print $2}' |
			 sort -V | tail -n1)
		[ -n "$newest" ] || { echo "fetch: no $pkg package offered at all" >&2; exit 1; }
		cat >&2 <<MSG
************************************************************************
* WARNING: $pkg $pin (pinned in tests/kernel/version) is no longer
* offered by the archive; building $newest instead.  Update the pin
* once this version has been checked.
************************************************************************
MSG
		if [ "$installed" != "$newest" ]; then
			$sudo apt-get install -y -q --no-install-recommends "$pkg=$newest" >&2
		fi
	fi
	installed=$(dpkg-query -W -f='${Version}' $pkg)
fi
[ -f "$tarball" ] || { echo "fetch: $tarball missing after install" >&2; exit 1; }
echo "$installed $tarball"
