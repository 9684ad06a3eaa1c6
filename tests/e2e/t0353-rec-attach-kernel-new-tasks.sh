# description: record -P -e sched:sched_switch -e sched:sched_process_exec -T: the kernel events of a thread and of children started while attached are recorded too (event-fork), beside the runtime's own records of them
# requires: cc root tracefs
. "$TOP/tests/e2e/t0349-attach.inc"
need_tracefs
build libdl.so gcc -O2 -fpatchable-function-entry=5 -shared -fPIC "$P/dl_lib.c" || skip "no gcc"
build adl gcc -O2 -fpatchable-function-entry=5 "$P/attach_dl.c" -lpthread -ldl || skip "no gcc"
rm -f go
start_srv ./adl "$PWD/go" "$PWD/libdl.so"
tids0=$(ls /proc/"$SRV_PID"/task | tr '\n' ' ')
record_attached k.dat -e sched:sched_switch -e sched:sched_process_exec -T
went
sleep 0.2
kill -INT "$REC_PID"
wait "$REC_PID" || fail "record: $(cat rec.err)"
grep -q '^ftrail: [1-9][0-9]* kernel events (0 lost)' rec.err || fail "summary: $(cat rec.err)"
"$FTRAIL" show -i k.dat >show.out || fail show
# the thread started while attached: its tid from its runtime records
late=$(sed -n 's/.*adl-\([0-9][0-9]*\) *|.*|  late_worker() {$/\1/p' show.out | head -n 1)
[ -n "$late" ] || fail "no late_worker thread in the trace"
case " $tids0 " in *" $late "*) fail "late_worker ran in a thread that existed before the attach" ;; esac
grep -q "sched_switch: prev_comm=[^ ]* prev_pid=$late " show.out ||
	fail "no sched_switch of the thread $late started while attached"
# the children forked while attached (fork, fork, vfork): the second execs /bin/true
kids=$(sed -n 's/.*sched_process_fork: child_pid=\([0-9]*\).*/\1/p' show.out | tr '\n' ' ')
[ "$(echo $kids | wc -w)" = 3 ] || fail "fork records: '$kids'"
for c in $kids; do
	grep -q "sched_switch: prev_comm=[^ ]* prev_pid=$c \|next_pid=$c\b" show.out ||
		fail "no sched_switch of the child $c"
done
exec_kid=$(echo $kids | cut -d' ' -f2)
grep -q "sched_process_exec: filename=/bin/true pid=$exec_kid " show.out ||
	fail "no kernel exec event of the child $exec_kid: $(grep process_exec show.out)"
grep -q '<stack_id [0-9]*>\|<stack trace>' show.out || fail "no kernel stacks (-T)"
stopped "$SRV_PID" && fail "a thread was left stopped"
sleep 0.3
stop_srv
grep -q 'errors=0 text_changed=0$' srv.out || fail "the program changed: $(cat srv.out)"
exit 0
