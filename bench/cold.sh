#!/bin/sh
# SPDX-License-Identifier: MIT
# cold.sh BUILDDIR: `cat f | consumer` when f is not in the page cache,
# against the consumer reading f itself, `dd bs=32k | consumer` and every
# peer cat installed here. Reads are throttled through the block I/O
# cgroup (v1 blkio.throttle.read_bps_device, or v2 io.max) so that reading
# and computing take comparable time, and the page cache is dropped before
# every run. Rounds interleave the pipelines; each cell is the median wall
# time of its rounds, beside the median time the hypervisor took from the
# guest's CPUs ("steal", /proc/stat) and the median of wall time less
# steal. Ceiling rows bound every cat. Prints Markdown (BENCHMARKS.md,
# "Cold files").
# Needs root, a file system on a block device for DATA, and a cgroup with
# the I/O controller; says what is missing and exits 77 otherwise.
# Environment: RUNS (rounds, default 7), DATA (default /var/tmp/fastio-bench),
# THROTTLES (MB/s, 0 for none; default "50 250 0"), CONSUMERS (default
# "mawk grep wc python"), SIZE (bytes of the file at 250 MB/s and
# unthrottled, default 500000000; at 50 MB/s a fifth of it), PEERS (no:
# only ours and the baselines).
set -eu
top=$(cd "${1:-.}" && pwd)
runs=${RUNS:-7}
data=${DATA:-/var/tmp/fastio-bench}
throttles=${THROTTLES:-50 250 0}
consumers=${CONSUMERS:-mawk grep wc python}
size=${SIZE:-500000000}
tmp=$(mktemp -d)
group=
cleanup() {
	[ -n "$group" ] && [ -d "$group" ] && rmdir "$group" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
skip() {
	echo "bench-cold: $*" >&2
	exit 77
}

[ "$(id -u)" = 0 ] || skip "needs root (drop_caches, cgroups)"
mkdir -p "$data"
[ "$(stat -f -c %T "$data")" != tmpfs ] || skip "$data is on tmpfs: no disk to be cold on"
for c in mawk python3 dd; do
	command -v $c >/dev/null || skip "needs $c"
done

# The disk under $data: throttles name a whole disk, not a partition.
dev=$(findmnt -n -o SOURCE -T "$data")
name=$(basename "$(readlink -f "$dev")")
[ -e "/sys/class/block/$name" ] || skip "$data is not on a block device ($dev)"
[ -e "/sys/class/block/$name/partition" ] &&
	name=$(basename "$(dirname "$(readlink -f "/sys/class/block/$name")")")
majmin=$(cat "/sys/class/block/$name/dev")

# A cgroup whose reads from that disk are throttled.
if [ -d /sys/fs/cgroup/blkio ]; then
	group=/sys/fs/cgroup/blkio/fastio-cold
	mkdir -p "$group"
	throttle() { echo "$majmin $1" >"$group/blkio.throttle.read_bps_device"; }
	unthrottle() { echo "$majmin 0" >"$group/blkio.throttle.read_bps_device"; }
elif grep -qw io /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
	echo +io >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null || true
	group=/sys/fs/cgroup/fastio-cold
	mkdir -p "$group"
	throttle() { echo "$majmin rbps=$1" >"$group/io.max"; }
	unthrottle() { echo "$majmin rbps=max" >"$group/io.max"; }
else
	skip "no cgroup with the I/O controller (v1 blkio or v2 io)"
fi

# The text: lines of 53 bytes, the seed's.
make_file() { # path bytes
	[ -s "$1" ] && [ "$(stat -c %s "$1")" = "$2" ] && return 0
	awk -v n="$2" 'BEGIN { for (i = 0; s < n; i++) {
		l = sprintf("%08d 00000002 00000003 00000004 2015-07-28T14:23:18", i)
		print l; s += length(l) + 1 } }' | head -c "$2" >"$1"
}

# The consumers, each as "reads stdin" and "reads the file named $F".
consumer() { # name -> sets $pipe_cmd and $file_cmd
	case $1 in
	mawk)
		pipe_cmd="mawk '\$5 ~ /00\$/ {n++} END {print n}'"
		file_cmd="$pipe_cmd \"\$F\""
		;;
	grep)
		pipe_cmd="grep -c '00\$'"
		file_cmd="$pipe_cmd \"\$F\""
		;;
	wc)
		pipe_cmd="wc -l"
		file_cmd="wc -l \"\$F\""
		;;
	python)
		printf 'import sys\nn = 0\nf = open(sys.argv[1]) if len(sys.argv) > 1 else sys.stdin\nfor line in f:\n    n += 1\nprint(n)\n' >"$tmp/lines.py"
		pipe_cmd="python3 $tmp/lines.py"
		file_cmd="python3 $tmp/lines.py \"\$F\""
		;;
	esac
}

