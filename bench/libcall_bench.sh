#!/usr/bin/env bash
# Library calls: ns per call of strlen() through the PLT,
#
#   plain          the program without instrumentation, not traced
#   nolibcall      -pg -mfentry under `ftrail record --no-libcall` (GOT untouched)
#   ftrail_lib     the same under `ftrail record` (the GOT slot hooked)
#   patch_lib      the plain program under `ftrail record --patch main`: the
#                  calls of a function patched without instrumentation
#                  (doc/patching.md), hooked as an instrumented object's
#   ftrail_func    a traced function of the program instead (fentry), for the
#                  issue's target: a hooked library call <= 2x a traced function
#   uftrace_lib    `uftrace record` on the -pg build (uftrace hooks the PLT too)
#
# ns/call = (loop time - plain loop time) / calls, the loop timed inside the
# program (bench/libcall_prog.c), best of $RUNS runs.
#
#   bench/libcall_bench.sh [ITERATIONS]      (env BUILD=build, RUNS=5, CC=gcc)
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh" # bench_setup, best, per_call, ratio
bench_setup libcall-bench "$@"

need_built "$FTRAIL"
P=$TOP/bench/libcall_prog.c
$CC -O2 -fno-builtin -o "$W/plain" "$P" || exit 1
$CC -O2 -fno-builtin -pg -mfentry -o "$W/fentry" "$P" || exit 1
$CC -O2 -fno-builtin -pg -o "$W/pg" "$P" || exit 1
have_uftrace=0
command -v uftrace >/dev/null 2>&1 && have_uftrace=1

rec() { "$FTRAIL" record -q -o "$W/t.dat" "$@"; }

declare -A T
T[plain_lib]=$(best "$W/plain" l "$N")
T[plain_func]=$(best "$W/plain" f "$N")
T[nolibcall]=$(best rec --no-libcall -- "$W/fentry" l "$N")
T[ftrail_lib]=$(best rec -- "$W/fentry" l "$N")
T[patch_lib]=$(best rec --patch main -- "$W/plain" l "$N")
T[ftrail_func]=$(best rec --no-libcall -- "$W/fentry" f "$N")
[ $have_uftrace = 1 ] && T[uftrace_lib]=$(best uftrace record -d "$W/uft.data" "$W/pg" l "$N")

# the trace holds every call (nothing lost)
rec -- "$W/fentry" l "$N" >/dev/null
got=$("$FTRAIL" report -i "$W/t.dat" | awk '$NF == "strlen" { print $(NF-1) }')

CALLS=$N # one call per iteration

echo "libcall_bench: $N calls, best of $RUNS, CC=$CC; strlen calls in the trace: ${got:-none}"
printf '%-14s %14s %12s\n' config loop_ns ns/call
for k in plain_lib nolibcall ftrail_lib patch_lib uftrace_lib; do
	[ -n "${T[$k]:-}" ] || continue
	printf '%-14s %14s %12s\n' "$k" "${T[$k]}" "$(per_call "$k" plain_lib)"
done
for k in plain_func ftrail_func; do
	printf '%-14s %14s %12s\n' "$k" "${T[$k]}" "$(per_call "$k" plain_func)"
done
echo
lib=$(per_call ftrail_lib plain_lib)
echo "ratio ftrail_lib/ftrail_func   $(ratio "$lib" "$(per_call ftrail_func plain_func)")   (target <= 2)"
echo "ratio patch_lib/ftrail_lib     $(ratio "$(per_call patch_lib plain_lib)" "$lib")"
[ $have_uftrace = 1 ] &&
	echo "ratio uftrace_lib/ftrail_lib   $(ratio "$(per_call uftrace_lib plain_lib)" "$lib")   (target >= 3)"

# The same per call in instructions (callgrind): what the hooks execute,
# free of the machine's load; the traced program under valgrind, the
# recorder (and uftrace's own process) outside it or not counted.
if have_callgrind; then
	NI=100000
	VG="valgrind --tool=callgrind --callgrind-out-file=$W/cg.%p"
	declare -A I
	I[plain_lib]=$(icount $VG "$W/plain" l $NI)
	I[plain_func]=$(icount $VG "$W/plain" f $NI)
	I[ftrail_lib]=$(icount rec -- $VG "$W/fentry" l $NI)
	I[patch_lib]=$(icount rec --patch main -- $VG "$W/plain" l $NI)
	I[ftrail_func]=$(icount rec --no-libcall -- $VG "$W/fentry" f $NI)
	[ $have_uftrace = 1 ] &&
		I[uftrace_lib]=$(icount $VG --trace-children=yes uftrace record -d "$W/uft.i" "$W/pg" l $NI)
	iper() { awk -v t="${I[$1]:-}" -v b="${I[$2]}" -v c=$NI 'BEGIN{ if (t == "") print "-"; else printf "%.0f", (t-b)/c }'; }
	echo
	echo "instructions per call (callgrind, $NI calls, over the untraced loop)"
	printf '%-14s %8s\n' ftrail_lib "$(iper ftrail_lib plain_lib)" patch_lib "$(iper patch_lib plain_lib)" \
		ftrail_func "$(iper ftrail_func plain_func)"
	[ $have_uftrace = 1 ] && printf '%-14s %8s\n' uftrace_lib "$(iper uftrace_lib plain_lib)"
	echo "instr ratio ftrail_lib/ftrail_func   $(ratio "$(iper ftrail_lib plain_lib)" "$(iper ftrail_func plain_func)")"
	echo "instr ratio patch_lib/ftrail_lib     $(ratio "$(iper patch_lib plain_lib)" "$(iper ftrail_lib plain_lib)")"
	[ $have_uftrace = 1 ] &&
		echo "instr ratio uftrace_lib/ftrail_lib   $(ratio "$(iper uftrace_lib plain_lib)" "$(iper ftrail_lib plain_lib)")"
fi
exit 0
