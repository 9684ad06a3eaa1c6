# description: -p lockheld: max vs --tracing-thresh semantics, a cond wait releases the mutex, trylock
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
. "$TOP/tests/e2e/t1139-ulat.inc"
# own NAME: the microseconds and lock the program reported for NAME
own() { sed -n "s/^$1 us=\\([0-9]*\\) lock=\\(0x[0-9a-f]*\\) .*/\\1 \\2/p" rec.out; }
show() { "$FTRAIL" show -i t.dat "$@" >show.out 2>show.err || fail "$v: show: $(cat show.err)"; }
lat() { sed -n 's/^ latency: \([0-9]*\) us,.*/\1/p' show.out; }
for v in "gcc -fpatchable-function-entry=5" "gcc -pg -mfentry"; do
	build lk $v -O2 "$P/ulat_lock.c" -lpthread || continue
	# a 120 ms hold of a, then a 30 ms hold of b: the second is no new max
	rec t.dat -p lockheld -- ./lk two 30
	read -r o1 a < <(own hold_long)
	read -r o2 b < <(own hold_b)
	show
	[ "$(lat)" = "$(sed -n 's/^# tracing_max_latency: \([0-9]*\) us$/\1/p' show.out)" ] &&
		within "$(lat)" "$o1" 5 || fail "$v two: $(lat) us, held $o1 us"
	grep -q "^  $a " show.out || fail "$v two: no row for $a: $(cat show.out)"
	grep -q "^  $b " show.out && fail "$v two: $b's 30 ms written though no new max: $(cat show.out)"
	# tracing_thresh: every section over it, both here, in time order
	rec t.dat -p lockheld --tracing-thresh 20000 -- ./lk two 30
	read -r o1 a < <(own hold_long)
	read -r o2 b < <(own hold_b)
	show
	grep -q '^# tracing_thresh: every section' show.out || fail "$v thresh: $(head -n 5 show.out)"
	set -- $(lat)
	[ $# = 2 ] && within "$1" "$o1" 5 && within "$2" "$o2" 5 ||
		fail "$v thresh: latencies $*, the program held $o1 and $o2 us"
	[ "$(sed -n 's/^ => lock: *//p' show.out | tr '\n' ' ')" = "$a $b " ] ||
		fail "$v thresh: locks $(sed -n 's/^ => lock: *//p' show.out)"
	[ "$(sed -n 's/^ => started at: *//p' show.out | tr '\n' ' ')" = "hold_long hold_b " ] ||
		fail "$v thresh: $(grep started show.out)"
	# a cond wait of 90 ms releases the mutex: the max is the 30 ms before it
	rec t.dat -p lockheld -- ./lk cond 30
	read -r o b < <(own cond_before)
	show
	set -- $(lat)
	[ $# = 1 ] && within "$1" "$o" 5 || fail "$v cond: $* us, held $o us before the wait"
	[ "$(sec_field 'ended at' show.out)" = cond_long ] &&
		grep -qE ': pthread_cond_timedwait \(cond_long\)$' show.out ||
		fail "$v cond: $(cat show.out)"
	# trylock: the one that took a is timed, the one that failed is not
	# (100 ms: longer than main's hold around a thread's start and join)
	rec t.dat -p lockheld -- ./lk try 100
	read -r o a < <(own try_hold)
	show
	within "$(lat)" "$o" 5 || fail "$v try: $(lat) us, held $o us"
	[ "$(sec_field 'started at' show.out)" = try_hold ] &&
		grep -qE '0us.: pthread_mutex_trylock \(try_hold\)$' show.out || fail "$v try: $(cat show.out)"
	# a failed trylock opens nothing: no section of another thread
	[ "$(grep -c "^  $a " show.out)" = 1 ] &&
		[ "$(awk '/^# lock /{on=1; next} on' show.out | wc -l)" = 1 ] || fail "$v try: $(cat show.out)"
done
expect_built 2
exit 0
