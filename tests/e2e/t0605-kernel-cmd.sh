#!/usr/bin/env bash
# description: kernel events of one command (-- CMD without -a): limited to its process tree, instance removed after
# requires: root tracefs
# asan: yes
. "$TOP/tests/e2e/lib.sh"
need_tracefs
T=/sys/kernel/tracing

$FTRAIL record -p nop -e sched:sched_process_exec -e sched:sched_process_exit -e sched:sched_switch -T \
	-o c.dat -- sh -c 'sleep 0.05; /bin/true; exit 3' >rec.out 2>rec.err
rc=$?
grep -q 'not complete in this build' rec.err && skip "record -- CMD needs the user-space recorder, not in this build"
[ $rc -eq 3 ] || fail "record exited $rc, not the command's 3: $(cat rec.err)"
for d in $T/instances/ftrail-*; do
	[ -e "$d" ] || continue
	[ -d /proc/${d##*-} ] || fail "instance $d outlived its recorder"
done
$FTRAIL show -i c.dat >show.txt || fail "show failed"
grep -q 'sched_process_exec: filename=/bin/true' show.txt || fail "exec of the child not seen: $(head -n 20 show.txt)"
grep -q 'sched_process_exit: comm=sleep' show.txt || fail "exit of the forked sleep not seen (event-fork)"
# nothing from other processes: every event involves the command's tree
# (the pids that exec'd or exited; a switch may come from another task to it)
tree=$(grep -E ': sched_process_(exec|exit):' show.txt | sed -E 's/.* pid=([0-9]+).*/\1/' | sort -u)
[ -n "$tree" ] || fail "no pids"
intree() { printf '%s\n' $tree | grep -qx "$1"; }
while read -r line; do
	case $line in
	*': sched_switch: '*)
		pp=$(sed -E 's/.* prev_pid=([0-9]+) .*/\1/' <<<"$line")
		np=$(sed -E 's/.* next_pid=([0-9]+) .*/\1/' <<<"$line")
		intree "$pp" || intree "$np" || fail "switch outside the command: $line" ;;
	*': sched_process_'*)
		p=$(sed -E 's/^ *.*-([0-9]+) +\[[0-9]{3}\].*/\1/' <<<"$line")
		intree "$p" || fail "event outside the command: $line" ;;
	esac
done < <(grep -E ': sched_[a-z_]+: ' show.txt)

# the command crashing ends the recording normally: instance gone, trace readable
$FTRAIL record -p nop -e sched:sched_process_exit -o crash.dat -- sh -c 'kill -SEGV $$' >rec2.out 2>rec2.err
rc=$?
[ $rc -eq 139 ] || fail "record exited $rc after the command's SIGSEGV, not 139: $(cat rec2.err)"
grep -q 'killed by signal 11' rec2.err || fail "crash not reported: $(cat rec2.err)"
for d in $T/instances/ftrail-*; do
	[ -e "$d" ] || continue
	[ -d /proc/${d##*-} ] || fail "instance $d outlived its recorder"
done
$FTRAIL show -i crash.dat >crash.txt || fail "trace of a crashed command unreadable"
grep -q 'sched_process_exit: comm=sh' crash.txt || fail "exit of the crashed sh not recorded"
exit 0
