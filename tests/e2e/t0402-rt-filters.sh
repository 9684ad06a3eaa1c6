# description: set_ftrace_filter / set_ftrace_notrace globs, '!' removal and :mod:, on run-time patched nops
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
# the program's own functions: library calls are t0432's
for flags in "-fpatchable-function-entry=5" "-pg -mfentry" "-finstrument-functions"; do
	build basic gcc -O2 $flags "$P/basic.c" || fail "build: $(cat build.err)"
	rec t.dat --no-libcall -l b -l c -- ./basic
	expect_shape "$flags -l b -l c" "$(shape t.dat)" 'b() { c(); } b() { c(); }'
	rec t.dat --no-libcall -l main -l a -l '!a' -- ./basic
	expect_shape "$flags !a" "$(shape t.dat)" 'main();'
	rec t.dat --no-libcall -n b -- ./basic
	expect_shape "$flags -n b" "$(shape t.dat)" 'main() { a() { c(); c(); } }'
	rec t.dat --no-libcall -l '[ab]' -- ./basic
	expect_shape "$flags [ab]" "$(shape t.dat)" 'a() { b(); b(); }'
	rec t.dat --no-libcall -l '*a*' -- ./basic
	expect_shape "$flags *a*" "$(shape t.dat)" 'main() { a(); }'
	rec t.dat --no-libcall -l '?' -n 'a' -- ./basic
	expect_shape "$flags ? -n a" "$(shape t.dat)" 'b() { c(); } b() { c(); }'
	rec t.dat --no-libcall -l 'c:mod:basic' -- ./basic
	expect_shape "$flags :mod:" "$(shape t.dat)" 'c(); c();'
done
exit 0
