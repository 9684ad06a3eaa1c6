# description: mount: with function_graph, a thread sitting in a call that calls nothing traced does not hold back the other threads' lines in trace_pipe
# requires: root fuse gcc
# asan: yes
. "$TOP/tests/e2e/t1019-mount.inc"
gcc -O1 -fpatchable-function-entry=5 -o slow "$TOP/tests/progs/mnt_slow.c" -lpthread ||
	fail "cannot build mnt_slow"
mkdir m || fail "mkdir m"
MNT=m
# stuck() is entered at the start and left only at the end
$FTRAIL record -q -o t.dat --no-libcall --mount m -p function_graph -- ./slow stuck >rec.out 2>rec.err &
REC=$!
wait_mounted m "$REC"
cat m/trace_pipe >p.out 2>p.err &
c=$!
# the main thread calls foo_one 4 times a second: 12 of them within 60 s
# (3 s of calls) while the other thread still sits in stuck()
for i in $(seq 600); do
	[ "$(grep -c 'foo_one();' p.out)" -ge 12 ] && break
	sleep 0.1
done
[ "$(grep -c 'foo_one();' p.out)" -ge 12 ] ||
	fail "trace_pipe stalled behind the stuck thread: $(grep -c 'foo_one();' p.out) foo_one lines: $(tail -n 3 p.out)"
grep -q 'stuck() {' p.out || fail "no open stuck() line: $(grep stuck p.out)"
stop_rec
wait_exit $c "the trace_pipe reader"
exit 0
