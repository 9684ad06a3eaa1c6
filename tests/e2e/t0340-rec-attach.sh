# description: record -P: a multi-threaded server attached twice for two seconds under every instrumentation flag, detached, runs on with right checksums, its text and signals as before
# requires: cc
. "$TOP/tests/e2e/t0349-attach.inc"
for flags in "-O2 -fpatchable-function-entry=5" "-O0 -pg -mfentry" "-O2 -pg" \
	"-O2 -finstrument-functions" "-O2 -pg -mfentry -mnop-mcount -mrecord-mcount -no-pie -fno-pic" \
	"-O2 -fpatchable-function-entry=5,0"; do
	build srv gcc $flags "$P/attach_srv.c" -lpthread || continue
	start_srv ./srv 4 0
	got0=$(got_hooks "$SRV_PID" ./srv)
	for k in 1 2; do
		"$FTRAIL" record -P "$SRV_PID" --duration 2 -o a$k.dat >rec.out 2>rec.err &
		rec=$!
		# sampled while the recording runs, not at a fixed time: on a
		# loaded machine the attach itself may take most of a second
		got1=$got0
		for i in $(seq 80); do
			got1=$(got_hooks "$SRV_PID" ./srv)
			[ "$got1" != "$got0" ] && break
			kill -0 $rec 2>/dev/null || break
			sleep 0.05
		done
		wait $rec || fail "$flags: attach $k: $(cat rec.err)"
		# -pg, -mfentry, -finstrument-functions: their hooks' GOT slots point
		# to the runtime while attached, and back to libc's after
		[ -z "$got0" ] || [ "$got1" != "$got0" ] || fail "$flags: attach $k: GOT not hooked"
		[ "$(got_hooks "$SRV_PID" ./srv)" = "$got0" ] || fail "$flags: attach $k: GOT not restored"
		grep -q "^ftrail: detached from process $SRV_PID (srv), which runs on untraced" rec.err ||
			fail "$flags: attach $k: no detach line: $(cat rec.err)"
		stopped "$SRV_PID" && fail "$flags: attach $k left a thread stopped"
		w=$(calls a$k.dat work) s=$(calls a$k.dat step) l=$(calls a$k.dat leaf)
		[ "$w" -gt 20 ] || fail "$flags: attach $k: $w calls of work"
		# every step calls leaf twice; a call cut by the attach or the detach
		# (at most one per thread and end) may lack one
		[ $((l - 2 * s)) -le 16 ] && [ $((2 * s - l)) -le 16 ] ||
			fail "$flags: attach $k: $s steps, $l leaves"
		"$FTRAIL" show -i a$k.dat | head -n 4 | grep -q "^# attached to process $SRV_PID while it ran" ||
			fail "$flags: attach $k: show does not say the trace starts at an attach"
		# the runtime is loaded once, not once per attach
		[ "$(grep -c 'libftrail\.so' /proc/$SRV_PID/maps)" -le 5 ] ||
			fail "$flags: libftrail.so mapped again: $(grep libftrail /proc/$SRV_PID/maps)"
	done
	sleep 0.3 # it works on, untraced, after the second detach
	stop_srv
	grep -q 'errors=0 text_changed=0 sigtrap_changed=0 fds_changed=0$' srv.out ||
		fail "$flags: the program changed: $(cat srv.out)"
done
expect_built 5
exit 0
