# description: live control reaches a program whose selection patches nothing it runs: changes apply at once through the runtime's live-control thread
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
# The filter starts out matching no function of the program, so no hook
# ever runs in it: without the live-control thread (session.h, "Live
# control") the later changes would never be seen.
build_rtrun
n=0
for v in "gcc -fpatchable-function-entry=5" "clang -fpatchable-function-entry=5" \
	"gcc -pg -mfentry -mnop-mcount -mrecord-mcount -fno-pie -no-pie"; do
	set -- $v
	cc=$1
	shift
	build ps $cc -O2 "$@" "$P/patchstress.c" -lpthread || continue
	FTRAIL_LIB=$FTRAIL_LIB ./rtrun -q -b 64 -l nosuch -C '100:f_a' -C '250:nosuch' -C '400:f_b' \
		-- ./ps 600 >out 2>err || fail "$v: rtrun: $(cat err)"
	grep -q '^#exit 0$' out || fail "$v: program died: $(cat out err)"
	grep -q '^ok [0-9]' out || fail "$v: program result: $(cat out)"
	for f in f_a f_b; do
		grep -q "^#count $f [1-9]" out || fail "$v: $f never traced after its change: $(cat out)"
	done
	grep -q "^#count f_c " out && fail "$v: f_c traced, never selected: $(cat out)"
	[ "$(grep -c '^#control' out)" = 3 ] || fail "$v: control changes not all made"
	n=$((n + 1))
done
[ $n -ge 2 ] || fail "only $n variants built"
exit 0
