# description: function_graph on main->a->b->c with every instrumentation flag, gcc and clang, -O0 and -O2
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
want='main() { a() { b() { c(); } b() { c(); } } }'
# one build: its graph, and its library call through the PLT with each hook
graph_one() { # cc opt flags
	build t "$1" "$2" $3 "$P/basic.c" || return 1
	rec t.dat --no-libcall -- ./t
	expect_shape "$*" "$(shape t.dat)" "$want"
	rec t.dat -- ./t
	expect_shape "$* libcall" "$(main_shape t.dat)" \
		'main() { a() { b() { c(); } b() { c(); } } printf(); }'
}
graph_matrix 12 graph_one
expect_built 22
exit 0
