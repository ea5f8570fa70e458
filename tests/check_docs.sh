#!/bin/sh
# SPDX-License-Identifier: MIT
# check_docs.sh: every pointer in the tree leads somewhere. A newcomer
# follows "BENCHMARKS.md, "Decisions"" or "pump.c, pick()" and must find
# them. Checked, in README.md, NEWS, BENCHMARKS.md, doc/, debian/README.source,
# the man pages and every source, test and benchmark file:
#   FILE.md, "HEADING"      a heading of FILE.md that starts with HEADING
#   README: "HEADING"       likewise in README.md
#   FILE.c, name()          FILE (found under src/, tests/, bench/ by its
#   FILE.h, NAME            path or name) defines or names it
#   NAME in FILE.h          likewise
#   `dir/file.ext`          a file of the tree (or its .in)
#   FIO_NAME                (in the documents) a name of the sources
#   NAME.c, NAME.h, NAME.sh (anywhere but an #include) a file of the tree
#   name()                  a function the C sources call or define, or
#                           a shell function the scripts define
#   (A file or function of another project says whose: "coreutils'
#   ioblksize.h", "GNU's error()", "DIR's check.h"; a path of an
#   installed system starts with "/".)
#   ### NAME: value         (BENCHMARKS.md's Decisions) NAME is in the
#                           sources, and every measured constant of
#                           tune.h has one
# Run by make check; prints each broken pointer and fails, or exits 0.
set -u
top=${FIO_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top" || exit 99
status=0

docs="README.md NEWS BENCHMARKS.md $(ls doc/*.md 2>/dev/null) debian/README.source $(ls man/*.in)"
# (Not this file: its examples above are patterns, not pointers.)
files="$docs $(find src tests bench -type f \( -name '*.[ch]' -o -name '*.sh' \) ! -name check_docs.sh | sort)"

# A file's text on one line, comment leaders dropped, so that a pointer
# may run across lines.
flat() {
	sed -e 's/^[[:space:]]*\/\*[[:space:]]*//' -e 's/^[[:space:]]*\*\/*[[:space:]]*//' \
		-e 's/^[[:space:]]*#[[:space:]]*//' -e 's/^\.\\" //' "$1" | tr '\n\t' '  ' |
		sed 's/  */ /g'
}

# The path of a file named in a pointer: as given, or found by its name.
resolve() {
	[ -f "$1" ] && { echo "$1"; return; }
	find src tests bench doc -type f -name "$(basename "$1")" 2>/dev/null | head -1
}

has_heading() { # file text
	sed -n 's/^#\{1,6\} *//p' "$1" | grep -qF -- "$2" 2>/dev/null &&
		sed -n 's/^#\{1,6\} *//p' "$1" | awk -v t="$2" 'index($0, t) == 1 { f = 1 } END { exit !f }'
}

for f in $files; do
	text=$(flat "$f")
	# FILE.md, "HEADING" and README: "HEADING"
	echo "$text" | grep -aoE '([A-Za-z/]+\.md|README):? ?,? "[^"]+"' | while IFS= read -r p; do
		doc=$(echo "$p" | sed 's/[,:]* *".*//')
		[ "$doc" = README ] && doc=README.md
		head=$(echo "$p" | sed 's/^[^"]*"//; s/"$//')
		if [ ! -f "$doc" ]; then
			echo "check_docs: $f: $p: no file $doc"
		elif ! has_heading "$doc" "$head"; then
			echo "check_docs: $f: $p: no such heading in $doc"
		fi
	done
	# FILE.c, name() / FILE.h, NAME / NAME in FILE.h
	echo "$text" | grep -aoE '[A-Za-z_/]+\.[ch]`?, `?[A-Za-z_][A-Za-z0-9_]*(\(\))?|[A-Z][A-Z0-9_]{3,} in `?[A-Za-z_/]+\.[ch]' |
		while IFS= read -r p; do
			case $p in
			*" in "*) name=${p%% in *} file=$(echo "${p##* in }" | tr -d '`') ;;
			*) file=$(echo "${p%%,*}" | tr -d '`') name=$(echo "${p#*, }" | tr -d '`()') ;;
			esac
			# A function (with its parentheses) or a constant (in
			# capitals); "foo.c, the loop" is prose.
			echo "$p" | grep -q '()' || echo "$name" | grep -q '^[A-Z][A-Z0-9_]*$' ||
				continue
			path=$(resolve "$file")
			if [ -z "$path" ]; then
				echo "check_docs: $f: $p: no file $file"
			elif ! grep -q -- "$name" "$path"; then
				echo "check_docs: $f: $p: $path has no $name"
			fi
		done
