# description: an armed flight recorder writes nothing while the program runs (its file does not grow), and says in the summary how many snapshots it wrote
# requires: cc
. "$TOP/tests/e2e/t0399-rec.inc"
need_runtime
cc -O1 -pg -I"$TOP/include" -o flight "$TOP/tests/progs/flight.c" -lpthread || fail "build flight"
# 60,000 ticks, 100 us apart or more: 6 s at least, several traced calls each
$FTRAIL record --flight-recorder -e u:fl -o n.dat -- ./flight 60000 100 exit >/dev/null 2>err &
rec=$!
for i in $(seq 1 100); do [ -s n.dat.partial ] && break; sleep 0.1; done
sleep 1
s1=$(stat -c %s n.dat.partial)
sleep 2
s2=$(stat -c %s n.dat.partial)
pid=$(pgrep -P $rec -x flight)
wait $rec
[ $? = 3 ] || fail "exit status: $(cat err)"
[ -n "$pid" ] || fail "the program ended in less than 3 s: nothing measured"
[ "$s1" = "$s2" ] || fail "the trace grew from $s1 to $s2 bytes while the flight recorder was armed"
grep -q 'flight recorder: 1 snapshot(s) written' err || fail "summary: $(cat err)"
$FTRAIL show -i n.dat --snapshot >snap || fail "show --snapshot"
[ "$(grep -c 'tick: i=' snap)" -gt 100 ] || fail "the stop's dump holds $(grep -c 'tick: i=' snap) ticks"
exit 0
