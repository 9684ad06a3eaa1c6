#!/usr/bin/env bash
# description: ftrail stacks: unique kernel stacks with counts, most frequent first, --top, --format folded, -e
# requires: root tracefs
# asan: yes
. "$TOP/tests/e2e/lib.sh"
need_tracefs

: >rec.err
"$FTRAIL" record -e sched:sched_switch -e sched:sched_wakeup -T -a -o k.dat >rec.out 2>rec.err &
KREC=$!
for _ in $(seq 200); do grep -q 'recording kernel events' rec.err && break; sleep 0.05; done
for i in $(seq 20); do sleep 0.01; done
kill -INT $KREC; wait $KREC || fail "record failed: $(cat rec.err)"

$FTRAIL stacks -i k.dat >all.txt || fail "stacks failed"
grep -q '^@\[$' all.txt || fail "no @[ block: $(head all.txt)"
grep -Eq '^    [A-Za-z_][A-Za-z0-9_.]*\+[0-9]+$' all.txt || fail "no 'sym+off' frame lines"
# counts are in decreasing order and add up to the number of stacks recorded
grep -E '^\]: [0-9]+$' all.txt | sed 's/^\]: //' >counts
sort -c -n -r counts || fail "counts not most-frequent-first: $(tr '\n' ' ' <counts)"
total=$(awk '{ s += $1 } END { print s }' counts)
st=$(sed -n 's/.*, \([0-9]*\) stacks$/\1/p' rec.err)
[ "$total" = "$st" ] || fail "stacks counted $total, record saw $st"
grep -q "unique stacks, $total stacks in all" all.txt || fail "no summary line"

$FTRAIL stacks -i k.dat --top 1 >top.txt || fail "--top 1"
[ "$(grep -c '^@\[$' top.txt)" = 1 ] || fail "--top 1 printed $(grep -c '^@\[$' top.txt) stacks"
[ "$(grep -E '^\]: ' top.txt | sed 's/^\]: //')" = "$(head -n 1 counts)" ] || fail "--top 1 is not the most frequent"

$FTRAIL stacks -i k.dat -e sched:sched_wakeup >w.txt || fail "-e sched:sched_wakeup"
$FTRAIL stacks -i k.dat -e 'sched:sched_switch' >s.txt || fail "-e sched:sched_switch"
grep -q 'try_to_wake_up\|wake_up' w.txt || fail "wakeup stacks do not show a wakeup path"
grep -q '__schedule' s.txt || fail "switch stacks do not show __schedule"
ws=$(sed -n 's/.*, \([0-9]*\) stacks in all/\1/p' w.txt)
ss=$(sed -n 's/.*, \([0-9]*\) stacks in all/\1/p' s.txt)
[ $((ws + ss)) = "$total" ] || fail "-e split $ws + $ss != $total"

$FTRAIL stacks -i k.dat --format folded >fold.txt || fail "--folded"
grep -Eq '^[^ ;]+(;[^ ;]+)+ [0-9]+$' fold.txt || fail "bad folded line: $(head -n 2 fold.txt)"
head -n 1 fold.txt | grep -q 'trace_event_raw_event_sched_[a-z_]* [0-9]*$' || fail "folded leaf is not last: $(head -n1 fold.txt)"
[ "$(awk '{ s += $NF } END { print s }' fold.txt)" = "$total" ] || fail "folded counts differ"

expect_fail "ftrail: stacks: --user and --kernel exclude each other" $FTRAIL stacks -i k.dat --user --kernel
expect_fail "ftrail: stacks: --top wants*" $FTRAIL stacks -i k.dat --top x
expect_fail "ftrail: *" $FTRAIL stacks -i nonexistent.dat
exit 0
