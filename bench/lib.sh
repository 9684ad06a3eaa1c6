# Helpers shared by the call-cost benchmark scripts (fgraph_bench.sh,
# libcall_bench.sh, stacktrace_bench.sh, args_bench.sh):
#
#   TOP=$(cd "$(dirname "$0")/.." && pwd)
#   . "$TOP/bench/lib.sh"
#   bench_setup NAME "$@"
#
# bench_setup NAME [ITERATIONS]   sets N (ITERATIONS, default 1000000),
#                    RUNS (env, default 5), CC (env, default gcc), BUILD
#                    (env, default build; made absolute) and W, a scratch
#                    directory /tmp/NAME.XXXXXX removed at exit
# best CMD ARGS...   the best (lowest) loop time in ns of RUNS runs of CMD
#                    in $W; the program prints "calls=N ns=T", and "-" is
#                    printed when a run gives no ns= (it failed)
# have_callgrind     true when valgrind's callgrind and callgrind_annotate
#                    are installed (and INSTR is not 0)
# icount CMD ARGS... instructions of the busiest process CMD starts (run in
#                    $W; every process under valgrind writes $W/cg.PID, see
#                    valgrind --tool=callgrind --callgrind-out-file=$W/cg.%p):
#                    load-independent, unlike the clock

bench_setup() {
	N=${2:-1000000}
	RUNS=${RUNS:-5}
	CC=${CC:-gcc}
	BUILD=${BUILD:-$TOP/build}
	case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
	W=$(mktemp -d "/tmp/$1.XXXXXX")
	trap 'rm -rf "$W"' EXIT
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
