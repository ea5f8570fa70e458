#!/bin/sh
# SPDX-License-Identifier: MIT
# demo.sh BUILDDIR: a short side by side of our yes and the system's yes
# into a pipe (a reader that splices, then one that read()s the data).
set -eu
top=${1:-.}
sink=$top/bench/sink
for reader in splice read; do
	bytes=10000000000
	[ "$reader" = read ] && bytes=3000000000
	for yes in "$top/src/yes" "$(command -v yes)"; do
		printf '%-28s | reader %-6s: %8s GiB/s\n' "$yes" "$reader" \
			"$($yes | "$sink" $reader $bytes)"
	done
done
