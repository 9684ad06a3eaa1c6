#!/usr/bin/env bash
# description: record -p wakeup: threads woken through pipes while hogs compete; show's worst case (latency header, window naming the hog, stacks) and tracing_thresh match latencies recomputed from the raw events
# requires: root tracefs cc
# asan: yes
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/e2e/t1119-wakeup.inc"
need_tracefs
need_cmd cc
cc -O1 -pthread -o wp "$TOP/tests/progs/wakeup_pipe.c" || fail "cannot build wakeup_pipe"

# --idle: the sleepers' wait behind the hogs dwarfs the program's other
# latencies (its start under load included): the worst case is theirs
$FTRAIL record -p wakeup -T -b 16384 -o w.dat -- ./wp --idle --hogs 4 --rounds 150 >truth 2>rec.err ||
	fail "record -p wakeup: $(cat rec.err)"
grep -q '^cpu ' truth || fail "the program did not run: $(cat truth)"
$FTRAIL show -i w.dat >show.txt || fail "show"
# from main, as the tracer (record knows the program's pid, not its threads)
grep '^tid main ' truth >main.tids
recompute w.dat main.tids >lat.txt
[ -s lat.txt ] || fail "no latency recomputed from the events"

# one worst case, in the kernel's latency-format header
[ "$(grep -c '^# latency: ' show.txt)" = 1 ] || fail "not one latency block: $(grep '^# latency' show.txt)"
grep -q '^# tracer: wakeup$' show.txt || fail "tracer line"
grep -Eq '^# wakeup latency trace v1\.1\.5 on ' show.txt || fail "trace version line"
read -r us entries written cpu < <(sed -nE 's/^# latency: ([0-9]+) us, #([0-9]+)\/([0-9]+), CPU#([0-9]+) \| \(M:[a-z_]+ VP:0, KP:0, SP:0 HP:0 #P:[0-9]+\)$/\1 \2 \3 \4/p' show.txt)
[ -n "${us:-}" ] || fail "latency line shape: $(grep '^# latency' show.txt)"
read -r comm tid < <(sed -nE 's/^#    \| task: (.*)-([0-9]+) \(uid:0 nice:-?[0-9]+ policy:[0-9] rt_prio:[0-9]+\)$/\1 \2/p' show.txt)
[ -n "${tid:-}" ] || fail "task line shape: $(grep 'task:' show.txt)"
grep -q "^tid [a-z-]* $tid\$" truth || fail "the task $comm-$tid is not a thread of the program"

# record's summary names the same worst case
grep -qF "ftrail: wakeup: tracing_max_latency $us us ($comm-$tid on CPU $cpu), the max of " rec.err ||
	fail "record's summary: $(grep tracing_max rec.err)"

# the max is the largest recomputed latency, of that thread
read -r mtid mns < <(sort -k2,2n lat.txt | tail -1)
[ "$us" = "$((mns / 1000))" ] || fail "max $us us, recomputed $mns ns (tid $mtid)"
[ "$(awk -v m="$mns" '$2 == m' lat.txt | grep -c "^$tid ")" -ge 1 ] || fail "max is of $tid, recomputed of $mtid"
n=$(wc -l <lat.txt)
grep -Eq "^# tracing_max_latency: $us us, tracing_thresh: 0 us; $n latencies " show.txt ||
	fail "summary: $(tail -1 show.txt), recomputed $n latencies"

