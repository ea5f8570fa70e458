#!/bin/sh
# SPDX-License-Identifier: MIT
# check_docs.sh [FILE...]: every pointer in the tree leads where it says.
# A newcomer follows "BENCHMARKS.md, "Decisions"" or "pump.c, pick()" and
# must find them there, not somewhere else. Checked, in README.md, NEWS,
# BENCHMARKS.md, doc/, debian/README.source, the man pages and every
# source, test and benchmark file (or only in the FILEs given, against
# the tree):
#   FILE.md, "HEADING"      a heading of FILE.md that starts with HEADING;
#   FILE.md, "H1", "H2"     each, in FILE.md (also FILE.md, section "H")
#   README: "HEADING"       likewise in README.md
#   FILE.c, "SECTION"       FILE's text holds SECTION (a comment's words)
#   FILE.c, name()          FILE defines the function name (a definition
#   FILE's name()           or, in a header, a declaration; a macro;
#   FILE's name             also without parentheses, a function of the
#                           tree's)
#   name() (FILE.c)         likewise: a function, a name with an
#   NAME (FILE.h)           underscore or in backticks (NAME: FILE's
#   see name() in FILE.c    code uses it)
#   FILE.h, NAME            FILE's code (not its comments) uses NAME, a
#   NAME in FILE.h          constant in capitals; likewise a name with an
#   FILE.c, `name`          underscore or in backticks
#   FILE                    as a path (dir/file.c, cat/wide.c) the file
#                           at that path, under the top or src/; as a
#                           bare name (tee.c) the one file of the tree so
#                           named (two would be ambiguous)
#   `dir/file.ext`          a file of the tree (or its .in)
#   FIO_NAME                (in the documents) a name of the sources
#   `1a2b3c4`               (in the documents) a commit of this branch
#   name()                  a function the C sources call or define, or
#                           a shell function the scripts define
#   FILE.c:123              never: a line number drifts with every edit;
#                           name the function or the section instead
#   (A file or function of another project says whose: "coreutils'
#   ioblksize.h", "GNU's error()", "DIR's check.h"; a path of an
#   installed system starts with "/". "FILE, the loop" is prose.)
#   ### NAME: value         (BENCHMARKS.md's Decisions) NAME is in the
#                           sources, and every measured constant of
#                           tune.h has one
# Run by make check; prints each broken pointer and fails, or exits 0.
# tests/check_docs_plants.sh shows that each kind of wrong pointer fails.
set -u
top=${FIO_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top" || exit 99
status=0
out=${TMPDIR:-/tmp}/check_docs.$$
trap 'rm -f "$out" "$out.dec"' EXIT
: >"$out"

docs="README.md NEWS BENCHMARKS.md $(ls doc/*.md 2>/dev/null) debian/README.source $(ls man/*.in 2>/dev/null)"
# (Not this file: its examples above are patterns, not pointers.)
sources=$(find src tests bench -type f \( -name '*.[ch]' -o -name '*.sh' \) \
	! -name check_docs.sh ! -name check_docs_plants.sh | sort)
if [ $# -gt 0 ]; then
	files="$*" docs="$*"
else
	files="$docs $sources"
fi

# A file's text on one line, comment leaders dropped, so that a pointer
# may run across lines.
flat() {
	sed -e 's/^[[:space:]]*\/\*[[:space:]]*//' -e 's/^[[:space:]]*\*\/*[[:space:]]*//' \
		-e 's/^[[:space:]]*#[[:space:]]*//' -e 's/^\.\\" //' "$1" | tr '\n\t' '  ' |
		sed 's/  */ /g'
}

# A source's code without its comments: C's /* */ and //, a script's #.
code() {
	case $1 in
	*.sh) sed 's/^[[:space:]]*#.*//' "$1" ;;
	*) awk '{
		line = ""
		while (length($0) > 0) {
			if (incomment) {
				i = index($0, "*/")
				if (i == 0) { $0 = ""; break }
				$0 = substr($0, i + 2); incomment = 0
			} else {
				i = index($0, "/*"); j = index($0, "//")
				if (j > 0 && (i == 0 || j < i)) { line = line substr($0, 1, j - 1); $0 = ""; break }
				if (i == 0) { line = line $0; $0 = ""; break }
				line = line substr($0, 1, i - 1); $0 = substr($0, i + 2); incomment = 1
			}
		}
		print line
	}' "$1" ;;
	esac
}

