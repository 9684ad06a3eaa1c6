#!/usr/bin/env bash
# description: one trace with user records and kernel events: show merges them by time, stacks counts user and kernel stacks
# requires: root tracefs gcc
# asan: yes
. "$TOP/tests/e2e/lib.sh"
need_tracefs
need_cmd gcc
gcc -O0 -g -pg -mfentry -o basic "$TOP/tests/progs/basic.c" || fail "build basic"

FTRAIL_LIB=${FTRAIL_LIB:-$BUILD/libftrail.so} $FTRAIL record -p function -O stacktrace \
	-e sched:sched_process_exec -e sched:sched_process_exit -T -o m.dat -- ./basic >rec.out 2>rec.err ||
	fail "record: $(cat rec.err)"
grep -q 'not complete in this build' rec.err && skip "no user-space recorder in this build"
grep -q ' 2 kernel events' rec.err || fail "want 2 kernel events: $(cat rec.err)"

$FTRAIL show -i m.dat >show.txt || fail "show"
grep -Eq 'basic-[0-9]+ +\[[0-9]{3}\] .*: sched_process_exec: filename=\./basic' show.txt ||
	fail "no exec event: $(head -n 20 show.txt)"
grep -q ': sched_process_exit: comm=basic' show.txt || fail "no exit event"
# order: the exec comes before main's records, the exit after them
e=$(grep -n 'sched_process_exec:' show.txt | head -n 1 | cut -d: -f1)
m=$(grep -n ' main' show.txt | grep -v '=>' | head -n 1 | cut -d: -f1)
x=$(grep -n 'sched_process_exit:' show.txt | head -n 1 | cut -d: -f1)
[ -n "$m" ] || fail "no user record of main: $(head -n 30 show.txt)"
[ "$e" -lt "$m" ] && [ "$m" -lt "$x" ] || fail "not merged by time: exec $e, main $m, exit $x"

$FTRAIL stacks -i m.dat --kernel >k.txt || fail "stacks --kernel"
grep -q 'do_exit' k.txt || fail "no kernel exit stack"
grep -q '^    main' k.txt && fail "--kernel shows a user stack"
$FTRAIL stacks -i m.dat --user >u.txt || fail "stacks --user"
grep -q '^    main' u.txt || fail "no user stack with main"
grep -q 'do_exit' u.txt && fail "--user shows a kernel stack"
$FTRAIL stacks -i m.dat >all.txt || fail "stacks"
nk=$(sed -n 's/.*, \([0-9]*\) stacks in all/\1/p' k.txt)
nu=$(sed -n 's/.*, \([0-9]*\) stacks in all/\1/p' u.txt)
na=$(sed -n 's/.*, \([0-9]*\) stacks in all/\1/p' all.txt)
[ $((nk + nu)) = "$na" ] || fail "kernel $nk + user $nu != all $na"
exit 0
