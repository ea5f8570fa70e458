# SPDX-License-Identifier: MIT
# stages.sh: what .ci/run and tests/release.sh share, sourced by both (bash).
# A stage is one command whose output goes to $logs/NAME.log; it prints
# one line with its time and, on failure, its log's tail. Each stage's
# time is kept in $logs/NAME.time for the summary at the end. The caller
# sets logs (a directory) and who (the name its lines start with).
: "${logs:?}" "${who:?}"

# stage NAME COMMAND...: run it, as above; its status is the stage's. A
# stage whose command exits 77 could not run on this machine: it says so
# and why (the log's last line) and stops nothing, where NAME is listed
# in $may_skip; anywhere else 77 is a failure.
stage() {
	local name=$1 start=$SECONDS status=0 took
	shift
	"$@" >"$logs/$name.log" 2>&1 || status=$?
	took=$((SECONDS - start))
	echo "$took" >"$logs/$name.time"
	if [ "$status" = 77 ] && [[ " ${may_skip:-} " == *" $name "* ]]; then
		printf '%s: %-22s %5d s  not run here: %s\n' "$who" "$name" \
			"$took" "$(tail -n 1 "$logs/$name.log")"
		return 0
	fi
	printf '%s: %-22s %5d s  %s\n' "$who" "$name" "$took" \
		"$([ "$status" = 0 ] && echo ok || echo "FAILED ($status)")"
	if [ "$status" != 0 ]; then
		tail -n 120 "$logs/$name.log" | sed "s/^/$name| /"
	fi
	return "$status"
}

# checked COMMAND...: a make check whose failure shows the harness's log.
checked() {
	"$@" || { cat test-suite.log 2>/dev/null; return 1; }
}

# count LOG...: "PASSED FAILED" of the Check logs named; none counts 0 0.
count() {
	cat -- "$@" 2>/dev/null | awk '/^[0-9]+%: Checks/ {
		gsub(",", ""); checks += $3; bad += $5 + $7
	} END { print checks - bad, bad + 0 }'
}

# times: every stage's time, in the order they ended.
times() {
	local f
	# shellcheck disable=SC2045 # names of our own making, by time
	for f in $(ls -tr "$logs"/*.time 2>/dev/null); do
		printf '%s=%s ' "$(basename "$f" .time)" "$(cat "$f")"
	done
	echo
}
