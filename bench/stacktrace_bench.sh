#!/usr/bin/env bash
# The cost of -T end to end: ns per traced call of bench/fgraph_prog.c
# (f1 -> { f2, f3 }, 3 calls per iteration, compiled with
# -fpatchable-function-entry=5) under `ftrail record -p TRACER` with and
# without -T (option stacktrace: each call's stack goes through the stack
# map and is recorded as a 4-byte stack id).  The stacks are 3 to 4 frames
# deep and few, so nearly every get_id is a hit: what a call-heavy program
# pays per call for -T.
#
# ns/call = (loop time traced - loop time untraced) / calls, the loop timed
# inside the program, best of $RUNS runs.  Several builds (e.g. the branch
# and a checkout of main built elsewhere) are measured in the same run, so
# they see the same load.
#
#   bench/stacktrace_bench.sh [ITERATIONS]   (env BUILDS="build ...", RUNS=5, CC=gcc)
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh" # bench_setup, best
bench_setup stacktrace-bench "$@"
BUILDS=${BUILDS:-$TOP/build}

$CC -O2 -o "$W/plain" "$TOP/bench/fgraph_prog.c" || exit 1
$CC -O2 -fpatchable-function-entry=5 -o "$W/pfe" "$TOP/bench/fgraph_prog.c" || exit 1

CALLS=$((3 * N))
U=$(best "$W/plain" "$N")
per_call() { # loop ns -> ns per call above untraced
	[ "$1" = - ] && { echo -; return; }
	awk -v t="$1" -v u="$U" -v c="$CALLS" 'BEGIN { printf "%.1f", (t - u) / c }'
}

echo "stacktrace (-T) cost, $CALLS calls, best of $RUNS; untraced loop $(awk -v u="$U" -v c="$CALLS" 'BEGIN { printf "%.2f", u / c }') ns/call"
printf "%-40s %-15s %10s %10s %10s\n" build tracer "ns/call" "with -T" "-T adds"
for b in $BUILDS; do
	case $b in /*) ;; *) b=$TOP/$b ;; esac
	F=$b/ftrail
	[ -x "$F" ] || { echo "stacktrace_bench: no $F" >&2; exit 1; }
	for p in function_graph function; do
		a=$(best "$F" record -q -o "$W/t.dat" -p $p -- "$W/pfe" "$N")
		t=$(best "$F" record -q -o "$W/t.dat" -p $p -T -- "$W/pfe" "$N")
		na=$(per_call "$a")
		nt=$(per_call "$t")
		d=-
		[ "$na" != - ] && [ "$nt" != - ] && d=$(awk -v a="$na" -v t="$nt" 'BEGIN { printf "%.1f", t - a }')
		printf "%-40s %-15s %10s %10s %10s\n" "${b#"$TOP"/}" $p "$na" "$nt" "$d"
	done
done
