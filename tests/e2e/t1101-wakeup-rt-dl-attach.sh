#!/usr/bin/env bash
# description: record -p wakeup_rt follows only the SCHED_FIFO thread (its policy and rt_prio in the task line), wakeup_dl says no deadline task was woken, -P PID measures a running process's threads, lost kernel events are forgotten and counted
# requires: root tracefs cc
# asan: yes
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/e2e/t1119-wakeup.inc"
need_tracefs
need_cmd cc
cc -O1 -pthread -o wp "$TOP/tests/progs/wakeup_pipe.c" || fail "cannot build wakeup_pipe"

# wakeup_rt: sleeper 0 is SCHED_FIFO 5, everything else is not real-time
$FTRAIL record -q -p wakeup_rt -o r.dat -- ./wp --rt --hogs 2 --rounds 60 >truth 2>rec.err ||
	fail "record -p wakeup_rt: $(cat rec.err)"
rt=$(awk '$2 == "rt-sleeper" { print $3 }' truth)
[ -n "$rt" ] || fail "no real-time thread: $(cat truth) $(cat rec.err)"
$FTRAIL show -i r.dat >rt.txt || fail "show (wakeup_rt)"
grep -q '^# wakeup_rt latency trace v1.1.5 on ' rt.txt || fail "trace version line: $(head -3 rt.txt)"
[ "$(grep -c '^# latency: ' rt.txt)" = 1 ] || fail "not one latency block"
grep -Eq "^#    \| task: sleeper-$rt \(uid:0 nice:0 policy:1 rt_prio:5\)$" rt.txt ||
	fail "task line: $(grep 'task:' rt.txt)"
grep "tid rt-sleeper $rt" truth >rt.tids
recompute r.dat rt.tids rt >lat.txt
mns=$(sort -k2,2n lat.txt | tail -1 | cut -d' ' -f2)
us=$(sed -nE 's/^# latency: ([0-9]+) us,.*/\1/p' rt.txt)
[ -n "$mns" ] && [ "$us" = "$((mns / 1000))" ] || fail "max $us us, recomputed ${mns:-none} ns"
# the other threads' wakeups were seen and left out
n=$(sed -nE 's/.* ([0-9]+) out of class$/\1/p' rt.txt)
[ "${n:-0}" -gt 0 ] || fail "no wakeup left out of class: $(tail -1 rt.txt)"
grep -Eq "; $(wc -l <lat.txt) latencies " rt.txt || fail "latency count: $(tail -1 rt.txt)"

# wakeup_dl: no deadline task here, and show says so
$FTRAIL record -q -p wakeup_dl -o d.dat -- ./wp --hogs 1 --rounds 20 >/dev/null 2>rec.err ||
	fail "record -p wakeup_dl: $(cat rec.err)"
$FTRAIL show -i d.dat >dl.txt || fail "show (wakeup_dl)"
grep -q '^# tracer: wakeup_dl$' dl.txt || fail "tracer line"
grep -q '^# no deadline wakeup latency measured: no SCHED_DEADLINE task was woken' dl.txt ||
	fail "no note: $(cat dl.txt)"
grep -q '^# latency: ' dl.txt && fail "a latency block without a deadline task"
grep -Eq '^# tracing_max_latency: 0 us, .* 0 latencies .* [1-9][0-9]* out of class$' dl.txt ||
	fail "summary: $(tail -1 dl.txt)"

# -P PID: a process running already, its threads there before the attach
./wp --hogs 2 --rounds 2500 >truth2 &
prog=$!
for _ in $(seq 200); do grep -q '^cpu ' truth2 && break; sleep 0.05; done
$FTRAIL record -q -p wakeup -P $prog --duration 1 -o p.dat 2>rec2.err || fail "record -P: $(cat rec2.err)"
kill $prog 2>/dev/null
wait $prog 2>/dev/null
$FTRAIL show -i p.dat >p.txt || fail "show (-P)"
tid=$(sed -nE 's/^#    \| task: .*-([0-9]+) \(.*/\1/p' p.txt)
[ -n "$tid" ] || fail "no worst case: $(tail -3 p.txt)"
grep -q "^tid [a-z-]* $tid\$" truth2 || fail "worst case of $tid, not a thread of the process"
grep "^tid " truth2 >tids2
recompute p.dat tids2 >lat2.txt
mns=$(sort -k2,2n lat2.txt | tail -1 | cut -d' ' -f2)
us=$(sed -nE 's/^# latency: ([0-9]+) us,.*/\1/p' p.txt)
[ -n "$mns" ] && [ "$us" = "$((mns / 1000))" ] || fail "-P: max $us us, recomputed ${mns:-none} ns"
# a buffer too small to keep up: the kernel loses events, the tracer
# forgets the wakeups pending there and counts them, and still agrees
# with the recomputation, which forgets at the same places; both start
# from main alone and follow the threads it creates, so that a lost
# sched_process_fork leaves the same thread out of both
$FTRAIL record -q -p wakeup -T -b 4 -o l.dat -- ./wp --idle --hogs 4 --rounds 100 >truth3 2>rec3.err ||
	fail "record -b 4: $(cat rec3.err)"
$FTRAIL show -i l.dat >l.txt || fail "show (losses)"
grep '^tid main ' truth3 >main3
recompute l.dat main3 >lat3.txt
lost=$(sed -nE 's/.* forgotten at ([0-9]+) lost events.*/\1/p' l.txt)
[ "${lost:-0}" -gt 0 ] || echo "note: no event lost with a 4 KiB buffer this time"
[ "$lost" = "$($FTRAIL show -i l.dat --full | awk '/^CPU:[0-9]+ \[LOST / { s += $3 == "EVENTS]" ? 1 : $3 } END { print s + 0 }')" ] ||
	fail "lost events: show says $lost"
grep -Eq "; $(wc -l <lat3.txt) latencies " l.txt || fail "with losses: $(tail -1 l.txt), recomputed $(wc -l <lat3.txt)"
if [ -s lat3.txt ]; then
	mns=$(sort -k2,2n lat3.txt | tail -1 | cut -d' ' -f2)
	grep -q "^# latency: $((mns / 1000)) us," l.txt || fail "with losses: $(grep '^# latency' l.txt), recomputed $mns ns"
fi
exit 0