# The path of a file named in a pointer, or nothing: a path as given
# (from the top, or under src/), a bare name the one file of that name.
resolve() {
	case $1 in
	*/*)
		for p in "$1" "src/$1"; do
			[ -f "$p" ] && { echo "$p"; return; }
		done
		;;
	*)
		found=$(find src tests bench doc -type f -name "$1" 2>/dev/null)
		[ "$(echo "$found" | grep -c .)" = 1 ] && echo "$found"
		;;
	esac
}

# Why a pointer's file does not resolve.
unresolved() {
	case $1 in
	*/*) echo "no file $1" ;;
	*)
		n=$(find src tests bench doc -type f -name "$1" 2>/dev/null | grep -c .)
		if [ "$n" = 0 ]; then echo "no file $1"; else echo "$1 is $n files: say which"; fi
		;;
	esac
}

has_heading() { # file text
	sed -n 's/^#\{1,6\} *//p' "$1" | awk -v t="$2" 'index($0, t) == 1 { f = 1 } END { exit !f }'
}

# Whether path defines the function name (with parentheses in the
# pointer) or its code uses the name.
defines() { # path name function?
	if [ "$3" = function ]; then
		case $1 in
		*.sh) grep -qE "^[[:space:]]*$2\(\)" "$1" ;;
		*) code "$1" | grep -qE "^([A-Za-z_].*[ *])?$2[[:space:]]*\(|^#[[:space:]]*define[[:space:]]+$2\(" ;;
		esac
	else
		code "$1" | grep -qE "(^|[^A-Za-z0-9_])$2([^A-Za-z0-9_]|$)"
	fi
}

# Whether name is a function the tree's C defines (house style: the name
# at a line's start) or a shell function its scripts define.
# shellcheck disable=SC2046 # lists of files
functions=$({
	grep -ohE '^[A-Za-z_][A-Za-z0-9_]*\(' /dev/null $(find src tests bench -name '*.[ch]')
	grep -ohE '^[[:space:]]*[A-Za-z_][A-Za-z0-9_]*\(\)' /dev/null $(find src tests bench -name '*.sh')
} 2>/dev/null | tr -d ' \t()' | sort -u)
is_function() { # name
	echo "$functions" | grep -qx -- "$1"
}

# One pointer to a name in a file: "FILE, NAME" or "FILE's NAME".
check_name() { # where pointer file name
	case $4 in
	*"()") n=${4%??} kind=function ;;
	*) n=$4 kind=name ;;
	esac
	path=$(resolve "$3")
	if [ -z "$path" ]; then
		echo "check_docs: $1: $2: $(unresolved "$3")"
	elif ! defines "$path" "$n" "$kind"; then
		if [ "$kind" = function ]; then
			echo "check_docs: $1: $2: $path does not define $n()"
		else
			echo "check_docs: $1: $2: $path's code has no $n"
		fi
	fi
}