# "name=cat command" for ours and every peer cat installed here.
cats() {
	echo "fastio=$top/src/cat/cat"
	[ "${PEERS:-yes}" = no ] && return 0
	[ -n "$head" ] && [ -x "$head/cat" ] && echo "gnu-head=$head/cat"
	p=$peers_dir/bin/gnu/cat
	[ -x "$p" ] && echo "gnu-$(version "$p")=$p"
	echo "gnu-$(version /usr/bin/cat)=/usr/bin/cat"
	p=$peers_dir/bin/uutils/cat
	[ -x "$p" ] && echo "uutils-$(version "$p")=$p"
	command -v busybox >/dev/null && echo "busybox=busybox cat"
	return 0
}

# Wall seconds of one run inside the throttled group, the cache dropped
# (with warm, the file read into it first instead), and the seconds the
# hypervisor took from the guest's CPUs meanwhile ("steal" in
# /proc/stat, in ticks of 1/100 s): a virtual machine's disk is emulated
# on the host's CPUs, which the vCPUs may have to wait for.
steal() { awk '$1 == "cpu" { print $9; exit }' /proc/stat; }
run() { # command (sh) [warm file]
	sync
	echo 3 >/proc/sys/vm/drop_caches
	[ -z "${2:-}" ] || cat "$2" >/dev/null
	a=$(steal)
	s=$(date +%s.%N)
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && eval "$1"' sh "$group" "$1" >/dev/null </dev/null
	e=$(date +%s.%N)
	echo "$s $e $a $(steal)" | awk '{ printf "%.3f\t%.2f\n", $2 - $1, ($4 - $3) / 100 }'
}

