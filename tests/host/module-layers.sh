#!/bin/bash
# The module's units form layers (the table at the top of
# module/internal.h): a unit uses the functions and data of lower layers
# only, never those of a higher layer or of another unit of its own.  Reads
# the table, maps each object linked into luf.ko (the build's luf.mod) to
# its unit, and checks every symbol an object takes from another unit
# (nm: undefined there, defined there) against the layers.  Nothing boots.
#
#   tests/host/module-layers.sh <module build dir>...
#   tests/host/module-layers.sh --build <kernel build dir> <scratch dir>
#
# A module build dir is where "make -C <kdir> M=<dir> modules" ran (make
# check passes its release and debug builds); --build makes both in the
# scratch dir first.  Prints "PASS module-layers" or "FAIL module-layers:
# <unit> calls <symbol> of <unit> (layer L above K)[; ...]"; exits 1 on
# FAIL.  Without arguments: make check's release and debug builds.
# check: host
set -uo pipefail
. "$(dirname "$0")/lib.sh"
top=$LUF_TOP
header=$top/module/internal.h
nm=${NM:-nm}

fail() { echo "FAIL module-layers: $*"; exit 1; }

if [ "${1:-}" = --build ]; then
	kdir=${2:?kernel build dir}
	work=${3:?scratch dir}
	set --
	for v in release debug; do
		flags=()
		[ $v = debug ] && flags=(LUF_DEBUG=1)
		rm -rf "$work/$v" && mkdir -p "$work/$v" &&
			cp -r "$top/Kbuild" "$top/dkms.conf" "$top/module" "$work/$v/" ||
			fail "cannot copy the source to $work/$v"
		make -C "$kdir" M="$work/$v" "${flags[@]}" modules \
			>"$work/$v.log" 2>&1 ||
			fail "the $v module does not build: see $work/$v.log"
		set -- "$@" "$work/$v"
	done
fi
[ $# -gt 0 ] || set -- "$LUF_MOD_RELEASE" "$LUF_MOD_DEBUG"
command -v "$nm" >/dev/null || fail "no $nm (binutils)"

# "<layer> <unit> <file>" per file of the table: its rows are the comment
# lines "<layer> <unit> <file.c>...", continuation lines have no layer.
table=$(awk '/^ \*\// { exit }
	     { sub(/^ \* */, "") }
	     $1 ~ /^[0-9]+$/ && $3 ~ /\.c$/ {
		for (i = 3; i <= NF && $i ~ /\.c$/; i++) print $1, $2, $i
	     }' "$header")
[ -n "$table" ] || fail "no layer table at the top of $header"

problems=
for dir in "$@"; do
	dir=$(cd "$dir" && pwd) || fail "no build dir $dir"
	[ -s "$dir/luf.mod" ] || fail "no $dir/luf.mod: build the module there first"
	# "D <unit> <symbol> <nm type>" for each global symbol an object
	# defines, "U <unit> <symbol>" for each it takes from outside.
	syms=
	for o in $(cat "$dir/luf.mod"); do
		[[ $o = /* ]] || o=$dir/$o
		[ -f "$o" ] || fail "$o (in $dir/luf.mod) is missing"
		# The path below module/: "defer.c", "netlink/luf-nl-gen.c".
		src=${o##*/module/}
		src=${src%.o}.c
		unit=$(awk -v f="$src" '$3 == f { print $2 }' <<<"$table")
		[ -n "$unit" ] || fail "module/$src is in no layer of the table in module/internal.h"
		# An object nm cannot read (LTO bitcode, a wrong $NM) would add
		# no symbols and let every call pass: refuse it.  Every object
		# of luf.ko defines a global symbol.
		def=$("$nm" --defined-only -g "$o") || fail "$nm cannot read $o"
		grep -q . <<<"$def" || fail "$nm finds no global symbol in $o"
		und=$("$nm" -u "$o") || fail "$nm cannot read $o"
		syms+=$(awk -v u="$unit" 'NF == 3 { print "D", u, $3, $2 }' <<<"$def")$'\n'
		syms+=$(awk -v u="$unit" '{ print "U", u, $NF }' <<<"$und")$'\n'
	done
	problems+=$(awk 'NR == FNR { layer[$2] = $1; next }
		$1 == "D" { def[$3] = $2; kind[$3] = $4; next }
		$1 == "U" { use[++n] = $2 " " $3 }
		END {
			for (i = 1; i <= n; i++) {
				split(use[i], w, " "); u = w[1]; s = w[2]
				if (!(s in def) || def[s] == u) continue
				d = def[s]
				if (layer[d] < layer[u]) continue
				verb = kind[s] ~ /^[TtWw]$/ ? "calls" : "uses"
				where = layer[d] == layer[u] ? "its own layer " layer[u] : \
					"layer " layer[d] " above " layer[u]
				print u " " verb " " s " of " d " (" where ")"
			}
		}' <(echo "$table") <(echo "$syms"))$'\n'
done

problems=$(grep -v '^$' <<<"$problems" | sort -u | paste -sd ';' | sed 's/;/; /g')
[ -z "$problems" ] || fail "$problems"
echo "PASS module-layers"
