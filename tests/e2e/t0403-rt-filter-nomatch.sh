# description: a filter that matches no function: one warning naming it, the line is ignored (as ftrace's EINVAL)
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
build basic gcc -O2 -fpatchable-function-entry=5 "$P/basic.c" || fail "build"
"$FTRAIL" record -o t.dat -l 'nosuch*' -l c -- ./basic >out 2>err || fail "record failed: $(cat err)"
grep -q "set_ftrace_filter: no function matches 'nosuch\*'" err || fail "no warning: $(cat err)"
expect_shape "nomatch" "$(shape t.dat)" 'c(); c();'
"$FTRAIL" record -o t.dat -l 'c:mod:nosuchmod' -- ./basic >out 2>err || fail "record failed"
grep -q "no function matches 'c:mod:nosuchmod'" err || fail "no :mod: warning: $(cat err)"
exit 0
