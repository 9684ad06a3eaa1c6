# description: record: a program's records arrive whole, the trace is 0600, one warning for a binary without instrumentation
# requires: cc
. "$TOP/tests/e2e/t0399-rec.inc"
mk_selfw
$FTRAIL record -o t.dat -- ./selfw 5000 plain 2>err || fail "record failed: $(cat err)"
expect_counts err 10000 0 1
[ "$(stat -c %a t.dat)" = 600 ] || fail "trace file mode $(stat -c %a t.dat), not 600"
grep -qx "ftrail: warning: ./selfw has no instrumentation ftrail can hook: compile it with -pg, -pg -mfentry, -mfentry -mnop-mcount, -fpatchable-function-entry=5 or -finstrument-functions, or patch its functions (-l GLOB)" err ||
	fail "no instrumentation warning: $(cat err)"
[ "$(grep -c warning err)" = 1 ] || fail "more than one warning: $(cat err)"
$FTRAIL show -i t.dat >out || fail "show"
n=$(grep -c '();$' out)
[ "$n" = 5000 ] || fail "show has $n calls, expected 5000"
# -q: nothing on stderr but the warning
$FTRAIL record -q -o q.dat -- ./selfw 10 plain 2>err || fail "record -q"
[ "$(grep -vc warning err)" = 0 ] || fail "-q printed: $(cat err)"
exit 0
