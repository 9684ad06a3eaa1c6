# description: user events from 4 threads and a signal handler interrupting them: every event is in the trace, in order per thread, none torn
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
cc -O2 -pthread -I"$TOP/include" -o ev_threads "$TOP/tests/progs/ev_threads.c" || fail "build"
# buffers big enough that nothing is lost: every event must come back
$FTRAIL record -q -p nop -b 16384 -e u:thr -o t.dat -- ./ev_threads 30000 >prog.out 2>err || fail "record: $(cat err)"
read -r evs sigs < <(sed 's/ev=\([0-9]*\) sig=\([0-9]*\)/\1 \2/' prog.out)
$FTRAIL show -i t.dat >out || fail "show"
grep -q LOST out && fail "events lost with 16 MiB buffers: $(grep LOST out | head -3)"
[ "$(grep -c ' ev: t=[0-3] i=[0-9]* s=abc$' out)" = "$evs" ] || fail "ev: $(grep -c ' ev: ' out) of $evs"
[ "$(grep -c ' sig: n=' out)" = "$sigs" ] || fail "sig: $(grep -c ' sig: ' out) of $sigs"
[ "$(grep -c 'tracing_mark_write: sig ' out)" = "$sigs" ] || fail "markers: $(grep -c 'tracing_mark_write: sig' out) of $sigs"
# per thread, i counts up without a gap
for t in 0 1 2 3; do
	grep -o " ev: t=$t i=[0-9]*" out | sed 's/.*i=//' | awk -v t=$t 'NR - 1 != $1 { print "thread " t ": i=" $1 " at " NR; exit 1 }' ||
		fail "thread $t events out of order or missing"
done
exit 0
