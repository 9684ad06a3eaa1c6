#!/usr/bin/env bash
# description: show against the kernel's own trace file: the same sched_switch events recorded by ftrail and by a tracefs instance print the same headers, columns, event text and stacks (default, sym-offset, latency-format)
# requires: root tracefs gcc
. "$TOP/tests/e2e/lib.sh"
need_tracefs
need_cmd gcc
T=/sys/kernel/tracing
I=$T/instances/ftrail-t0261-$$
gcc -O0 -o spin -x c - <<'C' || fail "gcc"
#include <unistd.h>
int main(void) { for (int i = 0; i < 5; i++) usleep(2000); return 0; }
C
mkdir "$I" || skip "cannot create a tracefs instance"
trap 'echo 0 > "$I/tracing_on"; rmdir "$I"' EXIT
echo 1 >"$I/events/sched/sched_switch/enable"
echo 1 >"$I/options/stacktrace"
echo 1 >"$I/tracing_on"
$FTRAIL record -p nop -e sched:sched_switch -T -o k.dat -- ./spin >/dev/null 2>err || fail "record: $(cat err)"
echo 0 >"$I/tracing_on"
cat "$I/trace" >kt || fail "read trace"
$FTRAIL show -i k.dat --expand-stacks >ft || fail "show"

# headers: identical but for the counts
mask() { sed -E 's/[0-9]+/N/g'; }
head -n 12 kt | mask >kh
head -n 12 ft | mask >fh
diff -u kh fh || fail "header differs from the kernel's"

# spin's sleeps: the same switches, "prev_comm=spin prev_pid=P ... prev_state=S"
pid=$(grep -m1 -oE 'prev_comm=spin prev_pid=[0-9]+' ft | sed 's/.*=//')
[ -n "$pid" ] || fail "ftrail saw no switch of spin: $(head -n 20 ft)"
# each event line, its text after the timestamp, and the stack after it
pick() { # file -> the first switch of spin into S and its stack (the next
	# "<stack trace>" entry of the same CPU: other CPUs' entries interleave)
	awk -v p="prev_comm=spin prev_pid=$pid " '
		function cpu(l) { match(l, /\[[0-9][0-9][0-9]\]/); return substr(l, RSTART, RLENGTH) }
		st == 2 && /^ => / { print; next }
		st == 2 { exit }
		st == 1 && /<stack trace>$/ && cpu($0) == c { print "CTX: <stack trace>"; st = 2; next }
		st == 0 && index($0, p) && /prev_state=S/ {
			line = $0; sub(/^.*: sched_switch: /, "sched_switch: ", line); print line
			c = cpu($0); st = 1
		}
	' "$1"
}
pick kt >ke
pick ft >fe
[ -s ke ] || fail "the kernel's trace has no switch of spin $pid (instance lost it?)"
diff -u ke fe || fail "event text or stack differs from the kernel's"

# the context columns: same widths (comm-pid, [cpu], flags, time)
cols() { grep -m3 "prev_comm=spin prev_pid=$pid .*prev_state=S" "$1" |
	sed -E 's/^( *[^ ]+-[0-9]+ +)\[[0-9]{3}\] ([^ ]{5}) +[0-9]+\.[0-9]{6}: .*/\1|[CPU] \2|/; s/[0-9]/N/g'; }
# (under load the kernel's pid -> comm cache, saved_cmdlines, may have
# dropped spin: its trace then says <...>, of the same width; ftrail keeps
# the names it read, so spin stays spin there)
cols kt | sed 's/<\.\.\.>-/ spin-/' >kc
cols ft >fc
[ -s kc ] && diff -u kc fc || fail "context columns differ: $(cat kc fc)"
grep -m1 "prev_comm=spin prev_pid=$pid " ft | awk '{ i = index($0, " ["); t = index($0, ": sched"); print i, t }' >fpos
grep -m1 "prev_comm=spin prev_pid=$pid " kt | awk '{ i = index($0, " ["); t = index($0, ": sched"); print i, t }' >kpos
# the timestamps differ in value (clocks) but not in width on one machine
[ "$(cut -d' ' -f1 fpos)" = "$(cut -d' ' -f1 kpos)" ] || fail "TASK-PID width: ftrail $(cat fpos), kernel $(cat kpos)"

# sym-offset: the stack lines as the kernel prints them
echo 1 >"$I/options/sym-offset"
$FTRAIL show -i k.dat --expand-stacks -O sym-offset >ft2 || fail "show sym-offset"
cat "$I/trace" >kt2
pick kt2 >ke2
pick ft2 >fe2
diff -u ke2 fe2 || fail "sym-offset stack differs from the kernel's"
echo 0 >"$I/options/sym-offset"

# latency-format: the kernel's header and columns
echo 1 >"$I/options/latency-format"
cat "$I/trace" >kl
echo 0 >"$I/options/latency-format"
$FTRAIL show -i k.dat -O latency-format >fl || fail "show latency-format"
# all but the tracer line's counts, the preemption model and the task
sed -n '3,4p;6p;8,18p' kl | mask >klh
sed -n '3,4p;6p;8,18p' fl | mask >flh
diff -u klh flh || fail "latency header differs from the kernel's"
lat() { grep -m1 "prev_comm=spin prev_pid=$pid .*prev_state=S" "$1" |
	sed -E 's/^(.{8}-.{7}) +([0-9]+)([^ ]{5}) +[0-9]+us(.): (.*)/\1|\2|\3|\5/; s/[0-9]/N/g'; }
[ "$(lat kl)" = "$(lat fl)" ] || fail "latency columns: kernel '$(lat kl)', ftrail '$(lat fl)'"
exit 0
