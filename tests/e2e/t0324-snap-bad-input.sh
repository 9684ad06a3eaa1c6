# description: snapshot bad input: a pid that is not traced, a value that is not a number, extra arguments, no traced program, show --snapshot=N past the last: one line, non-zero
# requires: cc
# asan: yes
. "$TOP/tests/e2e/t0399-rec.inc"
sleep 30 &
other=$!
expect_fail "ftrail: snapshot: process $other is not traced by ftrail record (or not ours)" $FTRAIL snapshot -P $other 1
kill $other 2>/dev/null
wait $other 2>/dev/null
expect_fail "ftrail: snapshot: process 999999999 is not traced*" $FTRAIL snapshot -P 999999999 1
expect_fail "ftrail: snapshot: -P wants a process id, not 'x'" $FTRAIL snapshot -P x 1
expect_fail "ftrail: snapshot: 'abc' is not 0, 1 or a positive number" $FTRAIL snapshot abc
expect_fail "ftrail: snapshot: '-1' is not 0, 1 or a positive number" $FTRAIL snapshot -- -1
expect_fail "ftrail: snapshot: one value at most*" $FTRAIL snapshot 1 2
expect_fail "ftrail: snapshot: unknown option*" $FTRAIL snapshot --bogus
# no traced program at all: snapshot looks through /proc for one, so it
# runs in a PID namespace of its own, with its own /proc, where no other
# session of the machine (another test's, another user's) can be seen or
# touched.  Creating one needs root (CAP_SYS_ADMIN).
if unshare --pid --fork --mount-proc true 2>/dev/null; then
	expect_fail "ftrail: snapshot: no program is being traced by ftrail record now*" \
		unshare --pid --fork --mount-proc $FTRAIL snapshot 1
	expect_fail "ftrail: snapshot: no program is being traced by ftrail record now*" \
		unshare --pid --fork --mount-proc $FTRAIL snapshot
elif [ "$(id -u)" = 0 ]; then
	fail "root cannot make a PID namespace (unshare --pid --mount-proc)"
fi
need_runtime
cc -O1 -I"$TOP/include" -o ticks "$TOP/tests/progs/snap_ticks.c" || fail "build"
$FTRAIL record -q -p nop -e u:snap -o t.dat -- ./ticks 10 >/dev/null 2>err || fail "record: $(cat err)"
expect_fail "ftrail: show: t.dat holds no snapshot 1" $FTRAIL show -i t.dat --snapshot=1
expect_fail "ftrail: show: --snapshot=N wants a snapshot number*" $FTRAIL show -i t.dat --snapshot=0
expect_fail "ftrail: show: --snapshot=N wants a snapshot number*" $FTRAIL show -i t.dat --snapshot=x
exit 0
