#!/usr/bin/env bash
# The wakeup latency of one run measured by ftrail and by perf side by side:
# `perf sched record` (system-wide) wraps `ftrail record -p wakeup`, so both
# see the same wakeups of tests/progs/wakeup_pipe.c (threads woken through
# pipes behind CPU hogs pinned to their CPU).  Prints, per thread of the
# program, ftrail's max and count of waking -> switch latencies (latency
# --hist, the tracer's events) and perf sched latency's max delay and
# switches, bpftrace's max and count (a runqlat-style one-liner attached
# for the same run, when installed), then ftrail's worst case.
#
#   bench/wakeup_compare.sh [HOGS] [ROUNDS]     (root; default 4 150)
#
# The two tools do not measure the same thing everywhere: perf sched
# latency starts at sched_wakeup (ftrail at sched_waking, as the kernel's
# wakeup tracer) and also counts a preempted task's wait for the CPU as a
# delay, which the wakeup tracer does not (no wakeup there).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/bench/lib.sh"
bench_setup wakeup_compare
HOGS=${1:-4}
ROUNDS=${2:-150}
command -v perf >/dev/null || { echo "perf not installed"; exit 1; }
$CC -O1 -pthread -o "$W/wp" "$TOP/tests/progs/wakeup_pipe.c" || exit 1
cd "$W" || exit 1

# bpftrace (runqlat's method: a map of wakeup times, closed at the switch)
# over the same run, when installed
BT=
if command -v bpftrace >/dev/null; then
	bpftrace -e 'tracepoint:sched:sched_waking,tracepoint:sched:sched_wakeup_new
	/args->comm == "wp" || args->comm == "hog" || args->comm == "sleeper"/ {
		if (!@ts[args->pid]) { @ts[args->pid] = nsecs; } }
	tracepoint:sched:sched_switch /@ts[args->next_pid]/ {
		$d = (nsecs - @ts[args->next_pid]) / 1000;
		@max_us[args->next_pid] = max($d); @n[args->next_pid] = count();
		delete(@ts[args->next_pid]); }' >bt.txt 2>bt.err &
	BT=$!
	for _ in $(seq 300); do grep -q Attaching bt.txt 2>/dev/null && break; sleep 0.1; done
fi
perf sched record -o perf.data -- "$FTRAIL" record -q -p wakeup -o w.dat -- ./wp --hogs "$HOGS" \
	--rounds "$ROUNDS" >truth 2>perf.err || { cat perf.err; exit 1; }
if [ -n "$BT" ]; then
	kill -INT "$BT"
	wait "$BT"
fi
"$FTRAIL" latency -i w.dat --from sched:sched_waking,sched:sched_wakeup_new --from-key pid \
	--to sched:sched_switch --to-key next_pid --hist >hist.txt || exit 1
perf sched latency -i perf.data -p >perf.txt 2>/dev/null || exit 1
"$FTRAIL" show -i w.dat >show.txt || exit 1

printf '%-8s %7s | %12s %6s | %12s %6s | %12s %6s\n' role tid "ftrail max" count "perf max" swtch \
	"bpftrace max" count
while read -r _ role tid; do
	f=$(sed -nE "s/^\\{ next_pid: +$tid \\} hitcount: +([0-9]+) +lat: +[0-9]+ +lat_max: +([0-9]+)$/\\2 \\1/p" hist.txt)
	p=$(sed -nE "s/^ *[^ ]+:$tid +\\| +[0-9.]+ ms \\| +([0-9]+) \\| avg: +[0-9.]+ ms \\| max: +([0-9.]+) ms.*/\\2 \\1/p" perf.txt)
	b=$(sed -nE "s/^@max_us\[$tid\]: ([0-9]+)$/\1/p" bt.txt 2>/dev/null)
	bn=$(sed -nE "s/^@n\[$tid\]: ([0-9]+)$/\1/p" bt.txt 2>/dev/null)
	printf '%-8s %7s | %9s us %6s | %9s ms %6s | %9s us %6s\n' "$role" "$tid" ${f:-- -} ${p:-- -} \
		"${b:--}" "${bn:--}"
done < <(grep '^tid ' truth)
grep -E '^# latency: |^#    \| task: ' show.txt
tail -1 show.txt
[ -n "$BT" ] || echo "bpftrace: not installed here"
