# description: ftrail list: tracers, trace options with defaults, kernel events by glob, a program's user events
# requires:
. "$TOP/tests/e2e/lib.sh"
$FTRAIL list -t >t.out || fail "list -t"
[ "$(tr '\n' ' ' <t.out)" = "nop function function_graph stack lockheld sigsoff wakeup wakeup_rt wakeup_dl " ] ||
	fail "tracers: $(cat t.out)"
# every tracer listed is one record accepts
while read -r tr; do
	# the wakeup tracers read kernel events: root and tracefs
	case $tr in wakeup*) [ "$(id -u)" = 0 ] && [ -e /sys/kernel/tracing/trace ] || continue ;; esac
	$FTRAIL record -q -p "$tr" -o x.dat -- true 2>err || fail "record -p $tr: $(cat err)"
done <t.out
$FTRAIL list -o >o.out || fail "list -o"
grep -qx 'print-parent' o.out || fail "print-parent is on by default in ftrace: $(cat o.out)"
grep -qx 'nosym-offset' o.out || fail "sym-offset is off by default: $(cat o.out)"
# every option listed is accepted by -O, both ways
while read -r o; do
	name=${o#no}
	$FTRAIL show -O "$name" -i /dev/null >/dev/null 2>err
	grep -q "unknown option" err && fail "-O $name refused: $(cat err)"
done <o.out
# a program's own events, read from its ELF file without running it
cc -O1 -I"$TOP/include" -o ev "$TOP/tests/progs/ev_types.c" || fail "build ev_types"
$FTRAIL list -u ./ev >u.out || fail "list -u"
[ -s u.out ] || fail "no user event listed"
grep -q '^u:[a-z_0-9]*:[a-z_0-9]*$' u.out || fail "user events not as u:SYS:EVENT: $(cat u.out)"
expect_fail "ftrail: list: */nonexistent*" $FTRAIL list -u /nonexistent
expect_fail "ftrail: list: unexpected argument 'x'*" $FTRAIL list -t x
expect_fail "ftrail: list: unknown option '-z'*" $FTRAIL list -z
# kernel events where tracefs is readable
if [ -r /sys/kernel/tracing/available_events ]; then
	$FTRAIL list -e 'sched:sched_switch' >e.out || fail "list -e"
	[ "$(cat e.out)" = sched:sched_switch ] || fail "list -e sched:sched_switch: $(cat e.out)"
	$FTRAIL list -e 'sched:*' >e2.out || fail "list -e sched:*"
	[ "$(grep -vc '^sched:' e2.out)" = 0 ] && [ "$(wc -l <e2.out)" -gt 5 ] || fail "sched:*: $(cat e2.out)"
	expect_fail "ftrail: list: no kernel event matches 'nosuch:*'" $FTRAIL list -e 'nosuch:*'
	$FTRAIL list >all.out || fail "list"
	grep -qx 'events:' all.out && grep -qx 'sched:sched_switch' all.out || fail "list: $(head all.out)"
fi
exit 0