# the window: the waking event first, entries as announced, the switch that
# runs the task last, and the hog among what the CPU ran in between
body=$(sed -n '/^#     \\   \/ /,/^$/p' show.txt | sed '1d;/^$/d')
# one line an entry, but for a kernel stack that an interrupt's events
# separated from its event (sched_process_exit, then a softirq's
# sched_waking and its stack, then the exit's stack): an entry of its own,
# printed from its format as the kernel prints it, a "=> caller" line a
# frame; those lines continue their entry
lines=$(printf '%s\n' "$body" | grep -cv '^[[:space:]]*=> ')
[ "$lines" = "$entries" ] || fail "#$entries/$written announced, $lines entries printed"
[ "$entries" = "$written" ] || fail "#$entries/$written"
printf '%s\n' "$body" | head -1 | grep -Eq "  0us.: sched_(waking|wakeup_new): comm=.* pid=$tid " || fail "first entry: $(printf '%s\n' "$body" | head -1)"
printf '%s\n' "$body" | grep -v stack_id | tail -1 | grep -Eq " $cpu[^ ]* +$us""us : sched_switch: .* next_pid=$tid " ||
	fail "last entry: $(printf '%s\n' "$body" | grep -v stack_id | tail -1)"
printf '%s\n' "$body" | grep -q '^ *hog-[0-9]' ||
	fail "the hog does not appear in the worst case's window ($(grep -E '^# latency|task:' show.txt | tr '\n' ' ') tasks: $(printf '%s\n' "$body" | awk '{ print $1 }' | sort | uniq -c | sort -rn | head -5 | tr '\n' ' '))"
# -T: the stacks of the preempting tasks, and where it started and ended
printf '%s\n' "$body" | grep -q '<stack_id [0-9]*>' || fail "no stacks in the window"
grep -Eq '^#  => started at: [a-z_].*wake' show.txt || fail "started at: $(grep 'started at' show.txt)"
grep -Eq '^#  => ended at:   __schedule' show.txt || fail "ended at: $(grep 'ended at' show.txt)"
$FTRAIL show -i w.dat --expand-stacks | grep -q '^ => __schedule' || fail "--expand-stacks"

# --tid: the tracer follows only the threads named (main here)
main=$(awk '$2 == "main" { print $3 }' truth)
$FTRAIL show -i w.dat --tid "$main" >main.txt || fail "show --tid"
grep -Eq "^#    \| task: .*-$main \(" main.txt || fail "--tid $main: $(grep 'task:' main.txt)"
mmax=$(awk -v t="$main" '$1 == t { print $2 }' lat.txt | sort -n | tail -1)
grep -q "^# latency: $((mmax / 1000)) us," main.txt || fail "--tid $main: $(grep '^# latency' main.txt), recomputed $mmax ns"

# tracing_thresh: every latency at or above it, in time order, instead of the max
$FTRAIL record -q -p wakeup --tracing-thresh 200 -o t.dat -- ./wp --idle --hogs 4 --rounds 100 >truth2 2>rec2.err ||
	fail "record --tracing-thresh: $(cat rec2.err)"
$FTRAIL show -i t.dat >thresh.txt || fail "show (thresh)"
grep '^tid main ' truth2 >main2.tids
recompute t.dat main2.tids >lat2.txt
over=$(awk '$2 >= 200000' lat2.txt | wc -l)
[ "$over" -ge 1 ] || fail "no latency of 200 us or more under 4 hogs: the test proves nothing"
k=$(grep -c '^# latency: ' thresh.txt)
[ "$k" = "$over" ] || fail "$k latency blocks, $over latencies >= 200 us recomputed"
grep '^# latency: ' thresh.txt | awk '$3 < 200 { exit 1 }' || fail "a block under the threshold"
awk '$2 >= 200000 { print $1, int($2 / 1000) }' lat2.txt >want
grep -E '^#    \| task: |^# latency: ' thresh.txt | paste - - |
	sed -E 's/^# latency: ([0-9]+) us.*task: .*-([0-9]+) \(.*/\2 \1/' >got
diff want got >/dev/null || fail "blocks differ from the recomputed latencies: $(diff want got | head -5)"
last=$(tail -1 got | cut -d' ' -f2)
grep -Eq "^# tracing_max_latency: $last us, tracing_thresh: 200 us;" thresh.txt ||
	fail "with a threshold tracing_max_latency is the last reported: $(tail -1 thresh.txt)"
exit 0
