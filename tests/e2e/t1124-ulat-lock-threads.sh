# description: -p lockheld with five threads: four contend briefly for one mutex, one holds another 100 ms
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
. "$TOP/tests/e2e/t1139-ulat.inc"
for v in "gcc -fpatchable-function-entry=5" "gcc -finstrument-functions"; do
	build lk $v -O2 "$P/ulat_lock.c" -lpthread || continue
	for i in 1 2 3; do
		rec t.dat -p lockheld -- ./lk threads 100
		read -r o b tid < <(sed -n 's/^hold_b us=\([0-9]*\) lock=\(0x[0-9a-f]*\) tid=\([0-9]*\)$/\1 \2 \3/p' rec.out)
		"$FTRAIL" show -i t.dat >show.out 2>show.err || fail "$v: show: $(cat show.err)"
		max=$(sed -n 's/^# tracing_max_latency: \([0-9]*\) us$/\1/p' show.out)
		within "${max:-0}" "$o" 5 || fail "$v: max $max us, hold_b held $o us"
		grep -q "| task: lk-$tid (pid:" show.out && [ "$(sec_field lock show.out)" = "$b" ] &&
			[ "$(sec_field 'started at' show.out)" = hold_b ] || fail "$v: $(cat show.out)"
		# both locks in the table; the short holds' lock names a short holder
		[ "$(awk '/^# lock /{on=1; next} on' show.out | wc -l)" = 2 ] || fail "$v: $(cat show.out)"
		row=$(awk -v b="$b" '/^# lock /{on=1; next} on && $1 != b' show.out)
		set -- $row
		[ "$2" -lt "$max" ] && [[ $4 == lk-* ]] && [ "${4#lk-}" != "$tid" ] || fail "$v: row '$row'"
	done
done
expect_built 2
exit 0
