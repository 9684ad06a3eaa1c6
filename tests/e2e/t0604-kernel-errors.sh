#!/usr/bin/env bash
# description: kernel capture errors: no root, unknown event (with or without a program), bad filter, killed recorder; one clear line each
# requires: root tracefs setpriv
# asan: yes
. "$TOP/tests/e2e/lib.sh"
need_tracefs
need_cmd setpriv
T=/sys/kernel/tracing

# unprivileged: one line that says what is missing and how to fix it
chmod 755 . 2>/dev/null
expect_fail "ftrail: kernel events need root*" \
	setpriv --reuid=nobody --regid=nogroup --clear-groups $FTRAIL record -e sched:sched_switch -a -o /tmp/nobody.$$.dat
[ ! -e /tmp/nobody.$$.dat ] || fail "a trace file was left by the failed record"

expect_fail "ftrail: no kernel event matches 'nosuch:event'*" $FTRAIL record -e nosuch:event -a -o x.dat
# with a program (uninstrumented: record would warn so): the error alone
expect_fail "ftrail: no kernel event matches 'nosuch:event'*" $FTRAIL record -e nosuch:event -o x.dat -- true
expect_fail "ftrail: invalid filter 'bogus ==' for sched:sched_switch" \
	$FTRAIL record -e sched:sched_switch -f 'bogus ==' -a -o x.dat
expect_fail "ftrail: bad event name ':x'*" $FTRAIL record -e ':x' -a -o x.dat
# no ftrail-PID instance may outlive its recorder
for d in $T/instances/ftrail-*; do
	[ -e "$d" ] || continue
	[ -d /proc/${d##*-} ] || fail "instance $d outlived its recorder"
done

# a recorder killed outright (SIGKILL) leaves no instance behind
: >rec.err
$FTRAIL record -e sched:sched_switch -a -o k.dat >/dev/null 2>rec.err &
p=$!
for _ in $(seq 200); do grep -q 'recording kernel events' rec.err && break; sleep 0.05; done
[ -d $T/instances/ftrail-$p ] || fail "no instance while recording"
kill -KILL $p
wait $p 2>/dev/null
for _ in $(seq 100); do [ -d $T/instances/ftrail-$p ] || break; sleep 0.05; done
[ ! -d $T/instances/ftrail-$p ] || fail "instance ftrail-$p left after SIGKILL"
# SIGTERM stops cleanly and the trace is readable
: >rec.err
$FTRAIL record -e sched:sched_switch -a -o t.dat >/dev/null 2>rec.err &
p=$!
for _ in $(seq 200); do grep -q 'recording kernel events' rec.err && break; sleep 0.05; done
kill -TERM $p
wait $p || fail "record after SIGTERM: $(cat rec.err)"
[ ! -d $T/instances/ftrail-$p ] || fail "instance left after SIGTERM"
$FTRAIL show -i t.dat >/dev/null || fail "trace after SIGTERM unreadable"

# a corrupt kernel data section is an error, never a crash
cp t.dat c.dat
sz=$(stat -c %s c.dat)
printf '\377\377\377\377\377\377\377\377' | dd of=c.dat bs=1 seek=$((sz / 2)) conv=notrunc 2>/dev/null
$FTRAIL show -i c.dat >/dev/null 2>c.err
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 1 ] || fail "show of a corrupt file exited $rc: $(cat c.err)"
exit 0
