# description: record loses nothing by default (block mode): a call-heavy program on 4 threads gives exactly 2 records per call, with the default buffer and with a tiny one that loses in producer/consumer mode
# requires: cc
# --no-libcall: the count is of the program's own calls
. "$TOP/tests/e2e/t0399-rec.inc"
need_runtime
cc -O2 -pg -pthread -o ch "$TOP/tests/progs/callheavy.c" || fail "cc"
waits() { sed -n 's/.*waited for the recorder \([0-9]*\) times\{0,1\}.*/\1/p' "$1"; }
# records = 2 per call (entry + exit) + the process's exit record
expect_all() { # errfile progout what
	local calls
	calls=$(sed -n 's/^calls=//p' "$2")
	set -- $(counts "$1") "$1" "$3"
	[ $# = 5 ] || fail "no summary ($5): $(cat "$4")"
	[ "$2" = 0 ] || fail "$5: $2 records lost: $(cat "$4")"
	[ "$1" = $((2 * calls + 1)) ] || fail "$5: $1 records for $calls calls"
}
# the proof that the small buffer overflows: producer/consumer mode drops
$FTRAIL record --no-libcall -O noblock -b 16 -o nb.dat -- ./ch 4 200000 >out 2>err || fail "record noblock: $(cat err)"
set -- $(counts err)
[ "$2" -gt 0 ] || fail "-O noblock -b 16 lost nothing: the test proves nothing ($(cat err))"
calls=$(sed -n 's/^calls=//p' out)
[ $(($1 + $2)) = $((2 * calls + 1)) ] || fail "noblock: records $1 + lost $2 != $((2 * calls + 1))"
grep -q "producer-consumer mode" err || fail "noblock: mode not reported: $(cat err)"
# the default mode with the same small buffer: writers wait, nothing is lost
$FTRAIL record --no-libcall -b 16 -o b.dat -- ./ch 4 200000 >out 2>err || fail "record -b 16: $(cat err)"
expect_all err out "block -b 16"
grep -q "block mode" err || fail "block mode not reported: $(cat err)"
[ "$(waits err)" -gt 0 ] || fail "-b 16: no writer waited ($(cat err))"
# default settings, millions of calls
$FTRAIL record --no-libcall -o d.dat -- ./ch 4 1000000 >out 2>err || fail "record default: $(cat err)"
expect_all err out "default"
# the trace holds them all: report counts every call of leaf
$FTRAIL report -i d.dat >rep || fail "report"
grep -qE '\b8000000\b.*leaf|leaf.*\b8000000\b' rep || fail "report: leaf is not called 8000000 times: $(grep leaf rep)"
exit 0
