# description: vfork children (exec, _exit, failed exec with the shared-flag idiom) run untraced in the parent's memory: the parent's stream stays its own
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
# tests/progs/vfork_exec.c: three vfork children, one exec()s the program
# again (exec_main runs in the new image), one _exit(3)s, one fails to exec
# and _exit(127)s after setting a flag the parent reads.  Each calls
# in_child() (traced function) before.  Nothing of the children may land in
# the parent's stream: no in_child, no exec, no exit status 3 or 127.
n=0
for cc in gcc clang; do
	for flags in "-pg" "-pg -mfentry" "-fpatchable-function-entry=5" "-finstrument-functions"; do
		build vf $cc -O2 $flags "$P/vfork_exec.c" || continue
		./vf >/dev/null || fail "$cc $flags: runs without ftrail"
		for i in 1 2; do
			rec t.dat -- ./vf
			grep -q 'killed by signal' rec.err && fail "$cc $flags: $(cat rec.err)"
			grep -qx ok rec.out || fail "$cc $flags: program output: $(cat rec.out) $(cat rec.err)"
			"$FTRAIL" show -i t.dat >show.out 2>show.err || fail "show: $(cat show.err)"
			grep -q in_child show.out && fail "$cc $flags: the vfork child was traced: $(cat show.out)"
			[ "$(grep -c 'exec_main()' show.out)" = 1 ] || fail "$cc $flags: exec'd image: $(cat show.out)"
			[ "$(grep -c 'after()' show.out)" = 1 ] || fail "$cc $flags: parent after vfork: $(cat show.out)"
			[ "$(grep -c 'sched_process_fork' show.out)" = 3 ] || fail "$cc $flags: forks: $(cat show.out)"
			# the exec is the exec'd image's own event (as fork + exec
			# shows it), never the parent's
			"$FTRAIL" show -O funcgraph-proc -i t.dat >proc.out 2>show.err ||
				fail "show: $(cat show.err)"
			tidof='s/^ *[0-9]*) *[^ |]*-\([0-9][0-9]*\) .*/\1/p'
			epid=$(grep 'exec_main()' proc.out | sed -n "$tidof")
			execs=$(grep 'sched_process_exec' proc.out | sed -n "$tidof" | tr '\n' ' ')
			[ "$execs" = "$epid " ] ||
				fail "$cc $flags: exec events of $execs, expected one of the exec'd image $epid: $(cat proc.out)"
			grep -Eq 'sched_process_exit: status=(3|127)' show.out &&
				fail "$cc $flags: a vfork child's exit in the parent's stream: $(cat show.out)"
			[ "$(grep -c 'sched_process_exit: status=[07]' show.out)" = 2 ] ||
				fail "$cc $flags: exits: $(cat show.out)"
			[ "$(calls t.dat spawn)" = 3 ] || fail "$cc $flags: spawn calls $(calls t.dat spawn)"
		done
		n=$((n + 1))
	done
done
[ $n -ge 4 ] || fail "only $n variants built"
expect_built 8
exit 0
