# description: record -P -e u:...: a running multi-threaded program's own user events and trace_marker calls land in the trace; marker -P and snapshot -P reach it while attached; a detach leaves its events disabled; attaching again without -e records the markers but none of the events, with -f only the filtered ones
# requires: cc
# asan: yes
. "$TOP/tests/e2e/t0349-attach.inc"
build ev gcc -O2 -fpatchable-function-entry=5 -I"$TOP/include" "$P/attach_ev.c" -lpthread ||
	skip "no gcc"
# checked_sums SHOW: req events whose sum is not 3n(n-1)+5n (the program's own result)
bad_sums() {
	sed -n 's/.* req: worker=[0-9]* n=\([0-9]*\) sum=\([0-9]*\)$/\1 \2/p' "$1" |
		awk '{ if ($2 != 3 * $1 * ($1 - 1) + 5 * $1) b++ } END { print b + 0 }'
}
start_srv ./ev 3
# a filter naming no field of the event: refused from the program's file,
# before anything is loaded into the process
expect_fail "ftrail: -e u:srv:req: filter 'nosuch == 1' for srv:req: *unknown field 'nosuch'*" \
	"$FTRAIL" record -P "$SRV_PID" -e u:srv:req -f 'nosuch == 1' -o bad.dat
grep -q libftrail /proc/"$SRV_PID"/maps && fail "a refused -e loaded the runtime"
# 1: events and markers, plus a marker and a snapshot from a shell meanwhile
record_attached e1.dat -e u:srv:req --duration 3
"$FTRAIL" marker -P "$SRV_PID" hello from the shell || fail "marker -P of an attached process"
"$FTRAIL" snapshot -P "$SRV_PID" 1 || fail "snapshot -P of an attached process"
wait "$REC_PID" || fail "attach 1: $(cat rec.err)"
stopped "$SRV_PID" && fail "attach 1 left a thread stopped"
"$FTRAIL" show -i e1.dat >show1.out || fail "show 1"
nev=$(grep -c ' req: worker=[0-2] ' show1.out)
[ "$nev" -gt 10 ] || fail "attach 1: $nev req events: $(grep -v '^#' show1.out | head)"
for w in 0 1 2; do
	grep -q " req: worker=$w " show1.out || fail "attach 1: no event of worker $w"
done
[ "$(bad_sums show1.out)" = 0 ] || fail "attach 1: events with a wrong sum"
# one marker per event; the attach and the detach may cut one per thread between them
nmk=$(grep -c '/\* req [0-2] [0-9]* \*/' show1.out)
[ $((nmk - nev)) -le 3 ] && [ $((nev - nmk)) -le 3 ] || fail "attach 1: $nev events, $nmk markers"
grep -q 'hello from the shell' show1.out || fail "no marker from the shell"
"$FTRAIL" show -i e1.dat --snapshot >snap.out || fail "show --snapshot"
grep -q ' req: worker=' snap.out || fail "the snapshot holds no event: $(head snap.out)"
[ "$(calls e1.dat work)" -gt 10 ] || fail "attach 1: no function calls"
# 2: no -e: the functions and the markers (on whenever the program is
# traced, as ftrace's trace_marker), none of the events
"$FTRAIL" record -P "$SRV_PID" --duration 1 -o e2.dat >rec.out 2>rec.err || fail "attach 2: $(cat rec.err)"
"$FTRAIL" show -i e2.dat >show2.out || fail "show 2"
[ "$(calls e2.dat work)" -gt 10 ] || fail "attach 2: no function calls"
grep -q ' req: ' show2.out && fail "attach 2 without -e recorded events: $(grep -m 3 req show2.out)"
grep -q '/\* req [0-2] [0-9]* \*/' show2.out || fail "attach 2 recorded no marker: $(grep -v '^#' show2.out | head -n 5)"
# 3: with a filter, and a name the program does not define (one warning)
"$FTRAIL" record -P "$SRV_PID" -p nop -e u:srv:req -f 'worker == 1' -e u:nosuch --duration 1 \
	-o e3.dat >rec.out 2>rec.err || fail "attach 3: $(cat rec.err)"
grep -q "^ftrail: warning: -e u:nosuch: no such user event in ev" rec.err ||
	fail "attach 3: no warning for u:nosuch: $(cat rec.err)"
"$FTRAIL" show -i e3.dat >show3.out || fail "show 3"
grep -q ' req: worker=1 ' show3.out || fail "attach 3: no event of worker 1"
grep -q ' req: worker=[02] ' show3.out && fail "attach 3: the filter let other workers through"
[ "$(bad_sums show3.out)" = 0 ] || fail "attach 3: events with a wrong sum"
sleep 0.3
stop_srv
grep -q 'errors=0 event_enabled=0 marker_enabled=0$' srv.out ||
	fail "the program after the detaches: $(cat srv.out)"
exit 0
