# description: ftrail stream PROG (trace-cmd stream's name for record -o -) prints the trace while it runs, has its own help, and refuses to run without a program in one line
# requires: cc
. "$TOP/tests/e2e/t0399-rec.inc"
need_runtime
cc -O1 -pg -I"$TOP/include" -o flight "$TOP/tests/progs/flight.c" -lpthread || fail "build flight"
$FTRAIL stream -q -e u:fl -o k.dat -- ./flight 30 0 exit >s.out 2>err
[ $? = 3 ] || fail "stream: exit status: $(cat err)"
[ "$(grep -c 'tick: i=' s.out)" = 30 ] || fail "stream printed $(grep -c 'tick: i=' s.out) of 30 ticks"
$FTRAIL show -i k.dat -O funcgraph-proc | grep -v '^#' | diff - s.out >d || fail "stream and show differ: $(head -3 d)"
[ "$($FTRAIL stream --help | head -1)" = "usage: ftrail stream [record options] [--] PROG ARGS..." ] ||
	fail "stream --help"
$FTRAIL help | grep -q '^  stream ' || fail "help does not list stream"
expect_fail "ftrail: nothing to record*" $FTRAIL stream
expect_fail "*unknown tracer 'x'*" $FTRAIL stream -p x -- ./flight 1 0
exit 0
