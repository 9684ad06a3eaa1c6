# description: mount: events/u/<sys>/<event>/{enable,filter,trigger,format,id} and set_event show the program's own events as chosen at record time; a bad filter, a bad trigger and set_event of an unknown event are refused with EINVAL, each with a line in error_log
# requires: root fuse gcc
# asan: yes
. "$TOP/tests/e2e/t1019-mount.inc"
gcc -O1 -I"$TOP/include" -o evs "$TOP/tests/progs/ev_sleep.c" || fail "build ev_sleep"
mkdir m
MNT=m
# the program outlives the checks however slow the machine (100 s; stopped below)
$FTRAIL record -q -o t.dat --mount m -p nop -e u:sleepy:tick -f 'n > 3' -R 'traceoff:5' \
	-- ./evs 2000 >rec.out 2>rec.err &
REC=$!
wait_mounted m "$REC"
wait_dir m/events/u/sleepy/tick
expect_eq "events/u" "$(ls m/events/u | tr '\n' ' ')" "enable sleepy "
expect_eq "events/u/sleepy" "$(ls m/events/u/sleepy | tr '\n' ' ')" "enable tick "
expect_eq "event files" "$(ls m/events/u/sleepy/tick | tr '\n' ' ')" "enable filter format id trigger "
expect_eq set_event "$(cat m/set_event)" "u:sleepy:tick"
expect_eq enable "$(cat m/events/u/sleepy/tick/enable)" 1
expect_eq filter "$(cat m/events/u/sleepy/tick/filter)" "n > 3"
expect_eq trigger "$(cat m/events/u/sleepy/tick/trigger)" "traceoff:5"
id=$(cat m/events/u/sleepy/tick/id)
[ "$id" -ge 1 ] || fail "id '$id'"
f=m/events/u/sleepy/tick/format
expect_eq "format name" "$(sed -n 1p $f)" "name: tick"
expect_eq "format ID" "$(sed -n 2p $f)" "ID: $id"
grep -qx '	field:u32 n;	offset:4;	size:4;	signed:0;' $f || fail "format fields: $(cat $f)"
grep -q '^print fmt: "n=%u", REC->n$' $f || fail "print fmt: $(cat $f)"
grep -q '^system:' $f && fail "format shows ftrail's system line"
ls m/events/u/nosys >/dev/null 2>&1 && fail "events/u/nosys exists"
ls m/events/u/sleepy/nosuch >/dev/null 2>&1 && fail "events/u/sleepy/nosuch exists"
: >m/error_log
write_fails "Invalid argument" m/events/u/sleepy/tick/filter "nosuch > 5"
write_fails "Invalid argument" m/events/u/sleepy/tick/trigger "nosuch"
write_fails "Invalid argument" m/events/u/sleepy/tick/enable 2
(echo "u:sleepy:other" >>m/set_event) 2>/dev/null && fail "set_event took an unknown event"
grep -q '^\[.*\] filter: error: .*nosuch' m/error_log || fail "error_log: $(cat m/error_log)"
grep -q '^\[.*\] trigger: error: .*nosuch' m/error_log || fail "error_log: $(cat m/error_log)"
grep -q '^\[.*\] set_event: error: no such user event' m/error_log ||
	fail "error_log: $(cat m/error_log)"
expect_eq "enable after refusals" "$(cat m/events/u/sleepy/tick/enable)" 1
expect_eq "filter after refusal" "$(cat m/events/u/sleepy/tick/filter)" "n > 3"
expect_eq "trigger after refusal" "$(cat m/events/u/sleepy/tick/trigger)" "traceoff:5"
kill -TERM $REC
wait $REC
REC=
! mounted m || fail "m still mounted after record ended"
exit 0
