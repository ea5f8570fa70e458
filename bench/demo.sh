#!/bin/sh
# SPDX-License-Identifier: MIT
# demo.sh BUILDDIR: one table a person reads in five seconds. For each
# workload, our rate, the best peer's found here (lib.sh: the system's
# GNU cat and yes always; bench/peers.sh --install's newest GNU and
# uutils, GNU_HEAD's development tree if given; busybox's cat when
# present) and ours
# divided by it. Measured by our pipebench --compare: 5 interleaved
# runs, medians. make bench is the full benchmark; this is its summary.
set -eu
top=$(cd "${1:-.}" && pwd)
pb=$top/src/pipebench/pipebench
tmp=$(mktemp -d /var/tmp/fastio-demo.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

# A table row: workload title, pipebench options, then a command template
# whose @ is each program in turn (ours, peers(), busybox's cat; busybox's
# yes, at 0.16 GB/s, would take minutes and never be the best).
row() { # title options template tool
	title=$1 opts=$2 template=$3 tool=$4
	# shellcheck disable=SC2046 # one word a peer
	set -- $(peers "$tool")
	[ "$tool" = cat ] && command -v busybox >/dev/null &&
		set -- "$@" "busybox=busybox cat"
	compare "--json --runs 5 $opts" "$template" "$@" 2>"$tmp/err" >/dev/null ||
		{ cat "$tmp/err" >&2; exit 1; }
	medians "$tmp/err" | awk -F '\t' -v title="$title" '
		$2 == "fastio" { ours = $1; next }
		$1 + 0 > best { best = $1 + 0; name = $2 }
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

# The commonest yes of all, read a line and closed: the wall time of the
# whole pipeline (bench/short.c, 100 interleaved runs, medians), the
# ratio the best peer's time over ours (higher is faster, as above).
${CC:-cc} -O2 -o "$tmp/short" "$(dirname "$0")/short.c"
# shellcheck disable=SC2046 # one word a peer
set -- $(peers yes)
for spec in "$@"; do
	set -- "$@" "${spec%%=*}=$(direct "${spec#*=}") | head -n1"
	shift
done
"$tmp/short" 100 "$@" | awk -F '\t' '
	$1 == "fastio" { ours = $2; next }
	!best || $2 < best { best = $2; name = $1 }
	END {
		printf "| %-36s | %-14s | %12.2f ms | %12.2f ms | %6.2fx |\n",
			"yes | head -n1, whole pipeline", name, best, ours, best / ours
	}'
