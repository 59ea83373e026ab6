#!/bin/bash
# Build one kernel tree for the VM harness and print its build directory.
#
#   tests/kernel/build.sh <vanilla|patched> <debug|release>
#   tests/kernel/build.sh <vanilla|patched> source   (the source tree only)
#
# Layout under $LUF_CACHE (default ~/.cache/luf):
#   linux-<pkgver>/vanilla/               pristine Debian source, never modified
#   linux-<pkgver>/patched/               the same with core-hooks.patch applied
#   linux-<pkgver>/<flavor>/build-<var>/  O= build directory
#   ccache/                               shared compiler cache
#
# Each build directory sits directly inside its source tree, so Kbuild uses
# srctree=".." in both flavors and ccache sees identical command lines: the
# patched build hits the cache for every file the patch does not reach.
# When core-hooks.patch changes, only the files whose patched content changed
# are rewritten, so make rebuilds only their dependents.  A stamp over all
# inputs (package version, patch, fragments, this script) skips make entirely
# when nothing changed.
set -euo pipefail

flavor=${1:?usage: build.sh <vanilla|patched> <debug|release|source>}
variant=${2:?usage: build.sh <vanilla|patched> <debug|release|source>}
case $flavor in vanilla|patched) ;; *) echo "build.sh: bad flavor $flavor" >&2; exit 2;; esac
case $variant in debug|release|source) ;; *) echo "build.sh: bad variant $variant" >&2; exit 2;; esac

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cache=${LUF_CACHE:-$HOME/.cache/luf}
jobs=${LUF_JOBS:-$(nproc)}
log() { echo "kernel[$flavor-$variant]: $*" >&2; }

read -r pkgver tarball < <("$here/fetch.sh")
root=$cache/linux-$pkgver
src=$root/$flavor
out=$src/build-$variant
mkdir -p "$root" "$cache/ccache"

extract() {	# $1: destination source tree
	local tmp
	tmp=$(mktemp -d "$root/.extract.XXXXXX")
	log "extracting $(basename "$tarball") into $1"
	tar -C "$tmp" -xf "$tarball"
	mv "$tmp"/linux-source-6.12 "$1"
	rmdir "$tmp"
}

[ -f "$root/vanilla/Makefile" ] || extract "$root/vanilla"

# Bring the patched tree in line with core-hooks.patch, touching only files
# whose content differs: the patch is applied to pristine copies of every file
# named by the old or the new patch, and the results are compared.
sync_patched() {
	local applied=$src/.luf-applied.patch new=$top/core-hooks.patch tmp f
	[ -f "$src/Makefile" ] || extract "$src"
	[ -f "$applied" ] && cmp -s "$applied" "$new" && return 0
	tmp=$(mktemp -d)
	{ [ -f "$applied" ] && cat "$applied"; cat "$new"; } |
		sed -n 's#^+++ b/\([^\t ]*\).*#\1#p; s#^--- a/\([^\t ]*\).*#\1#p' |
		sort -u > "$tmp/files"
	while read -r f; do
		if [ -f "$root/vanilla/$f" ]; then
			mkdir -p "$tmp/t/$(dirname "$f")"
			cp -p "$root/vanilla/$f" "$tmp/t/$f"
		fi
	done < "$tmp/files"
	mkdir -p "$tmp/t"
	if ! (cd "$tmp/t" && patch -p1 -s --no-backup-if-mismatch -r - < "$new"); then
		rm -rf "$tmp"
		echo "build.sh: core-hooks.patch does not apply to linux-source $pkgver" >&2
		exit 1
	fi
	while read -r f; do
		if [ -f "$tmp/t/$f" ]; then
			if ! cmp -s "$tmp/t/$f" "$src/$f"; then
				log "patch updates $f"
				mkdir -p "$(dirname "$src/$f")"
				cp "$tmp/t/$f" "$src/$f"
			fi
		elif [ -e "$src/$f" ] && [ ! -f "$root/vanilla/$f" ]; then
			log "patch no longer adds $f"
			rm -f "$src/$f"
		fi
	done < "$tmp/files"
	cp "$new" "$applied"
	rm -rf "$tmp"
}
[ "$flavor" = patched ] && sync_patched
# source: the tree as it is now, for another build
# (tools/packaging/kernel-deb.sh).
if [ "$variant" = source ]; then
	echo "$src"
	exit 0
fi

fragments=("$here/base.config")
[ "$variant" = debug ] && fragments+=("$here/debug.config")
[ "$variant" = release ] && fragments+=("$here/release.config")
[ "$flavor" = patched ] && fragments+=("$here/modules.config")

stamp_inputs() {
	echo "$pkgver $flavor $variant"
	cat "$0" "${fragments[@]}"
	[ "$flavor" = patched ] && cat "$top/core-hooks.patch"
	return 0
}
want=$(stamp_inputs | sha256sum | cut -d' ' -f1)
if [ -f "$out/.luf-stamp" ] && [ "$(cat "$out/.luf-stamp")" = "$want" ] &&
   [ -f "$out/arch/x86/boot/bzImage" ]; then
	echo "$out"
	exit 0
fi
rm -f "$out/.luf-stamp"

export CCACHE_DIR=$cache/ccache CCACHE_NOHASHDIR=true CCACHE_COMPILERCHECK=content
export KBUILD_BUILD_TIMESTAMP="$(date -u -r "$tarball" "+%Y-%m-%d %H:%M:%S UTC")" KBUILD_BUILD_USER=luf KBUILD_BUILD_HOST=luf
mk=(make -C "$src" O="$out" -j"$jobs" CC="ccache gcc" HOSTCC="ccache gcc")

# Generate the config in a scratch directory and install it only when it
# differs, so an unchanged config does not touch .config's mtime.
cfgdir=$(mktemp -d "$src/.cfg.XXXXXX")
trap 'rm -rf "$cfgdir"' EXIT
cat "${fragments[@]}" > "$cfgdir/fragment"
"${mk[@]}" -s O="$cfgdir" KCONFIG_ALLCONFIG="$cfgdir/fragment" allnoconfig >/dev/null
# Every fragment line must survive dependency resolution (CONFIG_LUF and
# CONFIG_LUF_CHECK and CONFIG_LUF_DEBUG only exist in the patched tree).
bad=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*) sym=${line%%=*}; want_line=$line ;;
	"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *}; want_line=$line ;;
	*) continue ;;
	esac
	[ "$flavor" = vanilla ] && case $sym in CONFIG_LUF|CONFIG_LUF_CHECK|CONFIG_LUF_DEBUG) continue ;; esac
	if ! grep -qxF -- "$want_line" "$cfgdir/.config"; then
		if [[ $want_line == "# "* ]] && ! grep -q "^$sym=" "$cfgdir/.config"; then
			continue	# absent counts as not set
		fi
		echo "build.sh: $want_line did not survive olddefconfig (got: $(grep -E "^$sym=|^# $sym " "$cfgdir/.config" || echo absent))" >&2
		bad=1
	fi
done < "$cfgdir/fragment"
[ $bad -eq 0 ] || exit 1
mkdir -p "$out"
if ! cmp -s "$cfgdir/.config" "$out/.config"; then
	log "installing new .config"
	cp "$cfgdir/.config" "$out/.config"
fi
rm -rf "$cfgdir"
trap - EXIT

log "building (make -j$jobs, ccache)"
start=$(date +%s)
"${mk[@]}" -s olddefconfig >/dev/null
"${mk[@]}" -s all headers >&2
log "built in $(( $(date +%s) - start )) s"
echo "$want" > "$out/.luf-stamp"
echo "$out"
