# description: record and offcpu --record exit with the program's status (128+N for signal N); ftrail's own failures exit 1 with one line
# requires: cc
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
need_cmd cc
build st gcc -O1 -pg "$P/status.c" || fail "build status.c"

# st HOW [CHILD] under record: the exit status, and the trace is complete
expect_rc() { # WANT ARGS...
	local want=$1 rc
	shift
	rm -f t.dat
	"$FTRAIL" record -o t.dat "$@" >out 2>err
	rc=$?
	[ $rc = "$want" ] || fail "record $*: exit $rc, expected $want ($(cat err))"
	[ -s t.dat ] || fail "record $*: no trace: $(cat err)"
	"$FTRAIL" show -i t.dat >show.out 2>show.err || fail "show after record $*: $(cat show.err)"
	[ ! -s show.err ] || fail "show after record $*: $(cat show.err)"
}
expect_rc 0 -- ./st 0
expect_rc 3 -- ./st 3
expect_rc 255 -- ./st 255
expect_rc 139 -- ./st segv
grep -qx "ftrail: warning: ./st was killed by signal 11 (Segmentation fault); events written before it are in t.dat" err ||
	fail "no crash line: $(cat err)"
expect_rc 134 -- ./st abort
expect_rc 137 -- ./st kill
grep -q "work()" show.out || fail "work() missing before SIGKILL: $(cat show.out)"
# the program is the first child: its status counts, not a descendant's
expect_rc 2 -- ./st 2 0
expect_rc 0 -- ./st 0 segv
grep -q "^ftrail: warning: process [0-9]* was killed by signal 11" err ||
	fail "the child's crash is not reported: $(cat err)"
expect_rc 0 -- ./st 0 9
# not traced (nop tracer: no runtime), the status is still the program's
expect_rc 5 -p nop -- ./st 5
expect_rc 5 -q -- ./st 5
[ ! -s err ] || fail "-q printed: $(cat err)"

# ftrail's own failures: 1 and one line, whatever the program would do
expect_fail "ftrail: no such program: ./nosuch" "$FTRAIL" record -o f.dat -- ./nosuch
expect_fail "ftrail: unknown tracer 'nosuch'*" "$FTRAIL" record -p nosuch -o f.dat -- ./st 3
"$FTRAIL" record -p nosuch -o f.dat -- ./st 3 2>/dev/null
[ $? = 1 ] || fail "a bad tracer does not exit 1"

# documented
"$FTRAIL" record --help | grep -A1 '^Exit status:$' | grep -q "PROG's own, or 128+N" ||
	fail "record --help: no exit status"
"$FTRAIL" offcpu --help | grep -q "exit status" || fail "offcpu --help: no exit status"

# kernel recordings: 0 without a program, the program's status with one
if [ "$(id -u)" = 0 ] && [ -e /sys/kernel/tracing/trace ]; then
	expect_rc 4 -e sched:sched_process_exit -- ./st 4
	expect_rc 131 -e sched:sched_process_exit -p nop -- sh -c 'kill -QUIT $$'
	set -m
	"$FTRAIL" record -o k.dat -e sched:sched_process_exit >out 2>err &
	r=$!
	for i in $(seq 50); do grep -q "Ctrl-C to stop" err && break; sleep 0.1; done
	kill -INT $r
	wait $r
	rc=$?
	set +m
	[ $rc = 0 ] || fail "kernel-only record ended by SIGINT: exit $rc ($(cat err))"
	grep -q "^ftrail: trace written to k.dat$" err || fail "kernel-only: no trace: $(cat err)"
	"$FTRAIL" offcpu --record -q -o o.dat -- ./st 6 >out 2>err
	rc=$?
	[ $rc = 6 ] || fail "offcpu --record: exit $rc, expected 6 ($(cat err))"
	grep -q "kernel events" out || fail "offcpu --record: no report: $(cat out)"
else
	echo "kernel cases skipped (no root or tracefs)"
fi
exit 0
