# description: record with the runtime: one warning for a binary without instrumentation (naming the flags), a static binary, a filter matching nothing; the program still runs
# requires: cc
. "$TOP/tests/e2e/t0399-rec.inc"
need_runtime
cc -O0 -o plain "$TOP/tests/progs/rec_crash.c" || fail "cc"
expect_status 5 $FTRAIL record -o p.dat -- ./plain 3 exit5 2>err
[ "$(grep -c 'no instrumentation' err)" = 1 ] || fail "expected one instrumentation warning: $(cat err)"
grep -qx "ftrail: warning: ./plain has no instrumentation ftrail can hook: compile it with -pg, -pg -mfentry, -mfentry -mnop-mcount, -fpatchable-function-entry=5 or -finstrument-functions, or patch its functions (-l GLOB)" err ||
	fail "warning text: $(cat err)"
grep -qx "ftrail: warning: ./plain exited with status 5" err || fail "the program did not run: $(cat err)"
[ -s p.dat ] || fail "no trace file"
# a filter that matches nothing: one warning, tracing goes on
cc -O0 -pg -o crash "$TOP/tests/progs/rec_crash.c" || fail "cc"
expect_status 5 $FTRAIL record -l before_crash -l 'nothing_like_this*' -o f.dat -- ./crash 3 exit5 2>err
[ "$(grep -c "nothing_like_this" err)" = 1 ] || fail "expected one warning about the filter: $(cat err)"
n=$($FTRAIL show -i f.dat | calls before_crash)
[ "$n" = 3 ] || fail "filter: $n calls of before_crash, expected 3"
# statically linked: LD_PRELOAD cannot work, say so once
if cc -O0 -pg -static -o static "$TOP/tests/progs/rec_crash.c" 2>/dev/null; then
	expect_status 5 $FTRAIL record -o st.dat -- ./static 3 exit5 2>err
	grep -qx "ftrail: warning: ./static is statically linked: the runtime cannot be preloaded into it, nothing of it will be traced (link it dynamically)" err ||
		fail "static warning: $(cat err)"
	[ "$(grep -c warning: err)" = 2 ] || fail "static: expected the static line and the exit status: $(cat err)"
fi
exit 0
