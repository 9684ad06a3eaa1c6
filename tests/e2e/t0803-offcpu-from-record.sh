# description: offcpu -i on a plain `ftrail record -e sched:sched_switch -e sched:sched_wakeup -T -- PROG` trace: threads from TASKS, user stacks from function_graph
# requires: root tracefs cc
# asan: yes
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/e2e/t0849-offcpu-check.inc"
need_tracefs
need_cmd cc
cc -O1 -g -pg -mfentry -pthread -o blocks "$TOP/tests/progs/offcpu_blocks.c" || fail "cannot build offcpu_blocks"
# sched_wakeup bounds an interval whose switch-in the kernel did not report
# (switches out of the idle task go missing on some VMs: doc/offcpu.md)
timeout 120 $FTRAIL record -e sched:sched_switch -e sched:sched_wakeup -T -o r.dat -- ./blocks --long 200 --short 10 --count 5 \
	>out 2>rec.err
rc=$?
grep -q 'not complete in this build' rec.err && skip "record -- PROG needs the user-space recorder, not in this build"
[ $rc -eq 124 ] && fail "record did not end when the program did (killed after 120 s)"
[ $rc -eq 0 ] || fail "record exited $rc: $(cat rec.err)"
grep '^truth ' out >truth
[ -s truth ] || fail "the program printed no truth lines"
$FTRAIL offcpu -i r.dat --threshold 50 >report || fail "offcpu report"
head -n 6 report
# no sched_wakeup_new here: a new thread's first wait is "cut at start", never silently added
grep -q '^# cut by the recording' report || fail "no cut line"
$FTRAIL offcpu -i r.dat --threshold 50 --format folded >folded || fail "--folded"
$FTRAIL offcpu -i r.dat --threshold 50 --format samples >samples || fail "--samples"
offcpu_check truth folded samples 50 "sleep mutex pipe cond"
# only the program's threads (TASKS): every folded line starts with its comm
! grep -v '^blocks;' folded | grep -q . || fail "threads of other processes: $(grep -v '^blocks;' folded | head -n 3)"
exit 0
