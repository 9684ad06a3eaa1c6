# description: show: a multi-threaded recording names the thread on every line, --tid shows one thread (or a few), bad --tid lists
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
build th gcc -O2 -pg "$P/threads.c" -lpthread || fail "build"
rec t.dat -- ./th
$FTRAIL show -i t.dat >all || fail "show"
grep -q '^# CPU  TASK/PID' all || fail "no TASK/PID column: $(head -5 all)"
grep -q -- '------' all && fail "context-switch blocks between user threads"
# every function line names its thread: " 0)  comm-tid  |"
body=$(grep -v '^#' all | grep -vc '^ *[0-9]*)  *[^ ]*-[0-9][0-9]*  *|')
[ "$body" = 0 ] || fail "$body lines without a thread"
tids=$(grep -v '^#' all | sed -n 's/^ *[0-9]*)  *[^ ]*-\([0-9][0-9]*\)  *|.*/\1/p' | sort -un)
[ "$(echo "$tids" | wc -l)" = 5 ] || fail "threads shown: $tids (want main + 4)"
# per-thread views: one thread each, no TASK/PID column, together the whole trace
total=0
for tid in $tids; do
	$FTRAIL show -i t.dat --tid "$tid" >one || fail "show --tid $tid"
	grep -q 'TASK/PID' one && fail "--tid $tid: a TASK/PID column for one thread"
	n=$(grep -vc '^#' one)
	[ "$n" = "$(grep -c -- "-$tid  *|" all)" ] || fail "--tid $tid: $n lines"
	total=$((total + n))
done
[ "$total" = "$(grep -vc '^#' all)" ] || fail "the per-thread views hold $total lines"
# two threads: the column again, and only theirs
set -- $tids
$FTRAIL show -i t.dat --tid "$1,$2" >two || fail "show --tid $1,$2"
[ "$(grep -v '^#' two | sed -n 's/^ *[0-9]*)  *[^ ]*-\([0-9][0-9]*\)  *|.*/\1/p' | sort -un | tr '\n' ' ')" = "$1 $2 " ] ||
	fail "--tid $1,$2: $(head -8 two)"
expect_fail "ftrail: show: --tid wants thread ids separated by commas, not '1,x'" $FTRAIL show -i t.dat --tid 1,x
expect_fail "ftrail: show: --tid wants thread ids separated by commas, not ''" $FTRAIL show -i t.dat --tid ''
exit 0
