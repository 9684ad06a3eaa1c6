# description: library calls into libftrail's own wrappers: signal, sigaction, fork in both processes, dlopen, execve
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
wrappers_one() { # flags ld what
	local flags=$1 ld=$2 w=$3
	build lw gcc -O2 $flags $ld "$P/lc_wrappers.c" -ldl || fail "build $w"
	rec t.dat -g main -- ./lw s
	expect_shape "$w signal" "$(shape t.dat)" 'main() { sigs() { signal(); sigaction(); } }'
	# fork: the parent's call holds the fork event, the child closes its own
	rec t.dat -g main -- ./lw f
	expect_shape "$w fork, parent" "$(task_shape t.dat 1)" \
		'main() { do_fork() { fork() { } waitpid(); } }'
	expect_shape "$w fork, child" "$(task_shape t.dat 0)" 'fork(); child_work(); _exit() {'
	grep -q 'sched_process_fork' show.out || fail "$w fork: no fork event: $(cat show.out)"
	[ "$(calls t.dat fork)" = 2 ] || fail "$w fork: $(calls t.dat fork) calls, not 2"
	[ "$(calls t.dat do_fork)" = 1 ] || fail "$w fork: do_fork $(calls t.dat do_fork)"
	rec t.dat -g main -- ./lw d libm.so.6
	expect_shape "$w dlopen" "$(shape t.dat)" 'main() { do_dl() { dlopen(); dlclose(); } }'
	# exec: the old image's graph ends in its execve() call, the new one
	# starts afresh (show adds the task column: two address spaces)
	rec t.dat -g main -- ./lw e
	expect_shape "$w execve" "$(task_shape t.dat 1)" \
		'main() { do_exec() { execve() { main() { after(); }'
	grep -q 'sched_process_exec' show.out || fail "$w execve: no exec event: $(cat show.out)"
}
libcall_matrix wrappers_one
expect_built 6
exit 0
