#!/usr/bin/env bash
# Dynamic patching (record --patch) side by side in one run, on the same
# call-heavy program (bench/fgraph_prog.c: f1 -> { f2, f3 }):
#
#   untraced        built without instrumentation, run plainly
#   ftrail_pg       built with -pg, function_graph
#   ftrail_pfe      built with -fpatchable-function-entry=5, function_graph
#   ftrail_patch    the untraced binary, function_graph, --patch 'f[123]'
#   uftrace_patch   the untraced binary, uftrace record -P '^f[123]$'
#                   (uftrace's capstone-based dynamic patching)
#   uprobe          the untraced binary, a kernel uprobe and uretprobe on
#                   each of f1 f2 f3 enabled in a tracefs instance of our
#                   own (needs root and tracefs; what perf probe and
#                   bpftrace use underneath)
#
# ns/call = (loop time - untraced loop time) / calls, the loop timed inside
# the program, best of $RUNS runs; then instructions per call counted by
# valgrind's callgrind (INSTR=0 turns it off), which a loaded machine does
# not disturb (rdtsc counts as one instruction).  Targets: ftrail_patch <= 1.5x
# ftrail_pg, >= 20x cheaper than a uprobe.  Then the time to attach and
# to detach with --patch (what `record -P` reports), on a running program
# of 4 threads (tests/progs/dynpatch.c), $RUNS times.
#
#   bench/dynpatch_bench.sh [ITERATIONS]      (env BUILD=build, RUNS=5, CC=gcc, INSTR=1)
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh" # bench_setup, best, per_call, ratio, have_callgrind, icount
bench_setup dynpatch-bench "$@"
need_built "$FTRAIL" "$BUILD/libftrail.so"
P=$TOP/bench/fgraph_prog.c
$CC -O2 -o "$W/plain" "$P" || exit 1
$CC -O2 -pg -o "$W/pg" "$P" || exit 1
$CC -O2 -fpatchable-function-entry=5 -o "$W/pfe" "$P" || exit 1
$CC -O2 -D_GNU_SOURCE -I"$TOP" -o "$W/rtrun" "$TOP/tests/progs/rtrun.c" \
	"$BUILD/libftrail-core.a" $(pkg-config --libs libelf libdw libzstd) -liberty -lpthread || exit 1

ftrail_run() { # binary [record options]
	local bin=$1
	shift
	"$FTRAIL" record -q -o "$W/t.dat" "$@" -- "$bin" "$N"
}

# uprobe ARGS: the untraced program under a uprobe + uretprobe per function
T_DIR=/sys/kernel/tracing
INST=$T_DIR/instances/ftrail_dynpatch_bench
uprobe_setup() {
	[ "$(id -u)" = 0 ] || return 1
	[ -e "$T_DIR/uprobe_events" ] || mount -t tracefs nodev "$T_DIR" 2>/dev/null
	[ -w "$T_DIR/uprobe_events" ] || return 1
	local f off
	for f in f1 f2 f3; do
		# a PIE's text segment has the same file offset as address
		off=$(nm "$W/plain" | awk -v f="$f" '$3 == f { print $1 }')
		[ -n "$off" ] || return 1
		echo "p:ftdpb/${f}_in $W/plain:0x$off" >>"$T_DIR/uprobe_events" || return 1
		echo "r:ftdpb/${f}_out $W/plain:0x$off" >>"$T_DIR/uprobe_events" || return 1
	done
	mkdir -p "$INST" && echo 1 >"$INST/events/ftdpb/enable"
}
uprobe_cleanup() {
	[ -d "$INST" ] && { echo 0 >"$INST/events/ftdpb/enable" 2>/dev/null; rmdir "$INST" 2>/dev/null; }
	for f in f1 f2 f3; do
		echo "-:ftdpb/${f}_in" >>"$T_DIR/uprobe_events" 2>/dev/null
		echo "-:ftdpb/${f}_out" >>"$T_DIR/uprobe_events" 2>/dev/null
	done
	rm -rf "$W"
}
trap uprobe_cleanup EXIT

CALLS=$((3 * N))
declare -A T
T[untraced]=$(best "$W/plain" "$N")
T[ftrail_pg]=$(best ftrail_run "$W/pg")
T[ftrail_pfe]=$(best ftrail_run "$W/pfe")
T[ftrail_patch]=$(best ftrail_run "$W/plain" --patch 'f[123]')
# the patch must have hooked all three: the trace has every call
(cd "$W" && ftrail_run "$W/plain" --patch 'f[123]' >/dev/null 2>&1)
traced=$("$FTRAIL" report -i "$W/t.dat" 2>/dev/null | awk '$NF ~ /^f[123]$/ { s += $(NF-1) } END { print s + 0 }')
[ "$traced" = "$CALLS" ] || echo "dynpatch_bench: WARNING: --patch traced $traced calls of $CALLS"
if command -v uftrace >/dev/null 2>&1; then
	T[uftrace_patch]=$(best uftrace record -P '^f[123]$' -d "$W/uft.data" "$W/plain" "$N")
