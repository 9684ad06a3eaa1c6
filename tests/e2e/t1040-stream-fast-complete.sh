# description: a fast multi-threaded -pg program streamed with -o - and written to a file, one thread sitting in a call meanwhile: the stream holds every function line of the file, in show's order for each thread and across threads, and no event is reported too late for the stream
# requires: cc
# asan: yes
. "$TOP/tests/e2e/t0399-rec.inc"
need_runtime
cc -O2 -pg -o stream_hold "$TOP/tests/progs/stream_hold.c" -lpthread || fail "build stream_hold"
# Three workers race for 2.5 s while main sits in nanosleep() five times:
# each entry waits for its next record (leaf or not) and holds the
# stream's time back while the workers' events pile up behind it; they
# must still be streamed.
$FTRAIL record -o - -o a.dat -- ./stream_hold 3 5 500 >s.out 2>err || fail "record: $(cat err)"
grep -q 'passed their time' err && fail "the stream left events out: $(grep 'passed' err)"
grep -q 'warning' err && fail "record warned: $(grep warning err)"
$FTRAIL show -i a.dat -O funcgraph-proc >a.show || fail "show a.dat"
grep -v '^#' a.show >a.body
calls=$(sed -n 's/^worker [0-9]: \([0-9]*\) calls$/\1/p' err | awk '{ n += $1 } END { print n }')
n=$(grep -c 'inner();' a.body)
[ "$n" = "$calls" ] && [ "$n" -ge 3000 ] || fail "show: $n inner calls, the workers made $calls"
# per thread: the same function lines, same count and order
tids=$(grep -o '^ *[0-9]) *[^ ]*-[0-9]*' a.body | sed 's/.*-//' | sort -u)
[ "$(echo "$tids" | wc -w)" = 4 ] || fail "show: threads $tids, not 4"
for tid in $tids; do
	grep -E -- "-$tid +\|" a.body >show.$tid
	grep -E -- "-$tid +\|" s.out >stream.$tid
	cmp -s show.$tid stream.$tid ||
		fail "thread $tid: stream $(wc -l <stream.$tid) lines, show $(wc -l <show.$tid): $(diff show.$tid stream.$tid | head -3)"
done
# and across threads: the same lines in the same order
cmp -s a.body s.out || fail "stream and show differ: $(diff a.body s.out | head -5)"
exit 0
