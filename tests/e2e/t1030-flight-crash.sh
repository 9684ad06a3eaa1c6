# description: record --flight-recorder dumps its rings after a crash (SIGSEGV, SIGABRT), from the shared memory: the last events before the crash, none older than --last, nothing lost in between; without --last a small ring keeps its newest records only
# requires: cc
# asan: yes
. "$TOP/tests/e2e/t0399-rec.inc"
need_runtime
cc -O1 -pg -I"$TOP/include" -o flight "$TOP/tests/progs/flight.c" -lpthread || fail "build flight"
ticks() { grep -o 'tick: i=[0-9]*' "$1" | sed 's/.*=//'; }
consecutive() { awk 'NR > 1 && $1 != p + 1 { exit 1 } { p = $1 }'; }

# 3000 ticks 1 ms apart (3 s or more), then SIGSEGV; keep the last 0.5 s
$FTRAIL record -q --flight-recorder --last 0.5 -e u:fl -o c.dat -- ./flight 3000 1000 segv \
	>/dev/null 2>err
[ $? = 139 ] || fail "segv: exit status $?: $(cat err)"
$FTRAIL show -i c.dat --snapshot -O funcgraph-abstime >snap || fail "show --snapshot"
[ "$(ticks snap | tail -1)" = 2999 ] || fail "the dump ends at tick $(ticks snap | tail -1), not at the last before the crash"
ticks snap | consecutive || fail "ticks missing inside the window"
n=$(ticks snap | wc -l)
[ "$n" -ge 50 ] && [ "$n" -lt 3000 ] || fail "$n ticks in a 0.5 s window of 1 ms ticks"
# nothing older than the window: every line within 0.5 s of the last one
awk -F'|' '$1 ~ /^[0-9]/ { t[NR] = $1 + 0; if ($1 + 0 > last) last = $1 + 0 }
	END { for (i in t) if (t[i] < last - 0.5) { print "old: " t[i] " last " last; exit 1 } }' snap ||
	fail "events older than --last in the dump"
# the helper thread exited long before the window: not in it
grep -q 'helper: i=' snap && fail "the exited helper's events are older than the window"
grep -q 'trigger=crash' c.dat || grep -aq 'trigger=crash' c.dat || fail "the snapshot does not say it was a crash"
# nothing but the dump: the live trace holds no tick
[ "$(ticks <($FTRAIL show -i c.dat) | wc -l)" = 0 ] || fail "the flight recorder wrote the live trace"

# abort, a small ring and no window: its newest records, the exited thread's kept aside
$FTRAIL record -q --flight-recorder -b 16 -e u:fl -o a.dat -- ./flight 3000 0 abort >/dev/null 2>err
[ $? = 134 ] || fail "abort: exit status $?: $(cat err)"
$FTRAIL show -i a.dat --snapshot >asnap || fail "show a.dat"
[ "$(ticks asnap | tail -1)" = 2999 ] || fail "abort: the dump ends at $(ticks asnap | tail -1)"
ticks asnap | consecutive || fail "abort: ticks missing"
[ "$(ticks asnap | head -1)" -gt 0 ] || fail "a 16 KiB ring kept every tick: no overwrite?"
[ "$(grep -c 'helper: i=' asnap)" = 50 ] || fail "the exited thread's ring was not kept ($(grep -c 'helper: i=' asnap) events)"
grep -q 'LOST [0-9]* EVENTS' asnap || fail "the overwritten records are not counted in the dump"
exit 0
