# description: a FUNCS section whose first function id is so large that id + count wraps (found by the fuzz target) is refused with one error line, not written before the table
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
bad=$TOP/tests/fuzz/corpus/regress-funcs-id-wrap
good=$TOP/tests/fuzz/corpus/gen-func
# the same file with its function table's first id set right: it reads
$FTRAIL show -i "$good" >good.out 2>err || fail "show of the seed it was made from: $(cat err)"
[ -s good.out ] || fail "the seed shows nothing"
expect_fail "ftrail: *corrupt FUNCS section (fid 18446744073709551615, 132 bytes)*" \
	$FTRAIL show -i "$bad"
expect_fail "ftrail: *corrupt FUNCS section (fid 18446744073709551615, 132 bytes)*" \
	$FTRAIL report -i "$bad"
exit 0
