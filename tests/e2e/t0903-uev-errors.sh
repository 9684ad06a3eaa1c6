# description: user events: malformed filters and triggers, unknown fields are one line before tracing starts; unknown events warn
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
cc -O2 -I"$TOP/include" -o ev_ctl "$TOP/tests/progs/ev_ctl.c" || fail "build"
R="$FTRAIL record -q -p nop -o e.dat"
expect_fail "ftrail: -e u:data:v: filter 'i >= ': syntax error at position 5: expected a value after '>='" \
	$R -e u:data:v -f 'i >= ' -- ./ev_ctl
expect_fail "ftrail: -e u:data:v: filter '(i == 1': syntax error at position 0: unbalanced parentheses*" \
	$R -e u:data:v -f '(i == 1' -- ./ev_ctl
expect_fail "ftrail: -e u:data:v: filter 'i == 1 && foo > 3' for data:v: error at position 10: unknown field 'foo' (fields: i neg flags)" \
	$R -e u:data:v -f 'i == 1 && foo > 3' -- ./ev_ctl
expect_fail "ftrail: -e u:data:name: filter 'comm < 3' for data:name: error at position 5: operator '<' is not valid for string field 'comm'*" \
	$R -e u:data:name -f 'comm < 3' -- ./ev_ctl
expect_fail "ftrail: -e u:data:v: filter 'i == abc' for data:v: error at position 5: 'abc' is not a number*" \
	$R -e u:data:v -f 'i == abc' -- ./ev_ctl
expect_fail "ftrail: -e u:data:v: trigger 'traceof': unknown trigger command 'traceof' at position 0*" \
	$R -e u:data:v -R traceof -- ./ev_ctl
expect_fail "ftrail: -e u:data:v: trigger 'traceoff:0': count 0 at position 9*" \
	$R -e u:data:v -R traceoff:0 -- ./ev_ctl
expect_fail "ftrail: -e u:data:v: trigger 'enable_event:data': enable_event needs :SYS:EVENT, at position 17" \
	$R -e u:data:v -R enable_event:data -- ./ev_ctl
expect_fail "ftrail: -e u:data:v: data:v: trigger filter 'x > 1': error at position 0: unknown field 'x'*" \
	$R -e u:data:v -R 'traceoff if x > 1' -- ./ev_ctl
expect_fail "ftrail: -e u:data:v: trigger 'traceoff if': missing filter after 'if' at position 11" \
	$R -e u:data:v -R 'traceoff if' -- ./ev_ctl
expect_fail "ftrail: -R 'traceoff' must follow an -e*" $R -R traceoff -- ./ev_ctl
[ -e e.dat ] && fail "a refused record left e.dat behind"
# a subsystem filter that no event of it accepts is refused too
expect_fail "ftrail: -e u:data: filter 'zz == 1' for data:*unknown field 'zz'*" $R -e u:data -f 'zz == 1' -- ./ev_ctl
# an event the program does not define: a warning, the rest is recorded
$R -e u:nosuch:event -e u:data:v -- ./ev_ctl 2>err || fail "unknown event should not fail the record"
grep -q "warning: -e u:nosuch:event: no such user event in ev_ctl" err || fail "no warning for an unknown event: $(cat err)"
[ "$($FTRAIL show -i e.dat | grep -c ' v: ')" = 10 ] || fail "data:v not recorded next to the unknown event"
exit 0
