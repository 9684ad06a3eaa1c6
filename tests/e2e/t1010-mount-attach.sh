# description: mount: record -P PID --mount DIR serves a program it attached to (whose environment names no session), and the tree goes with the recording while the program runs on
# requires: root fuse gcc
# asan: no
. "$TOP/tests/e2e/t1019-mount.inc"
build_loop
./loop >loop.out &
prog=$!
sleep 0.3
mkdir m
MNT=m
$FTRAIL record -q -P $prog -o t.dat --mount m --duration 8 -p function -l alpha >rec.out 2>rec.err &
REC=$!
wait_mounted m "$REC"
expect_eq current_tracer "$(cat m/current_tracer)" function
expect_eq set_ftrace_filter "$(cat m/set_ftrace_filter)" alpha
sleep 0.5
echo A1 >m/trace_marker || fail "trace_marker"
sleep 0.5
echo A2 >m/trace_marker
echo beta >m/set_ftrace_filter
sleep 0.5
echo B1 >m/trace_marker
sleep 0.5
echo B2 >m/trace_marker
wait "$REC" || fail "record exited $?: $(cat rec.err)"
REC=
! mounted m || fail "m still mounted after the recording ended"
kill -0 $prog || fail "the program did not run on after the recording"
touch stop
wait $prog
$FTRAIL show -i t.dat >show.txt || fail "show"
section A1 A2 <show.txt >a.txt
section B1 B2 <show.txt >b.txt
[ "$(grep -c 'alpha <-' a.txt)" -ge 10 ] || fail "phase A: $(head a.txt)"
grep -E ': (beta|gamma_) <-' a.txt && fail "phase A traced more than alpha"
[ "$(grep -c 'beta <-run' b.txt)" -ge 10 ] || fail "phase B: $(head b.txt)"
grep -E ': (alpha|gamma_) <-' b.txt && fail "phase B traced more than beta"
exit 0
