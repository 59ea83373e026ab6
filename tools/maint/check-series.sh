#!/bin/bash
# core-hooks.patch is a git format-patch series with a cover letter.  Check
# that it is one a maintainer can take:
#
#   tools/maint/check-series.sh --apply   the cover letter is there and
#                                         complete, each patch is
#                                         checkpatch-clean,
#                                         and `git am` and `patch -p1` both
#                                         apply the series to the pinned
#                                         source, with the same result
#                                         (seconds; make check)
#   tools/maint/check-series.sh           the same, then the tree builds
#                                         after each patch (the test
#                                         kernel's config, CONFIG_LUF=y;
#                                         the one before the last is the
#                                         series without its debug patch),
#                                         and after the last one with
#                                         CONFIG_LUF=n too (make
#                                         check-series)
#
#   tools/maint/check-series.sh --quick   the same, but after each patch
#                                         only the objects of the .c files
#                                         the series has touched so far are
#                                         built (a file that only includes
#                                         a changed header is not): minutes
#                                         where the full run takes hours
#
# Options: --jobs N (make -j, default the number of CPUs).
# Prints PASS/FAIL lines and exits non-zero on a failure.
#
# The per-patch builds use a tree of their own, linux-<pkgver>/series/ in
# the kernel cache, hard-linked to the pristine one except for the files
# the series touches, and the test kernels' compiler cache.  Every run
# starts from the pristine files, so make rebuilds most of the kernel at
# the first patch (the widely included headers change there) and again at
# the seventh (fs.h) and for CONFIG_LUF=n; ccache serves what it has seen.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
apply_only= quick= jobs=$(nproc)
while [ $# -gt 0 ]; do
	case $1 in
	--apply) apply_only=1; shift ;;
	--quick) quick=1; shift ;;
	--jobs) jobs=${2:?}; shift 2 ;;
	*) echo "usage: check-series.sh [--apply | --quick] [--jobs N]" >&2; exit 2 ;;
	esac
done
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "check-series.sh: --jobs wants a positive number" >&2; exit 2; }
series=$top/core-hooks.patch
fails=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

