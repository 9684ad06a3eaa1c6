# description: a stored kernel event format that crashes libtraceevent's parser (print fmt naming a field the format lacks) is left out: show/stacks/latency/export read the file, its events print raw
# requires: python3
# asan: yes
. "$TOP/tests/e2e/lib.sh"
need_cmd python3
seed=$TOP/tests/fuzz/corpus/kern-sched-nop
# good.dat, and bad.dat with sched_switch's prev_state field renamed while
# its print fmt still reads REC->prev_state; many.dat: that format 41 times
python3 "$TOP/tests/e2e/t0734-hostile-kfmt.py" "$seed" "$TOP/tests/fuzz/shrink.py" ||
	fail "cannot build the hostile files"
$FTRAIL show -i good.dat >good.out 2>err || fail "show good: $(cat err)"
grep -q 'sched_switch: prev_comm=' good.out || fail "the seed does not print sched_switch: $(head good.out)"
$FTRAIL show -i bad.dat >bad.out 2>err || fail "show of the hostile format failed: $(cat err)"
[ -s err ] && fail "show wrote on stderr: $(cat err)"
grep -q 'UNKNOWN EVENT' bad.out || fail "the hostile format's events do not print raw: $(tail -3 bad.out)"
grep -q 'sched_switch' bad.out && fail "the hostile format was used: $(grep sched_switch bad.out | head -2)"
[ "$(grep -c '<stack_id' bad.out)" = "$(grep -c '<stack_id' good.out)" ] || fail "stacks differ"
$FTRAIL stacks -i bad.dat >/dev/null 2>err || fail "stacks: $(cat err)"
$FTRAIL export --format chrome -i bad.dat -o bad.json 2>err || fail "export: $(cat err)"
expect_fail "ftrail: latency: no 'sched:sched_switch' event in bad.dat" \
	$FTRAIL latency -i bad.dat --from sched:sched_switch --to sched:sched_switch
# many formats that crash the parser: bounded work, one clear error
expect_fail "ftrail: many.dat: kernel formats: more than * of them crash libtraceevent" \
	$FTRAIL show -i many.dat
# a print format that divides by a divisor reading as 0 ("REC->pr/v_state",
# found by the fuzz target) parses fine but kills libtraceevent's printer
# with SIGFPE: such events print their fields raw
div=$TOP/tests/fuzz/corpus/regress-kfmt-divide-by-zero
for o in "" "-O latency-format"; do
	$FTRAIL show -i "$div" $o >div.out 2>err || fail "show $o of a dividing format failed ($?): $(cat err)"
	grep -q 'sched_switch: prev_comm=ftrail prev_pid=[0-9]* prev_prio=120 prev_state=' div.out ||
		fail "show $o: sched_switch does not print raw: $(grep -m2 sched_switch div.out)"
done
$FTRAIL stacks -i "$div" >/dev/null 2>err || fail "stacks of a dividing format: $(cat err)"
$FTRAIL export --format chrome -i "$div" -o div.json 2>err || fail "export of a dividing format: $(cat err)"
exit 0
