#!/bin/sh
# SPDX-License-Identifier: MIT
# check_claims.sh: README's claims are the last run's. README.md's table
# between "<!-- claims:begin -->" and "<!-- claims:end -->" must be what
# bench/claims.sh makes of BENCHMARKS.md's last run (make bench writes
# both); a figure changed in one and not the other fails here.
set -u
top=${FIO_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top" || exit 99
want=$(sh bench/claims.sh BENCHMARKS.md) || exit 99
got=$(sed -n '/^<!-- claims:begin -->$/,/^<!-- claims:end -->$/p' README.md | sed '1d;$d')
if [ -z "$got" ]; then
	echo "check_claims: README.md has no claims between its markers"
	exit 1
fi
if [ "$want" != "$got" ]; then
	echo "check_claims: README.md's claims are not BENCHMARKS.md's last run's:"
	printf '%s\n' "$want" >"${TMPDIR:-/tmp}/claims.want.$$"
	printf '%s\n' "$got" | diff "${TMPDIR:-/tmp}/claims.want.$$" - | sed 's/^/check_claims: /'
	rm -f "${TMPDIR:-/tmp}/claims.want.$$"
	exit 1
fi
echo "check_claims: README's claims are the last run's"