van=$("$top/tests/kernel/build.sh" vanilla source) ||
	{ fail "series-apply: no pristine source (tests/kernel/build.sh vanilla source)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One file per mail, in order: the cover letter, then the patches.
mkdir -p "$work/split"
git mailsplit -o"$work/split" "$series" >/dev/null || { fail "series-split: git mailsplit failed"; exit 1; }
mails=("$work"/split/*)
coverl=${mails[0]}
if grep -q '^Subject: \[PATCH 0*/' "$coverl"; then
	patches=("${mails[@]:1}")
else
	patches=("${mails[@]}")
fi
n=${#patches[@]}
subjects=()
for p in "${patches[@]}"; do
	subjects+=("$(git mailinfo "$work/msg" "$work/patch" <"$p" | sed -n 's/^Subject: //p')")
done

# The cover letter: [PATCH 00/N] with N the number of patches, no diff, the
# sections a reviewer reads first, and git's shortlog and diffstat.
csubj=$(sed -n 's/^Subject: //p' "$coverl" | head -n 1)
missing=
for sec in Design Invariants Measurements "Cost when absent" "Known limits" "Prior art"; do
	grep -qx -- "$sec" "$coverl" || missing="$missing, '$sec'"
done
if [[ ! $csubj =~ ^\[PATCH\ 0+/([0-9]+)\]\ .+ ]]; then
	fail "series-cover: the first mail is not a cover letter ([PATCH 00/N]): $csubj"
elif [ "$((10#${BASH_REMATCH[1]}))" -ne "$n" ]; then
	fail "series-cover: the cover letter announces ${BASH_REMATCH[1]} patches, the series has $n"
elif grep -q '^diff --git' "$coverl"; then
	fail "series-cover: the cover letter carries a diff"
elif grep -q '\*\*\* \(SUBJECT\|BLURB\) HERE \*\*\*' "$coverl"; then
	fail "series-cover: the cover letter still has git's placeholders"
elif [ -n "$missing" ]; then
	fail "series-cover: no section${missing#,} in the cover letter"
elif ! grep -q ' files\? changed, ' "$coverl"; then
	fail "series-cover: no diffstat in the cover letter"
else
	pass "series-cover ($csubj)"
fi

# checkpatch, one patch at a time (it reads a patch from stdin).
bad=
for i in "${!patches[@]}"; do
	if ! "$van/scripts/checkpatch.pl" --no-tree --strict -q - <"${patches[$i]}" >"$work/cp.log" 2>&1; then
		bad="$bad $((i + 1))"
		sed "s/^/    [$((i + 1))] /" "$work/cp.log" | head -n 20
	fi
done
if [ -z "$bad" ]; then
	pass "series-checkpatch ($n patches, checkpatch --strict clean)"
else
	fail "series-checkpatch: patch(es)$bad"
fi

# The fault injection is the last patch alone, behind CONFIG_LUF_DEBUG: the
# series without it is the one production kernels carry.
leak=
for i in "${!patches[@]}"; do
	[ $((i + 1)) -eq "$n" ] && break
	grep -qE '^\+.*(LUF_DEBUG|luf_debug)' "${patches[$i]}" && leak="$leak $((i + 1))"
done
if [ -n "$leak" ]; then
	fail "series-debug-apart: patch(es)$leak add fault injection (LUF_DEBUG_*, luf_debug()) before the last patch"
elif ! grep -q '^+config LUF_DEBUG$' "${patches[$((n - 1))]}"; then
	fail "series-debug-apart: the last patch does not add CONFIG_LUF_DEBUG"
else
	pass "series-debug-apart (fault injection only in patch $n, CONFIG_LUF_DEBUG)"
fi

# What the series exports, and why; a new export needs a reason here.
#   luf_active, luf_gathering, luf_gens: read by the inline hooks that
#     modules compile in (file_end_write(), kiocb_end_write(),
#     luf_contents_changed()); luf_gens is also where the module publishes
#     generations for the core's fast paths
#   luf_register, luf_unregister, luf_flush_batch, luf_flush_mm_batched,
#     luf_batch_trim, luf_numa_release, mm_kobj: the module's
#     (tests/host/module-layers.sh)
#   luf_space_change: the slow path of luf_contents_changed()
#   luf_check_install, luf_check_wrprotect, luf_check_seen,
#     luf_check_file: the checker's hooks in inline functions of pgtable.h
#     and fs.h (tests/host/inline-exports.sh)
#   luf_debug_numa_pass: the debug module's NUMA pass on demand (patch
#     22, CONFIG_LUF_DEBUG only; tests/guest/t/checker-mutation hint)
want="luf_active luf_batch_trim luf_check_file luf_check_install luf_check_seen
luf_check_wrprotect luf_flush_batch luf_flush_mm_batched luf_gathering luf_gens
luf_debug_numa_pass luf_numa_release luf_register luf_space_change luf_unregister mm_kobj"
have=$(sed -n 's/^+EXPORT_SYMBOL[A-Z_]*(\([a-z_]*\));$/\1/p' "${patches[@]}" | sort)
want=$(echo $want | tr ' ' '\n' | sort)
if [ "$have" != "$want" ]; then
	fail "series-exports: exported$(comm -23 <(echo "$have") <(echo "$want") | sed 's/^/ +/' | tr -d '\n')$(comm -13 <(echo "$have") <(echo "$want") | sed 's/^/ -/' | tr -d '\n') against the list in check-series.sh"
else
	pass "series-exports ($(echo "$have" | wc -l) symbols, each with its reason)"
fi

# git am and patch -p1 on copies of the files the series touches.
sed -n 's#^+++ b/\([^\t ]*\).*#\1#p; s#^--- a/\([^\t ]*\).*#\1#p' "$series" | sort -u >"$work/files"
for d in am p1; do
	mkdir -p "$work/$d"
	while read -r f; do
		if [ -f "$van/$f" ]; then
			mkdir -p "$work/$d/$(dirname "$f")"
			cp "$van/$f" "$work/$d/$f"
		fi
	done <"$work/files"
done
gitc=(git -c user.name=check -c user.email=check@localhost -c commit.gpgsign=false)
if ! (cd "$work/am" && "${gitc[@]}" init -q && "${gitc[@]}" add -A &&
	"${gitc[@]}" commit -q -m base && "${gitc[@]}" am -q --empty=drop "$series") >"$work/am.log" 2>&1; then
	fail "series-apply: git am failed"
	sed 's/^/    /' "$work/am.log" | head -n 20
elif ! (cd "$work/p1" && patch -p1 -s --no-backup-if-mismatch -r - <"$series") >"$work/p1.log" 2>&1; then
	fail "series-apply: patch -p1 failed"
	sed 's/^/    /' "$work/p1.log" | head -n 20
elif ! diff -r -x .git "$work/am" "$work/p1" >"$work/diff.log"; then
	fail "series-apply: git am and patch -p1 give different trees"
	head -n 20 "$work/diff.log" | sed 's/^/    /'
elif [ "$(cd "$work/am" && git rev-list --count HEAD)" -ne $((n + 1)) ]; then
	fail "series-apply: git am made $(($(cd "$work/am" && git rev-list --count HEAD) - 1)) commits of $n patches"
else
	pass "series-apply (git am: $n commits, the cover letter skipped; patch -p1: the same tree)"
fi
if [ -n "$apply_only" ] || [ "$fails" -gt 0 ]; then
	[ "$fails" -eq 0 ]
	exit
fi

# The tree builds after each patch.
cfg=$("$top/tests/kernel/build.sh" patched debug)/.config || { fail "series-build: no test kernel config"; exit 1; }
root=$(dirname "$van")
src=$root/series
obj=$src/build-check
mkdir -p "$root"
# One run at a time in that tree.
exec 9>"$root/.series.lock"
flock -n 9 || { echo "check-series: waiting for another run" >&2; flock 9; }
if [ ! -f "$src/Makefile" ]; then
	# The source only, not the vanilla kernels' build directories.
	rm -rf "$src" "$src.tmp"
	if ! mkdir "$src.tmp" ||
	   ! (cd "$van" && find . -mindepth 1 -maxdepth 1 ! -name 'build-*' \
		-exec cp -al {} "$src.tmp/" \;) ||
	   ! mv "$src.tmp" "$src"; then
		fail "series-build: cannot make the tree $src"
		rm -rf "$src.tmp"
		exit 1
	fi
fi
# Back to pristine: every file this series or the last one run here
# touches is a copy of its own (patch writes new files, but a copy makes
# sure the pristine tree's inodes are never written), files they add are
# removed.
[ -f "$src/.luf-series-files" ] && cat "$src/.luf-series-files" >>"$work/files"
sort -u -o "$work/files" "$work/files"
cp "$work/files" "$src/.luf-series-files"
while read -r f; do
	if [ -f "$van/$f" ]; then
		cmp -s "$van/$f" "$src/$f" && [ ! "$van/$f" -ef "$src/$f" ] && continue
		cp --remove-destination "$van/$f" "$src/$f"
	else
		rm -f "$src/$f"
	fi
done <"$work/files"
mkdir -p "$obj"
cp "$cfg" "$obj/.config"
export CCACHE_DIR=${LUF_CACHE:-$HOME/.cache/luf}/ccache CCACHE_NOHASHDIR=true CCACHE_COMPILERCHECK=content
export KBUILD_BUILD_USER=luf KBUILD_BUILD_HOST=luf
mk=(make -C "$src" O="$obj" -j"$jobs" CC="ccache gcc" HOSTCC="ccache gcc")
# The objects of the .c files that patches 1..$1 touch, less those the
# config leaves out: an object named on make's command line is built
# whatever its obj-$(CONFIG_...) line says (luf_check.o with
# CONFIG_LUF=n).
touched_objs() {
	local f o sym
	sed -n 's#^+++ b/\([^\t ]*\.c\).*#\1#p' "${patches[@]:0:$1}" | sort -u |
	while read -r f; do
		[ -f "$src/$f" ] || continue
		o=$(basename "${f%.c}.o")
		sym=$(sed -n "s/^obj-\$(\(CONFIG_[A-Z0-9_]*\))[ \t]*+=.*\<${o//./\\.}\>.*/\1/p" \
			"$src/$(dirname "$f")/Makefile" 2>/dev/null | head -n 1)
		if [ -n "$sym" ] && ! grep -qE "^$sym=(y|m)$" "$obj/.config"; then
			continue
		fi
		echo "${f%.c}.o"
	done
}
build() {	# $1: the patch number, or "off"
	local t0=$(date +%s) upto=$n targets=(all)
	"${mk[@]}" -s olddefconfig >"$work/build.log" 2>&1 || return 1
	if [ -n "$quick" ]; then
		# After olddefconfig: it drops what CONFIG_LUF=n disables.
		[ "$1" != off ] && upto=$1
		mapfile -t targets < <(touched_objs "$upto")
	fi
	if ! "${mk[@]}" -s "${targets[@]}" >>"$work/build.log" 2>&1; then
		return 1
	fi
	echo $(( $(date +%s) - t0 ))
}
total0=$(date +%s)
for i in "${!patches[@]}"; do
	k=$((i + 1))
	if ! (cd "$src" && patch -p1 -s --no-backup-if-mismatch -r - <"${patches[$i]}") >"$work/p.log" 2>&1; then
		fail "series-build-$k: patch $k does not apply"
		sed 's/^/    /' "$work/p.log" | head
		exit 1
	fi
	# The whole test config each time: olddefconfig drops an option the
	# tree does not have yet (CONFIG_LUF_CHECK before its patch), and
	# the patch that adds it must build with it on.
	cp "$cfg" "$obj/.config"
	if secs=$(build "$k"); then
		if ! grep -qx CONFIG_LUF=y "$obj/.config"; then
			fail "series-build-$k: CONFIG_LUF=y did not survive olddefconfig"
		elif [ "$k" -eq "$n" ] && ! { grep -qx CONFIG_LUF_CHECK=y "$obj/.config" &&
			grep -qx CONFIG_LUF_DEBUG=y "$obj/.config"; }; then
			fail "series-build-$k: CONFIG_LUF_CHECK and CONFIG_LUF_DEBUG are not both on after the last patch"
		else
			pass "series-build-$k ($secs s: ${subjects[$i]})"
		fi
	else
		fail "series-build-$k: ${subjects[$i]}"
		grep -E 'error|Error' "$work/build.log" | head -n 20 | sed 's/^/    /'
		exit 1
	fi
done
# The whole series with CONFIG_LUF=n: every stub compiles.
"$src/scripts/config" --file "$obj/.config" --disable LUF
if secs=$(build off); then
	if grep -q '^CONFIG_LUF=' "$obj/.config"; then
		fail "series-build-luf-off: CONFIG_LUF is still set"
	else
		pass "series-build-luf-off ($secs s: all $n patches, CONFIG_LUF=n)"
	fi
else
	fail "series-build-luf-off: the tree does not build without CONFIG_LUF"
	grep -E 'error|Error' "$work/build.log" | head -n 20 | sed 's/^/    /'
fi
echo "check-series: $n patches built${quick:+ (--quick: only the objects of touched files)} in $(( $(date +%s) - total0 )) s with make -j$jobs"
[ "$fails" -eq 0 ]
