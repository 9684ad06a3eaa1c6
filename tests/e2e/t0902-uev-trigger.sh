# description: -R triggers on user events: traceoff/traceon with count and if, enable_event/disable_event, stacktrace, snapshot
# requires:
. "$TOP/tests/e2e/lib.sh"
cc -O2 -I"$TOP/include" -o ev_ctl "$TOP/tests/progs/ev_ctl.c" || fail "build"
evs() { sed -n 's/^.*\] *[0-9.]*: //p' | grep -v '^sched_process_exit' | sed 's/ i=/=/; s/: /:/' | tr '\n' ' '; }

# traceoff:2 if i >= 3, traceon if i >= 6.  The count is used only when
# tracing really goes off (ftrace's trigger rule): i=3 off (count 1); i=4,5 tracing is
# already off: no decrement; i=6 traceon; i=7 off (count 0) then on again
# in the same iteration; i=8,9 the count is used up: tracing stays on.
$FTRAIL record -q -p nop -e u:ctl:off -R 'traceoff:2 if i >= 3' -e u:ctl:on -R 'traceon if i >= 6' \
	-e u:data:v -o t.dat -- ./ev_ctl 2>err || fail "record: $(cat err)"
got=$($FTRAIL show -i t.dat | sed -n 's/^.*\] *[0-9.]*: //p' | grep -v '^sched_process_exit' |
	sed 's/^\([a-z_]*\):* .*i=\([0-9]*\).*/\1\2/' | tr '\n' ' ')
want="off0 on0 v0 off1 on1 v1 off2 on2 v2 tracing_off tracing_on on6 v6 tracing_off tracing_on on7 v7 off8 on8 v8 off9 on9 v9 "
[ "$got" = "$want" ] || fail "traceoff/traceon counts: got '$got', expected '$want'"

# enable_event: data:name is off until i == 4 enables it (once), disable_event at i == 7
$FTRAIL record -q -p nop -e u:ctl:off -R 'enable_event:data:name:1 if i == 4' \
	-e u:ctl:on -R 'disable_event:data:name if i == 7' -o t.dat -- ./ev_ctl 2>err || fail "record: $(cat err)"
got=$($FTRAIL show -i t.dat | grep -o ' name: comm=[a-z]* i=[0-9]*' | sed 's/.*i=//' | tr '\n' ' ')
[ "$got" = "4 5 6 " ] || fail "enable_event/disable_event: data:name for i = '$got'"

# stacktrace:3: three stacks, after the events that fired it
$FTRAIL record -q -p nop -e u:data:v -R 'stacktrace:3 if i > 1' -o t.dat -- ./ev_ctl 2>err || fail "record: $(cat err)"
$FTRAIL show -i t.dat >out || fail show
n=$(grep -c -E '<stack trace>|<stack_id [0-9]+>' out)
[ "$n" = 3 ] || fail "stacktrace:3 gave $n stacks: $(cat out)"

# snapshot: the trigger at i == 5 keeps the buffer as it was before that event
$FTRAIL record -q -p nop -e u:data:v -R 'snapshot:1 if i == 5' -o t.dat -- ./ev_ctl 2>err || fail "record: $(cat err)"
$FTRAIL show --snapshot -i t.dat >snap || fail "show --snapshot"
[ "$(grep -c ' v: i=' snap)" = 5 ] || fail "snapshot should hold i=0..4: $(cat snap)"
grep -q ' v: i=4 ' snap || fail "snapshot without i=4: $(cat snap)"
[ "$($FTRAIL show -i t.dat | grep -c ' v: i=')" = 10 ] || fail "the live trace lost events to the snapshot"
exit 0
