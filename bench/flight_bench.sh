#!/usr/bin/env bash
# What an armed flight recorder costs, side by side in one run: a
# call-heavy program (tests/progs/callheavy.c: THREADS threads, 3 calls per
# iteration) run
#
#   untraced     built -O2 without instrumentation
#   record       `ftrail record` (function_graph, block mode: every record
#                drained, compressed and written)
#   flight       `ftrail record --flight-recorder` (the same rings in
#                overwrite mode, nothing drained or written until the
#                program's exit dumps them)
#
# whole-process times (wall, and user+sys CPU of ftrail and the program
# together, from bash's `time`), median of RUNS runs taken in turn (one of
# each mode per round, so the machine's load falls on all alike), the ratio
# to untraced, and the bytes each left on disk.
#
#   bench/flight_bench.sh [ITERATIONS]     (env RUNS=5, THREADS=2, BUILD=build, CC=gcc)
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh" # bench_setup, need_built
bench_setup flight-bench "${1:-2000000}"
THREADS=${THREADS:-2}
need_built "$FTRAIL"
P=$TOP/tests/progs/callheavy.c
$CC -O2 -o "$W/plain" "$P" -lpthread || exit 1
$CC -O2 -pg -o "$W/pg" "$P" -lpthread || exit 1

# one timed run: "wall cpu bytes"
run() {
	local mode=$1 out t
	rm -f "$W"/*.dat
	TIMEFORMAT='%R %U %S'
	case $mode in
	untraced) t=$({ time "$W/plain" "$THREADS" "$N" >/dev/null 2>&1; } 2>&1) ;;
	record) t=$({ time "$FTRAIL" record -q -o "$W/r.dat" -- "$W/pg" "$THREADS" "$N" \
		>/dev/null 2>&1; } 2>&1) ;;
	flight) t=$({ time "$FTRAIL" record -q --flight-recorder -o "$W/f.dat" -- "$W/pg" \
		"$THREADS" "$N" >/dev/null 2>&1; } 2>&1) ;;
	esac
	out=$(cat "$W"/*.dat 2>/dev/null | wc -c)
	echo "$t" | awk -v b="$out" '{ printf "%s %.3f %s\n", $1, $2 + $3, b }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

declare -A wall cpu bytes
modes="untraced record flight"
for ((r = 0; r < RUNS; r++)); do
	for m in $modes; do
		read -r w c b < <(run $m)
		wall[$m]+="$w "
		cpu[$m]+="$c "
		bytes[$m]=$b
	done
done
calls=$(( THREADS * N * 3 ))
echo "callheavy $THREADS threads x $N iterations ($calls calls), median of $RUNS runs taken in turn"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-9s %9s %8s %9s %8s %14s\n' mode wall_s ratio cpu_s ratio bytes_on_disk
uw=$(echo ${wall[untraced]} | tr ' ' '\n' | median)
uc=$(echo ${cpu[untraced]} | tr ' ' '\n' | median)
for m in $modes; do
	w=$(echo ${wall[$m]} | tr ' ' '\n' | median)
	c=$(echo ${cpu[$m]} | tr ' ' '\n' | median)
	awk -v m=$m -v w=$w -v c=$c -v uw=$uw -v uc=$uc -v b=${bytes[$m]} \
		'BEGIN { printf "%-9s %9.3f %7.2fx %9.3f %7.2fx %14d\n", m, w, w / uw, c, c / uc, b }'
done
