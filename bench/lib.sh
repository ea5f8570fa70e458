# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# Sourced by bench.sh, cold.sh, demo.sh, smallfiles.sh and sweep.sh: the
# peers installed here, one pipebench --compare over them, the medians of
# its JSON summary, the placements, the formatting text, the machine line.
# The caller sets $top (the build tree), $pb (our pipebench), $tmp (a
# scratch directory), $runs, and $reader (a prefix placing pipebench, or
# empty) if it places the reader. GNU_HEAD names a directory holding GNU's
# development tree's cat and yes, if one was built (optional).
# shellcheck disable=SC2154 # the caller's variables
head=${GNU_HEAD:-}
peers_dir=${PEERS_DIR:-/opt/peers}

# The peers of a tool as "name=command" words: ours, GNU's development
# tree (GNU_HEAD), the newest GNU and uutils (bench/peers.sh --install
# puts them under /opt/peers), then Debian's. With "strong", without
# Debian's uutils 0.0.17, 5-40x slower than the rest (24 s a run
# formatting). uutils 0.0.17's yes has no --version: then the Debian
# package's.
version() {
	v=$("$1" --version 2>/dev/null | sed -n '1s/.* //p')
	[ -n "$v" ] || v=$(dpkg-query -W -f '${Version}' rust-coreutils 2>/dev/null | sed 's/-[^-]*$//')
	echo "$v"
}
peers() { # tool [strong]
	if [ "$1" = yes ]; then
		echo "fastio=$top/src/yes"
	else
		echo "fastio=$top/src/$1/$1"
	fi
	[ -n "$head" ] && [ -x "$head/$1" ] && echo "gnu-head=$head/$1"
	p=$peers_dir/bin/gnu/$1
	[ -x "$p" ] && echo "gnu-$(version "$p")=$p"
	echo "gnu-$(version "/usr/bin/$1")=/usr/bin/$1"
	p=$peers_dir/bin/uutils/$1
	[ -x "$p" ] && echo "uutils-$(version "$p")=$p"
	p=/usr/lib/cargo/bin/coreutils/$1
	[ "${2:-}" != strong ] && [ -x "$p" ] && echo "uutils-$(version "$p")=$p"
	return 0
}

# "MEDIAN<TAB>NAME" per row of the JSON summary that pipebench --compare
# --json printed last on the standard error saved in FILE.
medians() { # file
	[ -s "$1" ] || return 0
	sed -n 's/^{.*"results":\[//p' "$1" | awk 'BEGIN { RS = "},{\"command\":" } {
		n = ""; m = ""
		if (match($0, /"name":"[^"]*"/)) n = substr($0, RSTART + 8, RLENGTH - 9)
		if (match($0, /"median":[0-9.]+/)) m = substr($0, RSTART + 9, RLENGTH - 9)
		if (n != "" && m != "") print m "\t" n }'
}

# pipebench --compare -q with OPTIONS (words), then --name NAME COMMAND for
# each "name=command" SPEC, COMMAND being the template with its @ replaced
# by the command.
compare() { # options template spec...
	opts=$1 template=$2
	shift 2
	for spec in "$@"; do
		set -- "$@" --name "${spec%%=*}" "${template%%@*}${spec#*=}${template#*@}"
		shift
	done
	# shellcheck disable=SC2086 # opts and reader are words
	${reader:-} "$pb" --compare -q $opts "$@"
}

# The formatting benchmarks' text, unless it exists: 500 MB of the C
# headers installed here, over and over.
make_text() { # file
	[ -s "$1" ] && return 0
	find /usr/include -name '*.h' | sort | xargs cat >"$tmp/seed"
	while [ "$(stat -c %s "$1" 2>/dev/null || echo 0)" -lt 500000000 ]; do
		cat "$tmp/seed" >>"$1"
	done
	truncate -s 500000000 "$1"
}

# Where the producer and the reader run: free (where the scheduler likes),
# split (producer on CPU 0, reader on CPU 1), same (both on CPU 0).
# shellcheck disable=SC2034 # on0 is for the caller
place() { # placement: sets $on0 (a prefix for producers) and $reader
	case $1 in
	free) on0="" reader="" ;;
	split) on0="taskset -c 0 " reader="taskset -c 1" ;;
	same) on0="taskset -c 0 " reader="taskset -c 0" ;;
	esac
}

# A titled table: compare() over the peers, the reader (pipebench) placed
# by $reader; its stderr, the JSON summary last, stays in $tmp/ID.err.
table() { # id title options... -- template peers...
	id=$1 title=$2
	shift 2
	opts=""
	while [ "$1" != -- ]; do
		opts="$opts $1"
		shift
	done
	shift
	printf '\n#### %s\n\n' "$title"
	compare "--json --runs $runs $opts" "$@" 2>"$tmp/$id.err" ||
		{ cat "$tmp/$id.err" >&2; return 1; }
}

# The line that opens each workload's tables: date, CPU, kernel build, the
# costs bench/machine.c measures, runs.
machine() {
	[ -x "$tmp/machine" ] ||
		${CC:-cc} -O2 -o "$tmp/machine" "$(dirname "$0")/machine.c"
	printf 'Measured %s on %s, %s cores, kernel `%s`; %s; %s runs each.\n' \
		"$(date -u +%Y-%m-%d)" \
		"$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')" \
		"$(nproc)" "$(uname -rv)" "$("$tmp/machine")" "$runs"
}
