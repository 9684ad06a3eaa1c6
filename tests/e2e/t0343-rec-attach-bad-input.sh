# description: record -P bad input: no such pid, a thread id, a zombie, another user's process, one under strace, a static binary, attaching twice, -P with a program; -p PID's deprecation: one line each, the target never left stopped or changed
# requires: cc
# asan: yes
. "$TOP/tests/e2e/t0349-attach.inc"
build srv gcc -O2 -fpatchable-function-entry=5 "$P/attach_srv.c" -lpthread || skip "no gcc"
# a pid that exists no more
sh -c 'exit 0' &
gone=$!
wait $gone
expect_fail "ftrail: no such process: $gone" "$FTRAIL" record -P $gone -o x.dat
expect_fail "ftrail: -P wants a process id, not 'abc'" "$FTRAIL" record -P abc
expect_fail "ftrail: --duration wants seconds (> 0), not '0'" "$FTRAIL" record -P 1 --duration 0
start_srv ./srv 2 0
expect_fail "ftrail: give a program or -P PID, not both" "$FTRAIL" record -P "$SRV_PID" -- ./srv
tid=$(ls /proc/"$SRV_PID"/task | grep -vx "$SRV_PID" | head -n 1)
expect_fail "ftrail: $tid is a thread of process $SRV_PID: give the process id" \
	"$FTRAIL" record -P "$tid" -o x.dat
# a zombie: its parent (sh) sleeps without reaping it
sh -c 'sleep 0.1 & exec sleep 5' &
zparent=$!
sleep 0.5
zombie=$(ps -o pid=,stat= --ppid $zparent | awk '$2 ~ /^Z/ { print $1 }')
[ -n "$zombie" ] || fail "no zombie to attach to"
expect_fail "ftrail: process $zombie has exited (a zombie its parent has not reaped)" \
	"$FTRAIL" record -P "$zombie" -o x.dat
kill $zparent
# another user's process, from an unprivileged ftrail
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	# checked before the output file is created: none is needed
	expect_fail "ftrail: process $SRV_PID belongs to user root (uid 0): run ftrail as that user or as root" \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$FTRAIL" record -P "$SRV_PID" -o /nonexistent/x.dat
fi
# under another tracer
if command -v strace >/dev/null; then
	strace -p "$SRV_PID" -o /dev/null 2>/dev/null &
	st=$!
	for _ in $(seq 50); do
		grep -q '^TracerPid:[[:space:]]*[1-9]' /proc/"$SRV_PID"/status && break
		sleep 0.1
	done
	expect_fail "ftrail: process $SRV_PID is already traced by process $st (strace): a process has one tracer at a time, detach it first" \
		"$FTRAIL" record -P "$SRV_PID" -o x.dat
	kill $st
	wait $st 2>/dev/null
	for _ in $(seq 50); do
		grep -q '^TracerPid:[[:space:]]*0' /proc/"$SRV_PID"/status && break
		sleep 0.1
	done
fi
# attaching twice: the second is refused while the first records
"$FTRAIL" record -q -P "$SRV_PID" --duration 2 -o first.dat 2>first.err &
first=$!
for _ in $(seq 50); do
	grep -q 'libftrail' /proc/"$SRV_PID"/maps && break
	sleep 0.1
done
sleep 0.3
expect_fail "ftrail: *process $SRV_PID*already traced*" "$FTRAIL" record -P "$SRV_PID" -o x.dat
wait $first || fail "the first attach failed: $(cat first.err)"
[ "$(calls first.dat work)" -gt 0 ] || fail "the first attach recorded nothing"
[ -e x.dat ] && fail "a refused attach wrote x.dat"
stopped "$SRV_PID" && fail "a thread was left stopped"
sleep 0.2
stop_srv
grep -q 'errors=0 text_changed=0 sigtrap_changed=0 fds_changed=0$' srv.out ||
	fail "the program changed: $(cat srv.out)"
# a static binary: no loader to load the runtime with
if build st gcc -static -O2 "$P/attach_srv.c" -lpthread 2>/dev/null; then
	start_srv ./st 1 0
	expect_fail "ftrail: process $SRV_PID is statically linked: it has no dynamic loader*kernel events can still be recorded*" \
		"$FTRAIL" record -P "$SRV_PID" -o x.dat
	stopped "$SRV_PID" && fail "the static program was left stopped"
	stop_srv
fi
# -p PID where it meant a pid: still works, with one deprecation line
"$FTRAIL" snapshot -p 999999999 1 >/dev/null 2>err && fail "snapshot of no process succeeded"
grep -qx 'ftrail: warning: snapshot: -p PID is deprecated, use -P PID' err ||
	fail "no deprecation warning: $(cat err)"
grep -q 'ftrail: snapshot: process 999999999 is not traced' err || fail "-p not taken as -P: $(cat err)"
"$FTRAIL" marker -p 999999999 x >/dev/null 2>err && fail "marker to no process succeeded"
grep -qx 'ftrail: warning: marker: -p PID is deprecated, use -P PID' err ||
	fail "no marker deprecation warning: $(cat err)"
exit 0
