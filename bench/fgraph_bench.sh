#!/usr/bin/env bash
# function_graph cost per traced call, side by side in one run:
#
#   untraced            the program compiled without instrumentation
#   pfe, not attached   -fpatchable-function-entry=5, run plainly (the nops)
#   pfe, nothing sel.   the same under ftrail with only main selected: the
#                       other functions keep their nops (dynamic tracing)
#   floor               -finstrument-functions + a hook that reads the TSC and
#                       stores 8 bytes at entry and at exit (bench/fgraph_floor.c)
#   ftrail cyg|fentry|pfe|pg   function_graph on each kind of binary
#   uftrace cyg|pg      `uftrace record` on the same binaries
#   null cyg|fentry|pg  each binary with hooks that do nothing
#                       (bench/fgraph_null.c): what the flag alone costs
#                       the program, before any tracer runs
#   hj fentry|pg|pfe    the floor with a hijacked return
#                       (bench/fgraph_hijack.c): the floor's stores, the
#                       return address moved to a small shadow stack and a
#                       trampoline that comes back with "jmp *reg"; pfe's
#                       nops patched into "call stub" as ftrail does.  The
#                       least any return-hijacking tracer pays: ftrail_X /
#                       hj_X is what ftrail adds, hj_X / floor what
#                       hijacking costs on this CPU
#   hjret fentry        the same, back with "push; ret": the return-stack
#                       buffer left one entry short (what a ret there costs)
#   hjpad fentry        hj fentry with $PAD more plain ALU instructions
#                       per call (default 150: ftrail's count over hj's,
#                       see the callgrind table): what that many
#                       instructions cost on their own
#   ct pfe              "call-through": the patched nop jumps (not calls)
#                       to a stub that calls the body, so the function's
#                       ret and the trampoline's both predict
#
# ns/call = (loop time - untraced loop time) / calls, the loop timed inside
# the program (bench/fgraph_prog.c), best of $RUNS runs.  bytes/call is
# measured in the ring buffer (record bytes / entries) and, with `ftrail
# record`, on disk (file size / calls).  Targets: ftrail <= 1.5x
# the floor, >= 4x cheaper than uftrace, <= 8 bytes/call in the buffer, <= 3
# on disk, untraced patchable functions within 1% of uninstrumented.
#
# Timings on a loaded machine are noise; so the script also counts
# instructions per call with valgrind's callgrind (deterministic; rdtsc
# counts as one instruction there, so this measures the code, not the clock
# reads) when valgrind is installed (INSTR=0 turns it off).
#
#   bench/fgraph_bench.sh [ITERATIONS]      (env BUILD=build, RUNS=5, CC=gcc, INSTR=1, PAD=150)
#
# BASE_BUILD=DIR (another build, e.g. of main) adds base cyg|fentry|pfe|pg:
# `DIR/ftrail record` on the same binaries in the same run, and the
# ratios ftrail_X/base_X -- a change's A/B on a machine too loaded for
# figures taken at different times to compare.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh" # bench_setup, best, per_call, ratio, have_callgrind, icount
bench_setup fgraph-bench "$@"
LIB=$BUILD/libftrail.so

need_built "$LIB"
P=$TOP/bench/fgraph_prog.c
$CC -O2 -o "$W/plain" "$P" || exit 1
$CC -O2 -finstrument-functions -o "$W/cyg" "$P" || exit 1
$CC -O2 -pg -mfentry -o "$W/fentry" "$P" || exit 1
$CC -O2 -pg -o "$W/pg" "$P" || exit 1
$CC -O2 -fpatchable-function-entry=5 -o "$W/pfe" "$P" || exit 1
$CC -O2 -shared -fPIC -o "$W/floor.so" "$TOP/bench/fgraph_floor.c" || exit 1
$CC -O2 -shared -fPIC -o "$W/null.so" "$TOP/bench/fgraph_null.c" || exit 1
$CC -O2 -shared -fPIC -o "$W/hj.so" "$TOP/bench/fgraph_hijack.c" || exit 1
$CC -O2 -shared -fPIC -DFLOOR_RET_PUSH -o "$W/hjret.so" "$TOP/bench/fgraph_hijack.c" || exit 1
PAD=${PAD:-150}
$CC -O2 -shared -fPIC -DFLOOR_PAD="$PAD" -o "$W/hjpad.so" "$TOP/bench/fgraph_hijack.c" || exit 1
$CC -O2 -D_GNU_SOURCE -I"$TOP" -o "$W/rtrun" "$TOP/tests/progs/rtrun.c" \
	"$BUILD/libftrail-core.a" $(pkg-config --libs libelf libdw libzstd) -liberty -lpthread || exit 1