done >"${TMPDIR:-/tmp}/check_docs.$$"

# Every file and function named is the tree's, or says whose it is.
whose="[A-Za-z_]+'s |[A-Za-z_]+s' "
code=$(find src tests bench -name '*.[ch]')
scripts=$(find src tests bench -name '*.sh')
for f in $files; do
	flat "$f" | sed 's/include[[:space:]]*[<"][^>"]*[>"]//g' |
		grep -aoE "($whose|[/*])?[A-Za-z_][A-Za-z0-9_-]*\.(c|h|sh)\b" |
		grep -vE "^($whose|[/*])" | sort -u | while read -r n; do
		[ -n "$(find . -name "$n" ! -path './.git/*' | head -1)" ] ||
			echo "check_docs: $f: $n: no such file in the tree"
	done
	flat "$f" | grep -aoE "($whose|[*])?\b[a-z_][a-z0-9_]*\(\)" |
		grep -vE "^($whose|[*])" | sed 's/()$//' | sort -u |
		while read -r n; do
			# shellcheck disable=SC2086 # lists of files
			grep -hE "\b$n *\(" $code | grep -vqE '^[[:space:]]*(\*|/\*|//)' ||
				grep -qE "^[[:space:]]*$n\(\)" $scripts ||
				echo "check_docs: $f: $n(): not a function of the tree"
		done
done >>"${TMPDIR:-/tmp}/check_docs.$$"

# `dir/file.ext`: a file of the tree.
for f in $docs; do
	grep -oE '`(src|tests|bench|doc|debian|man|m4)/[A-Za-z0-9_./-]+\.(c|h|sh|md|in|am)`' "$f" | tr -d '`' |
		sort -u | while read -r p; do
		[ -f "$p" ] || [ -f "$p.in" ] || echo "check_docs: $f: $p: no such file"
	done
done >>"${TMPDIR:-/tmp}/check_docs.$$"

# FIO_ names in the documents are names of the sources or the tests.
for f in $docs; do
	grep -oE '\bFIO_[A-Z0-9_]+\b' "$f" | sort -u | while read -r n; do
		grep -rqw -- "$n" src tests ||
			echo "check_docs: $f: $n: not a name in src/ or tests/"
	done
done >>"${TMPDIR:-/tmp}/check_docs.$$"

# Decisions: each heading's names exist; each constant of tune.h has one.
sed -n '/^## Decisions/,$p' BENCHMARKS.md | sed -n 's/^### //p' >"${TMPDIR:-/tmp}/check_docs_dec.$$"
grep -oE '\b(FIO|CAT|PB)_[A-Z0-9_]+|CLOSE_BATCH' "${TMPDIR:-/tmp}/check_docs_dec.$$" | sort -u |
	while read -r n; do
		grep -rqw -- "$n" src || echo "check_docs: BENCHMARKS.md: Decisions: $n is not in src/"
	done >>"${TMPDIR:-/tmp}/check_docs.$$"
# (A measured constant is one bench/sweep.sh can vary: #ifndef-guarded.)
sed -n 's/^#ifndef \(FIO_[A-Z0-9_]*\).*/\1/p' src/fastio/tune.h | sort -u | while read -r n; do
	grep -qw -- "$n" "${TMPDIR:-/tmp}/check_docs_dec.$$" ||
		echo "check_docs: src/fastio/tune.h: $n has no entry in BENCHMARKS.md, \"Decisions\""
done >>"${TMPDIR:-/tmp}/check_docs.$$"

if [ -s "${TMPDIR:-/tmp}/check_docs.$$" ]; then
	cat "${TMPDIR:-/tmp}/check_docs.$$"
	status=1
fi
rm -f "${TMPDIR:-/tmp}/check_docs.$$" "${TMPDIR:-/tmp}/check_docs_dec.$$"
[ "$status" = 0 ] && echo "check_docs: every pointer leads somewhere"
exit "$status"
