# description: mount: per_thread/<tid>/{trace,trace_pipe,stats} in place of per_cpu: one thread's events only, its ring's counts, consuming reads
# requires: root fuse gcc
# asan: yes
. "$TOP/tests/e2e/t1019-mount.inc"
build_loop
LOOP_ARGS=2
start_rec m -b 8 -p function -l alpha
for i in $(seq 300); do
	[ "$(ls m/per_thread | wc -l)" = 2 ] && break
	sleep 0.1
done
[ "$(ls m/per_thread | wc -l)" = 2 ] || fail "per_thread lists $(ls m/per_thread | tr '\n' ' '), not 2 threads"
set -- $(ls m/per_thread)
t1=$1 t2=$2
expect_eq "per_thread/$t1" "$(ls m/per_thread/$t1 | tr '\n' ' ')" "stats trace trace_pipe "
ls m/per_thread/999999999 >/dev/null 2>&1 && fail "per_thread/999999999 exists"
# each thread's trace holds its own calls only
for t in $t1 $t2; do
	for i in $(seq 300); do
		grep -q "alpha <-" m/per_thread/$t/trace && break
		sleep 0.1
	done
	grep -E -- '-[0-9]+ +\[' m/per_thread/$t/trace >lines
	[ -s lines ] || fail "per_thread/$t/trace shows no calls"
	grep -Ev -- "-$t +\[" lines && fail "per_thread/$t/trace shows another thread's events"
	stat=m/per_thread/$t/stats
	grep -qE '^entries: [1-9][0-9]*$' $stat || fail "$t stats: $(cat $stat)"
	grep -qx 'dropped events: 0' $stat || fail "$t stats: $(cat $stat)"
	grep -qx 'overrun: 0' $stat || fail "$t stats: $(cat $stat)"
done
# a consuming read of one thread: its read events grow, the other's stay 0
timeout 3 cat m/per_thread/$t1/trace_pipe >p1
[ -s p1 ] || fail "per_thread/$t1/trace_pipe gave nothing"
grep -Ev -- "-$t1 +\[" p1 && fail "per_thread/$t1/trace_pipe gave another thread's events"
read1=$(sed -n 's/^read events: //p' m/per_thread/$t1/stats)
[ "$read1" -ge "$(grep -c . p1)" ] || fail "read events $read1 < $(grep -c . p1) lines read"
expect_eq "read events of $t2" "$(sed -n 's/^read events: //p' m/per_thread/$t2/stats)" 0
# what it consumed is gone from the whole trace too, the other thread's is not
grep -q -- "-$t2 .*alpha <-" m/trace || fail "trace lost $t2's events"
first=$(head -n 1 p1 | awk '{print $3}')
grep -F -- "$first" m/trace | grep -q -- "-$t1 " && fail "trace still shows what per_thread/$t1/trace_pipe consumed"
stop_rec
exit 0
