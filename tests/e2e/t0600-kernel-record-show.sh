#!/usr/bin/env bash
# description: kernel capture: sched_switch with stacks through a private instance, shown as the kernel's trace file
# requires: root tracefs
# asan: yes
. "$TOP/tests/e2e/lib.sh"
need_tracefs
T=/sys/kernel/tracing

# krec ARGS...: ftrail record in the background until it says it records
krec_start() {
	: >rec.err
	"$FTRAIL" record "$@" >rec.out 2>rec.err &
	KREC=$!
	for _ in $(seq 200); do
		grep -q 'recording kernel events' rec.err && return 0
		kill -0 $KREC 2>/dev/null || fail "record exited early: $(cat rec.err)"
		sleep 0.05
	done
	fail "record did not start: $(cat rec.err)"
}
krec_stop() {
	kill -INT $KREC
	wait $KREC || fail "record failed: $(cat rec.err)"
	[ ! -e $T/instances/ftrail-$KREC ] || fail "instance ftrail-$KREC left behind"
}

# the user's own settings must not change
snap() {
	cat $T/trace_clock $T/tracing_on $T/options/stacktrace $T/events/sched/sched_switch/enable \
		$T/buffer_size_kb $T/set_event 2>/dev/null
	ls $T/instances
}
snap >before

krec_start -e sched:sched_switch -T -a -o k.dat
# the instance runs on the TSC (the user side's clock) wherever the kernel offers it
if grep -q x86-tsc $T/trace_clock; then
	grep -q '\[x86-tsc\]' $T/instances/ftrail-$KREC/trace_clock ||
		fail "instance clock is not x86-tsc: $(cat $T/instances/ftrail-$KREC/trace_clock)"
fi
[ "$(cat $T/instances/ftrail-$KREC/options/stacktrace)" = 1 ] || fail "stacktrace not set in the instance"
for i in 1 2 3 4 5; do sleep 0.02; done
krec_stop
snap >after
cmp -s before after || fail "global tracing settings changed: $(diff before after)"

[ "$(stat -c %a k.dat)" = 600 ] || fail "trace file mode $(stat -c %a k.dat), want 600"
grep -q 'kernel events (0 lost)' rec.err || grep -q 'kernel events (' rec.err || fail "no summary: $(cat rec.err)"
n=$(sed -n 's/.*: \([0-9]*\) kernel events.*/\1/p' rec.err)
[ "${n:-0}" -gt 0 ] || fail "no kernel events recorded: $(cat rec.err)"

$FTRAIL show -i k.dat >show.txt || fail "show failed"
# "comm-pid [cpu] flags sec.usec: sched_switch: prev_comm=..."
grep -Eq '^ *[^ ].*-[0-9]+ +\[[0-9]{3}\] [.a-zA-Z0-9]{4,5} +[0-9]+\.[0-9]{6}: sched_switch: prev_comm=.* prev_pid=[0-9]+ .*==> next_comm=' show.txt ||
	fail "no sched_switch line like the kernel's: $(head -n 12 show.txt)"
grep -Eq '\[[0-9]{3}\] .* [0-9]+\.[0-9]{6}: <stack_id [0-9]+>$' show.txt || fail "no <stack_id N> lines"
ev=$(grep -c ': sched_switch: ' show.txt)
[ "$ev" -eq "$n" ] || fail "show printed $ev events, record said $n"
# timestamps never go back (merged across CPUs)
grep ': sched_switch: ' show.txt | sed -E 's/.* ([0-9]+\.[0-9]{6}): .*/\1/' | sort -c -n ||
	fail "events not in time order"

$FTRAIL show -i k.dat --expand-stacks >exp.txt || fail "show --expand-stacks failed"
grep -q '<stack trace>' exp.txt || fail "no <stack trace> with --expand-stacks"
grep -q '^ => __schedule' exp.txt || grep -q '^ => schedule' exp.txt || fail "no ' => schedule' frame: $(grep -m5 '^ =>' exp.txt)"

# -O nostackmap: stacks stored in full, printed expanded without asking
krec_start -e sched:sched_switch -T -O nostackmap -a -o full.dat
sleep 0.1
krec_stop
$FTRAIL show -i full.dat >full.txt || fail "show of a nostackmap trace"
grep -q '<stack trace>' full.txt || fail "nostackmap: no <stack trace>"
grep -q '<stack_id' full.txt && fail "nostackmap: unexpected <stack_id>"

# a filter applies in the kernel: only switches away from pid 0 (idle)
krec_start -e sched:sched_switch -f 'prev_pid == 0' -a -o f.dat
sleep 0.1
krec_stop
$FTRAIL show -i f.dat >f.txt || fail "show of filtered trace"
grep ': sched_switch: ' f.txt | grep -vq 'prev_pid=0 ' && fail "filter not applied: $(grep -m3 -v 'prev_pid=0 ' f.txt)"
exit 0
