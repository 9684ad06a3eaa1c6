# description: the stack map benchmark runs (short mode) and prints its table; figures are not judged here
# requires:
. "$TOP/tests/e2e/lib.sh"
B=$BUILD/bench/stackmap_bench
[ -x "$B" ] || skip "no $B"
"$B" -q -c >out 2>err || fail "bench failed: $(cat err)"
[ ! -s err ] || fail "bench warned: $(cat err)"
grep -q '^ft_hash_stack (NH+mum) ' out || fail "no hash table"
for d in 8 16 32 64; do
	[ "$(grep -Ec "^ +$d +(1|2s|2o) \|" out)" = 3 ] || fail "depth $d rows missing"
done
grep -q '^target: hit at depth 16' out || fail "no target line"
exit 0
