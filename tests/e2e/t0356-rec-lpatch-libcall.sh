# description: library calls of functions patched in a program built without instrumentation (gcc, clang -O2; -l, -g, --patch): nested under their patched caller exactly as in the same source built with -pg (same tree, same report counts), their library named with -O sym-userobj; calls from functions left unpatched at their own depth, every call closed
# requires: cc
# asan: yes
. "$TOP/tests/e2e/t0399-rec.inc"
. "$TOP/tests/progs/rt_e2e.sh"
. "$TOP/tests/e2e/t0356-lpatch.inc"
need_runtime
N=2 # rounds per thread (main and one worker)
# lp_fib(3) as the program calls it: each call makes 4 library calls
f1='lp_fib() { malloc(); snprintf(); strtol(); free(); }'
f2="lp_fib() { malloc(); snprintf(); $f1 $f1 strtol(); free(); }"
f3="lp_fib() { malloc(); snprintf(); $f2 $f1 strtol(); free(); }"
# lp_work: helper_env (never patched; -n in the -pg build) calls getenv,
# lpl_pid is liblpatch_lib.so's (not patched: its getpid is not hooked),
# lp_say tail-calls fputs
work="lp_work() { $f3 getenv(); lpl_pid(); lp_say() { fputs(); } }"
LIBS="malloc snprintf strtol free getenv fputs"
for cc in gcc clang; do
	build_lpatch_pg $cc || continue
	nm un | grep -qE ' (_?mcount|__fentry__|__cyg_profile_func_enter)(@|$)' && fail "$cc: un has hooks"
	./un $N >want.out || fail "$cc: un failed: $(cat want.out)"
	expect_grep want.out "$cc: un" '^sum=8 errors=0$'

	# -g lp_work: the tree below it, library calls included, as -pg gives it
	rec p.dat -g lp_work -n 'helper_*' -- ./pg $N
	rec u.dat --patch 'lp_*' -g lp_work -- ./un $N
	expect_grep rec.err "$cc --patch: summary" '^ftrail: warning: --patch: 3 function(s) patched, 0 refused$'
	for k in 1 0; do
		expect_shape "$cc -pg -g lp_work, task $k" "$(task_shape p.dat $k)" "$work $work"
		expect_shape "$cc --patch -g lp_work, task $k" "$(task_shape u.dat $k)" "$work $work"
	done

	# -l selects library calls by name, as in an instrumented program: -l
	# 'lp_*' alone records none, in either build
	rec p.dat -l 'lp_*' -- ./pg $N
	rec u.dat -l 'lp_*' -- ./un $N
	bare="lp_fib() { lp_fib() { lp_fib(); lp_fib(); } lp_fib(); }"
	bare="lp_work() { $bare lp_say(); }"
	for k in 1 0; do
		expect_shape "$cc -pg -l 'lp_*', task $k" "$(task_shape p.dat $k)" "$bare $bare"
		expect_shape "$cc -l 'lp_*', task $k" "$(task_shape u.dat $k)" "$bare $bare"
	done

	# -l naming the functions and the library calls: the same report
	L=(-l 'lp_*')
	for l in $LIBS; do L+=(-l "$l"); done
	rec p.dat "${L[@]}" -- ./pg $N
	rec u.dat "${L[@]}" -- ./un $N
	expect_grep rec.err "$cc -l: not patched by -l" \
		'^ftrail: warning: ./un has no instrumentation: patching the functions -l selects (--patch)$'
	for f in lp_work lp_fib lp_say $LIBS; do
		want=$((2 * N)) # per round: 5 lp_fib, each with 4 library calls
		case $f in lp_fib | malloc | snprintf | free) want=$((10 * N)) ;; esac
		[ $f = strtol ] && want=$((10 * N + 1)) # and main's, of argv[1]
		[ "$(calls p.dat $f)" = $want ] || fail "$cc -pg -l: $(calls p.dat $f) calls of $f, not $want"
		[ "$(calls u.dat $f)" = $want ] || fail "$cc -l: $(calls u.dat $f) calls of $f, not $want"
	done
	[ "$(calls u.dat helper_env)" = 0 ] || fail "$cc -l: helper_env traced"
	# sym-userobj: the library that was called
	"$FTRAIL" show -i u.dat -O sym-userobj >show.out 2>show.err || fail "show: $(cat show.err)"
	for f in $LIBS; do
		n=$(grep -c "| *$f \[libc\.so\.6\]();\$" show.out)
		[ "$n" = "$(calls u.dat $f)" ] || fail "$cc sym-userobj: $n '$f [libc.so.6]()' lines: $(cat show.out)"
	done
	grep -q '| *lp_work \[un\]() {$' show.out || fail "$cc sym-userobj: lp_work: $(cat show.out)"

	# only lp_fib patched: every PLT call of the program is hooked, the
	# unpatched functions' ones at their own depth (main's, the worker's at
	# the top, lp_fib's below it), each call closed
	rec u.dat --patch lp_fib -- ./un 1
	expect_grep rec.err "$cc --patch lp_fib: summary" '^ftrail: warning: --patch: 1 function(s) patched, 0 refused$'
	one="$f3 getenv(); lpl_pid(); fputs();"
	expect_shape "$cc --patch lp_fib, main" "$(task_shape u.dat 1)" \
		"fopen(); strtol(); pthread_create(); $one pthread_join(); printf();"
	expect_shape "$cc --patch lp_fib, worker" "$(task_shape u.dat 0)" "$one"
	[ "$(calls u.dat lp_work)" = 0 ] || fail "$cc --patch lp_fib: lp_work traced"
done
expect_built 6
exit 0
