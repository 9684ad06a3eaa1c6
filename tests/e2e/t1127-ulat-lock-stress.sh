# description: -p lockheld under contention: 8 threads, 80000 holds, the max CAS raced from every thread, one planted 40 ms hold found
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
. "$TOP/tests/e2e/t1139-ulat.inc"
for v in "gcc -fpatchable-function-entry=5" "gcc -pg -mfentry"; do
	build lk $v -O2 "$P/ulat_lock.c" -lpthread || continue
	for i in 1 2 3; do
		rec t.dat -p lockheld -- ./lk stress 40
		read -r o m tid < <(sed -n 's/^stress_long us=\([0-9]*\) lock=\(0x[0-9a-f]*\) tid=\([0-9]*\)$/\1 \2 \3/p' rec.out)
		[ -n "${tid:-}" ] || fail "$v: the program said $(cat rec.out)"
		out=$(sed -n 's/^stress_long_outer us=\([0-9]*\) .*/\1/p' rec.out)
		"$FTRAIL" show -i t.dat >show.out 2>show.err || fail "$v: show: $(cat show.err)"
		max=$(sed -n 's/^# tracing_max_latency: \([0-9]*\) us$/\1/p' show.out)
		# the hold the program measured inside lock..unlock, within 5%, or more
		# when the thread was preempted around its clock reads: never more
		# than the hold measured around the two calls (5% for the clocks)
		within "${max:-0}" "$o" 5 || { [ "${max:-0}" -gt "$o" ] && within_max "${max:-0}" "$out" 5; } ||
			fail "$v: max $max us, stress_long held $o us ($out us around the calls)"
		[ "$(sec_field lock show.out)" = "$m" ] && grep -q "| task: lk-$tid (pid:" show.out &&
			[ "$(sec_field 'started at' show.out)" = stress_long ] || fail "$v: $(head -n 14 show.out)"
		# nothing lost: the recorder said no loss
		grep -qi 'lost' rec.err && fail "$v: $(cat rec.err)"
		# every section written beat the max before it in its thread's order:
		# at most a few per thread and lock (a new max each, racing threads
		# may both write one), never all 80000
		n=$(awk '/^# lock /{on=1; next} on { s += $3 } END { print s + 0 }' show.out)
		[ "$n" -ge 1 ] && [ "$n" -lt 400 ] || fail "$v: $n sections written: $(cat show.out)"
	done
done
expect_built 2
exit 0
