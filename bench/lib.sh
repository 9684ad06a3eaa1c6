# Helpers shared by the benchmark scripts (the call-cost ones:
# fgraph_bench.sh, libcall_bench.sh, stacktrace_bench.sh, args_bench.sh,
# dynpatch_bench.sh, ulat_bench.sh; and attach_bench.sh, export_bench.sh,
# readers_bench.sh, wakeup_compare.sh):
#
#   TOP=$(cd "$(dirname "$0")/.." && pwd)
#   . "$TOP/bench/lib.sh"
#   bench_setup NAME "$@"
#
# bench_setup NAME [ITERATIONS]   sets N (ITERATIONS, default 1000000),
#                    RUNS (env, default 5), CC (env, default gcc), BUILD
#                    (env, default build; made absolute), FTRAIL (the tool
#                    in BUILD) and W, a scratch directory /tmp/NAME.XXXXXX
#                    removed at exit
# need_built FILE... exits with "NAME: build first (FILE missing)" unless
#                    each FILE exists
# best CMD ARGS...   the best (lowest) loop time in ns of RUNS runs of CMD
#                    in $W; the program prints "calls=N ns=T", and "-" is
#                    printed when a run gives no ns= (it failed)
# have_callgrind     true when valgrind's callgrind and callgrind_annotate
#                    are installed (and INSTR is not 0)
# icount CMD ARGS... instructions of the busiest process CMD starts (run in
#                    $W; every process under valgrind writes $W/cg.PID, see
#                    valgrind --tool=callgrind --callgrind-out-file=$W/cg.%p):
#                    load-independent, unlike the clock
# per_call CONFIG [BASE]  ns per call of the loop time T[CONFIG] above
#                    T[BASE] (default untraced), over CALLS calls; "-" when
#                    CONFIG did not run
# ratio A B          A / B with two decimals; "-" when either is "-" or B <= 0
# ns_table WIDTH CONFIG...  a row per CONFIG that ran: its loop time T[CONFIG]
#                    and per_call, under a header; WIDTH: the name column
# icount_table CALLS WIDTH CONFIG...  turns each I[CONFIG] (callgrind's
#                    instructions of a whole run) into instructions per call
#                    above $i_base (the untraced run) over CALLS calls, and
#                    prints them, a row per CONFIG that ran

bench_setup() {
	N=${2:-1000000}
	RUNS=${RUNS:-5}
	CC=${CC:-gcc}
	BUILD=${BUILD:-$TOP/build}
	case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
	FTRAIL=$BUILD/ftrail
	BENCH=$1
	W=$(mktemp -d "/tmp/$1.XXXXXX")
	trap 'rm -rf "$W"' EXIT
}

need_built() {
	local f
	for f in "$@"; do
		[ -e "$f" ] || { echo "$BENCH: build first ($f missing)"; exit 1; }
	done
}

best() {
	local b= out ns
	for ((r = 0; r < RUNS; r++)); do
		out=$(cd "$W" && "$@" 2>/dev/null | grep -o 'ns=[0-9]*' | head -1)
		ns=${out#ns=}
		[ -n "$ns" ] || { echo "-"; return; }
		if [ -z "$b" ] || [ "$ns" -lt "$b" ]; then b=$ns; fi
	done
	echo "$b"
}

have_callgrind() {
	[ "${INSTR:-1}" = 1 ] && command -v valgrind >/dev/null 2>&1 &&
		command -v callgrind_annotate >/dev/null 2>&1
}

icount() {
	local f
	rm -f "$W"/cg.*
	(cd "$W" && "$@" >/dev/null 2>&1)
	for f in "$W"/cg.*; do
		callgrind_annotate "$f" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }'
	done | sort -n | tail -n 1
}

per_call() {
	local t=${T[$1]:-} b=${T[${2:-untraced}]}
	[ -n "$t" ] && [ "$t" != - ] || { echo "-"; return; }
	awk -v t="$t" -v b="$b" -v c="$CALLS" 'BEGIN{printf "%.2f", (t-b)/c}'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (a == "-" || b == "-" || b+0 <= 0) print "-"; else printf "%.2f", a/b }'; }

ns_table() {
	local width=$1 k
	shift
	printf "%-${width}s %14s %12s\n" config loop_ns ns/call
	for k in "$@"; do
		[ -n "${T[$k]:-}" ] || continue
		printf "%-${width}s %14s %12s\n" "$k" "${T[$k]}" "$(per_call "$k")"
	done
}

icount_table() {
	local calls=$1 width=$2 k
	shift 2
	echo
	echo "instructions per call (callgrind, $calls calls, over the untraced program)"
	for k in "$@"; do
		[ -n "${I[$k]:-}" ] || continue
		I[$k]=$(awk -v t="${I[$k]}" -v b="$i_base" -v c="$calls" 'BEGIN{printf "%.0f", (t-b)/c}')
		printf "%-${width}s %8s\n" "$k" "${I[$k]}"
	done
}
