# description: mount: kernel events recorded with -e appear in trace and trace_pipe, as show prints them, beside the program's own
# requires: root fuse gcc tracefs
# asan: yes
. "$TOP/tests/e2e/t1019-mount.inc"
need_tracefs
gcc -O1 -fpatchable-function-entry=5 -o slow "$TOP/tests/progs/mnt_slow.c" -lpthread || fail "cannot build mnt_slow"
mkdir m || fail "mkdir m"
MNT=m
$FTRAIL record -q -o t.dat --mount m -p function -e sched:sched_switch -- ./slow >rec.out 2>rec.err &
REC=$!
wait_mounted m "$REC"
# trace shows them, with the columns of kernel events in its header (before trace_pipe consumes them)
for i in $(seq 300); do
	grep -q 'sched_switch: prev_comm=slow ' m/trace && break
	sleep 0.1
done
cat m/trace >t1
grep -q 'sched_switch: prev_comm=slow ' t1 || fail "no kernel event in trace: $(tail -n 3 t1)"
grep -q '^#  *TASK-PID  *CPU#  *|||||  TIMESTAMP  FUNCTION$' t1 || fail "trace's header has no irq columns: $(head -n 12 t1)"
cat m/trace_pipe >p.out 2>p.err &
c=$!
# the program sleeps 4 times a second: a switch away from it each time
for i in $(seq 300); do
	grep -q 'sched_switch: prev_comm=slow ' p.out && grep -q 'bar <-main$' p.out && break
	sleep 0.1
done
grep -q 'sched_switch: prev_comm=slow ' p.out || fail "no kernel event in trace_pipe: $(tail -n 3 p.out) $(cat rec.err p.err)"
grep -q 'bar <-main$' p.out || fail "no user event in trace_pipe: $(tail -n 3 p.out)"
stop_rec
wait_exit $c "the trace_pipe reader"
# every kernel line read from the pipe is one show prints (compared from the CPU column on)
pipe_in_trace 'sched_switch:'
exit 0
