# description: record -P on a running C++ program that throws through traced functions: attached twice, every exception is still caught where it should be (the unwinder's entry points are wrapped while attached), the unwound frames are closed in the trace
# requires: cc
. "$TOP/tests/e2e/t0349-attach.inc"
for flags in "-O2 -fpatchable-function-entry=5" "-O2 -pg" "-O2 -pg -mfentry"; do
	build exc g++ $flags "$P/attach_exc.cc" || continue
	start_srv ./exc
	for k in 1 2; do
		"$FTRAIL" record -P "$SRV_PID" --duration 1 -o x$k.dat >rec.out 2>rec.err ||
			fail "$flags: attach $k: $(cat rec.err)"
		grep -q "^ftrail: detached from process $SRV_PID" rec.err ||
			fail "$flags: attach $k: $(cat rec.err)"
		"$FTRAIL" show -i x$k.dat >show.out || fail "$flags: show $k"
		# thrown through: thrower and middle closed as unwound, outer returns
		grep -q '} /\* thrower (unwound) \*/' show.out ||
			fail "$flags: attach $k: no unwound thrower: $(grep -m 8 -A8 'outer() {' show.out)"
		grep -q '} /\* middle (unwound) \*/' show.out || fail "$flags: attach $k: no unwound middle"
		[ "$(calls x$k.dat outer)" -gt 20 ] || fail "$flags: attach $k: $(calls x$k.dat outer) outer calls"
		stopped "$SRV_PID" && fail "$flags: attach $k left the program stopped"
	done
	sleep 0.3
	stop_srv
	grep -q 'bad=0$' srv.out || fail "$flags: $(cat srv.out)"
done
expect_built 3
exit 0
