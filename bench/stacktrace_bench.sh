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
# The ratio column is ns/call with -T over ns/call without, same run.
#
# Then Lua (LUA=1, the default; LUA=0 skips it): Debian's Lua built with
# -pg by bench/realprog_lib.sh (in $WORK, default /var/tmp/ftrail-realprog;
# the first run needs root and Debian's sources) running realprog.sh's
# workload (fib, a 200k-element sort with a Lua comparator, string
# formatting: ~58M traced calls, ~75k distinct stacks), under `ftrail
# record` of the first build with and without -T, interleaved, best of
# $RUNS: the traced program's own CPU time (user + sys, measured by
# /usr/bin/time inside the recording, so the recorder's compression is
# not counted), the whole recording's CPU and wall time, events lost and
# whether the stack map filled.  -T ratio = with / without.
#
#   bench/stacktrace_bench.sh [ITERATIONS]   (env BUILDS="build ...", RUNS=5, CC=gcc, LUA=1, WORK)
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh" # bench_setup, best, have_callgrind, icount
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
printf "%-40s %-15s %10s %10s %10s %8s\n" build tracer "ns/call" "with -T" "-T adds" "ratio"
for b in $BUILDS; do
	case $b in /*) ;; *) b=$TOP/$b ;; esac
	F=$b/ftrail
	[ -x "$F" ] || { echo "stacktrace_bench: no $F" >&2; exit 1; }
	for p in function_graph function; do
		a=$(best "$F" record -q -o "$W/t.dat" -p $p -- "$W/pfe" "$N")
		t=$(best "$F" record -q -o "$W/t.dat" -p $p -T -- "$W/pfe" "$N")
		na=$(per_call "$a")
		nt=$(per_call "$t")
		d=- q=-
		[ "$na" != - ] && [ "$nt" != - ] && d=$(awk -v a="$na" -v t="$nt" 'BEGIN { printf "%.1f", t - a }')
		[ "$na" != - ] && [ "$nt" != - ] && q=$(awk -v a="$na" -v t="$nt" 'BEGIN { if (a > 0) printf "%.2fx", t / a; else print "-" }')
		printf "%-40s %-15s %10s %10s %10s %8s\n" "${b#"$TOP"/}" $p "$na" "$nt" "$d" "$q"
	done
done

[ "${LUA:-1}" = 1 ] || exit 0
TIME=/usr/bin/time
[ -x $TIME ] || { echo "stacktrace_bench: Lua needs /usr/bin/time (Debian package time)" >&2; exit 1; }
WORK=${WORK:-/var/tmp/ftrail-realprog}
die() { echo "stacktrace_bench: $*" >&2; exit 1; }
SW=$W # bench_setup's scratch directory: realprog_lib.sh sets W to $WORK/run
. "$TOP/bench/realprog_lib.sh" # build_lua
build_lua pg -pg
b=${BUILDS%% *}
case $b in /*) ;; *) b=$TOP/$b ;; esac
F=$b/ftrail
LW=$(mktemp -d /tmp/stacktrace-lua.XXXXXX)
trap 'rm -rf "$SW" "$LW"' EXIT
cp "$W/bench.lua" "$LW/"
lua_run() { # name [record options]: prog_cpu total_cpu wall lost mapfull
	local n=$1
	shift
	(cd "$LW" && $TIME -f '%e %U %S' -o "$n.total" "$F" record -o "$n.dat" "$@" -- \
		$TIME -f '%U %S' -o "$n.prog" "$WORK/bin/lua-pg" bench.lua >/dev/null 2>"$n.err")
	awk '{ printf "%.2f ", $1 + $2 }' "$LW/$n.prog"
	awk '{ printf "%.2f %.2f ", $2 + $3, $1 }' "$LW/$n.total"
	sed -n 's/.*user records (\([0-9]*\) lost).*/\1/p' "$LW/$n.err" | tr '\n' ' '
	grep -q 'stack map filled' "$LW/$n.err" && echo filled || echo no
	rm -f "$LW/$n.dat"
}
best_of() { # column, lines -> the smallest value of that column
	awk -v c="$1" 'NR == 1 || $c < m { m = $c } END { print m }'
}
(cd "$LW" && $TIME -f '%U %S' -o plain.prog "$WORK/bin/lua-pg" bench.lua >/dev/null 2>&1)
: >"$LW/a" && : >"$LW/t"
for ((r = 0; r < RUNS; r++)); do
	lua_run a >>"$LW/a"
	lua_run t -T >>"$LW/t"
done
u=$(awk '{ printf "%.2f", $1 + $2 }' "$LW/plain.prog")
echo
echo "Lua (-pg, bench/realprog_lib.sh's workload), ${b#"$TOP"/}, best of $RUNS interleaved; untraced program CPU $u s"
printf "%-10s %12s %12s %10s %8s %12s\n" "" "program CPU" "total CPU" "wall" "lost" "map filled"
for k in a t; do
	printf "%-10s %12s %12s %10s %8s %12s\n" "$([ $k = a ] && echo without || echo 'with -T')" \
		"$(best_of 1 <"$LW/$k")" "$(best_of 2 <"$LW/$k")" "$(best_of 3 <"$LW/$k")" \
		"$(awk '$4 > m { m = $4 } END { print m + 0 }' "$LW/$k")" \
		"$(grep -c filled "$LW/$k")/$RUNS"
done
for c in 1 2 3; do
	x=$(best_of $c <"$LW/a")
	y=$(best_of $c <"$LW/t")
	printf "%s" "$(awk -v x="$x" -v y="$y" -v c=$c 'BEGIN { split("program_CPU total_CPU wall", n, " "); printf "-T ratio %-12s %.2fx\n", n[c], (x > 0 ? y / x : 0) }')"
	echo
done
# the traced program's own cost over running untraced, with and without -T
x=$(best_of 1 <"$LW/a")
y=$(best_of 1 <"$LW/t")
awk -v u="$u" -v x="$x" -v y="$y" 'BEGIN { if (x > u) printf "-T ratio of tracing cost (program CPU over untraced)  %.2fx\n", (y - u) / (x - u) }'

# ---- instructions (callgrind: deterministic on a loaded machine) ----
# A tenth of the workload (fib(18), a 20k-element sort, 5k formats), the
# traced program's instructions only: untraced, ftrail without and with -T.
if have_callgrind; then
	sed 's/200000/20000/; s/50000/5000/; s/fib(25)/fib(18)/' "$LW/bench.lua" >"$LW/small.lua"
	# lib.sh's icount runs in $W: here the Lua scratch directory
	VG="valgrind --tool=callgrind --callgrind-out-file=$LW/cg.%p"
	iu=$(W=$LW icount $VG "$WORK/bin/lua-pg" small.lua)
	ia=$(W=$LW icount "$F" record -o "$LW/i.dat" -- $VG "$WORK/bin/lua-pg" small.lua)
	it=$(W=$LW icount "$F" record -T -o "$LW/i.dat" -- $VG "$WORK/bin/lua-pg" small.lua)
	echo
	echo "Lua, a tenth of the workload, program instructions (callgrind): untraced $iu, without -T $ia, with -T $it"
	awk -v u="$iu" -v a="$ia" -v t="$it" 'BEGIN {
		printf "-T ratio program instructions  %.2fx\n", t / a
		printf "-T ratio of tracing cost (instructions over untraced)  %.2fx\n", (t - u) / (a - u) }'
fi
