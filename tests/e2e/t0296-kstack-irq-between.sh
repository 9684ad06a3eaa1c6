# description: kernel stacks (-T) stay with their own event when an interrupt's events and stacks land between them (a softirq run at irq exit, a timer): a system-wide recording with interrupt and syscall events shows no stack record standing alone
# requires: root tracefs python3
# asan: yes
. "$TOP/tests/e2e/lib.sh"
need_tracefs
need_cmd python3
# 3 s of every CPU: task events (syscalls, scheduler) and interrupt events
# (irq, softirq, timers), each with its kernel stack; the machine's own
# activity and this loop make the interrupts
( for _ in $(seq 300); do cat /proc/self/stat >/dev/null; sleep 0.01; done ) &
LOAD=$!
$FTRAIL record -e irq -e timer -e sched:sched_switch -e sched:sched_wakeup \
	-e syscalls:sys_enter_read -T -a --stackmap-bits 18 --duration 3 -o k.dat >rec.out 2>rec.err ||
	fail "record: $(cat rec.err)"
wait $LOAD
# attached stacks print as ids only while the map serves them all
grep -q 'stack map filled' rec.err && fail "the stack map filled: $(grep filled rec.err)"
$FTRAIL show -i k.dat >show.txt 2>err || fail "show: $(cat err)"
# A stack whose event is not in the trace prints where it lies, as its own
# record ("<stack trace>"; earlier, "kernel_stack:" or an unknown event);
# an attached one as "<stack_id N>" after its event.  The only stack allowed
# alone is the first record of a CPU, or the first after a loss on it: its
# event came before the recording, or was lost.
python3 - <<'PY' || fail "stacks separated from their events: $(grep -m 3 -B 2 -E ': (<stack trace>|<user stack trace>|kernel_stack: |user_stack: |\[UNKNOWN EVENT)' show.txt)"
import re, sys
seen, alone, n = set(), [], 0
for l in open("show.txt"):
    lost = re.match(r"CPU:(\d+) \[LOST", l)
    if lost:
        seen.discard(int(lost[1]))
        continue
    m = re.match(r"\s*(\S.*?)-(\d+)\s+\[(\d+)\]\s+\S+\s+[\d.]+: (.*)", l)
    if not m:
        continue
    cpu, what = int(m[3]), m[4]
    n += 1
    if re.match(r"<(user )?stack trace>$|kernel_stack: |user_stack: |\[UNKNOWN EVENT", what) and cpu in seen:
        alone.append(l.rstrip())
    if not what.startswith("<"):
        seen.add(cpu)
print("%d records, %d stacks alone" % (n, len(alone)))
assert n > 1000, n
sys.exit(1 if alone else 0)
PY
exit 0