whose="[A-Za-z_]+'s |[A-Za-z_]+s' "
for f in $files; do
	text=$(flat "$f")
	# FILE.md, "HEADING"[, "HEADING"...] and README: "HEADING"
	echo "$text" | grep -aoE '([A-Za-z/]+\.md|README):? ?,? (sections? )?"[^"]+"((,| and|, and) "[^"]+")*' | while IFS= read -r p; do
		doc=$(echo "$p" | sed 's/[,:]* *\(sections* \)*".*//')
		[ "$doc" = README ] && doc=README.md
		path=$doc
		[ -f "$doc" ] || path=$(resolve "$doc")
		if [ -z "$path" ]; then
			echo "check_docs: $f: $p: $(unresolved "$doc")"
			continue
		fi
		echo "$p" | grep -oE '"[^"]+"' | tr -d '"' | while IFS= read -r head; do
			has_heading "$path" "$head" ||
				echo "check_docs: $f: $p: no heading \"$head\" in $path"
		done
	done
	# FILE.c, "SECTION": the words are in FILE.
	echo "$text" | grep -aoE '[A-Za-z_/]+\.(c|h|sh)`?,? "[^"]+"' | while IFS= read -r p; do
		file=$(echo "$p" | sed 's/`\{0,1\},\{0,1\} *".*//')
		sect=$(echo "$p" | sed 's/^[^"]*"//; s/"$//')
		path=$(resolve "$file")
		if [ -z "$path" ]; then
			echo "check_docs: $f: $p: $(unresolved "$file")"
		elif ! flat "$path" | grep -qF -- "$sect"; then
			echo "check_docs: $f: $p: no \"$sect\" in $path"
		fi
	done
	# FILE.c, name() / FILE.h, NAME / FILE.c, `name` / NAME in FILE.h
	echo "$text" | grep -aoE '[A-Za-z_/]+\.(c|h|sh)`?, `?[A-Za-z_][A-Za-z0-9_]*(\(\)|`|\.[a-z]+)?|`?([A-Za-z0-9]*_[A-Za-z0-9_]*|[A-Za-z_][A-Za-z0-9_]*\(\))`? in `?[A-Za-z_/]+\.(c|h|sh)\b' |
		while IFS= read -r p; do
			case $p in
			*" in "*) name=$(echo "${p%% in *}" | tr -d '`') file=$(echo "${p##* in }" | tr -d '`') ;;
			*) file=$(echo "${p%%,*}" | tr -d '`') name=$(echo "${p#*, }" | tr -d '`') ;;
			esac
			# A function, a name in backticks, a constant in capitals
			# or a name with an underscore; "foo.c, the loop" is prose
			# and "foo.c, bar.c" a list of files.
			case $p in
			*" in "*) ;;
			*.[a-z] | *.[a-z][a-z] | *.[a-z][a-z][a-z]) continue ;;
			*"()" | *", \`"*"\`") ;;
			*) echo "$name" | grep -q _ || continue ;;
			esac
			check_name "$f" "$p" "$file" "$name"
		done
	# FILE's name() / FILE's NAME / FILE's name_x, where FILE is ours
	echo "$text" | grep -aoE "(^|[ (\`\"])[A-Za-z0-9_/.-]+\.(c|h|sh)'s \`?[A-Za-z_][A-Za-z0-9_]*(\(\))?" |
		sed "s/^[ (\`\"]//" | while IFS= read -r p; do
			file=${p%%"'s "*} name=$(echo "${p#*"'s "}" | tr -d '`')
			# A bare word is a pointer when it is a function of
			# the tree's ("tee.c's realign"), else prose
			# ("tee.c's source").
			if ! echo "$name" | grep -qE '\(\)$|_'; then
				is_function "$name" || continue
				name="$name()"
			fi
			# Another project's file (coreutils' src/cat.c): not ours.
			[ -n "$(resolve "$file")" ] || [ "${file#*/}" != "$file" ] ||
				[ -n "$(find src tests bench -name "$file" | head -1)" ] || continue
			check_name "$f" "$p" "$file" "$name"
		done
	# name() (FILE.c) / NAME (FILE.h) / `name` (`FILE.c`)
	echo "$text" | grep -aoE '`?[A-Za-z_][A-Za-z0-9_]*(\(\))?`? \(`?[A-Za-z0-9_/.-]+\.(c|h|sh)`?\)' |
		while IFS= read -r p; do
			name=${p%% (*} file=$(echo "${p##* (}" | tr -d '`)')
			case $name in
			*"()" | *_* | "\`"*"\`") ;;
			*) continue ;;
			esac
			name=$(echo "$name" | tr -d '`')
			# Another project's file: not ours.
			[ -n "$(resolve "$file")" ] || [ "${file#*/}" != "$file" ] ||
				[ -n "$(find src tests bench -name "$file" | head -1)" ] || continue
			check_name "$f" "$p" "$file" "$name"
		done
	# FILE.c:123: a line number, which drifts.
	echo "$text" | grep -aoE '(^|[ (`"])[A-Za-z0-9_/.-]+\.(c|h|sh|md|am|ac|in):[0-9]+' |
		sed 's/^[ (`"]//' | while IFS= read -r p; do
			echo "check_docs: $f: $p: a line number drifts; name the function or section"
		done
done >>"$out"

