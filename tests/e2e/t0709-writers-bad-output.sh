# description: export, stackmap export and flame into an output they cannot create or fill: one line, non-zero exit, and (under ASan) nothing leaked on the way out
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
cp "$TOP/tests/fuzz/corpus/func-stackmap" u.dat || fail "no user seed trace with a stack map"
cp "$TOP/tests/fuzz/corpus/kern-offcpu-ustack" k.dat || fail "no kernel seed trace"
printf 'main;a 3\n' >one.folded
for out in /nonexistent/dir/x /dev/full; do
	for f in u.dat k.dat; do
		expect_fail "ftrail: *$out*" $FTRAIL export --format chrome -i $f -o $out
		expect_fail "ftrail: *$out*" $FTRAIL export --format speedscope -i $f -o $out
		expect_fail "ftrail: *" $FTRAIL flame --stacks -i $f -o $out
	done
	expect_fail "ftrail: *$out*" $FTRAIL stackmap export -i u.dat -o $out
	expect_fail "ftrail: *$out*" $FTRAIL stackmap export --kernel -i k.dat -o $out
	expect_fail "ftrail: *" $FTRAIL flame --from-folded one.folded -o $out
	expect_fail "ftrail: *$out*" $FTRAIL export --format chrome --from-folded one.folded -o $out
done
exit 0
