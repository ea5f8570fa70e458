#!/bin/sh
# SPDX-License-Identifier: MIT
# bench.sh BUILDDIR WORKLOAD...: the project's benchmarks against the peers
# installed here, every one measured by our pipebench --compare: runs
# interleaved (A B C A B C ...), medians and min-max, each rate divided by
# the first row's (ours). Workloads: yes, cat, pipebench. Each prints one
# Markdown table per measurement; with UPDATE=FILE (make bench passes
# BENCHMARKS.md) the lines between "<!-- bench:WORKLOAD -->" and
# "<!-- /bench:WORKLOAD -->" in FILE are replaced by them.
# Environment: RUNS (default 5), PLACEMENT (free: where the scheduler likes;
# split: yes on CPU 0, pipebench on CPU 1; only the yes workload), DATA (directory for test
# files, default /var/tmp/fastio-bench, kept), TINY (a tmpfs directory,
# default /dev/shm).
set -eu
top=$(cd "${1:-.}" && pwd)
shift
pb=$top/src/pipebench
runs=${RUNS:-5}
data=${DATA:-/var/tmp/fastio-bench}
tiny=${TINY:-/dev/shm}/fastio-bench-tiny
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$tiny"' EXIT
mkdir -p "$data"

case ${PLACEMENT:-free} in
free) on0="" on1="" ;;
split) on0="taskset -c 0 " on1="taskset -c 1" ;;
*) echo "bench.sh: PLACEMENT is free or split" >&2 && exit 2 ;;
esac

# The peers of a tool as "name=command" words: ours, the newest GNU and
# uutils (shared/tools/newest-peers.sh installs them under /opt/peers),
# then Debian's.
# uutils 0.0.17's yes has no --version: then the Debian package's.
version() {
	v=$("$1" --version 2>/dev/null | sed -n '1s/.* //p')
	[ -n "$v" ] || v=$(dpkg-query -W -f '${Version}' rust-coreutils 2>/dev/null | sed 's/-[^-]*$//')
	echo "$v"
}
peers() {
	echo "fastio=$top/src/$1"
	p=/opt/peers/bin/gnu/$1
	[ -x "$p" ] && echo "gnu-$(version "$p")=$p"
	echo "gnu-$(version "/usr/bin/$1")=/usr/bin/$1"
	p=/opt/peers/bin/uutils/$1
	[ -x "$p" ] && echo "uutils-$(version "$p")=$p"
	p=/usr/lib/cargo/bin/coreutils/$1
	[ -x "$p" ] && echo "uutils-$(version "$p")=$p"
}

# Arguments for compare: NAME and COMMAND lines for each "name=command",
# COMMAND being the template with its @ replaced by the command.
each() { # template name=command...
	template=$1
	shift
	for spec in "$@"; do
		printf '%s\n%s\n' "${spec%%=*}" "${template%%@*}${spec#*=}${template#*@}"
	done
}

# Run compare over each()'s output: names and commands as arguments.
table() { # title options... -- template peers...
	title=$1
	shift
	opts=""
	while [ "$1" != -- ]; do
		opts="$opts $1"
		shift
	done
	shift
	template=$1
	shift
	each "$template" "$@" >"$tmp/specs"
	set --
	while IFS= read -r name && IFS= read -r cmd; do
		set -- "$@" --name "$name" "$cmd"
	done <"$tmp/specs"
	printf '\n#### %s\n\n' "$title"
	# shellcheck disable=SC2086 # opts are words
	$on1 "$pb" --compare -q --runs "$runs" $opts "$@"
}

machine() {
	printf 'Measured %s on %s, %s cores, kernel %s; %s runs each, placement %s.\n' \
		"$(date -u +%Y-%m-%d)" \
		"$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')" \
		"$(nproc)" "$(uname -r)" "$runs" "${PLACEMENT:-free}"
}

workload_yes() {
	machine
	set -- $(peers yes)
	table "yes into pipebench splicing to /dev/null, 20 GiB" \
		--bytes 20G -- "$on0@" "$@"
	table "yes into pipebench --touch (read() and write() to /dev/null), 4 GiB" \
		--bytes 4G --touch -- "$on0@" "$@"
	# busybox writes one line per call (0.13 GiB/s): a table of its own.
	if command -v busybox >/dev/null; then
		table "yes against busybox, 500 MiB, splicing reader" \
			--bytes 500M -- "$on0@" "fastio=$top/src/yes" "busybox=busybox yes"
	fi
}

