# description: option stacktrace (-T) from the shadow stack: stack ids with stackmap, full stacks without
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
# the program's own functions: library calls are t0432's
build basic gcc -O2 -pg -mfentry "$P/basic.c" || fail "build"
rec t.dat --no-libcall -T -- ./basic
"$FTRAIL" show -i t.dat >show.out || fail show
[ "$(grep -c 'stack_id' show.out)" = 6 ] || fail "expected 6 stack ids: $(cat show.out)"
rec t.dat --no-libcall -T -O nostackmap -- ./basic
"$FTRAIL" show -i t.dat >show.out || fail show
grep -q '<stack trace>' show.out || fail "no full stack: $(cat show.out)"
# c's stack: c, b, a, main, in that order
grep -A6 -m1 'c() {' show.out | grep '=>' | head -4 | sed 's/ *=> //; s/+.*//' | tr '\n' ' ' >s
[ "$(cat s)" = "c b a main " ] || fail "stack of c: '$(cat s)'"
exit 0
