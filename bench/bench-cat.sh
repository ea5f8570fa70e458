#!/bin/sh
# SPDX-License-Identifier: MIT
# bench-cat.sh BUILDDIR: our cat against the peers installed here, on the
# workloads of issue 3: a 2 GB cached file into a reader that splices to
# /dev/null and one that read()s; file to file on one filesystem; 100,000
# tiny files on tmpfs through xargs; the formatting options on 500 MB of
# text. Runs are interleaved (A B C A B C ...) and medians reported, as
# the machine is shared and its speed drifts. Environment: RUNS (default
# 5), DATA (directory for the test files, default /var/tmp/fastio-bench,
# kept between runs), TINY (tmpfs directory, default /dev/shm), ONLY (a
# subset of "big file tiny format").
set -eu
top=$(cd "${1:-.}" && pwd)
sink=$top/bench/sink
runs=${RUNS:-5}
data=${DATA:-/var/tmp/fastio-bench}
tiny=${TINY:-/dev/shm}/fastio-bench-tiny
only=${ONLY:-big file tiny format}

# name=command; the newest GNU and uutils (shared/tools/newest-peers.sh)
# are used when present, Debian 12's own as well.
set -- "fastio=$top/src/cat"
[ -x /opt/peers/bin/gnu/cat ] && set -- "$@" "gnu-newest=/opt/peers/bin/gnu/cat"
set -- "$@" "gnu-system=/bin/cat"
[ -x /opt/peers/bin/uutils/cat ] && set -- "$@" "uutils-newest=/opt/peers/bin/uutils/cat"
[ -x /usr/lib/cargo/bin/coreutils/cat ] && set -- "$@" "uutils-system=/usr/lib/cargo/bin/coreutils/cat"
command -v busybox >/dev/null && set -- "$@" "busybox=busybox cat"
command -v toybox >/dev/null && set -- "$@" "toybox=toybox cat"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$tiny"' EXIT
mkdir -p "$data"

median() { sort -g "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
now() { date +%s%N; }
# Milliseconds a shell command line takes, or "failed".
ms() {
	t0=$(now)
	if sh -c "$1"; then
		t1=$(now)
		echo $(((t1 - t0) / 1000000))
	else
		echo failed
	fi
}
# Peak RSS in KiB of a shell command line's longest-lived process.
rss() { { /usr/bin/time -f '%M' sh -c "$1"; } 2>&1 | tail -1; }

printf '%s, %s, kernel %s, %s runs, %s\n' \
	"$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')" \
	"$(nproc) cores" "$(uname -r)" "$runs" "$(date -u +%Y-%m-%d)"

# One table row: name, value, fastio / it as a ratio of rates when higher
# is better, of times when lower is.
row() { # name value ours better
	echo "$1 $2 $3 $4" | awk '{ r = $4 == "higher" ? $3 / $2 : $2 / $3;
		printf "| %s | %s | %.2fx %s |\n", $1, $2, r, (r >= 1 ? "faster" : "slower") }'
}

# A table over every peer: title, unit, result suffix, higher|lower.
table() {
	title=$1 unit=$2 suffix=$3 better=$4
	shift 4
	echo
	echo "$title"
	echo
	echo "| cat | $unit | fastio vs it |"
	echo '|---|---:|---:|'
	ours=$(median "$tmp/fastio.$suffix")
	for spec in "$@"; do
		name=${spec%%=*}
		row "$name" "$(median "$tmp/$name.$suffix")" "$ours" "$better"
	done
}

big=$data/big-2g
if echo "$only" | grep -qw big || echo "$only" | grep -qw file; then
	[ -s "$big" ] || head -c 2000000000 /dev/urandom >"$big"
	cat "$big" >/dev/null # into the page cache
fi

