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
# no traced program at all (skipped while another test traces one: never touch it)
traced=0
for e in /proc/[0-9]*/environ; do
	grep -qa FTRAIL_SHM_FD= "$e" 2>/dev/null && traced=1 && break
done
if [ $traced = 0 ]; then
	expect_fail "ftrail: snapshot: no program is being traced by ftrail record now*" $FTRAIL snapshot 1
fi
need_runtime
cc -O1 -I"$TOP/include" -o ticks "$TOP/tests/progs/snap_ticks.c" || fail "build"
$FTRAIL record -q -p nop -e u:snap -o t.dat -- ./ticks 10 >/dev/null 2>err || fail "record: $(cat err)"
expect_fail "ftrail: show: t.dat holds no snapshot 1" $FTRAIL show -i t.dat --snapshot=1
expect_fail "ftrail: show: --snapshot=N wants a snapshot number*" $FTRAIL show -i t.dat --snapshot=0
expect_fail "ftrail: show: --snapshot=N wants a snapshot number*" $FTRAIL show -i t.dat --snapshot=x
exit 0
