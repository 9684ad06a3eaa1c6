# description: library calls into libftrail's own wrappers: signal, sigaction, fork in both processes, dlopen, execve
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
# proc_shape FILE 1|0: the graph of the process that wrote first (the
# parent), or of the others (the forked child)
proc_shape() {
	"$FTRAIL" show -i "$1" -O funcgraph-proc -O nofuncgraph-duration >show.out 2>show.err ||
		fail "show $1: $(cat show.err)"
	awk -F'|' -v want="$2" '/^ *[0-9]+\) / && NF > 1 {
		split($1, a, " "); if (m == "") m = a[2]
		if ((a[2] == m) != want) next
		f = $2; sub(/^ +/, "", f); sub(/ *\/\*.*\*\/ *$/, "", f)
		if (f != "") printf "%s ", f }' show.out | sed 's/ $//'
}
for flags in "-pg -mfentry" "-fpatchable-function-entry=5" "-finstrument-functions"; do
	for link in lazy now; do
		ld=
		[ $link = now ] && ld="-Wl,-z,relro,-z,now"
		w="$flags $link"
		build lw gcc -O2 $flags $ld "$P/lc_wrappers.c" -ldl || fail "build $w"
		rec t.dat -g main -- ./lw s
		expect_shape "$w signal" "$(shape t.dat)" 'main() { sigs() { signal(); sigaction(); } }'
		# fork: the parent's call holds the fork event, the child closes its own
		rec t.dat -g main -- ./lw f
		expect_shape "$w fork, parent" "$(proc_shape t.dat 1)" \
			'main() { do_fork() { fork() { } waitpid(); } }'
		expect_shape "$w fork, child" "$(proc_shape t.dat 0)" 'fork(); child_work(); _exit() {'
		grep -q 'sched_process_fork' show.out || fail "$w fork: no fork event: $(cat show.out)"
		[ "$(calls t.dat fork)" = 2 ] || fail "$w fork: $(calls t.dat fork) calls, not 2"
		[ "$(calls t.dat do_fork)" = 1 ] || fail "$w fork: do_fork $(calls t.dat do_fork)"
		rec t.dat -g main -- ./lw d libm.so.6
		expect_shape "$w dlopen" "$(shape t.dat)" 'main() { do_dl() { dlopen(); dlclose(); } }'
		# exec: the old image's graph ends in its execve() call, the new one
		# starts afresh (show adds the task column: two address spaces)
		rec t.dat -g main -- ./lw e
		expect_shape "$w execve" "$(proc_shape t.dat 1)" \
			'main() { do_exec() { execve() { main() { after(); }'
		grep -q 'sched_process_exec' show.out || fail "$w execve: no exec event: $(cat show.out)"
	done
done
expect_built 6
exit 0
