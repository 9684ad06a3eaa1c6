# description: record -P -e sched:sched_switch -T: kernel events of every thread of a running process, with stacks, beside its functions; -p nop: kernel events only, static binaries too
# requires: cc root tracefs
. "$TOP/tests/e2e/t0349-attach.inc"
need_tracefs
build srv gcc -O2 -fpatchable-function-entry=5 "$P/attach_srv.c" -lpthread || skip "no gcc"
start_srv ./srv 3 0
tids=$(ls /proc/"$SRV_PID"/task | sort)
"$FTRAIL" record -P "$SRV_PID" -e sched:sched_switch -T --duration 1 -o k.dat >rec.out 2>rec.err ||
	fail "$(cat rec.err)"
grep -q '^ftrail: [1-9][0-9]* kernel events (0 lost)' rec.err || fail "summary: $(cat rec.err)"
"$FTRAIL" show -i k.dat >show.out || fail show
# every thread that existed before the attach switched out (not only the
# main thread: set_event_pid lists them all)
for t in $tids; do
	grep -q "sched_switch: prev_comm=[^ ]* prev_pid=$t " show.out ||
		fail "no sched_switch of thread $t (threads: $tids)"
done
# no switch between two tasks that are not the process's
n=$(grep -o 'prev_pid=[0-9]* .*next_pid=[0-9]*' show.out | awk -v l=" $(echo $tids) " '
	{ split($1, a, "="); split($NF, b, "=");
	  if (index(l, " " a[2] " ") == 0 && index(l, " " b[2] " ") == 0) n++ } END { print n + 0 }')
[ "$n" = 0 ] || fail "$n sched_switch events of other processes"
grep -q '<stack_id [0-9]*>\|<stack trace>' show.out || fail "no kernel stacks (-T)"
[ "$(calls k.dat work)" -gt 20 ] || fail "work calls: $(calls k.dat work)"
stopped "$SRV_PID" && fail "a thread was left stopped"
sleep 0.3
stop_srv
# stacks of function records go through libunwind, whose address check keeps
# a pipe open (documented): the text and the signals are as before
grep -q 'errors=0 text_changed=0 sigtrap_changed=0' srv.out || fail "the program changed: $(cat srv.out)"
# kernel events only (-p nop): no runtime, so a static binary works too
if build st gcc -static -O2 "$P/attach_srv.c" -lpthread 2>/dev/null; then
	start_srv ./st 2 0
	"$FTRAIL" record -P "$SRV_PID" -p nop -e sched:sched_switch --duration 0.5 -o ks.dat \
		>rec.out 2>rec.err || fail "kernel-only -P: $(cat rec.err)"
	grep -q "^ftrail: recording kernel events of process $SRV_PID" rec.err ||
		fail "kernel-only -P: $(cat rec.err)"
	"$FTRAIL" show -i ks.dat | grep -q "prev_pid=$SRV_PID " || fail "no switch of the static program"
	stop_srv
fi
exit 0
