# description: live patching under load: the selection flips every millisecond while threads call the patched functions, libraries load and unload, and a timer signal traces inside them
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
# tests/progs/rtrun -R cycles set_ftrace_filter through the -C texts, one
# change per millisecond: each one re-patches the sites of the program and
# of whichever library is loaded at that moment (patch.c's int3 protocol).
# patch_storm checks every call's result and aborts on a wrong one; a torn
# patch, a site patched in a closed library or a lost SIGTRAP kills it.
#   FTRAIL_STORM_RUNS  runs per variant (default 2; 100 for the soak proof)
#   FTRAIL_STORM_MS    run length in ms (default 1500)
runs=${FTRAIL_STORM_RUNS:-2}
len=${FTRAIL_STORM_MS:-1500}
build_rtrun
n=0 total=0
for v in "${PATCH_VARIANTS[@]}"; do
	set -- $v
	cc=$1
	shift
	patch_flags "$v"
	build libs2.so $cc -O2 "$@" $libflags -DSTORM_K=2 "$P/storm_lib.c" || continue
	build libs3.so $cc -O2 "$@" $libflags -DSTORM_K=3 "$P/storm_lib.c" || continue
	build storm $cc -O2 "$@" $mainflags "$P/patch_storm.c" -ldl -lpthread || continue
	traced=0
	for i in $(seq 1 "$runs"); do
		FTRAIL_LIB=$FTRAIL_LIB ./rtrun -q -b 256 -R 1 -C '0:storm_*' -C '0:storm_a|storm_lib_leaf' \
			-C '0:' -C '0:storm_c|storm_lib_entry' -C '0:!storm_b' -C '0:nosuch' -- \
			./storm -m "$len" -t 3 -d 2 ./libs2.so ./libs3.so >out 2>err ||
			fail "$v run $i: rtrun: $(cat err)"
		grep -q '^#exit 0$' out || fail "$v run $i: program died: $(grep -v '^#count' out) $(cat err)"
		grep -q '^ok [1-9][0-9]* [1-9][0-9]* [1-9][0-9]* [0-9]' out || fail "$v run $i: program result: $(cat out)"
		# a library's nop runs are made patchable before dlopen returns,
		# even with a dlclose in flight in another thread
		grep -q '^ok .* 0$' out || fail "$v run $i: dlopen returned unprepared patch sites: $(grep '^ok' out)"
		flips=$(sed -n 's/^#flips //p' out)
		[ "${flips:-0}" -ge 300 ] || fail "$v run $i: only ${flips:-0} selection changes"
		# tracing itself may lag the flips (each one closes every
		# thread's fast path until the next slow entry re-syncs): the
		# calls traced are counted over the runs, not per run
		grep -q '^#count storm_c [1-9]' out && traced=1
		total=$((total + 1))
	done
	[ "$traced" = 1 ] || fail "$v: storm_c never traced in $runs runs"
	n=$((n + 1))
done
[ $n -ge 2 ] || fail "only $n variants built"
echo "$total runs, 0 crashes"
exit 0