# Every file named is the tree's, at the path given, or says whose it is.
for f in $files; do
	flat "$f" | sed 's/include[[:space:]]*[<"][^>"]*[>"]//g' |
		grep -aoE "(^|[ (\`\"])($whose)?([A-Za-z0-9_.-]+/)*[A-Za-z_][A-Za-z0-9_-]*\.(c|h|sh)\b" |
		sed "s/^[ (\`\"]//" | grep -vE "^($whose)" | sort -u | while read -r n; do
		case $n in
		*/*) [ -n "$(resolve "$n")" ] || [ -f "$n.in" ] ||
			echo "check_docs: $f: $n: no such file in the tree" ;;
		*) [ -n "$(find . -name "$n" ! -path './.git/*' | head -1)" ] ||
			echo "check_docs: $f: $n: no such file in the tree" ;;
		esac
	done
	flat "$f" | grep -aoE "($whose|[*])?\b[a-z_][a-z0-9_]*\(\)" |
		grep -vE "^($whose|[*])" | sed 's/()$//' | sort -u |
		while read -r n; do
			# shellcheck disable=SC2086 # lists of files
			grep -hE "\b$n *\(" $(find src tests bench -name '*.[ch]') |
				grep -vqE '^[[:space:]]*(\*|/\*|//)' ||
				grep -qE "^[[:space:]]*$n\(\)" $(find src tests bench -name '*.sh') ||
				echo "check_docs: $f: $n(): not a function of the tree"
		done
done >>"$out"

# `dir/file.ext`: a file of the tree.
for f in $docs; do
	grep -oE '`(src|tests|bench|doc|debian|man|m4)/[A-Za-z0-9_./-]+\.(c|h|sh|md|in|am)`' "$f" | tr -d '`' |
		sort -u | while read -r p; do
		[ -f "$p" ] || [ -f "$p.in" ] || echo "check_docs: $f: $p: no such file"
	done
done >>"$out"

# A commit the documents name (`1a2b3c4`, as make bench stamps its run) is
# one of this branch's history, where the tree is a git checkout of its
# own with that history (not a tarball, not a shallow clone).
if [ "$(git -C "$top" rev-parse --show-toplevel 2>/dev/null)" = "$top" ] &&
	[ "$(git -C "$top" rev-parse --is-shallow-repository 2>/dev/null)" = false ]; then
	for f in $docs; do
		grep -oE '`[0-9a-f]{7,40}`' "$f" | tr -d '`' | grep '[a-f]' | sort -u | while read -r h; do
			git -C "$top" merge-base --is-ancestor "$h" HEAD 2>/dev/null ||
				echo "check_docs: $f: $h: not a commit of this branch"
		done
	done >>"$out"
fi

# FIO_ names in the documents are names of the sources or the tests.
for f in $docs; do
	grep -oE '\bFIO_[A-Z0-9_]+\b' "$f" | sort -u | while read -r n; do
		grep -rqw -- "$n" src tests ||
			echo "check_docs: $f: $n: not a name in src/ or tests/"
	done
done >>"$out"

# Decisions: each heading's names exist; each constant of tune.h has one.
if [ $# = 0 ]; then
	sed -n '/^## Decisions/,$p' BENCHMARKS.md | sed -n 's/^### //p' >"$out.dec"
	grep -oE '\b(FIO|CAT|PB)_[A-Z0-9_]+|CLOSE_BATCH' "$out.dec" | sort -u |
		while read -r n; do
			grep -rqw -- "$n" src || echo "check_docs: BENCHMARKS.md: Decisions: $n is not in src/"
		done >>"$out"
	# (A measured constant is one bench/sweep.sh can vary: #ifndef-guarded.)
	sed -n 's/^#ifndef \(FIO_[A-Z0-9_]*\).*/\1/p' src/fastio/tune.h | sort -u | while read -r n; do
		grep -qw -- "$n" "$out.dec" ||
			echo "check_docs: src/fastio/tune.h: $n has no entry in BENCHMARKS.md, \"Decisions\""
	done >>"$out"
fi

if [ -s "$out" ]; then
	cat "$out"
	status=1
fi
[ "$status" = 0 ] && echo "check_docs: every pointer leads where it says"
exit "$status"
