# description: function commands traceoff/traceon with counts, snapshot, stacktrace
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
# the program's own functions: library calls are t0432's
build basic gcc -O2 -fpatchable-function-entry=5 "$P/basic.c" || fail "build"
# b turns tracing off: c never shows, the open frames still close
rec t.dat --no-libcall -l 'b:traceoff' -- ./basic
expect_shape "traceoff" "$(shape t.dat)" 'main() { a() { } }'
grep -q 'tracing_off' show.out || fail "no tracing_off marker"
# c turns it off once; b turns it on again: the second c shows
rec t.dat --no-libcall -l 'c:traceoff:1' -l 'b:traceon' -- ./basic
expect_shape "traceoff:1 traceon" "$(shape t.dat)" 'main() { a() { b() { } b() { c(); } } }'
[ "$(grep -c 'tracing_off' show.out)" = 1 ] || fail "traceoff:1 fired more than once"
# '!' removes a command
rec t.dat --no-libcall -l 'b:traceoff' -l '!b:traceoff' -- ./basic
expect_shape "!cmd" "$(shape t.dat)" 'main() { a() { b() { c(); } b() { c(); } } }'
# snapshot: taken when a is entered, so it holds main's entry and nothing of a
rec t.dat --no-libcall -l 'a:snapshot' -- ./basic
$FTRAIL show --snapshot -i t.dat >snap.out || fail "show --snapshot"
grep -q 'main() {' snap.out || fail "snapshot without main's entry: $(cat snap.out)"
! grep -q 'b() {' snap.out || fail "snapshot taken too late: $(cat snap.out)"
grep -q 'c();' show.out || fail "the live trace lost events to the snapshot"
# stacktrace command: function tracer, a stack after each c
rec t.dat --no-libcall -p function -l 'c:stacktrace' -- ./basic
"$FTRAIL" show -i t.dat >show.out || fail show
[ "$(grep -c 'stack' show.out)" = 2 ] || fail "stacktrace: $(cat show.out)"
# a count of 1
rec t.dat --no-libcall -p function -l 'c:stacktrace:1' -- ./basic
"$FTRAIL" show -i t.dat >show.out || fail show
[ "$(grep -c 'stack' show.out)" = 1 ] || fail "stacktrace:1: $(cat show.out)"
exit 0
