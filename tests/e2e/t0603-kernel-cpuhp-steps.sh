#!/usr/bin/env bash
# description: CPU hotplug investigation: cpuhp steps of taking cpu1 offline and back, timed per callback, and the stacks behind them
# requires: root tracefs cpu1-hotplug
# asan: yes
. "$TOP/tests/e2e/lib.sh"
need_tracefs
ON=/sys/devices/system/cpu/cpu1/online
[ -w $ON ] || skip "cpu1 cannot be hot-unplugged here"
[ -d /sys/kernel/tracing/events/cpuhp ] || skip "no cpuhp events"
[ "$(cat $ON)" = 1 ] || skip "cpu1 is offline already"
trap 'echo 1 > '$ON' 2>/dev/null' EXIT

hotplug='echo 0 > '$ON'; echo 1 > '$ON
if $FTRAIL record -p nop -e cpuhp -T -a -o hp.dat -- sh -c "$hotplug" >rec.out 2>rec.err; then
	:
elif grep -q 'not complete in this build' rec.err; then
	# no user-space recorder in this build: record around the command
	: >rec.err
	$FTRAIL record -e cpuhp -T -a -o hp.dat >rec.out 2>rec.err &
	KREC=$!
	for _ in $(seq 200); do grep -q 'recording kernel events' rec.err && break; sleep 0.05; done
	sh -c "$hotplug"
	sleep 0.1
	kill -INT $KREC
	wait $KREC || fail "record failed: $(cat rec.err)"
else
	fail "record failed: $(cat rec.err)"
fi
[ "$(cat $ON)" = 1 ] || fail "cpu1 did not come back online"

$FTRAIL latency -i hp.dat --from 'cpuhp:cpuhp_enter,cpuhp:cpuhp_multi_enter' --to cpuhp:cpuhp_exit \
	--key cpu --label fun >lat.txt || fail "latency failed"
# steps are labelled by their callback, rendered as a kernel symbol
grep -Eq '^ *[0-9]+\.[0-9]{9} +[0-9]+ +1 +.*sched_cpu_deactivate +[0-9]+\.[0-9]{3}$' lat.txt ||
	fail "no timed sched_cpu_deactivate step: $(head -n 20 lat.txt)"
grep -q 'takedown_cpu' lat.txt || fail "no takedown_cpu step"
grep -q 'sched_cpu_activate' lat.txt || fail "no sched_cpu_activate step (online)"
grep -Eq '^\(all\) +[0-9]+ ' lat.txt || fail "no totals"
grep -q '^pairs: [1-9][0-9]*, begins left open: 0, ends without a begin: 0' lat.txt ||
	fail "unbalanced pairs: $(grep '^pairs' lat.txt)"

$FTRAIL stacks -i hp.dat -e cpuhp:cpuhp_enter >st.txt || fail "stacks failed"
grep -q 'cpuhp_invoke_callback' st.txt || fail "no cpuhp_invoke_callback frame"
# the stack that triggered the offline: a write to .../online
grep -q '_cpu_down' st.txt || fail "no _cpu_down frame"
grep -q 'online_store' st.txt || fail "no online_store frame (the sysfs write)"

$FTRAIL show -i hp.dat >show.txt || fail "show failed"
grep -Eq 'cpuhp_enter: cpu: 0001 target: +[0-9]+ step: +[0-9]+ \(sched_cpu_deactivate\)' show.txt ||
	fail "cpuhp_enter not rendered with its callback: $(grep -m3 cpuhp_enter show.txt)"
grep -Eq 'cpuhp_exit: +cpu: 0001 +state: +[0-9]+ step: +[0-9]+ ret: 0' show.txt || fail "no cpuhp_exit line"
exit 0
