# description: offcpu --record -- PROG (-pg -mfentry): exact user stacks from the thread's own function_graph records at switch-out, all four blocking kinds attributed, direct samples over the threshold
# requires: root tracefs cc
# asan: yes
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/e2e/t0849-offcpu-check.inc"
need_tracefs
need_cmd cc
# glibc has no frame pointers, so a frame-pointer walk loses the condition
# variable's callers (t0800); the function_graph records must not
cc -O1 -g -pg -mfentry -pthread -o blocks "$TOP/tests/progs/offcpu_blocks.c" ||
	fail "cannot build offcpu_blocks"

# the program runs for about a second; the recording must end with it
timeout 120 $FTRAIL offcpu --record --threshold 50 -o off.dat -- ./blocks --long 200 --short 10 --count 5 \
	>out 2>rec.err
rc=$?
grep -q 'not complete in this build' rec.err && skip "offcpu --record -- PROG needs the user-space recorder, not in this build"
[ $rc -eq 124 ] && fail "offcpu --record did not end when the program did (killed after 120 s)"
[ $rc -eq 0 ] || fail "offcpu --record exited $rc: $(cat rec.err)"
cat rec.err
grep '^truth ' out >truth
[ -s truth ] || fail "the program printed no truth lines"
grep -q '^# ftrail offcpu: threshold 50.000 ms' out || fail "no report after --record"
sed -n '/^#/p' out | head -n 6
# the user stacks came from the runtime's records
awk '/user stacks of/ { for (i = 1; i <= NF; i++) if ($(i+1) == "from" && $(i+2) == "function_graph") n = $i } END { exit !(n > 0) }' out ||
	fail "no user stack was rebuilt from function_graph records: $(grep 'user stacks of' out)"
# Unpaired switches happen only where this kernel did not report a switch-in
# (seen on VMs whose idle task's switches go missing: doc/offcpu.md); every
# one must then be matched by an interval the report closed at its wakeup.
lostin=$(sed -n 's/^# switch-ins lost.*: \([0-9]*\) intervals ended.*/\1/p' out)
unpaired=$(sed -n 's/^# not counted:.* \([0-9]*\) unpaired switches.*/\1/p' out)
[ -n "$lostin" ] && [ -n "$unpaired" ] || fail "no switch accounting lines: $(grep '^#' out)"
[ "$unpaired" -le "$lostin" ] || fail "switches lost beyond the kernel's dropped switch-ins: $(grep -E 'unpaired|switch-ins lost' out)"

$FTRAIL offcpu -i off.dat --threshold 50 --format folded >folded || fail "--folded"
$FTRAIL offcpu -i off.dat --threshold 50 --format samples >samples || fail "--samples"
# exact stacks: thread function, offcpu_*, our wrapper, in that order
grep -q ';sleep_thread;offcpu_sleep_long;block_nanosleep;' folded || fail "sleep stack: $(grep sleep_long folded)"
grep -q ';cond_thread;offcpu_cond_long;block_cond;' folded || fail "cond stack: $(grep cond_long folded)"
offcpu_check truth folded samples 50 "sleep mutex pipe cond"
exit 0
