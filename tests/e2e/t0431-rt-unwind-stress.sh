# description: -T unwinds under load: 8 threads, a traced signal handler every 50 us on each, tail calls: no crash, no runtime frame, every thread stack whole
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
build us gcc -O2 -pg -mfentry -pthread "$P/unwind_stress.c" || fail build
for run in 1 2 3; do
	for map in stackmap nostackmap; do
		rec t.dat -T -O "$map" -b 4096 -- ./us 300
		grep -qx ok rec.out || fail "run $run $map: the program did not finish: $(cat rec.out rec.err)"
		"$FTRAIL" stacks -i t.dat >st.out 2>st.err || fail "stacks: $(cat st.err)"
		! grep -q 'ft_rt_return\|fentry\|libftrail\|ft_rt_' st.out || fail "run $run $map: runtime frames: $(grep -m3 'ft_rt\|fentry\|libftrail' st.out)"
		# outside the handler, every stack reaches its thread's function
		# (or, for the library calls of the startup code, _init)
		bad=$(awk '/^@\[/ { s = ""; next } /^\]:/ { if (s !~ / (h1|h2|on_alarm) / && s !~ / (worker|main|_init) /) print s; s = ""; next }
			{ s = s " " $1 " " }' st.out | head -3)
		[ -z "$bad" ] || fail "run $run $map: stacks cut short: $bad"
		# in the handler: through the signal frame, sometimes into the thread (not only into a hook)
		awk '/^@\[/ { s = ""; next } /^\]:/ { if (s ~ / h2 / && s ~ / worker /) n++; s = ""; next } { s = s " " $1 " " }
			END { exit !n }' st.out || fail "run $run $map: no handler stack goes past its signal frame"
	done
done
exit 0