have_ftrail=0
if [ -x "$FTRAIL" ] && (cd "$W" && "$FTRAIL" record -q -o "$W/probe.dat" -- "$W/pfe" 10 >/dev/null 2>&1); then
	have_ftrail=1
fi
have_uftrace=0
command -v uftrace >/dev/null 2>&1 && have_uftrace=1

ftrail_run() { # binary [extra record options]; iterations $N
	local bin=$1; shift
	if [ $have_ftrail = 1 ]; then
		"$FTRAIL" record -q -o "$W/t.dat" "$@" -- "$bin" "$N"
	else
		FTRAIL_LIB=$LIB "$W/rtrun" "$@" -- "$bin" "$N"
	fi
}

CALLS=$((3 * N))
declare -A T
T[untraced]=$(best "$W/plain" "$N")
# the 1% question needs a longer loop: 50x the iterations, untraced runs only
NL=$((50 * N))
L_untraced=$(best "$W/plain" "$NL")
L_pfe_plain=$(best "$W/pfe" "$NL")
L_pfe_nosel=$(N=$NL best ftrail_run "$W/pfe" -l main)
T[floor]=$(best env LD_PRELOAD="$W/floor.so" "$W/cyg" "$N")
T[null_cyg]=$(best env LD_PRELOAD="$W/null.so" "$W/cyg" "$N")
T[null_fentry]=$(best env LD_PRELOAD="$W/null.so" "$W/fentry" "$N")
T[null_pg]=$(best env LD_PRELOAD="$W/null.so" "$W/pg" "$N")
T[hj_fentry]=$(best env LD_PRELOAD="$W/hj.so" "$W/fentry" "$N")
T[hj_pg]=$(best env LD_PRELOAD="$W/hj.so" "$W/pg" "$N")
T[hj_pfe]=$(best env FLOOR_PATCH=call LD_PRELOAD="$W/hj.so" "$W/pfe" "$N")
T[hjret_fentry]=$(best env LD_PRELOAD="$W/hjret.so" "$W/fentry" "$N")
T[hjpad_fentry]=$(best env LD_PRELOAD="$W/hjpad.so" "$W/fentry" "$N")
T[ct_pfe]=$(best env FLOOR_PATCH=jmp LD_PRELOAD="$W/hj.so" "$W/pfe" "$N")
T[ftrail_cyg]=$(best ftrail_run "$W/cyg")
T[ftrail_fentry]=$(best ftrail_run "$W/fentry")
T[ftrail_pfe]=$(best ftrail_run "$W/pfe")
T[ftrail_pg]=$(best ftrail_run "$W/pg")
if [ -n "${BASE_BUILD:-}" ]; then
	# this build and the base alternated run by run (both see the same
	# moments of load), each the best of its $RUNS; ftrail_X is retaken
	case $BASE_BUILD in /*) ;; *) BASE_BUILD=$TOP/$BASE_BUILD ;; esac
	need_built "$BASE_BUILD/ftrail"
	lower() { [ "$1" != - ] && { [ -z "$2" ] || [ "$1" -lt "$2" ]; } && echo "$1" || echo "$2"; }
	for f in cyg fentry pfe pg; do
		a= b=
		for ((r = 0; r < RUNS; r++)); do
			a=$(lower "$(RUNS=1 best ftrail_run "$W/$f")" "$a")
			b=$(lower "$(RUNS=1 best "$BASE_BUILD/ftrail" record -q -o "$W/b.dat" -- "$W/$f" "$N")" "$b")
		done
		T[ftrail_$f]=${a:--} T[base_$f]=${b:--}
	done
fi
if [ $have_uftrace = 1 ]; then
	T[uftrace_cyg]=$(best uftrace record -d "$W/uft.data" "$W/cyg" "$N")
	T[uftrace_pg]=$(best uftrace record -d "$W/uft.data" "$W/pg" "$N")
	T[uftrace_pfe]=$(best uftrace record -P . -d "$W/uft.data" "$W/pfe" "$N")
fi

# bytes per call in the ring buffer (entries counted by the decoder)
bytes_line=$(FTRAIL_LIB=$LIB "$W/rtrun" -q -- "$W/fentry" "$N" | grep '^#stat')
bcalls=$(echo "$bytes_line" | sed 's/.*calls=\([0-9]*\).*/\1/')
bbytes=$(echo "$bytes_line" | sed 's/.*bytes=\([0-9]*\).*/\1/')
disk=-
if [ $have_ftrail = 1 ]; then
	(cd "$W" && "$FTRAIL" record -q -o "$W/d.dat" -- "$W/fentry" "$N" >/dev/null 2>&1)
	[ -s "$W/d.dat" ] && disk=$(awk -v s="$(stat -c %s "$W/d.dat")" -v c="$CALLS" 'BEGIN{printf "%.2f", s/c}')