fi
# the uprobe loop is ~100x slower: a tenth of the iterations, scaled back
if uprobe_setup; then
	NU=$((N / 10))
	u=$(best "$W/plain" "$NU")
	[ "$u" != - ] && T[uprobe]=$(awk -v u="$u" -v n="$N" -v nu="$NU" 'BEGIN{printf "%.0f", u * n / nu}')
	echo 0 >"$INST/events/ftdpb/enable"
fi

echo "dynpatch_bench: $CALLS calls ($N iterations x 3), best of $RUNS, CC=$CC"
ns_table 16 untraced ftrail_pg ftrail_pfe ftrail_patch uftrace_patch uprobe
echo
echo "ratio ftrail_patch/ftrail_pg    $(ratio "$(per_call ftrail_patch)" "$(per_call ftrail_pg)")   (target <= 1.5)"
echo "ratio ftrail_patch/ftrail_pfe   $(ratio "$(per_call ftrail_patch)" "$(per_call ftrail_pfe)")"
echo "ratio uftrace_patch/ftrail_patch $(ratio "$(per_call uftrace_patch)" "$(per_call ftrail_patch)")"
echo "ratio uprobe/ftrail_patch       $(ratio "$(per_call uprobe)" "$(per_call ftrail_patch)")   (target >= 20)"

# ---- instructions per call (callgrind: deterministic on a loaded machine) ----
# The runtime runs under tests/progs/rtrun (the session driver), which
# preloads it into valgrind's client; -X is its --patch.
if have_callgrind; then
	NI=100000
	VG="valgrind --tool=callgrind --trace-children=yes --callgrind-out-file=$W/cg.%p"
	i_base=$(icount $VG "$W/plain" $NI)
	declare -A I
	I[ftrail_pg]=$(icount env FTRAIL_LIB="$BUILD/libftrail.so" "$W/rtrun" -q -- $VG "$W/pg" $NI)
	I[ftrail_pfe]=$(icount env FTRAIL_LIB="$BUILD/libftrail.so" "$W/rtrun" -q -- $VG "$W/pfe" $NI)
	I[ftrail_patch]=$(icount env FTRAIL_LIB="$BUILD/libftrail.so" "$W/rtrun" -q -X 'f[123]' -- $VG "$W/plain" $NI)
	command -v uftrace >/dev/null 2>&1 &&
		I[uftrace_patch]=$(icount $VG uftrace record -P '^f[123]$' -d "$W/uft.i" "$W/plain" $NI)
	icount_table $((3 * NI)) 16 ftrail_pg ftrail_pfe ftrail_patch uftrace_patch
	echo "instr ratio ftrail_patch/ftrail_pg     $(ratio "${I[ftrail_patch]}" "${I[ftrail_pg]}")   (target <= 1.5)"
	echo "instr ratio ftrail_patch/ftrail_pfe    $(ratio "${I[ftrail_patch]}" "${I[ftrail_pfe]}")"
	[ -n "${I[uftrace_patch]:-}" ] &&
		echo "instr ratio uftrace_patch/ftrail_patch $(ratio "${I[uftrace_patch]}" "${I[ftrail_patch]}")"
fi

# ---- attach and detach, with --patch, on a running program ----
$CC -O2 -shared -fPIC -o "$W/libdynpatch_lib.so" "$TOP/tests/progs/dynpatch_lib.c" || exit 1
$CC -O2 -o "$W/dp" "$TOP/tests/progs/dynpatch.c" -L"$W" -ldynpatch_lib -Wl,-rpath,"$W" -lpthread || exit 1
(cd "$W" && exec ./dp -s "$W/stop" 4 >"$W/dp.out" 2>&1) &
dp=$!
for _ in $(seq 100); do grep -q ready "$W/dp.out" 2>/dev/null && break; sleep 0.1; done
echo
echo "attach/detach with --patch 'dp_*' --patch 'dp_lib*:mod:libdynpatch_lib', 4 threads running:"
for ((r = 0; r < RUNS; r++)); do
	"$FTRAIL" record -P "$dp" --patch 'dp_*' --patch 'dp_lib*:mod:libdynpatch_lib' --duration 0.5 \
		-o "$W/a.dat" 2>&1 >/dev/null | sed -n -e 's/.*(attach \(.*\) ms, detach \(.*\) ms).*/  attach \1 ms, detach \2 ms/p' \
		-e 's/^ftrail: warning: \(--patch: .* patched, .* refused\)$/  \1/p'
done
touch "$W/stop"
wait $dp
echo "  program after the detaches: $(tail -n 1 "$W/dp.out")"
