# description: mount: ftrail mount -P on a recording of kernel and user events started without --mount streams both: after a marker, trace_pipe shows the program's calls and its sched_switch events within seconds, in time order
# requires: root fuse gcc tracefs
# asan: yes
. "$TOP/tests/e2e/t1019-mount.inc"
need_tracefs
gcc -O1 -fpatchable-function-entry=5 -o slow "$TOP/tests/progs/mnt_slow.c" -lpthread || fail "cannot build mnt_slow"
$FTRAIL record -q -o t.dat -b 1024 -p function -l 'foo*' -e sched:sched_switch -- ./slow >rec.out 2>rec.err &
REC=$!
prog=
for i in $(seq 300); do
	prog=$(pgrep -P "$REC" -x slow) && break
	sleep 0.1
done
[ -n "$prog" ] || fail "no traced program: $(cat rec.err)"
mkdir m
MNT=m
$FTRAIL mount -P "$prog" m >mnt.out 2>mnt.err &
mnt=$!
wait_mounted m "$mnt"
cat m/trace_pipe >p.out 2>p.err &
c=$!
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
touch stop
wait $REC || fail "record exited $?: $(cat rec.err)"
REC=
wait_exit $mnt "ftrail mount"
wait_exit $c "the trace_pipe reader"
exit 0
