# description: record: a program that crashes (SIGSEGV, abort) or exits non-zero keeps its records, and record says so
# requires: cc
. "$TOP/tests/e2e/t0399-rec.inc"
mk_selfw
expect_status 139 $FTRAIL record -o c.dat -- ./selfw 3000 segv 2>err
grep -qx "ftrail: warning: ./selfw was killed by signal 11 (Segmentation fault); events written before it are in c.dat" err ||
	fail "no crash line: $(cat err)"
expect_counts err 6000 0 1
n=$($FTRAIL show -i c.dat | grep -c '();$')
[ "$n" = 3000 ] || fail "show has $n calls after SIGSEGV, expected 3000"

expect_status 134 $FTRAIL record -o a.dat -- ./selfw 777 abort 2>err
grep -q "^ftrail: warning: ./selfw was killed by signal 6 (Abort.*); events written before it are in a.dat$" err ||
	fail "no abort line: $(cat err)"
expect_counts err 1554 0 1

# exit without detaching the thread's slot (the recorder drains it anyway)
expect_status 7 $FTRAIL record -o e.dat -- ./selfw 100 exit7 2>err
grep -qx "ftrail: warning: ./selfw exited with status 7" err || fail "no exit status line: $(cat err)"
expect_counts err 200 0 1
exit 0
