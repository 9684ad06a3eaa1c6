# description: mount: ftrail mount -P on a recording of kernel and user events started without --mount streams both: after a marker, trace_pipe shows the program's calls and its sched_switch events within seconds, in time order
# requires: root fuse gcc tracefs
# asan: yes
. "$TOP/tests/e2e/t1019-mount.inc"
need_tracefs
gcc -O1 -fpatchable-function-entry=5 -o slow "$TOP/tests/progs/mnt_slow.c" -lpthread || fail "cannot build mnt_slow"
$FTRAIL record -q -o t.dat -b 1024 -p function -l 'foo*' -e sched:sched_switch -- ./slow >rec.out 2>rec.err &
REC=$!
child_of "$REC" slow
late_mount m
echo late-k >m/trace_marker
# both kinds after the marker: the user side waits for the kernel's watermark
after() { sed -n '/late-k$/,$p' p.out | grep -c "$1"; }
for i in $(seq 300); do
	[ "$(after 'foo_one <-main$')" -ge 2 ] && [ "$(after 'sched_switch: prev_comm=slow ')" -ge 2 ] && break
	sleep 0.1
done
[ "$(after 'foo_one <-main$')" -ge 2 ] || fail "trace_pipe: $(after 'foo_one <-main$') calls after the marker: $(tail -n 3 p.out) $(cat mnt.err)"
[ "$(after 'sched_switch: prev_comm=slow ')" -ge 2 ] || fail "trace_pipe: $(after 'sched_switch: prev_comm=slow ') switches after the marker: $(tail -n 3 p.out)"
sed -n '/late-k$/,$p' p.out >a.out
awk '{for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]{6}:$/) {t = $i + 0; if (t < last) {print "back at " NR ": " $0; exit 1}; last = t; break}}' a.out ||
	fail "trace_pipe out of time order after the marker"
late_end
pipe_in_trace 'sched_switch:'
exit 0
