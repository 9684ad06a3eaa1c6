# description: -p stack: a recursion 200 deep, max depth and size as the program measures them, ftrace's stack_trace format
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
. "$TOP/tests/e2e/t1139-ulat.inc"
for v in "gcc -pg -mfentry" "gcc -pg" "gcc -fpatchable-function-entry=5" \
	"gcc -finstrument-functions" "clang -fpatchable-function-entry=5"; do
	build st $v -O2 "$P/ulat_stack.c" -lpthread || continue
	rec t.dat -p stack -- ./st 200
	read -r tid used < <(sed -n 's/^tid=\([0-9]*\) depth=200 used=\([0-9]*\)$/\1 \2/p' rec.out)
	[ -n "${used:-}" ] || fail "$v: the program said $(cat rec.out)"
	"$FTRAIL" show -i t.dat >show.out 2>show.err || fail "$v: show: $(cat show.err)"
	[ "$(head -n 1 show.out)" = "# tracer: stack" ] || fail "$v: $(head -n 3 show.out)"
	stack_check "$v" "$tid" 200 "$used"
	# one thread: the deepest of all is its own
	grep -qx "# stack_max_size: $max (st-$tid)" show.out || fail "$v: $(head -n 3 show.out)"
done
expect_built 4
exit 0
