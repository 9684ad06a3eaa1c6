# description: record -P ends four ways: Ctrl-C (SIGINT) detaches, the program's exit while traced keeps the trace (exit 0, one warning), a killed recorder leaves the text and GOT restored, a program exiting during the attach gets one line and no trace
# requires: cc
# asan: yes
. "$TOP/tests/e2e/t0349-attach.inc"
build srv gcc -O2 -pg "$P/attach_srv.c" -lpthread || skip "no gcc"
# Ctrl-C
start_srv ./srv 2 0
"$FTRAIL" record -P "$SRV_PID" -o int.dat >rec.out 2>rec.err &
rec=$!
sleep 1
kill -INT $rec
wait $rec || fail "record ended by SIGINT: exit $?: $(cat rec.err)"
grep -q "^ftrail: detached from process $SRV_PID" rec.err || fail "no detach: $(cat rec.err)"
[ "$(calls int.dat work)" -gt 0 ] || fail "nothing recorded before SIGINT"
sleep 0.3
stop_srv
grep -q 'errors=0 text_changed=0 sigtrap_changed=0 fds_changed=0$' srv.out ||
	fail "the program changed: $(cat srv.out)"
# the program exits while traced: the trace is kept
start_srv ./srv 2 0
(sleep 1; touch stop) &
"$FTRAIL" record -P "$SRV_PID" --duration 30 -o ex.dat >rec.out 2>rec.err ||
	fail "record of a program that exited: $(cat rec.err)"
wait "$SRV_PID" || fail "attach_srv: $(cat srv.out)"
SRV_PID=
grep -q "^ftrail: warning: process [0-9]* (srv) exited while traced; what it recorded until then is in ex.dat$" rec.err ||
	fail "no exit warning: $(cat rec.err)"
[ "$(calls ex.dat work)" -gt 0 ] || fail "the trace of the exited program is empty"
# the recorder killed while attached: the runtime sees its lifeline go at
# its next hook and puts the text and the GOT back itself (not the SIGTRAP
# action: another thread may still have one of our traps to take)
start_srv ./srv 2 0
got0=$(got_hooks "$SRV_PID" ./srv)
"$FTRAIL" record -q -P "$SRV_PID" -o killed.dat 2>/dev/null &
rec=$!
sleep 1
[ "$(got_hooks "$SRV_PID" ./srv)" != "$got0" ] || fail "the GOT was not hooked"
kill -9 $rec
wait $rec 2>/dev/null
sleep 0.5
[ "$(got_hooks "$SRV_PID" ./srv)" = "$got0" ] || fail "a killed recorder left the GOT hooked"
stopped "$SRV_PID" && fail "a killed recorder left a thread stopped"
stop_srv
grep -q 'errors=0 text_changed=0 sigtrap_changed=1 fds_changed=0$' srv.out ||
	fail "after a killed recorder: $(cat srv.out)"
# --duration with a program started by record: exit 0, the program runs on
rm -f stop
"$FTRAIL" record --duration 0.5 -o dur.dat -- ./srv "$PWD/stop" 2 0 >srv.out 2>rec.err ||
	fail "record --duration -- PROG: exit $?: $(cat rec.err)"
grep -q '^ftrail: warning: recorded for --duration; ./srv (pid [0-9]*) runs on, untraced$' rec.err ||
	fail "no --duration line: $(cat rec.err)"
SRV_PID=$(sed -n 's/^ready //p' srv.out)
[ -n "$SRV_PID" ] && kill -0 "$SRV_PID" || fail "the program did not run on"
[ "$(calls dur.dat work)" -gt 0 ] || fail "--duration recorded nothing"
touch stop
for _ in $(seq 50); do kill -0 "$SRV_PID" 2>/dev/null || break; sleep 0.1; done
SRV_PID=
# a program that exits during the attach: one line, no trace, never hangs
cat >quick.c <<'EOC'
#include <unistd.h>
__attribute__((noinline)) int f(int x) { return x + 1; }
int main(void) { for (int i = 0; i < 3; i++) { f(i); usleep(1000); } return 0; }
EOC
build quick gcc -O2 -fpatchable-function-entry=5 quick.c || fail "build quick"
bad=0
for i in $(seq 10); do
	./quick &
	q=$!
	timeout 20 "$FTRAIL" record -q -P $q -o q.dat 2>q.err
	rc=$?
	wait $q
	[ $rc = 124 ] && fail "record hung on a program that exited"
	if [ $rc != 0 ]; then
		[ "$(wc -l <q.err)" = 1 ] || fail "not one line: $(cat q.err)"
		grep -q "no such process\|exited\|has exited" q.err || fail "unexpected: $(cat q.err)"
		bad=$((bad + 1))
	fi
done
echo "$bad of 10 attaches found the program gone"
exit 0
