# description: tracing_thresh: only calls at least that long, each written at its exit (ftrace's thresh mode)
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
# the program's own functions: library calls are t0432's
for flags in "-pg -mfentry" "-fpatchable-function-entry=5" "-finstrument-functions"; do
	build thr gcc -O2 $flags "$P/thresh.c" || fail "build"
	rec t.dat --no-libcall --tracing-thresh 5000 -- ./thr
	# slow (20 ms), outer and main contain it; the fast calls are gone
	got=$(shape t.dat)
	expect_shape "$flags thresh" "$got" 'slow(); outer(); main();'
	grep -q ' slow();' show.out || fail "no slow"
	# durations stay right: slow takes >= 20000 us
	us=$(grep ' slow();' show.out | grep -o '[0-9.]* us' | cut -d' ' -f1 | cut -d. -f1)
	[ "${us:-0}" -ge 19000 ] || fail "$flags: slow lasted $us us"
	# without thresh everything is there
	rec t.dat --no-libcall -- ./thr
	expect_shape "$flags nothresh" "$(shape t.dat)" \
		'main() { outer() { fast(); slow() { fast(); } fast(); } fast(); }'
done
exit 0
