# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# Sourced by bench.sh, cold.sh, demo.sh, smallfiles.sh and sweep.sh: the
# peers installed here (and how a short pipeline runs them), one
# pipebench --compare over them, the medians of its JSON summary, the
# placements, the formatting text, the machine line.
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

# A peer's command as a short pipeline should run it: bench/peers.sh's
# wrappers (a shell that execs the root's loader) would add a shell's
# start to every run, so their exec line is used instead.
direct() { # command
	case $1 in
	/*) [ -f "$1" ] && sed -n '1{/^#!\/bin\/sh/!q}; s/^exec \(.*\) "\$@"$/\1/p' "$1" | grep . ||
		echo "$1" ;;
	*) echo "$1" ;;
	esac
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

# "MEDIAN<TAB>MIN<TAB>MAX<TAB>NAME" per row of the JSON summary in FILE.
ranges() { # file
	[ -s "$1" ] || return 0
	sed -n 's/^{.*"results":\[//p' "$1" | awk 'BEGIN { RS = "},{\"command\":" } {
		n = m = lo = hi = ""
		if (match($0, /"name":"[^"]*"/)) n = substr($0, RSTART + 8, RLENGTH - 9)
		if (match($0, /"median":[0-9.]+/)) m = substr($0, RSTART + 9, RLENGTH - 9)
		if (match($0, /"min":[0-9.]+/)) lo = substr($0, RSTART + 6, RLENGTH - 6)
		if (match($0, /"max":[0-9.]+/)) hi = substr($0, RSTART + 6, RLENGTH - 6)
		if (n != "" && m != "") print m "\t" lo "\t" hi "\t" n }'
}

# A titled table: compare() over the peers, the reader (pipebench) placed
# by $reader; its stderr, the JSON summary last, stays in $tmp/ID.err.
# Where a row's runs spread wider than a third of its median, $runs
# cannot tell it from its neighbours (yes into a splicing reader ran
# 24-59 GiB/s in 15 runs): the table is measured again with RUNS_WIDE
# (default 15) runs, and says so.
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
	n=$runs
	while :; do
		compare "--json --runs $n $opts" "$@" >"$tmp/$id.md" 2>"$tmp/$id.err" ||
			{ cat "$tmp/$id.err" >&2; return 1; }
		wide=$(ranges "$tmp/$id.err" | awk -F '\t' '
			$1 > 0 && ($3 - $2) / $1 > 1 / 3 { w = 1 } END { print w + 0 }')
		[ "$wide" = 1 ] && [ "$n" -lt "${RUNS_WIDE:-15}" ] || break
		n=${RUNS_WIDE:-15}
	done
	[ "$n" = "$runs" ] || printf '%s runs: in %s a row spread wider than a third of its median.\n\n' "$n" "$runs"
	# pipebench's last column is each row over the first; here every
	# ratio is a speed ratio of the first row (ours, or $first's): its
	# median over each row's.
	ranges "$tmp/$id.err" | cut -f 1 >"$tmp/$id.medians"
	awk -v medians="$tmp/$id.medians" '
		BEGIN { while ((getline m < medians) > 0) med[++k] = m }
		/^\| command .* vs [^|]* \|$/ { sub(/vs [^|]* \|$/, "'"${first:-ours}"' / it |"); print; next }
		/^\|:--/ { print; next }
		/^\| / && med[++i] > 0 {
			sub(/[^|]* \|$/, sprintf(" %.2f |", med[1] / med[i])); print; next }
		{ print }' "$tmp/$id.md"
	# Where a peer is faster than ours, the table says so.
	ranges "$tmp/$id.err" | awk -F '\t' '
		$4 == "fastio" { ours = $1 }
		$4 !~ /^(fastio|ceiling)/ { n[++k] = $4; m[k] = $1 }
		END {
			if (!ours) exit
			for (i = 1; i <= k; i++)
				if (m[i] > ours)
					s = s (s ? ", " : "") sprintf("%s (ours %.2fx)", n[i], ours / m[i])
			if (s) printf "\nFaster than ours in this table: %s.\n", s
		}'
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
