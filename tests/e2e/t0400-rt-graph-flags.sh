# description: function_graph on main->a->b->c with every instrumentation flag, gcc and clang, -O0 and -O2
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
want='main() { a() { b() { c(); } b() { c(); } } }'
n=0
for cc in gcc clang; do
	command -v $cc >/dev/null 2>&1 || continue
	for opt in -O0 -O2; do
		while read -r flags; do
			build t $cc $opt $flags "$P/basic.c" || continue
			rec t.dat --no-libcall -- ./t
			got=$(shape t.dat)
			expect_shape "$cc $opt $flags" "$got" "$want"
			# and its library call, through the PLT, with each hook
			rec t.dat -- ./t
			expect_shape "$cc $opt $flags libcall" "$(main_shape t.dat)" \
				'main() { a() { b() { c(); } b() { c(); } } printf(); }'
			n=$((n + 1))
		done <<-'FLAGS'
			-pg
			-pg -mfentry
			-pg -mfentry -mnop-mcount -mrecord-mcount -fno-pie -no-pie
			-fpatchable-function-entry=5
			-fpatchable-function-entry=7,2
			-finstrument-functions
		FLAGS
	done
done
[ $n -ge 12 ] || fail "only $n compiler/flag combinations built"
echo "$n combinations"
expect_built 22
exit 0
