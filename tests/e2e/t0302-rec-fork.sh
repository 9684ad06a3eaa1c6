# description: record: forked children, re-parented grandchildren and threads write into the same trace
# requires: cc
. "$TOP/tests/e2e/t0399-rec.inc"
mk_selfw
$FTRAIL record -o f.dat -- ./selfw 1000 fork 2>err || fail "record failed: $(cat err)"
expect_counts err 4000 0 2
n=$($FTRAIL show -i f.dat | grep -c '();$')
[ "$n" = 2000 ] || fail "show has $n calls, expected 2000 (parent + child)"
# the child's process exits first, its grandchild writes after: record waits for it
$FTRAIL record -o g.dat -- ./selfw 1000 grandchild 2>err || fail "record failed: $(cat err)"
expect_counts err 2000 0 1
# more threads than one wave of slots would ever need to recycle
$FTRAIL record -o th.dat -- ./selfw 500 threads 40 2>err || fail "record failed: $(cat err)"
expect_counts err 40000 0 40
exit 0
