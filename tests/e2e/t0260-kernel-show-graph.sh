#!/usr/bin/env bash
# description: kernel events in the function_graph layout: events and stack ids as comments on their CPU, full kernel stacks as the trace file's own lines, user stacks as comments
# requires: root tracefs gcc
. "$TOP/tests/e2e/lib.sh"
need_tracefs
need_cmd gcc
gcc -O0 -g -pg -mfentry -o basic "$TOP/tests/progs/basic.c" || fail "gcc"
$FTRAIL record -e sched:sched_process_exit -T -O userstacktrace -o g.dat -- ./basic >/dev/null 2>err ||
	fail "record: $(cat err)"
grep -q ' 1 kernel events' err || fail "want 1 kernel event: $(cat err)"

$FTRAIL show -i g.dat >out || fail "show"
# nothing outside the graph's columns: the stack ids are comments now
bad=$(grep -vE '^#|^ +[0-9]+\) |^ -{42}$|^$' out | head -n 3)
[ -z "$bad" ] || fail "lines outside the graph columns: $bad"
grep -Eq '^ +[0-9]+\)               \|  /\* sched_process_exit: comm=basic pid=[0-9]+ ' out ||
	fail "no exit event comment: $(cat out)"
n=$(grep -n 'sched_process_exit: comm=basic' out | cut -d: -f1)
sed -n "$((n + 1)),$((n + 2))p" out | sed -E 's/^ +[0-9]+\)/ C)/; s/[0-9]+> \*\/$/N> *\//' >got
printf '%s\n' ' C)               |  /* <stack_id N> */' ' C)               |  /* <user_stack_id N> */' |
	diff -u - got || fail "kernel stack ids are not comments"

$FTRAIL show -i g.dat --expand-stacks -O sym-offset >out || fail "show --expand-stacks"
n=$(grep -n 'sched_process_exit: comm=basic' out | cut -d: -f1)
# the kernel stack: a line of its own with the function layout's columns
sed -n "$((n + 1))p" out | grep -Eq '^ +basic-[0-9]+ +\[[0-9]{3}\] [.a-zA-Z0-9]{5} +[0-9]+\.[0-9]{6}: <stack trace>$' ||
	fail "kernel stack line: $(sed -n "$((n + 1))p" out)"
sed -n "$((n + 2)),\$p" out | grep -m1 -Eq '^ => do_exit\+0x[0-9a-f]+/0x[0-9a-f]+$' || fail "no do_exit frame: $(sed -n "$n,\$p" out)"
# the user stack: a comment whose lines are trace_user_stack_print's
awk -v n=$n 'NR > n && /<user stack trace>/ { on = 1 } on { print } on && / \*\/$/ { exit }' out >u
head -n 1 u | grep -Eq '^ +[0-9]+\)               \|  /\* <user stack trace>$' || fail "user stack comment: $(cat u)"
sed -n '2,$p' u | grep -vEq '^ =>  <[0-9a-f]{16}>( \*/)?$' && fail "user stack lines: $(cat u)"
tail -n 1 u | grep -q ' \*/$' || fail "user stack comment not closed: $(cat u)"
[ "$(wc -l <u)" -ge 2 ] || fail "user stack too short: $(cat u)"
exit 0
