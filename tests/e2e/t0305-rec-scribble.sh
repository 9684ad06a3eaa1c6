# description: record: a program that overwrites the shared ring buffer's layout does not crash the recorder, whose repair keeps its records
# requires: cc
. "$TOP/tests/e2e/t0399-rec.inc"
mk_selfw
$FTRAIL record -o s.dat -- ./selfw 1000 scribble 2>err &
rec=$!
for i in $(seq 100); do [ -s selfw.pid ] && break; sleep 0.1; done
[ -s selfw.pid ] || { kill $rec; fail "the program did not start"; }
sleep 0.5 # the recorder checks the layout on every pass (every few ms)
kill -KILL "$(cat selfw.pid)"
expect_status 137 wait $rec
grep -qx "ftrail: warning: the traced program overwrote the ring buffer's layout (restored; its records may be lost)" err ||
	fail "no warning: $(cat err)"
grep -q "killed by signal 9" err || fail "the end of the program was not reported: $(cat err)"
expect_counts err 2000 0 1
n=$($FTRAIL show -i s.dat | grep -c '();$') || fail "show cannot read the trace"
[ "$n" = 1000 ] || fail "show has $n calls, expected 1000"
exit 0
