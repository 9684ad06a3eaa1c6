#!/usr/bin/env bash
# The latency tracers' cost per traced call, side by side in one run, on
# one -fpatchable-function-entry=5 binary (bench/ulat_prog.c):
#
#   f (3 program calls an iteration)   untraced, -p function, -p function_graph, -p stack
#   l (lock, unlock, a call inside)    untraced, -p function, -p function_graph, -p lockheld
#   s (mask, restore, a call inside)   untraced, -p function, -p function_graph, -p sigsoff
#
# ns/call = (loop time - the untraced loop's) / calls, best of $RUNS runs;
# the ratios are against -p function measured in the same run (the tracer
# whose general path the latency tracers share).  With valgrind, also
# instructions per call (callgrind; INSTR=0 turns it off), which a loaded
# machine does not disturb.
#
#   bench/ulat_bench.sh [ITERATIONS]      (env BUILD=build, RUNS=5, CC=gcc, INSTR=1)
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh" # bench_setup, best, have_callgrind, icount
bench_setup ulat-bench "$@"
need_built "$FTRAIL"
$CC -O2 -fpatchable-function-entry=5 -o "$W/prog" "$TOP/bench/ulat_prog.c" -lpthread || exit 1
INSTR=${INSTR:-1}
have_callgrind || INSTR=0
CALLS=$((3 * N))

# instructions of the whole run under callgrind (the traced program only)
instr() { # mode [record options]
	local mode=$1 vg="valgrind --tool=callgrind --callgrind-out-file=$W/cg.%p"
	shift
	if [ $# = 0 ]; then
		icount $vg ./prog "$mode" "$N"
	else
		icount "$FTRAIL" record -q -o "$W/t.dat" "$@" -- $vg ./prog "$mode" "$N"
	fi
}

printf '%-4s %-16s %10s %9s %12s\n' mode tracer ns/call vs-func instr/call
for mode in f l s; do
	case $mode in
	f) own=stack ;;
	l) own=lockheld ;;
	s) own=sigsoff ;;
	esac
	base=$(best ./prog $mode "$N")
	i0=
	[ "$INSTR" = 1 ] && i0=$(instr $mode)
	fn=
	for tr in function function_graph $own; do
		t=$(best "$FTRAIL" record -q -o "$W/t.dat" -p $tr -- ./prog $mode "$N")
		ns=$(awk -v t="$t" -v b="$base" -v c="$CALLS" 'BEGIN { printf "%.1f", (t - b) / c }')
		[ $tr = function ] && fn=$ns
		ic=-
		if [ "$INSTR" = 1 ]; then
			i=$(instr $mode -p $tr)
			ic=$(awk -v i="$i" -v b="$i0" -v c="$CALLS" 'BEGIN { printf "%.0f", (i - b) / c }')
		fi
		printf '%-4s %-16s %10s %8sx %12s\n' $mode $tr "$ns" \
			"$(awk -v a="$ns" -v f="$fn" 'BEGIN { printf "%.2f", (f > 0 ? a / f : 0) }')" "$ic"
	done
done
