# description: exec from a thread that is not the main one: the new image traced with names under the process id, the old threads' records ended at the exec, nothing lost
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
# tests/progs/thread_exec.c: the main thread loops on main_leaf(); a second
# thread calls before_exec() and execs the program again, which calls
# exec_work().  The kernel ends the main thread wherever it is (a hook
# included) and gives the exec'ing thread the process id.
for flags in "-pg -mfentry" "-fpatchable-function-entry=5" "-finstrument-functions"; do
	build thread_exec gcc -O2 $flags -pthread "$P/thread_exec.c" || fail "build"
	timeout 120 "$FTRAIL" record -o t.dat -- ./thread_exec >out 2>err || fail "$flags: record: $(cat err)"
	grep -qx 'exec ok' out || fail "$flags: the new image did not run: $(cat out)"
	grep -q ' (0 lost) ' err || fail "$flags: records lost: $(cat err)"
	[ "$(calls t.dat exec_work)" = 1 ] || fail "$flags: exec_work (the new image) $(calls t.dat exec_work)"
	[ "$(calls t.dat before_exec)" = 1 ] || fail "$flags: before_exec $(calls t.dat before_exec)"
	[ "$(calls t.dat main_leaf)" -ge 100 ] || fail "$flags: main_leaf $(calls t.dat main_leaf)"
	"$FTRAIL" show -i t.dat >show.out 2>show.err || fail "$flags: show: $(cat show.err)"
	[ ! -s show.err ] || fail "$flags: show warns: $(cat show.err)"
	# "TASK-TID" of a function's first line
	tid_of() { sed -n "s/^ *[0-9]*) *[^ ]*-\([0-9]*\) *|.*| *$1[({].*/\1/p" show.out | head -n 1; }
	pid=$(tid_of main_leaf) execer=$(tid_of before_exec) new=$(tid_of exec_work)
	[ -n "$pid" ] && [ -n "$execer" ] && [ "$execer" != "$pid" ] ||
		fail "$flags: main thread '$pid', exec'ing thread '$execer'"
	[ "$new" = "$pid" ] || fail "$flags: the new image runs as $new, not as the process $pid"
	# after the exec the new image starts at depth 0: no frame of the old
	# main thread (main, main_leaf) left open under it.  The exec record is
	# written before execve (runtime/init.c), so the old main thread may
	# still call main_leaf after it, until the kernel ends it.
	sed -n '/sched_process_exec/,$p' show.out >after.out
	grep -q -- "-$pid *|.*|  main() {\$" after.out ||
		fail "$flags: the new image's main is not at the top: $(grep -m3 'main()' after.out)"
	grep -q -- "-$pid *|.*|    exec_work();\$" after.out ||
		fail "$flags: exec_work not right under main: $(grep exec_work after.out)"
done
expect_built 3
exit 0
