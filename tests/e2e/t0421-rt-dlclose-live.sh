# description: live filter changes (re-patching) while threads dlopen and dlclose libraries that land at the same address
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
# tests/progs/rtrun drives the session's control block directly; every
# change re-patches the nop sites of the libraries loaded at that moment
# while 0 or 3 threads keep opening and closing them (dl_cycle.c).  A
# runtime that patches a closed library's sites writes into unmapped
# memory or into the next library's code.
build_rtrun
n=0
for v in "${PATCH_VARIANTS[@]}"; do
	set -- $v
	cc=$1
	shift
	patch_flags "$v"
	build liba.so $cc -O2 "$@" $libflags "$P/dl_lib.c" || continue
	build libb.so $cc -O2 "$@" $libflags "$P/dl_lib2.c" || continue
	build dlc $cc -O2 "$@" $mainflags "$P/dl_cycle.c" -ldl -lpthread || continue
	for threads in 0 3; do
		for i in 1 2; do
			# each function is selected in 3 windows or more of 150 ms:
			# a slow start on a loaded machine may cost one window
			FTRAIL_LIB=$FTRAIL_LIB ./rtrun -q -b 64 -l lib_leaf -C '150:lib_*' \
				-C '300:other_leaf|cycle_call' -C '450:!*' -C '600:*' -C '750:lib_entry' \
				-C '900:' -C '1050:*_leaf' -- ./dlc -t $threads -m 1200 ./liba.so ./libb.so \
				>out 2>err || fail "$v: rtrun: $(cat err)"
			grep -q '^#exit 0$' out || fail "$v -t $threads: program died: $(grep -v '^#count' out) $(cat err)"
			grep -q '^ok [1-9]' out || fail "$v -t $threads: program result: $(cat out)"
			[ "$(grep -c '^#control' out)" = 7 ] || fail "$v: control changes not all made"
			# with 3 threads always opening and closing, patching the
			# libraries may lag (module.c: deferred while a dlclose is
			# in flight); the program's own functions never do
			fs="lib_leaf other_leaf lib_entry cycle_call"
			[ $threads = 0 ] || fs=cycle_call
			for f in $fs; do
				grep -q "^#count $f [1-9]" out || fail "$v -t $threads: $f never traced: $(cat out)"
			done
		done
	done
	n=$((n + 1))
done
[ $n -ge 2 ] || fail "only $n variants built"
expect_built 9
exit 0
