# description: -p lockheld: a mutex held 50 ms once among 2000 short holds, its max, trace and stacks
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
. "$TOP/tests/e2e/t1139-ulat.inc"
# lines of the worst section's trace, between the column header and the stacks
trace_lines() { awk '/^#     \\/ { on = 1; next } on && /^$/ { exit } on' show.out; }
for v in "gcc -fpatchable-function-entry=5" "gcc -pg -mfentry" "gcc -finstrument-functions" \
	"clang -fpatchable-function-entry=5"; do
	build lk $v -O2 "$P/ulat_lock.c" -lpthread || continue
	rec t.dat -p lockheld -- ./lk lock 50
	read -r own lock < <(sed -n 's/^hold_long us=\([0-9]*\) lock=\(0x[0-9a-f]*\) .*/\1 \2/p' rec.out)
	[ -n "${lock:-}" ] || fail "$v: the program said $(cat rec.out)"
	# the program held it at least 50 ms; more only when the machine is
	# loaded (its sleep ends late: 78 ms was seen during a parallel build),
	# up to 500 ms is taken as that; the tracer is held to the program's
	# own measure, and to 50 ms +-5% whenever the hold itself kept to it
	[ "$own" -ge 50000 ] && [ "$own" -le 500000 ] || fail "$v: the program held it $own us"
	"$FTRAIL" show -i t.dat >show.out 2>show.err || fail "$v: show: $(cat show.err)"
	max=$(sed -n 's/^# tracing_max_latency: \([0-9]*\) us$/\1/p' show.out)
	within "${max:-0}" "$own" 5 || fail "$v: max $max us, the program held it $own us"
	[ "$own" -gt 52500 ] || within "$max" 50000 5 || fail "$v: max $max us, not 50 ms"
	grep -q "^ latency: $max us, #[0-9]*/[0-9]*, CPU#[0-9?]* | (M:user" show.out ||
		fail "$v: latency line: $(grep latency: show.out)"
	[ "$(sec_field 'started at' show.out)" = hold_long ] || fail "$v: $(grep '=>' show.out)"
	[ "$(sec_field 'ended at' show.out)" = hold_long ] || fail "$v: $(grep '=>' show.out)"
	[ "$(sec_field lock show.out)" = "$lock" ] || fail "$v: lock $(sec_field lock show.out), not $lock"
	grep -q "| task: lk-[0-9]* (pid:[0-9]*)" show.out || fail "$v: $(grep task: show.out)"
	# the trace: the lock at 0, the calls made holding it, the unlock last
	trace_lines >tr.out
	head -n 1 tr.out | grep -qE '^ +lk-[0-9]+ +[0-9?]\.\.\.1 +0us.: pthread_mutex_lock \(hold_long\)$' ||
		fail "$v: first line: $(cat tr.out)"
	last=$(tail -n 1 tr.out | sed -n 's/.* \([0-9]*\)us.: pthread_mutex_unlock (hold_long)$/\1/p')
	within "${last:-0}" "$max" 1 || fail "$v: last line: $(cat tr.out)"
	grep -q ': work (hold_long)$' tr.out || fail "$v: no work() in $(cat tr.out)"
	grep -q 'hold_short' tr.out && fail "$v: a short hold in the worst trace: $(cat tr.out)"
	# the stacks where it began and ended: hold_long, called by main
	for w in began ended; do
		sed -n "/^# stack where it $w:/,/^#/p" show.out | sed -n '2,3p' | sed 's/+.*//' |
			tr '\n' ' ' | grep -qx ' => hold_long  => main ' ||
			fail "$v: stack where it $w: $(sed -n "/^# stack where it $w:/,/^#/p" show.out)"
	done
	# tracing_max_latency semantics: 2001 holds, only those that were a new
	# max when they ended were written, and the worst is this lock's
	row=$(grep "^  $lock " show.out) || fail "$v: no row for $lock: $(cat show.out)"
	set -- $row
	[ "$2" = "$max" ] && [ "$3" -ge 1 ] && [ "$3" -lt 100 ] || fail "$v: row '$row'"
done
expect_built 3
exit 0
