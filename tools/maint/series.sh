#!/bin/bash
# core-hooks.patch is kept as a git format-patch series with a cover letter.
# To change the core, turn it into a git tree, work there (git rebase -i,
# one change in the patch it belongs to), and write it back:
#
#   tools/maint/series.sh tree DIR    DIR becomes a git repository: a "base"
#                                     commit (tag base) with the pristine
#                                     files the series touches, then one
#                                     commit per patch (git am)
#   tools/maint/series.sh export DIR  rewrite core-hooks.patch from DIR's
#                                     base..HEAD, with the cover letter of
#                                     tools/maint/cover-letter.txt (subject
#                                     line, blank line, body) and git's
#                                     shortlog and diffstat after it
#
# A patch that touches a file the series did not touch before: copy the
# pristine file into DIR, amend the base commit with it (git checkout base,
# git commit --amend, git rebase --onto), and move the tag.
#
# The pristine source is the one tests/kernel/build.sh unpacks (cached).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
series=$top/core-hooks.patch
cover=$top/tools/maint/cover-letter.txt
usage() { echo "usage: series.sh tree|export DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
cmd=$1 dir=$2
ident=(-c "user.name=luf developers" -c user.email=luf@localhost -c commit.gpgsign=false)
export GIT_COMMITTER_NAME="luf developers" GIT_COMMITTER_EMAIL=luf@localhost
export GIT_COMMITTER_DATE=2026-11-23T00:00:00Z

case $cmd in
tree)
	[ ! -e "$dir" ] || { echo "series.sh: $dir exists; give a new directory" >&2; exit 1; }
	van=$("$top/tests/kernel/build.sh" vanilla source)
	mkdir -p "$dir"
	sed -n 's#^+++ b/\([^\t ]*\).*#\1#p; s#^--- a/\([^\t ]*\).*#\1#p' "$series" |
		sort -u | while read -r f; do
		if [ -f "$van/$f" ]; then
			mkdir -p "$dir/$(dirname "$f")"
			cp "$van/$f" "$dir/$f"
		fi
	done
	cd "$dir"
	git init -q
	git add -A
	git "${ident[@]}" commit -q --author="luf developers <luf@localhost>" \
		--date="$GIT_COMMITTER_DATE" -m base
	git tag base
	# git am skips the cover letter: it has no diff.
	git "${ident[@]}" am -q --empty=drop "$series"
	git log --oneline base..HEAD
	;;
export)
	cd "$dir"
	git rev-parse -q --verify base >/dev/null || { echo "series.sh: $dir has no tag base" >&2; exit 1; }
	[ -z "$(git status --porcelain)" ] || { echo "series.sh: $dir has uncommitted changes" >&2; exit 1; }
	out=$(mktemp -d)
	trap 'rm -rf "$out"' EXIT
	git "${ident[@]}" format-patch -q --cover-letter --zero-commit --no-signature \
		-o "$out" base..HEAD
	python3 - "$out/0000-cover-letter.patch" "$cover" <<'EOF'
import sys
path, cover = sys.argv[1], sys.argv[2]
subject, _, body = open(cover).read().partition('\n\n')
text = open(path).read()
for mark, new in (('*** SUBJECT HERE ***', subject.strip()),
                  ('*** BLURB HERE ***', body.rstrip('\n'))):
    if text.count(mark) != 1:
        sys.exit('series.sh: no %s in the cover letter' % mark)
    text = text.replace(mark, new)
# format-patch stamps the cover letter with the time; keep the file
# stable across runs, as the patches' own dates are.
lines = [('Date: Mon, 23 Nov 2026 00:00:00 +0000' if l.startswith('Date: ')
          else l) for l in text.split('\n')]
open(path, 'w').write('\n'.join(lines))
EOF
	cat "$out"/*.patch >"$series"
	echo "core-hooks.patch: $(grep -c '^Subject: \[PATCH' "$series") mails ($(ls "$out" | wc -l) files)"
	;;
*) usage ;;
esac
