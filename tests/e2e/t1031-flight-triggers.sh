# description: a flight recorder writes a snapshot at each trigger -- event trigger snapshot:N, function command, ftrail snapshot -P PID, the program's exit -- each with what the rings held since the last one, readable with show --snapshot=N
# requires: cc
. "$TOP/tests/e2e/t0399-rec.inc"
need_runtime
cc -O1 -pg -I"$TOP/include" -o flight "$TOP/tests/progs/flight.c" -lpthread || fail "build flight"
ticks() { grep -o 'tick: i=[0-9]*' "$1" | sed 's/.*=//'; }
range() { echo "$(ticks "$1" | head -1)-$(ticks "$1" | tail -1)"; }

# mark() fires every 100 ticks (100 ms: time to save a snapshot on a loaded machine):
# snapshot:2 takes two, the exit a third
$FTRAIL record -q --flight-recorder -e u:fl:tick -e u:fl:mark -R snapshot:2 -o t.dat -- \
	./flight 1000 1000 exit >/dev/null 2>err
[ $? = 3 ] || fail "exit status: $(cat err)"
for n in 1 2 3; do $FTRAIL show -i t.dat --snapshot=$n >s$n || fail "show --snapshot=$n"; done
[ "$(range s1)" = 0-99 ] || fail "snapshot 1: ticks $(range s1)"
[ "$(range s2)" = 100-199 ] || fail "snapshot 2: ticks $(range s2)"
[ "$(range s3)" = 200-999 ] || fail "snapshot 3 (exit): ticks $(range s3)"
expect_fail "*holds no snapshot 4*" $FTRAIL show -i t.dat --snapshot=4

# the function command on mark()
$FTRAIL record -q --flight-recorder -l 'mark:snapshot:1' -l 'step' -l 'mark' -e u:fl -o f.dat -- \
	./flight 300 1000 exit >/dev/null 2>err
$FTRAIL show -i f.dat --snapshot=1 >f1 || fail "show f.dat"
[ "$(range f1)" = 0-99 ] || fail "function command snapshot: ticks $(range f1)"

# ftrail snapshot -P while it waits, then its exit
$FTRAIL record -q --flight-recorder -e u:fl -o w.dat -- ./flight 300 1000 wait >/dev/null 2>err &
rec=$!
pid=
for i in $(seq 1 200); do
	pid=$(pgrep -P $rec -x flight) && [ -n "$pid" ] && break
	sleep 0.1
done
[ -n "$pid" ] || { touch stop; fail "the program did not start"; }
sleep 1.5 # its 300 ticks (0.3 s or more) are done
$FTRAIL snapshot -P "$pid" 1 || fail "ftrail snapshot -P $pid 1"
sleep 0.5
touch stop
wait $rec
[ $? = 3 ] || fail "wait: exit status: $(cat err)"
$FTRAIL show -i w.dat --snapshot=1 >w1 || fail "show w.dat 1"
$FTRAIL show -i w.dat --snapshot=2 >w2 || fail "show w.dat 2"
[ "$(range w1)" = 0-299 ] || fail "ftrail snapshot: ticks $(range w1)"
[ "$(ticks w2 | wc -l)" = 0 ] || fail "the exit's dump repeats ticks: $(range w2)"
grep -q 'access();' w2 || fail "the exit's dump misses the wait loop's calls"
grep -q 'sched_process_exit: status=3' w2 || fail "the exit's dump misses the exit"
exit 0
