# description: -p sigsoff: signals blocked 40 ms once among 2000 short blocks, its max, blocked set, trace, stacks
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
. "$TOP/tests/e2e/t1139-ulat.inc"
for v in "gcc -fpatchable-function-entry=5" "gcc -pg -mfentry" "gcc -finstrument-functions"; do
	build lk $v -O2 "$P/ulat_lock.c" -lpthread || continue
	rec t.dat -p sigsoff -- ./lk sigs 40
	o=$(sed -n 's/^block_long us=\([0-9]*\) .*/\1/p' rec.out)
	[ -n "$o" ] && [ "$o" -ge 40000 ] && [ "$o" -le 400000 ] || fail "$v: the program said $(cat rec.out)"
	"$FTRAIL" show -i t.dat >show.out 2>show.err || fail "$v: show: $(cat show.err)"
	[ "$(head -n 1 show.out)" = "# tracer: sigsoff" ] || fail "$v: $(head -n 2 show.out)"
	max=$(sed -n 's/^# tracing_max_latency: \([0-9]*\) us$/\1/p' show.out)
	within "${max:-0}" "$o" 5 || fail "$v: max $max us, blocked $o us"
	grep -q '^sigsoff latency trace v1.1.5 on ' show.out || fail "$v: $(head -n 5 show.out)"
	# SIGINT and SIGUSR1: bits 1 and 9 of the kernel's set
	[ "$(sec_field blocked show.out)" = 0x202 ] || fail "$v: blocked $(sec_field blocked show.out)"
	[ "$(sec_field 'started at' show.out)" = block_long ] &&
		[ "$(sec_field 'ended at' show.out)" = block_long ] || fail "$v: $(grep '=>' show.out)"
	# every line of the section has signals blocked ('d'); the mask calls bracket it
	awk '/^#     \\/ { on = 1; next } on && /^$/ { exit } on' show.out >tr.out
	head -n 1 tr.out | grep -qE '^ +lk-[0-9]+ +[0-9?]d\.\.\. +0us.: sigprocmask \(block_long\)$' &&
		tail -n 1 tr.out | grep -qE 'us.: sigprocmask \(block_long\)$' &&
		! grep -qvE '^ +lk-[0-9]+ +[0-9?]d' tr.out || fail "$v: trace $(cat tr.out)"
	grep -q 'block_short\|pthread_sigmask' tr.out && fail "$v: a short block in the trace: $(cat tr.out)"
	for w in began ended; do
		sed -n "/^# stack where it $w:/,/^#/p" show.out | sed -n '2,3p' | sed 's/+.*//' |
			tr '\n' ' ' | grep -qx ' => block_long  => main ' ||
			fail "$v: stack where it $w: $(sed -n "/^# stack where it $w:/,/^#/p" show.out)"
	done
	row=$(grep '^  0x202 ' show.out) || fail "$v: no row for 0x202: $(cat show.out)"
	set -- $row
	[ "$2" = "$max" ] && [ "$3" = 1 ] || fail "$v: row '$row'"
	# the short blocks (every signal) were sections too: a new max at first
	[ "$(awk '/^# blocked /{on=1; next} on' show.out | wc -l)" -ge 2 ] || fail "$v: $(cat show.out)"
done
expect_built 2
exit 0