workload_cat() {
	machine
	set -- $(peers cat)
	command -v busybox >/dev/null && set -- "$@" "busybox=busybox cat"
	command -v toybox >/dev/null && set -- "$@" "toybox=toybox cat"
	big=$data/big-2g mid=$data/mid-500m
	[ -s "$big" ] || head -c 2000000000 /dev/urandom >"$big"
	[ -s "$mid" ] || head -c 500000000 "$big" >"$mid"
	cat "$big" "$mid" >/dev/null # into the page cache
	table "2 GB cached file into pipebench splicing to /dev/null" \
		-- "@ $big" "$@"
	table "2 GB cached file into pipebench --touch" \
		--touch -- "@ $big" "$@"
	# Wall time from start to exit, the output truncated by the shell
	# (part of every command's time alike). A copy is slowed by what the
	# one before it left behind (page cache to free, writeback): a new
	# random order each round.
	table "500 MB file to a file on the same filesystem ($(stat -f -c %T "$data")), rate = 500 MB / wall time" \
		--wall --shuffle --size 500000000 -- "@ $mid > $data/copy-out" "$@"
	rm -f "$data/copy-out"

	rm -rf "$tiny"
	mkdir -p "$tiny"
	# 100,000 files of 20-30 bytes in 100 directories.
	awk -v d="$tiny" 'BEGIN { for (i = 0; i < 100000; i++) {
		f = sprintf("%s/%02d/f%06d", d, i % 100, i);
		if (i < 100) system("mkdir -p " d "/" sprintf("%02d", i));
		printf "file %d of the tiny set\n", i > f; close(f) } }'
	(cd "$tiny" && find . -type f | sort >"$tmp/list")
	table "100,000 tiny files on tmpfs through xargs into pipebench, wall time" \
		--wall --shuffle -- "cd $tiny && xargs @ < $tmp/list" "$@"
	rm -rf "$tiny"

	text=$data/text-500m small=$data/text-12m
	if [ ! -s "$text" ]; then
		find /usr/include -name '*.h' | sort | xargs cat >"$tmp/seed"
		while [ "$(stat -c %s "$text" 2>/dev/null || echo 0)" -lt 500000000 ]; do
			cat "$tmp/seed" >>"$text"
		done
		truncate -s 500000000 "$text"
	fi
	[ -s "$small" ] || head -c 12500000 "$text" >"$small"
	cat "$text" >/dev/null
	for o in -n -b -s -v -A -E -T; do
		# Peers that lack the option, or fail on this input, sit out.
		set -- $(for spec in $(peers cat); do
			${spec#*=} $o "$small" >/dev/null 2>&1 && echo "$spec"
		done)
		table "cat $o on 500 MB of C headers into pipebench" \
			-- "@ $o $text" "$@"
	done
	# busybox and toybox format at 0.1-0.2 GB/s: on 12.5 MB.
	for o in -v -e -t; do
		set -- "fastio=$top/src/cat"
		for t in busybox toybox; do
			command -v $t >/dev/null && $t cat $o "$small" >/dev/null 2>&1 &&
				set -- "$@" "$t=$t cat"
		done
		[ $# -gt 1 ] && table "cat $o on 12.5 MB of C headers, against busybox and toybox" \
			-- "@ $o $small" "$@"
	done
}

workload_pipebench() {
	machine
	yes=$top/src/yes
	set -- "fastio=$top/src/pipebench -Q"
	command -v pv >/dev/null && set -- "$@" "pv $(pv --version | sed -n '1s/^pv \([^ ]*\).*/\1/p')=pv -q"
	[ -x /usr/bin/pipebench ] && set -- "$@" "pipebench 0.40=/usr/bin/pipebench -Q"
	set -- "$@" "cat (reference)=$top/src/cat"
	table "Pass-through: our yes into each, into pipebench splicing to /dev/null, 8 GiB" \
		--bytes 8G -- "$yes | @" "$@"
	table "Pass-through: our yes into each, into pipebench --touch, 4 GiB" \
		--bytes 4G --touch -- "$yes | @" "$@"
	# Straight to /dev/null, each stopping by itself; pipebench 0.40
	# cannot stop and is left out.
	set -- "fastio=$top/src/pipebench -Q --bytes 20G"
	command -v pv >/dev/null && set -- "$@" "pv $(pv --version | sed -n '1s/^pv \([^ ]*\).*/\1/p')=pv -q -S -s 20G"
	table "Pass-through of our yes to /dev/null, 20 GiB, wall time" \
		--wall --size 20G -- "$yes | @ > /dev/null" "$@"
}

for w in "$@"; do
	"workload_$w" | tee "$tmp/$w.md"
	if [ -n "${UPDATE:-}" ]; then
		awk -v w="$w" -v f="$tmp/$w.md" '
			$0 == "<!-- bench:" w " -->" { print; while ((getline l < f) > 0) print l; skip = 1; next }
			$0 == "<!-- /bench:" w " -->" { skip = 0 }
			!skip' "$UPDATE" >"$tmp/updated"
		cat "$tmp/updated" >"$UPDATE"
	fi
done
