# description: a streamed program that runs on yields its lines while it runs, within a bounded delay, including a thread that traced a little and now sleeps
# requires: cc
. "$TOP/tests/e2e/t0399-rec.inc"
need_runtime
cc -O1 -pg -I"$TOP/include" -o flight "$TOP/tests/progs/flight.c" -lpthread || fail "build flight"
# 200 ticks (~0.3 s), then it waits for the file "stop": its last page is never full
$FTRAIL record -q -e u:fl -o - -- ./flight 200 1000 wait >s.out 2>err &
rec=$!
got=0
for i in $(seq 1 300); do # up to 30 s on a loaded machine
	if [ "$(grep -c 'tick: i=' s.out)" = 200 ]; then got=1; break; fi
	sleep 0.1
done
kill -0 $rec 2>/dev/null || fail "ftrail ended before the program: $(cat err)"
[ $got = 1 ] || { touch stop; wait $rec; fail "while the program runs: $(grep -c 'tick: i=' s.out) of 200 ticks streamed"; }
grep -q 'tick: i=199 ' s.out || grep -q 'tick: i=199 \*/' s.out || fail "last tick missing"
touch stop
wait $rec
[ $? = 3 ] || fail "exit status $?: $(cat err)"
grep -q '^ *[0-9]) .*| *} /\* main \*/$' s.out || grep -q 'main() {' s.out || fail "no main in the stream"
exit 0
