# description: SIGINT/SIGTERM/SIGHUP to record alone are passed on to the program, the trace is finished with its status; one that ignores them runs on untraced
# requires: cc
. "$TOP/tests/e2e/t0339-outlive.inc"
build ol gcc -O2 -fpatchable-function-entry=5 -I"$TOP/include" "$P/outlive.c" -lpthread ||
	fail "build outlive.c: $(cat build.err)"

finished() { # WHAT: the trace is whole: read without a warning, work() is there
	"$FTRAIL" report -i t.dat >report.out 2>report.err || fail "$1: report: $(cat report.err)"
	[ ! -s report.err ] || fail "$1: report warns: $(cat report.err)"
	grep -q " work$" report.out || fail "$1: no work() in the trace: $(cat report.out)"
}
patched() { # WHAT: the program traces (its site is the patched call)
	grep -q "^site=e8" "$D/state.$PROGS" || fail "$1: not patched: $(cat "$D/state.$PROGS")"
}

for sig in INT TERM HUP; do
	n=$(kill -l $sig)
	# the program dies of it: record finishes the trace, exits 128+N
	start_rec -- ./ol "$D"
	patched "SIG$sig"
	kill -$sig $R
	wait $R
	rc=$?
	[ $rc = $((128 + n)) ] || fail "SIG$sig: exit $rc, expected $((128 + n)) ($(cat err))"
	grep -q "^ftrail: warning: ./ol was killed by signal $n " err || fail "SIG$sig: $(cat err)"
	grep -q "^ftrail: trace written to t.dat$" err || fail "SIG$sig: $(cat err)"
	alive "$PROGS" && fail "SIG$sig: the program still runs"
	finished "SIG$sig"

	# it handles the signal: it gets it once and ends (status = how many)
	start_rec -- ./ol "$D" count
	kill -$sig $R
	wait $R
	rc=$?
	[ $rc = 1 ] || fail "SIG$sig: the program got it $rc times, expected once ($(cat err))"
	finished "SIG$sig, handled"

	# it ignores it: 2 s later record stops tracing, writes the trace and
	# exits 128+N; the program runs on, untraced
	start_rec -- ./ol "$D" ignore
	patched "SIG$sig ignored"
	t0=$(date +%s%N)
	kill -$sig $R
	wait $R
	rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	[ $rc = $((128 + n)) ] || fail "SIG$sig ignored: exit $rc ($(cat err))"
	[ $ms -ge 2000 ] || fail "SIG$sig ignored: record ended after $ms ms, before the 2 s grace"
	grep -q "^ftrail: warning: stopped by signal $n (.*); ./ol (pid $PROGS) runs on, untraced$" err ||
		fail "SIG$sig ignored: $(cat err)"
	alive "$PROGS" || fail "SIG$sig ignored: the program is gone"
	unpatched_soon "$PROGS"
	buffers_still "SIG$sig ignored" "$PROGS"
	finished "SIG$sig ignored"
	end_progs "SIG$sig ignored"
done

# a second signal stops at once (no 2 s grace)
start_rec -- ./ol "$D" ignore
t0=$(date +%s%N)
kill -TERM $R
sleep 0.2
kill -INT $R
wait $R
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
[ $rc = 143 ] || fail "two signals: exit $rc ($(cat err))"
[ $ms -lt 2000 ] || fail "two signals: record took $ms ms, the second did not cut the grace"
unpatched_soon "$PROGS"
finished "two signals"
end_progs "two signals"

# started with SIGINT ignored (a background job without job control):
# kill -INT still ends the recording, and the program keeps it ignored,
# as it would without ftrail
set +m
start_rec -- ./ol "$D"
set -m
kill -INT $R
wait $R
rc=$?
[ $rc = 130 ] || fail "SIGINT ignored at start: exit $rc ($(cat err))"
grep -q "^ftrail: warning: stopped by signal 2 (.*); ./ol (pid $PROGS) runs on, untraced$" err ||
	fail "SIGINT ignored at start: the program did not keep it ignored: $(cat err)"
unpatched_soon "$PROGS"
end_progs "SIGINT ignored at start"

# started with SIGHUP ignored (nohup): a hangup does not end the recording
LAUNCH=nohup start_rec -- ./ol "$D"
kill -HUP $R
sleep 0.5
alive $R || fail "nohup: SIGHUP ended the recording: $(cat err)"
kill -TERM $R
wait $R
rc=$?
[ $rc = 143 ] || fail "nohup, then SIGTERM: exit $rc ($(cat err))"
finished "nohup"
exit 0
