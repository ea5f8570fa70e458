#!/bin/sh
# SPDX-License-Identifier: MIT
# differential.sh CAT YES [GNU-BINDIR]: our cat and yes against GNU's, on
# tests/golden's inputs (every byte value, CR LF mixes, runs of blank
# lines, a line longer than any buffer, NULs) with every set of -b -E -n
# -s -T -v and -A -e -t, on a file of a million lines, and yes with
# several operands: stdout and status byte for byte. For builds that
# have no Check (musl-gcc). Prints "N passed, N failed"; fails on any
# difference.
set -u
cat=${1:?usage: differential.sh CAT YES [GNU-BINDIR]}
yes=${2:?usage: differential.sh CAT YES [GNU-BINDIR]}
gnu=${3:-/usr/bin}
in=$(cd "$(dirname "$0")/golden/in" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

# One case: sh -c SCRIPT run with $0 our TOOL (cat or yes), then GNU's.
same() { # what tool script args...
	what=$1 tool=$2 script=$3
	shift 3
	ours=$cat
	[ "$tool" = yes ] && ours=$yes
	sh -c "$script" "$ours" "$@" >"$tmp/ours" 2>"$tmp/ours.err"
	echo $? >>"$tmp/ours.err"
	sh -c "$script" "$gnu/$tool" "$@" >"$tmp/gnu" 2>"$tmp/gnu.err"
	echo $? >>"$tmp/gnu.err"
	# Messages name the program as invoked: compare from "cat:" on.
	sed 's|^[^:]*/cat:|cat:|' "$tmp/ours.err" >"$tmp/ours.e"
	sed 's|^[^:]*/cat:|cat:|' "$tmp/gnu.err" >"$tmp/gnu.e"
	if cmp -s "$tmp/ours" "$tmp/gnu" && cmp -s "$tmp/ours.e" "$tmp/gnu.e"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "differential.sh: differs: $what" >&2
	fi
}
run='"$0" "$@"'

cd "$in" || exit 1
small="s01-empty s02-no-newline s03-continues s04-only-newlines s05-crlf
s06-lf-after-cr s07-blank-runs s08-all-bytes s09-all-bytes-twice s10-mixed
s11-cr-at-end"
# The option sets of tests/golden (generate.sh): every set of -b -E -n
# -s -T -v ("none" for no option), then -A, -e and -t; and two mixes.
for g in ../out/small-*; do
	o=${g##*small-}
	[ "$o" = none ] && o="" || o=-$o
	# shellcheck disable=SC2086 # the names are words, $o one or none
	same "cat $o (small files)" cat "$run" $o $small
	same "cat $o (big files)" cat "$run" $o b01-long-line b02-zeros
done
for o in -vET -nA; do
	# shellcheck disable=SC2086
	same "cat $o (small files)" cat "$run" $o $small
	same "cat $o (big files)" cat "$run" $o b01-long-line b02-zeros
done
# A million lines (the counter past 999999) and more, every 7th empty.
awk 'BEGIN { for (i = 0; i < 1100000; i++) print (i % 7 ? "line " i : "") }' \
	>"$tmp/million"
for o in -n -b -s -ns -A -nE; do
	same "cat $o (1,100,000 lines)" cat "$run" $o "$tmp/million"
done
same "cat -n - (stdin)" cat '"$0" -n - <"$1"' "$tmp/million"
same "cat, a missing file" cat "$run" s01-empty no-such-file s02-no-newline
# yes: its output, cut after 3 MB, for several operand lists.
for args in "" "y" "a b c" "-- -n" "$(printf 'x%.0s' $(seq 1 5000))"; do
	# shellcheck disable=SC2086
	same "yes $args" yes '"$0" "$@" | head -c 3000000' $args
done
echo "differential.sh: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
