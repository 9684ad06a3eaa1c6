# description: record -e sched:sched_switch -o -: kernel events are streamed with the program's, as show prints them; any that came too late are counted, never silently missing
# requires: cc root tracefs
. "$TOP/tests/e2e/t0399-rec.inc"
need_tracefs
need_runtime
cc -O1 -pg -I"$TOP/include" -o flight "$TOP/tests/progs/flight.c" -lpthread || fail "build flight"
$FTRAIL record -q -e sched:sched_switch -e u:fl -o - -o k.dat -- ./flight 300 2000 exit >k.out 2>err
[ $? = 3 ] || fail "exit status: $(cat err)"
$FTRAIL show -i k.dat -O funcgraph-proc >k.show || fail "show"
n=$(grep -c 'sched_switch:' k.out)
[ "$n" -gt 0 ] || fail "no kernel event in the stream"
[ "$(grep -c 'tick: i=' k.out)" = 300 ] || fail "user events: $(grep -c 'tick: i=' k.out) of 300"
# every streamed kernel event is show's (thread names may be earlier ones: compared from the CPU on)
sed 's/^.*|  //' k.show | grep 'sched_switch:' | sort >ks
sed 's/^.*|  //' k.out | grep 'sched_switch:' | sort >os
[ -z "$(comm -13 ks os)" ] || fail "streamed kernel events show does not have: $(comm -13 ks os | head -2)"
missing=$(comm -23 ks os | wc -l)
late=$(sed -n 's/.*stream: \([0-9]*\) events reached the trace after.*/\1/p' err)
[ "$missing" -le "${late:-0}" ] || fail "$missing kernel events missing from the stream, $late reported late"
exit 0
