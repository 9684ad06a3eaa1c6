# description: fork (child traced into the same trace) and exec (the new image traced again)
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
# the child execs with execl, execlp or execle: libftrail's versions build
# the argv and go through its execv, execvp and execve
for flags in "-pg -mfentry" "-fpatchable-function-entry=5" "-finstrument-functions"; do
	build fe gcc -O2 $flags "$P/forkexec.c" || fail "build"
	for how in l lp le; do
		w="$flags exec$how"
		rec t.dat -- ./fe $how
		[ "$(calls t.dat parent_work)" = 2 ] || fail "$w: parent_work $(calls t.dat parent_work)"
		[ "$(calls t.dat child_work)" = 1 ] || fail "$w: child_work (forked child)"
		[ "$(calls t.dat exec_work)" = 1 ] || fail "$w: exec_work (after exec)"
		[ "$(calls t.dat do_fork)" = 1 ] || fail "$w: do_fork"
		"$FTRAIL" show -i t.dat >show.out 2>show.err || fail "$w: show: $(cat show.err)"
		grep -q "sched_process_exec: filename=./fe" show.out || fail "$w: no exec event: $(grep exec show.out)"
	done
done
exit 0
