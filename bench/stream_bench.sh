#!/usr/bin/env bash
# What streaming a recording (record -o -) costs as the trace grows.  A
# steady call-heavy program (tests/progs/stream_hold.c: WORKERS threads
# calling outer() -> inner() in bursts of BURST with a 1 ms pause, while
# main sleeps SECS seconds in hold()) is recorded, side by side:
#   file    ftrail record -o FILE                    (the recorder alone)
#   stream  ftrail record -o - -o FILE >/dev/null    (and the lines, live)
#   show    ftrail show FILE >/dev/null              (the same lines, once)
#   old     the stream with $OLD, another ftrail build (say, before a change;
#           a run of its own: its lines are not compared, its late events
#           -- left out of its stream -- are counted)
# and prints the CPU seconds (user + sys) of each, the traced program's
# included (the same work in every row), the stream's own share (stream -
# file), and the ratio of that share to show's: a stream that formats
# each event once costs about one show of the trace, whatever its length;
# one that reads the file again at each refresh costs more the longer the
# trace.  And the stream's delay: main's nanosleep() returns once a
# second, and its line's arrival on the stream, less the second it
# returned at, is the delay of a line (mean of the first 5 and of the
# last 5 of the run; counted from when ftrail starts, so its start and the
# program's are in every figure: what matters is first against last).
# Also the number of lines streamed and whether they equal show's.
#
#   bench/stream_bench.sh [SECS...]    (default: 10 30)
#   env: WORKERS=1 BURST=100 OLD=/path/to/ftrail BUILD=build
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh"
bench_setup stream_bench
need_built "$FTRAIL" "$BUILD/libftrail.so"
export FTRAIL_LIB=$BUILD/libftrail.so
WORKERS=${WORKERS:-1}
BURST=${BURST:-100}
OLD=${OLD:-}
$CC -O2 -pg -o "$W/prog" "$TOP/tests/progs/stream_hold.c" -lpthread || exit 1

# cpu CMD...: CPU seconds (user + sys) of CMD and its children
cpu() {
	/usr/bin/time -f '%U %S' -o "$W/time" "$@" || echo "stream_bench: failed: $*" >&2
	awk '{ printf "%.2f", $1 + $2 }' "$W/time"
}

# lag OUT LAG: standard input to OUT; to LAG, a line per nanosleep() line
# of main (the thread that calls hold()): seconds since the start less its
# rank (main's k-th sleep ends k s in)
lag() {
	LAGF=$2 perl -MTime::HiRes=time -ne 'BEGIN { $t0 = time; open(L, ">", $ENV{LAGF}) or die; }
		print;
		next if index($_, "hold() {") < 0 && index($_, "nanosleep();") < 0;
		$m = $1 if !defined $m && /-(\d+)\s+\|.*hold\(\) \{/;
		printf L "%.3f\n", time - $t0 - ++$k if defined $m && /-$m\s+\|.*nanosleep\(\);/;' >"$1"
}
# delays LAG: "first5 last5" mean delays in s
delays() {
	awk '{ d[NR] = $1 } END { for (i = 1; i <= 5 && i <= NR; i++) a += d[i];
		for (i = NR - 4; i <= NR; i++) if (i > 0) b += d[i];
		printf "%.2f/%.2f", a / 5, b / 5 }' "$1"
}

printf '%-6s %8s %-8s %8s %8s %12s %-10s %s\n' secs config cpu_s share_s /show lines delay_s same-as-show
for secs in ${*:-10 30}; do
	args="$WORKERS $secs 1000 $BURST"
	c_file=$(cd "$W" && cpu sh -c "'$FTRAIL' record -q -o f.dat -- ./prog $args 2>/dev/null")
	c_stream=$(cd "$W" && cpu sh -c "'$FTRAIL' record -o - -o s.dat -- ./prog $args >s.out 2>s.err")
	# a run of its own for the delays (the pipe's reader out of the CPU time)
	(cd "$W" && "$FTRAIL" record -q -o - -o d.dat -- ./prog $args 2>/dev/null | lag d.out s.lag)
	c_show=$(cd "$W" && cpu sh -c "'$FTRAIL' show -i s.dat -O funcgraph-proc >s.show")
	same=$(cd "$W" && grep -v '^#' s.show | cmp -s - s.out && echo yes || echo no)
	grep -q 'passed their time' "$W/s.err" && same="$same; $(grep -o '[0-9]* events reached' "$W/s.err")"
	lines=$(wc -l <"$W/s.out")
	share=$(awk -v a="$c_stream" -v b="$c_file" 'BEGIN { printf "%.2f", a - b }')
	printf '%-6s %8s %-8s %8s %8s %12s %-10s %s\n' "$secs" file "$c_file" - - - - -
	printf '%-6s %8s %-8s %8s %8s %12s %-10s %s\n' "$secs" show "$c_show" - - - - -
	printf '%-6s %8s %-8s %8s %8s %12s %-10s %s\n' "$secs" stream "$c_stream" "$share" \
		"$(ratio "$share" "$c_show")" "$lines" "$(delays "$W/s.lag")" "$same"
	if [ -n "$OLD" ]; then
		c_old=$(cd "$W" && cpu sh -c "'$OLD' record -q -o - -o o.dat -- ./prog $args >o.out 2>o.err")
		share=$(awk -v a="$c_old" -v b="$c_file" 'BEGIN { printf "%.2f", a - b }')
		late=$(sed -n 's/.*stream: \([0-9]*\) events reached.*/\1/p' "$W/o.err")
		(cd "$W" && "$OLD" record -q -o - -o d.dat -- ./prog $args 2>/dev/null | lag d.out o.lag)
		printf '%-6s %8s %-8s %8s %8s %12s %-10s %s\n' "$secs" old "$c_old" "$share" \
			"$(ratio "$share" "$c_show")" "$(wc -l <"$W/o.out")" "$(delays "$W/o.lag")" \
			"(another run; ${late:-0} late)"
	fi
	rm -f "$W"/*.dat "$W"/*.out "$W"/*.lag "$W"/s.show
done
