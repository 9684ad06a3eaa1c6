# description: -p lockheld with record -P: a running program's 20 ms holds found after the attach, the program runs on
# requires: cc
# asan: yes
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
. "$TOP/tests/e2e/t1139-ulat.inc"
build lk gcc -O2 -fpatchable-function-entry=5 "$P/ulat_lock.c" -lpthread || fail "build"
./lk loop 20 stop >lk.out 2>&1 &
pid=$!
trap 'touch stop; wait $pid 2>/dev/null' EXIT
for _ in $(seq 50); do grep -q '^loop lock=' lk.out && break; sleep 0.1; done
lock=$(sed -n 's/^loop lock=//p' lk.out)
[ -n "$lock" ] || fail "the program said $(cat lk.out)"
"$FTRAIL" record -q -p lockheld -P "$pid" --duration 1 -o t.dat >rec.out 2>rec.err ||
	fail "record -P: $(cat rec.err)"
"$FTRAIL" show -i t.dat >show.out 2>show.err || fail "show: $(cat show.err)"
max=$(sed -n 's/^# tracing_max_latency: \([0-9]*\) us$/\1/p' show.out)
# at least the 20 ms it sleeps; more is the load's (a generous bound)
[ "${max:-0}" -ge 19000 ] && [ "$max" -le 500000 ] || fail "max ${max:-none} us: $(head -n 12 show.out)"
[ "$(sec_field 'started at' show.out)" = hold_loop ] && [ "$(sec_field lock show.out)" = "$lock" ] ||
	fail "$(head -n 14 show.out)"
# it runs on, untraced, and stops when told
kill -0 "$pid" || fail "the program died after the detach"
touch stop
wait "$pid" || fail "the program's status: $?"
trap - EXIT
exit 0
