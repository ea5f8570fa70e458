#!/bin/sh
# SPDX-License-Identifier: MIT
# generate.sh [GNU-CAT]: recreate the inputs in in/ and, from GNU cat (the
# newest release, default /opt/peers/bin/gnu/cat, run as "cat": its yes
# beside it), the expected outputs in out/ that tests/check_cat.c and
# tests/check_yes.c compare against; records the version used. The
# operand lists here must match the ones in tests/check_cat.c.
set -eu
cd "$(dirname "$0")"
gnu=${1:-/opt/peers/bin/gnu/cat}
rm -rf in out
mkdir in out

# Small inputs, run as one cat invocation so that state carries across
# files: a line without newline continued by the next file, CR LF pairs
# split across files, blank runs at the start and across boundaries.
printf '' >in/s01-empty
printf 'c' >in/s02-no-newline
printf 'd\n' >in/s03-continues
printf '\n\n\n\n\n' >in/s04-only-newlines
printf 'a\r\nb\r\n\r\n\r\rc\r' >in/s05-crlf
printf '\nx\r' >in/s06-lf-after-cr
printf 'a\n\n\n\nb\n \n\n\t\n\n\n' >in/s07-blank-runs
i=0
while [ $i -lt 256 ]; do
	printf "\\$(printf %03o $i)"
	i=$((i + 1))
done >in/s08-all-bytes
printf '\n' >>in/s08-all-bytes
cat in/s08-all-bytes in/s08-all-bytes >in/s09-all-bytes-twice
# 3000 tokens picked by a 64-bit LCG: LF, CR LF, lone CR, TAB, DEL,
# controls, high bytes and words in every order.
x=1
i=0
while [ $i -lt 3000 ]; do
	x=$(((x * 6364136223846793005 + 1442695040888963407) & 0x7fffffffffffffff))
	case $(((x >> 33) % 12)) in
	0 | 1) printf '\n' ;;
	2) printf '\r\n' ;;
	3) printf '\r' ;;
	4) printf '\t' ;;
	5) printf '\177' ;;
	6) printf '\001\033' ;;
	7) printf '\200\377\240' ;;
	8) printf '\n\n\n' ;;
	*) printf 'word ' ;;
	esac
	i=$((i + 1))
done >in/s10-mixed
printf 'x\r' >in/s11-cr-at-end

# Big inputs: a line longer than any buffer, and NUL bytes.
printf 'ab\tc\001\200 %.0s' $(seq 1 21000) >in/b01-long-line
printf '\r\n' >>in/b01-long-line
head -c 150000 /dev/zero >in/b02-zeros
printf '\n' >>in/b02-zeros

# All 2^6 combinations of -b -E -n -s -T -v, then -A, -e, -t.
sets=""
m=0
while [ $m -lt 64 ]; do
	s=""
	for bit in 0 1 2 3 4 5; do
		[ $((m >> bit & 1)) = 1 ] && s="$s$(echo bEnsTv | cut -c$((bit + 1)))"
	done
	sets="$sets ${s:-none}"
	m=$((m + 1))
done
for s in $sets A e t; do
	if [ "$s" = none ]; then opts=""; else opts="-$s"; fi
	(cd in && $gnu $opts s01-empty s02-no-newline s03-continues \
		s04-only-newlines s05-crlf s06-lf-after-cr s07-blank-runs \
		s08-all-bytes s09-all-bytes-twice s10-mixed s11-cr-at-end) >out/small-$s
done
for s in A nsE T; do
	(cd in && $gnu -$s b01-long-line b02-zeros) >out/big-$s
done
# --help in the C locale, plain and where TERM names a terminal (bold
# options linked to GNU's manual, from 9.10 on).
for p in cat yes; do
	bin=$gnu
	[ $p = yes ] && bin=$(dirname "$gnu")/yes
	LC_ALL=C TERM=dumb $bin --help >out/help-$p
	LC_ALL=C TERM=xterm $bin --help >out/help-$p-term
done
$gnu --version | head -1 >VERSION
