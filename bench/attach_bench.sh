#!/usr/bin/env bash
# Time to attach to and detach from a running process (ftrail record -P),
# side by side with gdb attaching and detaching in batch mode (the peer that
# also stops every thread with ptrace; it reads the symbols too).
#
#   programs   tests/progs/attach_srv.c with THREADS workers, and a
#              generated one with FUNCS extra functions (more sites to
#              patch and symbols to read), each built -fpatchable-function-
#              entry=5 and -pg
#   attach     stop every thread, load libftrail.so (first attach only),
#              start the runtime (modules, symbols, sites, patching), resume:
#              record's own figure ("attach X ms" in its summary)
#   detach     stop every thread, unpatch, restore the GOT, resume
#   again      a second attach: the library is there already
#   gdb        `gdb -p PID -batch` wall time (attach, read symbols, detach)
#
# Best of $RUNS; the process runs on between runs.
#
#   bench/attach_bench.sh            (env BUILD=build, RUNS=5, THREADS=4 (1..16), FUNCS=20000)
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh" # bench_setup, need_built
bench_setup attach-bench
THREADS=${THREADS:-4}
FUNCS=${FUNCS:-20000}
PIDS=()
trap 'touch "$W/stop"; for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done; rm -rf "$W"' EXIT
need_built "$FTRAIL"

# the big program: attach_srv plus FUNCS functions main reaches through a table
{
	echo '#include "'"$TOP"'/tests/progs/attach_srv.c"'
	for i in $(seq "$FUNCS"); do echo "long gen$i(long x) { return x + $i; }"; done
	echo 'long (*gen_table[])(long) = {'
	for i in $(seq "$FUNCS"); do echo "gen$i,"; done
	echo '};'
} >"$W/big.c"

start() { # BINARY: runs it in the background, its pid in $pid once it is ready
	rm -f "$W/out"
	"$1" "$W/stop" "$THREADS" 0 >"$W/out" 2>&1 &
	pid=$!
	PIDS+=("$pid")
	for _ in $(seq 100); do
		grep -q ready "$W/out" 2>/dev/null && break
		sleep 0.05
	done
}

lowest() { sort -n | head -n 1; }

printf '%-40s %8s %9s %9s %9s %9s\n' program threads attach1_ms attach2_ms detach_ms gdb_ms
for src in small big; do
	for flags in "-O2 -fpatchable-function-entry=5" "-O2 -pg"; do
		f=$TOP/tests/progs/attach_srv.c
		[ $src = big ] && f=$W/big.c
		gcc $flags -o "$W/prog" "$f" -lpthread || exit 1
		rm -f "$W/stop"
		a1=() a2=() de=() gd=()
		for r in $(seq "$RUNS"); do
			start "$W/prog"
			for k in 1 2; do
				"$FTRAIL" record -P "$pid" --duration 0.2 -o "$W/t.dat" 2>"$W/err" >/dev/null ||
					{ cat "$W/err"; exit 1; }
				line=$(grep -o 'attach [0-9.]* ms, detach [0-9.]* ms' "$W/err")
				at=$(echo "$line" | awk '{print $2}')
				dt=$(echo "$line" | awk '{print $5}')
				[ $k = 1 ] && a1+=("$at") || a2+=("$at")
				de+=("$dt")
			done
			if command -v gdb >/dev/null; then
				t0=$(date +%s%N)
				gdb -q -nx -batch -p "$pid" >/dev/null 2>&1
				gd+=($((($(date +%s%N) - t0) / 1000000)))
			fi
			touch "$W/stop"
			wait "$pid"
			rm -f "$W/stop"
		done
		printf '%-40s %8s %9s %9s %9s %9s\n' "$src $flags" "$((THREADS + 1))" \
			"$(printf '%s\n' "${a1[@]}" | lowest)" "$(printf '%s\n' "${a2[@]}" | lowest)" \
			"$(printf '%s\n' "${de[@]}" | lowest)" \
			"$( [ ${#gd[@]} -gt 0 ] && printf '%s\n' "${gd[@]}" | lowest || echo -)"
	done
done
