# description: report follows each user context's own stack (swapcontext): the calls a coroutine's switch leaves open in main's context keep their times, equal to show's
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
# tests/progs/ucontext.c: main() -> run() starts co_body() on a stack of
# its own, which yields back to run() twice.  co_body's calls nest from
# depth 0 of its context while main() and run() stay open in the first
# one: sums kept per depth of the buffer would take co_body's frames for
# main's and run's and drop their times.
time_of() { # report.out function -> its total time cell
	awk -v f="$2" '$NF == f && NF == 6 { print $1, $2 }' "$1"
}
cell() { # "N.NNN us" (show) -> report's cell of the same ns
	awk '{
		split($1, a, "."); ns = a[1] * 1000 + a[2]
		v = int(ns / 1000); r = ns % 1000; u = "us"
		if (v >= 1000) { r = v % 1000; v = int(v / 1000); u = "ms" }
		if (v >= 1000) { r = v % 1000; v = int(v / 1000); u = " s" }
		printf "%d.%03d %s\n", v, r, u
	}'
}
for flags in "-pg -mfentry" "-finstrument-functions"; do
	build uc gcc -O2 $flags "$P/ucontext.c" || fail "build $flags"
	rec t.dat -- ./uc
	"$FTRAIL" report -i t.dat >report.out 2>report.err || fail "$flags: report: $(cat report.err)"
	for f in main run co_body; do
		[ -n "$(time_of report.out $f)" ] || fail "$flags: $f has no time: $(cat report.out)"
	done
	calls=$(awk '$NF ~ /^(main|run|co_body|co_leaf|after)$/ { print $NF "=" $(NF - 1) }' report.out |
		sort | tr '\n' ' ')
	[ "$calls" = "after=4 co_body=1 co_leaf=3 main=1 run=1 " ] || fail "$flags: calls: $calls"
	# main's total is the duration show gives at its closing brace
	"$FTRAIL" show -i t.dat >show.out || fail "$flags: show"
	want=$(grep -E '\|  \}$' show.out | tail -1 | sed -E 's/^[^|]*[ !+#*@$]([0-9]+\.[0-9]+) us.*/\1 us/' | cell)
	[ "$(time_of report.out main)" = "$want" ] ||
		fail "$flags: main's total $(time_of report.out main), show says $want"
done
exit 0
