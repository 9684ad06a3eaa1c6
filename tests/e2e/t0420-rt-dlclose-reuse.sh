# description: dlopen, dlclose, another library dlopen()ed at the same address, the first again: exit status and exact names, every flag, gcc and clang
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
# tests/progs/dl_cycle.c opens each library in turn, calls its lib_entry()
# and closes it; liba (dl_lib.c: lib_entry -> lib_leaf) and libb
# (dl_lib2.c: lib_entry -> other_leaf) have the same layout, so the loader
# maps libb exactly where liba was.  Every function of both is at the same
# address in both: only the runtime's module bookkeeping tells them apart.
# The nop-mcount libraries need -fno-pic (gcc refuses -mnop-mcount with
# -fPIC): they are built with text relocations.
# With the program's library calls (dlopen and dlclose included: they
# land in the runtime's own wrappers, hooked as any other call).
seq3='cycle_call() { dlopen(); dlsym(); lib_entry() { lib_leaf(); } dlclose(); } cycle_call() { dlopen(); dlsym(); lib_entry() { other_leaf(); } dlclose(); } cycle_call() { dlopen(); dlsym(); lib_entry() { lib_leaf(); } dlclose(); }'
want_graph="main() { getopt(); cycle_thread() { cycle_round() { $seq3 } } fflush(); printf(); }"
n=0
reused=0
for cc in gcc clang; do
	command -v $cc >/dev/null 2>&1 || continue
	for opt in -O0 -O2; do
		while read -r flags; do
			patch_flags "$flags"
			what="$cc $opt $flags"
			build liba.so $cc $opt $flags $libflags "$P/dl_lib.c" || continue
			build libb.so $cc $opt $flags $libflags "$P/dl_lib2.c" || continue
			build dlc $cc $opt $flags $mainflags "$P/dl_cycle.c" -ldl -lpthread ||
				fail "$what: build dl_cycle: $(cat build.err)"
			n=$((n + 1))
			# the case under test: does the loader reuse the address here?
			./dlc -v ./liba.so ./libb.so ./liba.so >plain.out 2>&1 ||
				fail "$what: untraced run: $(cat plain.out)"
			[ "$(awk '/^#load/ { print $3 }' plain.out | sort -u | wc -l)" = 1 ] &&
				reused=$((reused + 1))

			# function_graph, everything traced
			rec t.dat -- ./dlc ./liba.so ./libb.so ./liba.so
			grep -q 'killed by signal' rec.err && fail "$what: $(cat rec.err)"
			grep -qx 'ok 3' rec.out || fail "$what: program output: $(cat rec.out)"
			expect_shape "$what" "$(main_shape t.dat)" "$want_graph"

			# only the leaves: patched in each new copy (nop sites)
			rec t.dat -l lib_leaf -l other_leaf -- ./dlc ./liba.so ./libb.so ./liba.so
			grep -qx 'ok 3' rec.out || fail "$what -l: program output: $(cat rec.out)"
			expect_shape "$what -l leaves" "$(shape t.dat)" 'lib_leaf(); other_leaf(); lib_leaf();'

			# :mod: selects by the object's name, not its address
			rec t.dat -l '*:mod:libb' -- ./dlc ./liba.so ./libb.so ./liba.so
			expect_shape "$what :mod:libb" "$(shape t.dat)" 'lib_entry() { other_leaf(); }'

			# function tracer: the parents are resolved in the right copy
			rec t.dat -p function -l 'lib_*' -l other_leaf -- ./dlc ./liba.so ./libb.so ./liba.so
			# (at -O2 lib_entry tail-calls its leaf: the leaf's parent is then cycle_call)
			got=$(funcs t.dat)
			want='lib_entry <-cycle_call;lib_leaf <-lib_entry;lib_entry <-cycle_call;other_leaf <-lib_entry;lib_entry <-cycle_call;lib_leaf <-lib_entry;'
			[ $opt = -O0 ] || got=$(echo "$got" | sed 's/_leaf <-cycle_call;/_leaf <-lib_entry;/g')
			[ "$got" = "$want" ] || fail "$what -p function: '$got'"

			# 40 rounds of open/close: every call counted under its own name
			rec t.dat -- ./dlc -n 40 ./liba.so ./libb.so
			grep -qx 'ok 80' rec.out || fail "$what -n 40: program output: $(cat rec.out)"
			[ "$(calls t.dat lib_leaf)" = 40 ] || fail "$what -n 40: lib_leaf calls $(calls t.dat lib_leaf)"
			[ "$(calls t.dat other_leaf)" = 40 ] || fail "$what -n 40: other_leaf calls $(calls t.dat other_leaf)"
		done <<-'FLAGS'
			-pg
			-pg -mfentry
			-pg -mfentry -mnop-mcount -mrecord-mcount
			-fpatchable-function-entry=5
			-finstrument-functions
		FLAGS
	done
done
[ $n -ge 16 ] || fail "only $n compiler/flag combinations built"
[ $reused -ge 1 ] || skip "the loader never mapped the second library where the first was"
echo "$n combinations, $reused with the address reused"
expect_built 54
exit 0
