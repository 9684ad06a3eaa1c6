# description: mount: echo 0/1 > events/u/<sys>/<event>/enable, events/u/enable and set_event switch the running program's own events off and on, as the kernel's files do
# requires: root fuse gcc
# asan: yes
. "$TOP/tests/e2e/t1019-mount.inc"
gcc -O1 -I"$TOP/include" -o evs "$TOP/tests/progs/ev_sleep.c" || fail "build ev_sleep"
mkdir m
MNT=m
# no -e: the program's events are known but none is recorded until enabled
$FTRAIL record -q -o t.dat --mount m -p nop -- ./evs 2400 >rec.out 2>rec.err &
REC=$!
wait_mounted m "$REC"
wait_dir m/events/u/sleepy/tick
e=m/events/u/sleepy/tick/enable
expect_eq "enable at start" "$(cat $e)" 0
expect_eq "set_event at start" "$(cat m/set_event)" ""
cat m/trace_pipe >p.out 2>p.err &
c=$!
echo 1 >$e
expect_eq "enable" "$(cat $e)" 1
expect_eq "set_event" "$(cat m/set_event)" "u:sleepy:tick"
wait_grep 'tick: n='
echo 0 >$e
expect_eq "enable off" "$(cat $e)" 0
# the program applies the switch within milliseconds; 5 s of room, then
# no tick (one every 50 ms) may come between two markers 1 s apart
sleep 5
echo off-1 >m/trace_marker
sleep 1
echo off-2 >m/trace_marker
wait_grep off-2
sed -n '/off-1$/,/off-2$/p' p.out | grep 'tick: n=' && fail "ticks recorded while disabled"
# set_event: > clears, then the names written are enabled; ! disables
echo 'u:sleepy:tick' >m/set_event
expect_eq "enable by set_event" "$(cat $e)" 1
echo on-again >m/trace_marker
wait_grep on-again
for i in $(seq 600); do
	sed -n '/on-again$/,$p' p.out | grep -q 'tick: n=' && break
	sleep 0.1
done
sed -n '/on-again$/,$p' p.out | grep -q 'tick: n=' || fail "no tick after set_event enabled it"
echo '!sleepy:tick' >>m/set_event
expect_eq "disabled by !" "$(cat $e)" 0
echo 1 >m/events/u/enable
expect_eq "enabled by events/u/enable" "$(cat $e)" 1
expect_eq "events/u/sleepy/enable" "$(cat m/events/u/sleepy/enable)" 1
echo 0 >m/events/u/sleepy/enable
expect_eq "disabled by events/u/sleepy/enable" "$(cat $e)" 0
: >m/error_log
(echo 'nosys:nothing' >>m/set_event) 2>/dev/null && fail "set_event took an unknown event"
grep -q 'set_event: error: no such user event' m/error_log || fail "error_log: $(cat m/error_log)"
kill -TERM $REC
wait $REC
REC=
wait_exit $c "the trace_pipe reader"
# the trace file has the ticks trace_pipe saw
n=$($FTRAIL show -i t.dat | grep -c 'tick: n=')
[ "$n" -ge 2 ] || fail "the trace has $n ticks"
exit 0
