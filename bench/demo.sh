#!/bin/sh
# SPDX-License-Identifier: MIT
# demo.sh BUILDDIR: a short side by side of our yes and cat and the
# system's, into a pipe (a reader that splices, then one that read()s).
set -eu
top=$(cd "${1:-.}" && pwd)
sink=$top/bench/sink
for reader in splice read; do
	bytes=10000000000
	[ "$reader" = read ] && bytes=3000000000
	for yes in "$top/src/yes" "$(command -v yes)"; do
		printf '%-28s | reader %-6s: %8s GiB/s\n' "$yes" "$reader" \
			"$($yes | "$sink" $reader $bytes)"
	done
done

tmp=$(mktemp -d /var/tmp/fastio-demo.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
head -c 1000000000 /dev/urandom >"$tmp/data"
find /usr/include -name '*.h' | head -2000 | xargs cat >"$tmp/text"
for i in 1 2 3; do cat "$tmp/text" "$tmp/text"; done >"$tmp/text6"
cat "$tmp/data" "$tmp/text6" >/dev/null
for reader in splice read; do
	for cat in "$top/src/cat" "$(command -v cat)"; do
		printf '%-28s | 1 GB file, reader %-6s: %8s GiB/s\n' "$cat" \
			"$reader" "$($cat "$tmp/data" | "$sink" $reader 1000000000)"
	done
done
for cat in "$top/src/cat" "$(command -v cat)"; do
	t0=$(date +%s%N)
	$cat -n "$tmp/text6" >/dev/null
	t1=$(date +%s%N)
	printf '%-28s | cat -n on %s MB of text: %5s ms\n' "$cat" \
		"$(($(stat -c %s "$tmp/text6") / 1000000))" "$(((t1 - t0) / 1000000))"
done
