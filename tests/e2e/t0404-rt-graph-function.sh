# description: set_graph_function (-g), set_graph_notrace, max_graph_depth
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
# the program's own functions: library calls are t0432's
for flags in "-pg -mfentry" "-fpatchable-function-entry=5" "-finstrument-functions" "-pg"; do
	build basic gcc -O2 $flags "$P/basic.c" || fail "build"
	rec t.dat --no-libcall -g b -- ./basic
	expect_shape "$flags -g b" "$(shape t.dat)" 'b() { c(); } b() { c(); }'
	rec t.dat --no-libcall --graph-notrace b -- ./basic
	expect_shape "$flags graph-notrace b" "$(shape t.dat)" 'main() { a(); }'
	rec t.dat --no-libcall --max-graph-depth 2 -- ./basic
	expect_shape "$flags depth 2" "$(shape t.dat)" 'main() { a(); }'
	rec t.dat --no-libcall --max-graph-depth 3 -g a -- ./basic
	expect_shape "$flags depth 3 -g a" "$(shape t.dat)" 'a() { b() { c(); } b() { c(); } }'
done
exit 0