if echo "$only" | grep -qw big; then
	bytes=$(stat -c %s "$big")
	i=0
	while [ "$i" -lt "$runs" ]; do
		for spec in "$@"; do
			name=${spec%%=*} cmd=${spec#*=}
			$cmd "$big" | "$sink" splice "$bytes" >>"$tmp/$name.splice"
			$cmd "$big" | "$sink" read "$bytes" >>"$tmp/$name.read"
		done
		i=$((i + 1))
	done
	for kind in splice read; do
		table "2 GB cached file into a reader that uses $kind, GiB/s (higher is better)" \
			GiB/s "$kind" higher "$@"
	done
fi

if echo "$only" | grep -qw file; then
	# 500 MB: copies of 2 GB spend most of their time waiting for the VM
	# to back fresh page cache, 0.5 s or 3-4 s at random for every cat.
	mid=$data/mid-500m
	[ -s "$mid" ] || head -c 500000000 "$big" >"$mid"
	cat "$mid" >/dev/null
	out=$data/copy-out
	i=0
	# A copy sometimes takes several times as long, depending on what the
	# copy before it left behind (page cache to free, writeback), so each
	# round runs the peers in a new random order.
	while [ "$i" -lt "$runs" ]; do
		for idx in $(seq $# | shuf); do
			eval "spec=\${$idx}"
			name=${spec%%=*} cmd=${spec#*=}
			rm -f "$out"
			sync
			ms "$cmd '$mid' > '$out'" >>"$tmp/$name.file"
			cmp -s "$mid" "$out" || echo "$name: copy differs" >&2
		done
		i=$((i + 1))
	done
	rm -f "$out"
	table "500 MB file to a new file on the same filesystem ($(stat -f -c %T "$data")), ms (lower is better)" \
		ms file lower "$@"
fi

if echo "$only" | grep -qw tiny; then
	rm -rf "$tiny"
	mkdir -p "$tiny"
	# 100,000 files of 20-30 bytes in 100 directories.
	awk -v d="$tiny" 'BEGIN { for (i = 0; i < 100000; i++) {
		f = sprintf("%s/%02d/f%06d", d, i % 100, i);
		if (i < 100) system("mkdir -p " d "/" sprintf("%02d", i));
		printf "file %d of the tiny set\n", i > f; close(f) } }'
	(cd "$tiny" && find . -type f | sort >"$tmp/list")
	i=0
	while [ "$i" -lt "$runs" ]; do
		for spec in "$@"; do
			name=${spec%%=*} cmd=${spec#*=}
			ms "cd '$tiny' && xargs $cmd < '$tmp/list' > '$tmp/tiny-out'" >>"$tmp/$name.tiny"
		done
		i=$((i + 1))
	done
	table "100,000 tiny files on tmpfs, xargs cat > file, ms (lower is better)" \
		ms tiny lower "$@"
	rm -rf "$tiny"
fi

if echo "$only" | grep -qw format; then
	text=$data/text-500m small=$data/text-12m
	if [ ! -s "$text" ]; then
		find /usr/include -name '*.h' | sort | xargs cat >"$tmp/seed"
		while [ "$(stat -c %s "$text" 2>/dev/null || echo 0)" -lt 500000000 ]; do
			cat "$tmp/seed" >>"$text"
		done
		truncate -s 500000000 "$text"
		head -c 12500000 "$text" >"$small"
	fi
	cat "$text" >/dev/null
	echo
	echo "500 MB of C headers ($(wc -l <"$text") lines) to /dev/null, ms (lower is better);"
	echo "busybox and toybox format a 12.5 MB prefix and their time is multiplied by 40"
	echo "(they run at 0.1-0.2 GB/s); n/a: option not supported; fails: crashed or"
	echo "exited non-zero on this input."
	echo
	printf '| cat |'
	for o in -n -b -s -v -A -E -T; do printf ' %s ms | vs it |' "$o"; done
	echo
	printf '|---|'
	for o in -n -b -s -v -A -E -T; do printf -- '---:|---:|'; done
	echo
	for o in -n -b -s -v -A -E -T; do
		i=0
		while [ "$i" -lt "$runs" ]; do
			for spec in "$@"; do
				name=${spec%%=*} cmd=${spec#*=}
				case $name in
				busybox | toybox) f=$small scale=40 ;;
				*) f=$text scale=1 ;;
				esac
				$cmd $o /dev/null >/dev/null 2>&1 || continue
				t=$(ms "$cmd $o '$f' > /dev/null 2>&1")
				if [ "$t" = failed ]; then
					touch "$tmp/$name.fail$o"
				else
					echo $((t * scale)) >>"$tmp/$name.fmt$o"
				fi
			done
			i=$((i + 1))
		done
	done
	for spec in "$@"; do
		name=${spec%%=*}
		printf '| %s |' "$name"
		for o in -n -b -s -v -A -E -T; do
			if [ -e "$tmp/$name.fail$o" ]; then
				printf ' fails | |'
			elif [ -s "$tmp/$name.fmt$o" ]; then
				m=$(median "$tmp/$name.fmt$o")
				ours=$(median "$tmp/fastio.fmt$o")
				echo "$m $ours" | awk '{ printf " %s | %.2fx |", $1, $1 / $2 }'
			else
				printf ' n/a | |'
			fi
		done
		echo
	done
	echo
	echo 'Peak RSS, KiB: plain 2 GB file into a pipe / -n on the text'
	echo
	echo '| cat | plain | -n |'
	echo '|---|---:|---:|'
	for spec in "$@"; do
		name=${spec%%=*} cmd=${spec#*=}
		[ -s "$big" ] && a=$(rss "$cmd '$big' >/dev/null") || a=-
		b=$(rss "$cmd -n '$text' >/dev/null" 2>/dev/null) || b=-
		echo "| $name | $a | $b |"
	done
fi
