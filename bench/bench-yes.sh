#!/bin/sh
# SPDX-License-Identifier: MIT
# bench-yes.sh BUILDDIR: our yes against the peers installed here, into a
# reader that splices to /dev/null and one that read()s 128 KiB at a time.
# Runs are interleaved (A B C A B C ...) and medians reported, because the
# machine is shared and its speed drifts. Environment: RUNS (default 5),
# SPLICE_BYTES (20 GB), READ_BYTES (4 GB), PLACEMENTS (default "free split
# same": where the scheduler likes, producer and reader pinned to CPUs 0
# and 1, both pinned to CPU 0; with 2 cores the rate depends mostly on it).
set -eu
top=${1:-.}
sink=$top/bench/sink
runs=${RUNS:-5}
splice_bytes=${SPLICE_BYTES:-20000000000}
read_bytes=${READ_BYTES:-4000000000}

# name=command; the newest GNU and uutils (shared/tools/newest-peers.sh)
# are used when present, Debian 12's own otherwise or as well.
set -- "fastio=$top/src/yes"
[ -x /opt/peers/bin/gnu/yes ] && set -- "$@" "gnu-newest=/opt/peers/bin/gnu/yes"
set -- "$@" "gnu-system=/usr/bin/yes"
[ -x /opt/peers/bin/uutils/yes ] && set -- "$@" "uutils-newest=/opt/peers/bin/uutils/yes"
[ -x /usr/lib/cargo/bin/coreutils/yes ] && set -- "$@" "uutils-system=/usr/lib/cargo/bin/coreutils/yes"
command -v busybox >/dev/null && set -- "$@" "busybox=busybox yes"

# busybox writes one line per call (0.13 GiB/s here): it gets a fortieth of
# the bytes, so that a run takes seconds, not minutes.
bytes_for() {
	case $1 in
	busybox) echo $(($2 / 40)) ;;
	*) echo "$2" ;;
	esac
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -g "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

printf '%s, %s, kernel %s, %s runs, %s\n' \
	"$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')" \
	"$(nproc) cores" "$(uname -r)" "$runs" "$(date -u +%Y-%m-%d)"

for place in ${PLACEMENTS:-free split same}; do
	case $place in
	free) pa="" pb="" ;;
	split) pa="taskset -c 0" pb="taskset -c 1" ;;
	same) pa="taskset -c 0" pb="taskset -c 0" ;;
	esac
	rm -f "$tmp"/*
	i=0
	while [ "$i" -lt "$runs" ]; do
		for spec in "$@"; do
			name=${spec%%=*}
			cmd=${spec#*=}
			$pa $cmd | $pb "$sink" splice "$(bytes_for "$name" "$splice_bytes")" >>"$tmp/$name.splice"
			$pa $cmd | $pb "$sink" read "$(bytes_for "$name" "$read_bytes")" >>"$tmp/$name.read"
		done
		i=$((i + 1))
	done
	echo
	echo "Placement: $place"
	echo
	echo '| yes | splice reader GiB/s | fastio / it | read() reader GiB/s | fastio / it | peak RSS KiB |'
	echo '|---|---:|---:|---:|---:|---:|'
	ours_s=$(median "$tmp/fastio.splice")
	ours_r=$(median "$tmp/fastio.read")
	for spec in "$@"; do
		name=${spec%%=*}
		cmd=${spec#*=}
		s=$(median "$tmp/$name.splice")
		r=$(median "$tmp/$name.read")
		rss=$( { /usr/bin/time -f '%M' sh -c "$cmd | head -c 1000000000 >/dev/null" ; } 2>&1 | tail -1)
		echo "$name $s $ours_s $r $ours_r $rss" | awk '{ printf "| %s | %.1f | %.2fx | %.1f | %.2fx | %s |\n", $1, $2, $3 / $2, $4, $5 / $4, $6 }'
	done
done
