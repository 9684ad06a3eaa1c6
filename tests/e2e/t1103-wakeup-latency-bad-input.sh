#!/usr/bin/env bash
# description: wakeup tracers and latency keys, bad input: unknown tracer, no root, bad threshold, a key field the event lacks (its fields listed), clashing outputs; one clear line each
# requires: root tracefs setpriv
# asan: yes
. "$TOP/tests/e2e/lib.sh"
need_tracefs
need_cmd setpriv

expect_fail "ftrail: unknown tracer 'wakeupx' (available: nop function function_graph * wakeup wakeup_rt wakeup_dl)" \
	$FTRAIL record -p wakeupx -o x.dat -- true
expect_fail "ftrail: --tracing-thresh wants microseconds, not 'soon'" \
	$FTRAIL record -p wakeup --tracing-thresh soon -o x.dat -- true
# the latency tracers read kernel events: without root, kernel capture's own line
chmod 755 . 2>/dev/null
expect_fail "ftrail: kernel events need root*" \
	setpriv --reuid=nobody --regid=nogroup --clear-groups $FTRAIL record -p wakeup -o /tmp/nobody.$$.dat -- true
[ ! -e /tmp/nobody.$$.dat ] || fail "a trace file was left by the failed record"
[ ! -e x.dat ] || fail "a trace file was left by a refused record"

# a small real trace with both events
$FTRAIL record -q -e sched:sched_waking -e sched:sched_switch -a --duration 0.2 -o k.dat 2>rec.err ||
	fail "record: $(cat rec.err)"
expect_fail "ftrail: latency: event sched:sched_waking has no field 'next_pid' to use as --from-key; its fields: comm pid prio* (also: common_pid, cpu)" \
	$FTRAIL latency -i k.dat --from sched:sched_waking --from-key next_pid --to sched:sched_switch --to-key next_pid
expect_fail "ftrail: latency: event sched:sched_switch has no field 'wakee' to use as --to-key; its fields: prev_comm prev_pid prev_prio prev_state next_comm next_pid next_prio* (also: common_pid, cpu)" \
	$FTRAIL latency -i k.dat --from sched:sched_waking --from-key pid --to sched:sched_switch --to-key wakee
expect_fail "ftrail: latency: event sched:sched_switch has no field 'target_cpu' to use as --key; its fields: *" \
	$FTRAIL latency -i k.dat --from sched:sched_waking --to sched:sched_switch --key target_cpu
expect_fail "ftrail: latency: --hist and --summary are separate outputs; give one" \
	$FTRAIL latency -i k.dat --from sched:sched_waking --to sched:sched_switch --hist --summary
# show --full of a trace that is not a latency tracer's changes nothing
$FTRAIL show -i k.dat >a.txt || fail "show"
$FTRAIL show -i k.dat --full >b.txt || fail "show --full"
cmp -s a.txt b.txt || fail "--full changed a nop trace's output"
exit 0
