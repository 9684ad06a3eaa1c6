# description: -p stack with threads at once: each thread's own max, the deepest of all, --tid
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
. "$TOP/tests/e2e/t1139-ulat.inc"
for v in "gcc -fpatchable-function-entry=5" "gcc -pg -mfentry" "gcc -finstrument-functions"; do
	build st $v -O2 "$P/ulat_stack.c" -lpthread || continue
	# the main thread first (30 deep), then three threads running together
	rec t.dat -p stack -- ./st 30 250 120 60
	"$FTRAIL" show -i t.dat >show.out 2>show.err || fail "$v: show: $(cat show.err)"
	[ "$(grep -c '^# thread ' show.out)" = 4 ] || fail "$v: not 4 threads: $(grep '^# thread' show.out)"
	while read -r tid depth used; do
		stack_check "$v thread of $depth" "$tid" "$depth" "$used"
		[ "$depth" = 250 ] && { deep=$tid; deepmax=$max; }
	done < <(sed -n 's/^tid=\([0-9]*\) depth=\([0-9]*\) used=\([0-9]*\)$/\1 \2 \3/p' rec.out)
	grep -qx "# stack_max_size: $deepmax (st-$deep)" show.out || fail "$v: $(head -n 3 show.out)"
	# one thread only
	"$FTRAIL" show -i t.dat --tid "$deep" >show.out 2>show.err || fail "$v: show --tid: $(cat show.err)"
	[ "$(grep -c '^# thread ' show.out)" = 1 ] && table "$deep" | grep -q . ||
		fail "$v: --tid $deep: $(cat show.out)"
done
expect_built 2
exit 0
