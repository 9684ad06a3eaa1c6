# description: library calls of patched functions follow the objects patched and the libcall option: --no-libcall and -O nolibcall leave them out (as in the -pg build), a library merely loaded keeps its GOT (its calls unseen) until one of its functions is patched
# requires: cc
# asan: yes
. "$TOP/tests/e2e/t0399-rec.inc"
. "$TOP/tests/progs/rt_e2e.sh"
. "$TOP/tests/e2e/t0356-lpatch.inc"
need_runtime
f1='lp_fib();'
f3="lp_fib() { lp_fib() { $f1 $f1 } $f1 }"
for cc in gcc clang; do
	build_lpatch_pg $cc || continue

	# off: the patched functions only, as -pg's own functions only
	bare="lp_work() { $f3 lp_say(); }"
	for off in --no-libcall "-O nolibcall"; do
		rec u.dat $off --patch 'lp_*' -g lp_work -- ./un 1
		expect_grep rec.err "$cc $off: summary" '^ftrail: warning: --patch: 3 function(s) patched, 0 refused$'
		rec p.dat $off -g lp_work -n 'helper_*' -- ./pg 1
		for k in 1 0; do
			expect_shape "$cc $off, task $k" "$(task_shape u.dat $k)" "$bare"
			expect_shape "$cc -pg $off, task $k" "$(task_shape p.dat $k)" "$bare"
		done
		[ "$(calls u.dat malloc)" = 0 ] || fail "$cc $off: malloc traced"
		grep -q '^sum=4 errors=0$' rec.out || fail "$cc $off: the program went wrong: $(cat rec.out)"
	done
	# -l on the program without hooks: the same
	rec u.dat --no-libcall -l 'lp_*' -l malloc -- ./un 1
	expect_shape "$cc --no-libcall -l" "$(task_shape u.dat 0)" "$bare"

	# the library: merely loaded, its getpid() is not hooked (lpl_pid a
	# leaf); with a function of it patched, it is
	rec u.dat --patch 'lp_*' -g lp_work -- ./un 1
	[ "$(calls u.dat getpid)" = 0 ] || fail "$cc: a library merely loaded had its calls hooked"
	expect_shape "$cc: library loaded" "$(task_shape u.dat 0 | grep -o 'lpl_pid[^;]*;')" "lpl_pid();"
	rec u.dat --patch 'lp_*' --patch 'lpl_*:mod:liblpatch_lib' -g lp_work -- ./un 1
	expect_grep rec.err "$cc: lib summary" '^ftrail: warning: --patch: 4 function(s) patched, 0 refused$'
	[ "$(calls u.dat getpid)" = 2 ] || fail "$cc: the patched library's getpid: $(calls u.dat getpid) calls"
	expect_shape "$cc: library patched" "$(task_shape u.dat 0 | grep -o 'lpl_pid() { lpl_pid() { [a-z]*(); } }')" \
		"lpl_pid() { lpl_pid() { getpid(); } }"
	# and off again: none
	rec u.dat --no-libcall --patch 'lp_*' --patch 'lpl_*:mod:liblpatch_lib' -g lp_work -- ./un 1
	[ "$(calls u.dat getpid)" = 0 ] || fail "$cc: --no-libcall: getpid traced"
	expect_shape "$cc: library patched, --no-libcall" "$(task_shape u.dat 0)" \
		"lp_work() { $f3 lpl_pid(); lp_say(); }"
done
expect_built 6
exit 0
