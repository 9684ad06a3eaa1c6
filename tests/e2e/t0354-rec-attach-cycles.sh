# description: record -P attached and detached eight times in a row to a program whose four threads emit user events and markers all along, with and without -e u:... in turn: every trace holds exactly what its attach selected (events only with -e, markers always), the program's checksums stay right and its events end disabled
# requires: cc
. "$TOP/tests/e2e/t0349-attach.inc"
build ev gcc -O2 -fpatchable-function-entry=5 -I"$TOP/include" "$P/attach_ev.c" -lpthread ||
	skip "no gcc"
start_srv ./ev 4
for k in 1 2 3 4 5 6 7 8; do
	sel=
	[ $((k % 2)) = 1 ] && sel="-e u:srv:req"
	"$FTRAIL" record -P "$SRV_PID" $sel --duration 0.3 -o c.dat >rec.out 2>rec.err ||
		fail "cycle $k: $(cat rec.err)"
	grep -q "^ftrail: detached from process $SRV_PID" rec.err || fail "cycle $k: $(cat rec.err)"
	stopped "$SRV_PID" && fail "cycle $k left a thread stopped"
	"$FTRAIL" show -i c.dat >show.out || fail "cycle $k: show"
	nev=$(grep -c ' req: worker=[0-3] ' show.out)
	nmk=$(grep -c '/\* req [0-3] [0-9]* \*/' show.out)
	if [ -n "$sel" ]; then
		[ "$nev" -gt 0 ] && [ "$nmk" -gt 0 ] || fail "cycle $k: $nev events, $nmk markers with $sel"
	else
		# markers record whenever the program is traced; events only when selected
		[ "$nev" = 0 ] && [ "$nmk" -gt 0 ] || fail "cycle $k: $nev events, $nmk markers without -e"
	fi
	[ "$(calls c.dat work)" -gt 0 ] || fail "cycle $k: no function calls"
done
sleep 0.3
stop_srv
grep -q 'errors=0 event_enabled=0 marker_enabled=0$' srv.out ||
	fail "the program after eight detaches: $(cat srv.out)"
exit 0
