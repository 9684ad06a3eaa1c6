# description: live control: set_ftrace_filter changed while 4 threads run patched/unpatched nops (int3 and atomic-store sites), and changes reach a program whose selection patches nothing it runs
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
# tests/progs/rtrun drives the session's control block directly, as any
# control front end would
build_rtrun
n=0
for v in "gcc -fpatchable-function-entry=5" "clang -fpatchable-function-entry=5" \
	"gcc -pg -mfentry -mnop-mcount -mrecord-mcount -fno-pie -no-pie"; do
	set -- $v
	cc=$1
	shift
	build ps $cc -O2 "$@" "$P/patchstress.c" -lpthread || continue
	for i in 1 2 3; do
		FTRAIL_LIB=$FTRAIL_LIB ./rtrun -q -b 64 -l f_c -C '40:f_a' -C '70:f_b|f_c' -C '100:!f_*' \
			-C '130:f_*' -C '160:f_c' -C '190:' -C '220:f_a' -- ./ps 300 >out 2>err ||
			fail "$v: rtrun: $(cat err)"
		grep -q '^#exit 0$' out || fail "$v: program died: $(cat out err)"
		grep -q '^ok [0-9]' out || fail "$v: program result: $(cat out)"
		for f in f_a f_b f_c; do
			grep -q "^#count $f [1-9]" out || fail "$v: $f never traced: $(cat out)"
		done
		[ "$(grep -c '^#control' out)" = 7 ] || fail "$v: control changes not all made"
	done
	# The filter starts out matching no function of the program, so no
	# hook ever runs in it: without the runtime's live-control thread
	# (session.h, "Live control") the later changes would never be seen.
	# Buffers big enough that a starved drain loses none of f_a's calls.
	FTRAIL_LIB=$FTRAIL_LIB ./rtrun -q -b 4096 -l nosuch -C '100:f_a' -C '250:nosuch' -C '400:f_b' \
		-- ./ps 600 >out 2>err || fail "$v: rtrun: $(cat err)"
	grep -q '^#exit 0$' out || fail "$v: deaf: program died: $(cat out err)"
	for f in f_a f_b; do
		grep -q "^#count $f [1-9]" out || fail "$v: $f never traced after its change: $(cat out)"
	done
	grep -q "^#count f_c " out && fail "$v: f_c traced, never selected: $(cat out)"
	[ "$(grep -c '^#control' out)" = 3 ] || fail "$v: deaf: control changes not all made"
	n=$((n + 1))
done
[ $n -ge 2 ] || fail "only $n variants built"
expect_built 3
exit 0
