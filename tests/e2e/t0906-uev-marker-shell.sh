# description: ftrail marker writes trace_marker text and raw bytes into a running trace from a shell
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
cc -O2 -I"$TOP/include" -o ev_sleep "$TOP/tests/progs/ev_sleep.c" || fail "build"
$FTRAIL record -q -p nop -e u:sleepy -o m.dat -- ./ev_sleep 40 2>rec.err &
rec=$!
pid=
for i in $(seq 50); do
	for p in $(pgrep -x ev_sleep); do
		tr '\0' '\n' </proc/$p/environ 2>/dev/null | grep -q '^FTRAIL_SHM_FD=' && pid=$p
	done
	[ -n "$pid" ] && break
	sleep 0.05
done
[ -n "$pid" ] || { kill $rec; fail "the traced program did not start"; }
$FTRAIL marker -P "$pid" hello from the shell || fail "marker"
$FTRAIL marker -P "$pid" --raw ABC || fail "marker --raw"
wait $rec || fail "record: $(cat rec.err)"
$FTRAIL show -i m.dat >out || fail "show"
grep -q ': tracing_mark_write: hello from the shell$' out || fail "no text marker: $(grep -v tick out)"
grep -q ': raw_data: 41 42 43$' out || fail "no raw marker"
# the marker lies among the ticks, in time order
n=$(grep -n 'hello from the shell' out | cut -d: -f1)
[ "$(head -n "$n" out | grep -c ' tick: ')" -ge 1 ] || fail "marker before every tick"
expect_fail "ftrail: marker: process $$ is not traced by ftrail record*" $FTRAIL marker -P $$ x
expect_fail "ftrail: marker: no text*" $FTRAIL marker -P 1
exit 0
