# description: show/report: zstd-compressed sections read exactly like raw ones; trace files are mode 0600
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
for s in graph func threads lost unwind kall; do
	mktrace $s raw.dat
	mktrace $s z.dat -z
	[ "$(stat -c %a raw.dat)" = 600 ] || fail "trace file mode is $(stat -c %a raw.dat), not 600"
	cmp -s raw.dat z.dat && fail "$s: -z did not compress anything"
	$FTRAIL show -i raw.dat >a || fail "show $s"
	$FTRAIL show -i z.dat >b || fail "show $s -z"
	cmp -s a b || fail "$s: compressed trace shows differently"
	$FTRAIL report -i raw.dat >a || fail "report $s"
	$FTRAIL report -i z.dat >b || fail "report $s -z"
	cmp -s a b || fail "$s: compressed trace reports differently"
done
exit 0
