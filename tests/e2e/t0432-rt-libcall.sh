# description: library calls through the PLT: leaves, qsort's callbacks nested, exit, longjmp, threads, pthread_exit, dlopen, filters
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
# exact graphs below main (the startup code's own calls, e.g. -pg's
# __monstartup, come before main and are checked once, below)
SORT='main() { work() { malloc(); qsort() { cmp(); cmp(); cmp(); } printf(); free(); } }'
JUMP='main() { jump() { qsort() { cmp_jump() { longjmp() { } } } } }'
DL='main() { call_lib() { dlopen(); dlsym(); lib_entry() { malloc(); free(); } dlclose(); } call_lib() { dlopen(); dlsym(); lib_entry() { malloc(); free(); } dlclose(); } }'
for flags in "${LIBCALL_FLAGS[@]}"; do
	for link in lazy now; do
		ld=$(link_flags $link)
		w="$flags $link"
		build lc gcc -O2 $flags $ld "$P/libcall.c" -lpthread || fail "build $w"
		rec t.dat -g main -- ./lc s
		expect_shape "$w" "$(shape t.dat)" "$SORT"
		rec t.dat -g main -- ./lc j
		expect_shape "$w longjmp" "$(shape t.dat)" "$JUMP"
		# exit() never returns: the calls open at the exit stay open
		"$FTRAIL" record -q -o t.dat -g main -- ./lc e >rec.out 2>rec.err
		st=$?
		[ $st = 3 ] || fail "$w exit: record's status $st, not the program's 3: $(cat rec.err)"
		expect_shape "$w exit" "$(shape t.dat)" 'main() { leave() { exit() {'
		grep -q 'sched_process_exit: status=3' show.out || fail "$w exit: $(cat show.out)"
		# a thread's library calls, from its start routine on
		rec t.dat -- ./lc t
		got=$(task_shape t.dat 1)
		expect_shape "$w threads, main" "main() {${got#*main() \{}" \
			'main() { threads() { pthread_create(); pthread_join(); } }'
		expect_shape "$w threads, thread" "$(task_shape t.dat 0)" \
			'locker() { pthread_mutex_lock(); pthread_mutex_unlock(); }'
		for fn in pthread_create pthread_join pthread_mutex_lock; do
			[ "$(calls t.dat $fn)" = 1 ] || fail "$w threads: $fn calls $(calls t.dat $fn)"
		done
		# pthread_exit() through the PLT unwinds the thread's frames
		rec t.dat -- ./lc p
		expect_shape "$w pthread_exit" "$(task_shape t.dat 0)" 'leaver() { bye() { pthread_exit() { } } }'
		grep -q 'pthread_exit (unwound)' show.out || fail "$w pthread_exit: $(cat show.out)"
		# a dlopen()ed library's calls, hooked again when it is loaded again
		build liblc.so gcc -O2 -shared -fPIC $flags $ld "$P/lc_lib.c" || fail "build lib $w"
		build dlm gcc -O2 $flags $ld "$P/dl_main.c" -ldl || fail "build dlm $w"
		rec t.dat -g main -- ./dlm -c ./liblc.so ./liblc.so
		expect_shape "$w dlopen" "$(shape t.dat)" "$DL"
	done
	# filters: ftrace's lists select library calls by name and by library
	rec t.dat -l malloc -l work -- ./lc s
	expect_shape "$flags -l" "$(shape t.dat)" 'work() { malloc(); }'
	rec t.dat -g main -n '*alloc' -n 'print*' -- ./lc s
	expect_shape "$flags -n" "$(shape t.dat)" 'main() { work() { qsort() { cmp(); cmp(); cmp(); } free(); } }'
	rec t.dat -g qsort -- ./lc s
	expect_shape "$flags -g qsort" "$(shape t.dat)" 'qsort() { cmp(); cmp(); cmp(); }'
	rec t.dat -g main -l '*:mod:libc.so.6' -- ./lc s
	expect_shape "$flags :mod:libc.so.6" "$(shape t.dat)" 'malloc(); qsort(); printf(); free();'
	# off: the graph of the program's own functions only
	rec t.dat --no-libcall -- ./lc s
	expect_shape "$flags --no-libcall" "$(shape t.dat)" 'main() { work() { cmp(); cmp(); cmp(); } }'
	rec t.dat -O nolibcall -- ./lc s
	expect_shape "$flags -O nolibcall" "$(shape t.dat)" 'main() { work() { cmp(); cmp(); cmp(); } }'
done
# -pg's startup code calls __monstartup through the PLT, before main
build lc gcc -O2 -pg "$P/libcall.c" -lpthread || fail "build -pg"
rec t.dat -- ./lc s
expect_shape "-pg" "$(shape t.dat)" "__monstartup(); __cxa_atexit(); $SORT"
expect_built 19
exit 0