fi
uft_disk=-
if [ $have_uftrace = 1 ]; then
	rm -rf "$W/uft.data"
	(cd "$W" && uftrace record -d "$W/uft.data" "$W/pg" "$N" >/dev/null 2>&1)
	s=$(cat "$W"/uft.data/*.dat 2>/dev/null | wc -c)
	uft_disk=$(awk -v s="$s" -v c="$CALLS" 'BEGIN{printf "%.2f", s/c}')
fi

echo "fgraph_bench: $CALLS calls ($N iterations x 3), best of $RUNS, CC=$CC, recorder: $([ $have_ftrail = 1 ] && echo 'ftrail record' || echo 'tests/progs/rtrun')"
ns_table 16 untraced null_cyg null_fentry null_pg floor hj_fentry hj_pg hj_pfe hjret_fentry hjpad_fentry ct_pfe ftrail_cyg ftrail_fentry ftrail_pfe ftrail_pg base_cyg base_fentry base_pfe base_pg uftrace_cyg uftrace_pg uftrace_pfe
echo
floor=$(per_call floor)
echo "ratio ftrail_cyg/floor        $(ratio "$(per_call ftrail_cyg)" "$floor")   (target <= 1.5)"
echo "ratio ftrail_fentry/floor     $(ratio "$(per_call ftrail_fentry)" "$floor")   (target <= 1.5)"
echo "ratio ftrail_pfe/floor        $(ratio "$(per_call ftrail_pfe)" "$floor")   (target <= 1.5)"
echo "ratio ftrail_pg/floor         $(ratio "$(per_call ftrail_pg)" "$floor")   (target <= 1.5)"
if [ -n "${BASE_BUILD:-}" ]; then
	for f in cyg fentry pfe pg; do
		printf "%-29s %s   (this build against %s, alternated)\n" "ratio ftrail_$f/base_$f" \
			"$(ratio "$(per_call ftrail_$f)" "$(per_call base_$f)")" "$BASE_BUILD"
	done
fi
# the hijack's share: each hijacking flag against the floor that hijacks too
echo "ratio hj_fentry/floor         $(ratio "$(per_call hj_fentry)" "$floor")   (what hijacking costs this CPU)"
echo "ratio hj_pg/floor             $(ratio "$(per_call hj_pg)" "$floor")"
echo "ratio hj_pfe/floor            $(ratio "$(per_call hj_pfe)" "$floor")"
echo "ratio ftrail_fentry/hj_fentry $(ratio "$(per_call ftrail_fentry)" "$(per_call hj_fentry)")   (what ftrail adds to a hijack)"
echo "ratio ftrail_pg/hj_pg         $(ratio "$(per_call ftrail_pg)" "$(per_call hj_pg)")"
echo "ratio ftrail_pfe/hj_pfe       $(ratio "$(per_call ftrail_pfe)" "$(per_call hj_pfe)")"
echo "ratio hjret_fentry/hj_fentry  $(ratio "$(per_call hjret_fentry)" "$(per_call hj_fentry)")   (push+ret back: the RSB one entry short)"
echo "ratio ftrail_fentry/hjpad_fentry $(ratio "$(per_call ftrail_fentry)" "$(per_call hjpad_fentry)")   (ftrail against $PAD plain instructions more than hj)"
echo "ratio ct_pfe/hj_pfe           $(ratio "$(per_call ct_pfe)" "$(per_call hj_pfe)")   (call-through: no return mispredicted)"
# a patch that did not happen would time the nops: say so rather than print a floor
for k in hj_pfe ct_pfe; do
	awk -v a="$(per_call $k)" -v b="$(per_call null_fentry)" 'BEGIN { exit !(a != "-" && a + 0 < b + 0) }' &&
		echo "WARNING: $k costs less than an empty hook: fgraph_hijack.c did not patch the program"
done
# the hook's own share: each flag's null-hook cost taken out on both sides
hook_only() { awk -v a="$(per_call "$1")" -v b="$(per_call "$2")" 'BEGIN { if (a == "-" || b == "-") print "-"; else printf "%.2f", a - b }'; }
fl_hook=$(hook_only floor null_cyg)
echo "ratio over the null hooks: cyg $(ratio "$(hook_only ftrail_cyg null_cyg)" "$fl_hook"), fentry $(ratio "$(hook_only ftrail_fentry null_fentry)" "$fl_hook"), pg $(ratio "$(hook_only ftrail_pg null_pg)" "$fl_hook")   ((ftrail - null hook of its flag) / (floor - null cyg hook))"
if [ $have_uftrace = 1 ]; then
	echo "ratio uftrace_cyg/ftrail_cyg  $(ratio "$(per_call uftrace_cyg)" "$(per_call ftrail_cyg)")   (target >= 4)"
	echo "ratio uftrace_pg/ftrail_pg    $(ratio "$(per_call uftrace_pg)" "$(per_call ftrail_pg)")   (target >= 4)"
fi
if [ $have_uftrace = 1 ]; then
	echo "ratio uftrace_pg/floor        $(ratio "$(per_call uftrace_pg)" "$floor")   (context: >= 4 is out of reach for anything that reads the clock twice per call when this is < 4)"
fi
echo "untraced loops, $((3 * NL)) calls: plain $L_untraced ns, patchable nops $L_pfe_plain ns, patchable under ftrail with only main selected $L_pfe_nosel ns"
echo "ratio pfe_plain/untraced      $(ratio "$L_pfe_plain" "$L_untraced")   (target <= 1.01)"
echo "ratio pfe_nosel/untraced      $(ratio "$L_pfe_nosel" "$L_untraced")   (target <= 1.01)"
echo "bytes/call in buffer          $(ratio "$bbytes" "$bcalls")   (target <= 8)"
echo "bytes/call on disk            $disk   (target <= 3; uftrace: $uft_disk)"

# ---- instructions per call (callgrind) ----
if have_callgrind; then
	NI=100000
	VG="valgrind --tool=callgrind --trace-children=yes --callgrind-out-file=$W/cg.%p"
	i_base=$(icount $VG "$W/plain" $NI)
	declare -A I
	I[floor]=$(icount env LD_PRELOAD="$W/floor.so" $VG "$W/cyg" $NI)
	I[ftrail_fentry]=$(icount env FTRAIL_LIB="$LIB" "$W/rtrun" -q -- $VG "$W/fentry" $NI)
	I[ftrail_pfe]=$(icount env FTRAIL_LIB="$LIB" "$W/rtrun" -q -- $VG "$W/pfe" $NI)
	I[ftrail_cyg]=$(icount env FTRAIL_LIB="$LIB" "$W/rtrun" -q -- $VG "$W/cyg" $NI)
	I[ftrail_pg]=$(icount env FTRAIL_LIB="$LIB" "$W/rtrun" -q -- $VG "$W/pg" $NI)
	I[null_cyg]=$(icount env LD_PRELOAD="$W/null.so" $VG "$W/cyg" $NI)
	I[null_fentry]=$(icount env LD_PRELOAD="$W/null.so" $VG "$W/fentry" $NI)
	I[hj_fentry]=$(icount env LD_PRELOAD="$W/hj.so" $VG "$W/fentry" $NI)
	# (env under valgrind: the preload's constructor patches the program, not valgrind)
	I[hj_pfe]=$(icount $VG env FLOOR_PATCH=call LD_PRELOAD="$W/hj.so" "$W/pfe" $NI)
	I[ct_pfe]=$(icount $VG env FLOOR_PATCH=jmp LD_PRELOAD="$W/hj.so" "$W/pfe" $NI)
	# (not null_pg: valgrind dies of the -pg startup's profiling timer without ftrail)
	if [ $have_uftrace = 1 ]; then
		I[uftrace_pg]=$(icount $VG uftrace record -d "$W/uft.i" "$W/pg" $NI)
		I[uftrace_cyg]=$(icount $VG uftrace record -d "$W/uft.i" "$W/cyg" $NI)
	fi
	icount_table $((3 * NI)) 16 null_cyg null_fentry floor hj_fentry hj_pfe ct_pfe ftrail_fentry ftrail_pfe ftrail_cyg ftrail_pg uftrace_pg uftrace_cyg
	echo "instr ratio ftrail_fentry/floor     $(ratio "${I[ftrail_fentry]}" "${I[floor]}")"
	echo "instr ratio ftrail_cyg/floor        $(ratio "${I[ftrail_cyg]}" "${I[floor]}")"
	echo "instr ratio ftrail_pg/floor         $(ratio "${I[ftrail_pg]}" "${I[floor]}")"
	echo "instr ratio ftrail_fentry/hj_fentry $(ratio "${I[ftrail_fentry]}" "${I[hj_fentry]}")"
	echo "instr ratio ftrail_pfe/hj_pfe       $(ratio "${I[ftrail_pfe]}" "${I[hj_pfe]}")"
	[ -n "${I[uftrace_pg]:-}" ] && echo "instr ratio uftrace_pg/ftrail_fentry $(ratio "${I[uftrace_pg]}" "${I[ftrail_fentry]}")"
	[ -n "${I[uftrace_cyg]:-}" ] && echo "instr ratio uftrace_cyg/ftrail_cyg   $(ratio "${I[uftrace_cyg]}" "${I[ftrail_cyg]}")"
fi
