# description: -T with the stack map: each call's stack id, found by its caller's id when it can be, names the stack a full unwind finds, and reference counts add up to the calls
# requires: cc
# asan: yes
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
# -T -O nostackmap records every stack in full from a walk of the stack:
# the reference.  With the stack map, a call made directly by the traced
# frame below it takes its stack id from that frame's id (runtime/unwind.c,
# rt_entry_stack); recursion, a callee called from two sites, qsort's
# callbacks, a tail call, a signal handler and a second thread check both
# ways give the same stacks, the same number of times.
for flags in "-pg" "-pg -mfentry" "-fpatchable-function-entry=5" "-finstrument-functions"; do
	build sm gcc -O2 $flags -pthread "$P/stackmemo.c" || continue
	rec id.dat -T -- ./sm
	rec full.dat -T -O nostackmap -- ./sm
	"$FTRAIL" stacks -i id.dat >id.st 2>id.err || fail "$flags: stacks: $(cat id.err)"
	"$FTRAIL" stacks -i full.dat >full.st 2>full.err || fail "$flags: stacks: $(cat full.err)"
	[ ! -s id.err ] || fail "$flags: stacks warned: $(cat id.err)"
	diff full.st id.st >st.diff || fail "$flags: stacks by id differ from full stacks: $(head -n 40 st.diff)"
	# 20 x (rec(0..11): 114 calls, qsort's comparator, tail, leaf, via_ptr,
	# leaf, the handler's rec(2): 5) + the thread's 50 rec() calls: 160
	n=$(tail -n 1 id.st | sed -n 's/^\([0-9]*\) unique stacks, \([0-9]*\) stacks in all$/\2/p')
	[ -n "$n" ] && [ "$n" -gt 2400 ] || fail "$flags: too few stacks: $(tail -n 1 id.st)"
	# every stack went by id, and the map counted each of them once
	ids=$("$FTRAIL" show -i id.dat | grep -c 'stack_id')
	refs=$("$FTRAIL" stackmap show -i id.dat | awk '/^stack_id/ { r = $4; sub(",", "", r); s += r } END { print s + 0 }')
	[ "$ids" = "$n" ] || fail "$flags: $n stacks, $ids by id"
	[ "$refs" = "$n" ] || fail "$flags: reference counts add up to $refs, $n stacks recorded"
done
expect_built 3
exit 0
