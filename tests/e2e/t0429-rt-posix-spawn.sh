# description: posix_spawn / posix_spawnp: the children are traced like fork + exec, with their fork and exec events
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
for flags in "-pg -mfentry" "-fpatchable-function-entry=5" "-finstrument-functions"; do
	build sp gcc -O2 $flags "$P/spawn.c" || fail "build"
	rec t.dat -- ./sp
	grep -q '^spawned 2$' rec.out || fail "$flags: program: $(cat rec.out rec.err)"
	[ "$(calls t.dat parent_work)" = 2 ] || fail "$flags: parent_work $(calls t.dat parent_work)"
	# report has a row per process: the two children's calls add up
	"$FTRAIL" report -i t.dat >report.out 2>report.err || fail "$flags: report: $(cat report.err)"
	n=$(awk '$NF == "child_work" { s += $(NF-1) } END { print s + 0 }' report.out)
	[ "$n" = 2 ] || fail "$flags: child_work called $n times in the spawned children"
	"$FTRAIL" show -i t.dat >show.out 2>show.err || fail "$flags: show: $(cat show.err)"
	# each child: a fork in the parent's stream, then its exec, in that order
	grep -o 'sched_process_fork: child_pid=[0-9]*\|sched_process_exec: filename=[^ ]*' show.out |
		sed 's/child_pid=[0-9]*/child_pid=N/' | tr '\n' ';' >ev.out
	[ "$(cat ev.out)" = "sched_process_fork: child_pid=N;sched_process_exec: filename=./sp;sched_process_fork: child_pid=N;sched_process_exec: filename=./sp;" ] ||
		fail "$flags: fork/exec events: $(cat ev.out)"
done
exit 0