# "wall min max steal net" of a row's runs: the medians of wall time, of
# steal and of wall time less steal.
median() { awk -F '\t' '{ w[NR] = $1; s[NR] = $2; n[NR] = $1 - $2 }
	function sort(a, k, i, j, t) { for (i = 2; i <= k; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t } }
	function mid(a, k) { return (a[int((k + 1) / 2)] + a[int((k + 2) / 2)]) / 2 }
	END { sort(w, NR); sort(s, NR); sort(n, NR)
		printf "%.2f\t%.2f\t%.2f\t%.2f\t%.2f\n", mid(w, NR), w[1], w[NR], mid(s, NR), mid(n, NR) }'; }

# The targets for one table, from its rows' medians ("name<TAB>wall<TAB>
# net"), as speed ratios (the other's time over ours: above 1 ours is
# faster): ours at least 1.05x the best peer and 1.00x dd bs=32k and the
# consumer reading f. Each is met on wall time; or met net
# of steal, where the host's share of the two CPUs decided (both sides
# compared by their wall time less steal); or a tie at the ceiling, ours
# within 5% of the slowest ceiling row: the pipeline with f cached (what
# the pipe costs), the disk read alone (what the disk costs), and the
# consumer started on no input and then the disk read (what a cat that
# reads no further ahead than its pipes hold cannot hide); or not met.
verdict() { # consumer <medians
	awk -F '\t' -v c="$1 f" '
		function mark(wall, net) {
			return ours <= wall ? ", met" : net > 0 && oursnet <= net ? \
			    sprintf(", met net of steal (%.2f s against %.2f)", oursnet, net) : \
			    ours <= ceil * 1.05 ? ", a tie at the ceiling" : ", **not met**"
		}
		$1 == "fastio" { ours = $2; oursnet = $3; next }
		$1 == c { file = $2; filenet = $3; next }
		$1 == "dd bs=32k" { dd = $2; ddnet = $3; next }
		$1 ~ /^ceiling/ { if ($2 > ceil) ceil = $2; next }
		$1 ~ /^pv -L/ { next }
		best == "" || $2 < best { best = $2; who = $1 }
		bestnet == "" || $3 < bestnet { bestnet = $3 }
		END {
			printf "\nOurs %.2f s (%.2f net of steal): ", ours, oursnet
			if (best == "")
				printf "no peer cat measured"
			else
				printf "%.2fx the best peer (%s)%s", best / ours, who,
				    mark(best / 1.05, bestnet / 1.05)
			printf "; %.2fx dd bs=32k%s; %.2fx `%s`%s.\n",
			    dd / ours, mark(dd, ddnet), file / ours, c, mark(file, filenet)
		}'
}

printf 'Measured %s on %s, %s cores, kernel `%s`; disk %s (%s), read_ahead_kb %s; %s rounds each, page cache dropped before every run.\n' \
	"$(date +%F)" "$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)" \
	"$(nproc)" "$(uname -rv)" "$name" "$majmin" \
	"$(cat "/sys/class/block/$name/queue/read_ahead_kb")" "$runs"
for t in $throttles; do
	bytes=$size
	[ "$t" = 50 ] && bytes=$((size / 5))
	f=$data/cold-$bytes
	make_file "$f" "$bytes"
	if [ "$t" = 0 ]; then unthrottle; else throttle $((t * 1000000)); fi
	for c in $consumers; do
		consumer "$c"
		: >"$tmp/specs"
		printf '%s f\tF=%s; %s\n' "$c" "$f" "$file_cmd" >>"$tmp/specs"
		printf 'dd bs=32k\tdd if=%s bs=32k status=none | %s\n' "$f" "$pipe_cmd" >>"$tmp/specs"
		cats | while IFS= read -r spec; do
			printf '%s\t%s %s | %s\n' "${spec%%=*}" "${spec#*=}" "$f" "$pipe_cmd" >>"$tmp/specs"
		done
		# The ceiling of any cat here: ours with f already cached,
		# where the disk costs nothing and only the pipe remains.
		printf 'ceiling: fastio, f cached\t%s/src/cat/cat %s | %s\n' "$top" "$f" "$pipe_cmd" >>"$tmp/specs"
		# And the disk's: f read and thrown away, nothing computed.
		printf 'ceiling: the disk\tdd if=%s of=/dev/null bs=1M status=none\n' "$f" >>"$tmp/specs"
		# And the consumer's own start: it starts on no input, its
		# files read from the cold cache, then the disk is read. Until
		# the consumer reads, a cat moves no more than its pipes hold.
		printf 'ceiling: its start, then the disk\t%s </dev/null >/dev/null; dd if=%s of=/dev/null bs=1M status=none\n' "$pipe_cmd" "$f" >>"$tmp/specs"
		# A reference, not a ceiling: under a throttle, the consumer
		# fed from the cache at the disk's rate by pv, which catches
		# up after a stall as a throttled disk cannot, and pays its
		# own reader's wake-ups.
		[ "$t" = 0 ] || ! command -v pv >/dev/null ||
			printf 'pv -L %s MB/s, f cached\tpv -q -L %s %s | %s\n' "$t" "$((t * 1000000))" "$f" "$pipe_cmd" >>"$tmp/specs"
		rm -f "$tmp"/t.*
		i=0
		while [ $i -lt "$runs" ]; do
			# A new order each round: what ran before leaves the disk
			# and the cache in a state of its own.
			shuf "$tmp/specs" | while IFS= read -r spec; do
				key=$(printf '%s' "${spec%%	*}" | tr -c 'A-Za-z0-9' _)
				warm=
				case $spec in "ceiling: fastio"* | "pv -L"*) warm=$f ;; esac
				run "${spec#*	}" $warm >>"$tmp/t.$key"
			done
			i=$((i + 1))
		done
		label=unthrottled
		[ "$t" = 0 ] || label="$t MB/s"
		printf '\n#### %s, %s MB, %s\n\n' "$c" "$((bytes / 1000000))" "$label"
		printf '| pipeline | median (s) | min - max | steal (s) | net of steal (s) | vs `%s f` |\n|:--|--:|--:|--:|--:|--:|\n' "$c"
		base=$(median <"$tmp/t.$(printf '%s' "$c f" | tr -c 'A-Za-z0-9' _)" | cut -f1)
		: >"$tmp/medians"
		while IFS= read -r spec; do
			name=${spec%%	*}
			key=$(printf '%s' "$name" | tr -c 'A-Za-z0-9' _)
			median <"$tmp/t.$key" | awk -F '\t' -v n="$name" -v b="$base" -v m="$tmp/medians" \
				'{ printf "| %s | %.2f | %.2f - %.2f | %.2f | %.2f | %.2fx |\n", n, $1, $2, $3, $4, $5, b / $1
				   printf "%s\t%s\t%s\n", n, $1, $5 >>m }'
		done <"$tmp/specs"
		verdict "$c" <"$tmp/medians"
	done
done
unthrottle
