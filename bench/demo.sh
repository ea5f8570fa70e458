#!/bin/sh
# SPDX-License-Identifier: MIT
# demo.sh BUILDDIR: one table a person reads in five seconds. For each
# workload, our rate, the best peer's found here (the system's GNU cat and
# yes always; GNU's development tree beside the project, /opt/peers'
# newest GNU and uutils, Debian's uutils, busybox's cat when present) and
# ours divided by it. Measured by our pipebench --compare: 5 interleaved
# runs, medians. make bench is the full benchmark; this is its summary.
set -eu
top=$(cd "${1:-.}" && pwd)
pb=$top/src/pipebench
head=${GNU_HEAD:-$(cd "$(dirname "$0")/../.." && pwd)/shared/peers/gnu-head}
tmp=$(mktemp -d /var/tmp/fastio-demo.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# "name=path" of each peer of a tool that is installed here.
peers() { # tool
	[ -x "$head/$1" ] && echo "gnu-head=$head/$1"
	[ -x "/opt/peers/bin/gnu/$1" ] && echo "gnu-newest=/opt/peers/bin/gnu/$1"
	echo "gnu-system=/usr/bin/$1"
	[ -x "/opt/peers/bin/uutils/$1" ] && echo "uutils-newest=/opt/peers/bin/uutils/$1"
	[ -x "/usr/lib/cargo/bin/coreutils/$1" ] &&
		echo "uutils-debian=/usr/lib/cargo/bin/coreutils/$1"
	# busybox's yes (0.16 GB/s) would take minutes and never be the best.
	[ "$1" = cat ] && command -v busybox >/dev/null &&
		echo "busybox=busybox cat"
	return 0
}

# A table row: workload title, pipebench options, then a command template
# whose @ is each program in turn.
row() { # title options template tool
	set -- "$1" "$2" "$3" "$(peers "$4")" "$4"
	title=$1 opts=$2 template=$3 list=$4 tool=$5
	set -- --name fastio "${template%%@*}$top/src/$tool${template#*@}"
	# One peer a line; a command may hold spaces ("busybox cat").
	ifs=$IFS
	IFS='
'
	for spec in $list; do
		set -- "$@" --name "${spec%%=*}" "${template%%@*}${spec#*=}${template#*@}"
	done
	IFS=$ifs
	# shellcheck disable=SC2086 # opts are words
	"$pb" --compare -q --json --runs 5 $opts "$@" 2>"$tmp/err" >/dev/null ||
		{ cat "$tmp/err" >&2; exit 1; }
	sed -n 's/^{.*"results":\[//p' "$tmp/err" | awk -v title="$title" '
		BEGIN { RS = "},{\"command\":" }
		match($0, /"name":"[^"]*"/) {
			n = substr($0, RSTART + 8, RLENGTH - 9)
			match($0, /"median":[0-9.]+/)
			m = substr($0, RSTART + 9, RLENGTH - 9) + 0
			if (n == "fastio") ours = m
			else if (m > best) { best = m; name = n }
		}
		END {
			printf "| %-36s | %-14s | %9.2f GB/s | %9.2f GB/s | %6.2fx |\n",
				title, name, best / 1e9, ours / 1e9, ours / best
		}'
}

${CC:-cc} -O2 -o "$tmp/machine" "$(dirname "$0")/machine.c" 2>/dev/null &&
	cost=$("$tmp/machine") || cost="costs not measured"
printf 'fastio-utils against the best peer installed here: %s, %s cores, kernel %s; %s\n' \
	"$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')" "$(nproc)" \
	"$(uname -rv)" "$cost"
echo "Rates (GB = 10^9 bytes) are medians of 5 interleaved runs into our pipebench; the ratio is ours / best peer."
echo
echo "| workload                             | best peer      |     best peer  |          ours  |  ratio  |"
echo "|:-------------------------------------|:---------------|---------------:|---------------:|--------:|"

head -c 1000000000 /dev/urandom >"$tmp/data"
find /usr/include -name '*.h' | head -2000 | xargs cat >"$tmp/text"
for i in 1 2 3; do cat "$tmp/text" "$tmp/text"; done >"$tmp/text6"
cat "$tmp/data" "$tmp/text6" >/dev/null
mb=$(($(stat -c %s "$tmp/text6") / 1000000))

row "yes -> reader that splices, 10 GiB" "--bytes 10G" "@" yes
row "yes -> reader that reads, 3 GiB" "--bytes 3G --touch" "@" yes
row "cat 1 GB file -> reader that splices" "" "@ $tmp/data" cat
row "cat -n, $mb MB of C headers" "" "@ -n $tmp/text6" cat
row "cat -A, $mb MB of C headers" "" "@ -A $tmp/text6" cat
