# description: stackmap show/stat/export on a recorded trace; export then dump gives the same stacks; errors
# requires: cc
# asan: yes
. "$TOP/tests/e2e/lib.sh"
need_cmd cc
. "$TOP/tests/e2e/lib_recorded.sh"
record_stacks
$FTRAIL stackmap show -i t.dat >show.out || fail "show"
# one stack per call site: main; middle; leaf from each of middle's two calls
[ "$(grep -c '^stack_id [0-9]* \[ref [0-9]*, depth [0-9]*\]$' show.out)" = 4 ] || fail "expected 4 stacks: $(cat show.out)"
# (the whole stack: main's callers in libc follow, as many as libc has)
grep -A1 '^stack_id .*ref 100, depth ' show.out | grep -q '^  \[0\] middle+0x0/0x' || fail "middle's stack: $(cat show.out)"
[ "$(grep -A1 'ref 100, depth ' show.out | grep -c '^  \[0\] leaf+0x0/0x')" = 2 ] || fail "two leaf stacks of 100 refs: $(cat show.out)"
[ "$(grep -A3 'ref 100, depth ' show.out | grep -B2 '^  \[2\] main+0x' | grep -c '^  \[0\] leaf+')" = 2 ] ||
	fail "leaf's stacks miss main: $(cat show.out)"
grep -q '^  \[[0-9]*\] _start+0x' show.out || fail "stacks stop before _start: $(cat show.out)"
# stat in stack_map_stat's shape; successes = sum of refs = events with a stack
$FTRAIL stackmap stat -i t.dat >stat.out || fail "stat"
# (capacity and drops come from META; older recorders do not write them;
# with -T and no --stackmap-bits the program's map holds 2^17 stacks)
grep -Eqx 'entries: 4 / (131072|unknown)' stat.out || fail "stat: $(cat stat.out)"
grep -Eqx 'table_size: (262144|unknown)' stat.out || fail "stat: $(cat stat.out)"
grep -qx 'successes: 301' stat.out || fail "stat: $(cat stat.out)"
grep -Eqx 'drops: (0|unknown.*)' stat.out || fail "stat: $(cat stat.out)"
$FTRAIL record -q -p function -T --no-libcall --stackmap-bits 10 -o t10.dat -- ./p || fail "record bits 10"
$FTRAIL stackmap stat -i t10.dat >stat10.out || fail "stat bits 10"
grep -Eqx 'table_size: (2048|unknown)' stat10.out || fail "stat bits 10: $(cat stat10.out)"
# export: a 0600 FSMB file that dump reads back to the same stacks
$FTRAIL stackmap export -i t.dat -o m.bin || fail "export"
[ "$(stat -c %a m.bin)" = 600 ] || fail "export mode $(stat -c %a m.bin)"
[ "$(head -c 4 m.bin | od -An -tx1 | tr -d ' ')" = 42534d46 ] || fail "not FSMB (little endian)"
$FTRAIL stackmap dump m.bin --format json >m.json || fail "dump of export"
$FTRAIL stackmap show -i t.dat --format json >s.json || fail "show --format json"
# same ids, refs and addresses (show adds symbols)
sed 's/, "symbols".*}/}/' s.json | diff -u - <(sed 's/}$/}/' m.json) || fail "export/dump differ from show"
$FTRAIL stackmap show -i t.dat --top 1 | grep -c '^stack_id' | grep -qx 1 || fail "--top 1"
# errors
expect_fail "ftrail: t.dat: no kernel stack map in this trace*" $FTRAIL stackmap show -i t.dat --kernel
expect_fail "ftrail: *nosuch.dat*" $FTRAIL stackmap show -i nosuch.dat
expect_fail "ftrail: stackmap export: needs -o FILE" $FTRAIL stackmap export -i t.dat
expect_fail "ftrail: stackmap show: unexpected argument 'x'" $FTRAIL stackmap show -i t.dat x
expect_fail "ftrail: stackmap stat: --format*" $FTRAIL stackmap stat -i t.dat --format json
$FTRAIL record -q -p function -O nostackmap -o plain.dat -- ./p || fail "record without stack map"
if $FTRAIL stackmap stat -i plain.dat >plain.out 2>plain.err; then
	grep -q '^entries: 0 / ' plain.out || fail "no stacks recorded, yet: $(cat plain.out)"
else
	grep -qx "ftrail: plain.dat: no user stack map in this trace.*" plain.err || fail "$(cat plain.err)"
fi
# a trace cut before its stack map: the cut-short warning, then one error line, no crash
head -c 100 t.dat >cut.dat
$FTRAIL stackmap show -i cut.dat >cut.out 2>cut.err && fail "stackmap show of a cut file succeeded"
[ "$(grep -vc '^ftrail: warning: ' cut.err)" = 1 ] || fail "want one error line: $(cat cut.err)"
grep -q '^ftrail: warning: cut.dat was cut short' cut.err || fail "no cut-short warning: $(cat cut.err)"
tail -n 1 cut.err | grep -q '^ftrail: cut.dat: ' || fail "no error line: $(cat cut.err)"
exit 0
