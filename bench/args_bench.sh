#!/usr/bin/env bash
# Cost of argument and return-value capture, side by side in one run, on
# the same -pg binary (bench/args_prog.c: 3 calls per iteration, each with
# two integer arguments and an integer return value):
#
#   untraced            compiled without instrumentation
#   ftrail              function_graph, nothing captured
#   ftrail other spec   a spec naming a function that is never called:
#                       the traced functions capture nothing (target: the
#                       same cost as plain ftrail, 0 change)
#   ftrail args+ret     -A 'f?@arg1,arg2' --retval 'f?@retval'
#   uftrace             uftrace record, nothing captured
#   uftrace args+ret    uftrace record -A 'f[123]@arg1,arg2' -R 'f[123]@retval'
#
# ns/call = (loop time - untraced loop time) / calls, the loop timed inside
# the program, best of $RUNS runs.  Instructions per call from callgrind
# (load-independent) when valgrind is installed (INSTR=0 turns it off).
#
#   bench/args_bench.sh [ITERATIONS]      (env BUILD=build, RUNS=5, CC=gcc, INSTR=1)
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh" # bench_setup, best, per_call, ratio, have_callgrind, icount
bench_setup args-bench "$@"
need_built "$FTRAIL"
P=$TOP/bench/args_prog.c
$CC -O2 -o "$W/plain" "$P" || exit 1
$CC -O2 -pg -o "$W/pg" "$P" || exit 1
have_uftrace=0
command -v uftrace >/dev/null 2>&1 && have_uftrace=1

ft() { "$FTRAIL" record -q -o "$W/t.dat" "$@"; }
uft() { uftrace record -d "$W/uft.data" "$@"; }

A_FT=(-A 'f?@arg1,arg2' --retval 'f?@retval')
A_UFT=(-A 'f[123]@arg1,arg2' -R 'f[123]@retval')
declare -A T
CALLS=$((3 * N))
for ((round = 0; round < 1; round++)); do
	T[untraced]=$(best "$W/plain" "$N")
	T[ftrail]=$(best ft -- "$W/pg" "$N")
	T[ftrail_other_spec]=$(best ft -A 'never_called@arg1' -- "$W/pg" "$N")
	T[ftrail_args_ret]=$(best ft "${A_FT[@]}" -- "$W/pg" "$N")
	if [ $have_uftrace = 1 ]; then
		T[uftrace]=$(best uft "$W/pg" "$N")
		T[uftrace_args_ret]=$(best uft "${A_UFT[@]}" "$W/pg" "$N")
	fi
done
# bytes per call on disk, with and without capture
ft -- "$W/pg" "$N" >/dev/null 2>&1
d0=$(stat -c %s "$W/t.dat")
ft "${A_FT[@]}" -- "$W/pg" "$N" >/dev/null 2>&1
d1=$(stat -c %s "$W/t.dat")

echo "args_bench: $CALLS calls ($N iterations x 3, 2 integer args + retval each), best of $RUNS, CC=$CC"
ns_table 20 untraced ftrail ftrail_other_spec ftrail_args_ret uftrace uftrace_args_ret
echo
echo "ratio ftrail_other_spec/ftrail       $(ratio "$(per_call ftrail_other_spec)" "$(per_call ftrail)")   (target 1.00: no change)"
echo "ratio ftrail_args_ret/ftrail         $(ratio "$(per_call ftrail_args_ret)" "$(per_call ftrail)")"
if [ $have_uftrace = 1 ]; then
	echo "ratio uftrace_args_ret/ftrail_args_ret  $(ratio "$(per_call uftrace_args_ret)" "$(per_call ftrail_args_ret)")"
	echo "ratio uftrace_args_ret/uftrace       $(ratio "$(per_call uftrace_args_ret)" "$(per_call uftrace)")"
fi
echo "bytes/call on disk: nothing captured $(ratio "$d0" "$CALLS"), args+ret $(ratio "$d1" "$CALLS")"

if have_callgrind; then
	NI=100000
	VG="valgrind --tool=callgrind --callgrind-out-file=$W/cg.%p"
	# the traced program under valgrind, the recorder outside it
	vgft() { "$FTRAIL" record -q -o "$W/t.dat" "$@"; }
	# -pg's profiling timer (SIGPROF) sometimes ends valgrind before it
	# writes its counts, more often on a loaded machine: up to 3 tries
	icount3() {
		local v i
		for i in 1 2 3; do
			v=$(icount "$@")
			[ -n "$v" ] && break
		done
		echo "$v"
	}
	i_base=$(icount $VG "$W/plain" $NI)
	declare -A I
	I[ftrail]=$(icount3 vgft -- $VG "$W/pg" $NI)
	I[ftrail_other_spec]=$(icount3 vgft -A 'never_called@arg1' -- $VG "$W/pg" $NI)
	I[ftrail_args_ret]=$(icount3 vgft "${A_FT[@]}" -- $VG "$W/pg" $NI)
	if [ $have_uftrace = 1 ]; then
		I[uftrace]=$(icount3 $VG --trace-children=yes uftrace record -d "$W/uft.i" "$W/pg" $NI)
		I[uftrace_args_ret]=$(icount3 $VG --trace-children=yes uftrace record -d "$W/uft.i" "${A_UFT[@]}" "$W/pg" $NI)
	fi
	icount_table $((3 * NI)) 20 ftrail ftrail_other_spec ftrail_args_ret uftrace uftrace_args_ret
	echo "instr ratio ftrail_other_spec/ftrail          $(ratio "${I[ftrail_other_spec]}" "${I[ftrail]}")"
	echo "instr ratio ftrail_args_ret/ftrail            $(ratio "${I[ftrail_args_ret]}" "${I[ftrail]}")"
	[ -n "${I[uftrace_args_ret]:-}" ] &&
		echo "instr ratio uftrace_args_ret/ftrail_args_ret  $(ratio "${I[uftrace_args_ret]}" "${I[ftrail_args_ret]}")"
fi
