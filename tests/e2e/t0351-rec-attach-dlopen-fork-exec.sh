# description: record -P follows what a running program does while attached: a library it dlopen()s is traced, fork, vfork, _exit and exec are recorded (from an uninstrumented library it dlopen()s too) (children traced from their start, a vfork child never as its parent), a thread started later is traced from its start; its GOT slots of dlopen, fork, exec and _exit are back after the detach
# requires: cc
. "$TOP/tests/e2e/t0349-attach.inc"
wrapped='dlopen|dlclose|fork|vfork|execl|_exit'
for flags in "-O2 -fpatchable-function-entry=5" "-O2 -pg" "-O2 -finstrument-functions"; do
	build libdl.so gcc $flags -shared -fPIC "$P/dl_lib.c" || continue
	build adl gcc $flags "$P/attach_dl.c" -lpthread -ldl || continue
	build libplain.so gcc -O2 -shared -fPIC "$P/attach_plain_lib.c" || continue
	rm -f go
	start_srv ./adl "$PWD/go" "$PWD/libdl.so" "$PWD/libplain.so"
	got0=$(got_hooks "$SRV_PID" ./adl "$wrapped")
	[ -n "$got0" ] || fail "$flags: no GOT slot of $wrapped in attach_dl"
	record_attached d.dat
	[ "$(got_hooks "$SRV_PID" ./adl "$wrapped")" != "$got0" ] ||
		fail "$flags: the wrapped functions' GOT slots were not redirected"
	went
	kill -INT "$REC_PID"
	wait "$REC_PID" || fail "$flags: record: $(cat rec.err)"
	stopped "$SRV_PID" && fail "$flags: a thread was left stopped"
	[ "$(got_hooks "$SRV_PID" ./adl "$wrapped")" = "$got0" ] ||
		fail "$flags: the wrapped functions' GOT slots were not put back"
	"$FTRAIL" show -i d.dat >show.out || fail "$flags: show"
	# the library loaded while attached: every call, its callee nested
	[ "$(calls d.dat lib_entry)" = 3 ] || fail "$flags: lib_entry: $(calls d.dat lib_entry) calls"
	[ "$(grep -A1 -E '[|] +lib_entry\(\) \{$' show.out | grep -cE '[|] +lib_leaf\(\);$')" = 3 ] ||
		fail "$flags: lib_leaf not under lib_entry: $(grep -A1 lib_entry show.out | head -n 6)"
	n=$(grep -c 'sched_process_fork: child_pid=' show.out)
	[ "$n" = 4 ] || fail "$flags: $n fork records (fork, fork, vfork, the plain library's fork)"
	grep -q "sched_process_exit: status=5 \*/" show.out ||
		fail "$flags: no exit record of the plain library's child"
	# the vfork child ran in the parent's memory, untraced: no exec as the parent
	grep -qE "adl-$SRV_PID +[|].*(execl\(\)|sched_process_exec)" show.out &&
		fail "$flags: the vfork child's exec recorded as its parent's"
	grep -q "sched_process_exit: status=3 \*/" show.out || fail "$flags: no exit record of the _exit child"
	grep -q 'sched_process_exec: filename=/bin/true \*/' show.out || fail "$flags: no exec record"
	# the forked child runs work(5) in a process of its own
	c=$(sed -n 's/.*sched_process_fork: child_pid=\([0-9]*\).*/\1/p' show.out | head -n 1)
	grep -qE "adl-$c +[|].*[|] +work\(\)" show.out || fail "$flags: the child $c did not trace work()"
	# the thread started while attached: from its start function, at depth 0
	grep -qE '[|]  late_worker\(\) \{$' show.out || fail "$flags: late_worker not traced from its start"
	sleep 0.3
	stop_srv
	grep -q 'errors=0 text_changed=0$' srv.out || fail "$flags: the program changed: $(cat srv.out)"
done
expect_built 9
exit 0
