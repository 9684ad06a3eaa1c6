# description: record --flight-recorder with kernel events: each trigger (event trigger snapshot, ftrail snapshot -P, crash, exit) writes the kernel's events of the window beside the program's, show --snapshot=N merges them by time, --last bounds both, what the kernel's ring overwrote is counted, and nothing is written before a trigger
# requires: root tracefs cc
# asan: yes
. "$TOP/tests/e2e/t0399-rec.inc"
need_runtime
need_root
need_tracefs
cc -O1 -pg -I"$TOP/include" -o flight "$TOP/tests/progs/flight.c" -lpthread || fail "build flight"
ticks() { grep -o 'tick: i=[0-9]*' "$1" | sed 's/.*=//'; }
sw() { grep -c 'sched_switch: prev_comm=flight ' "$1"; }

# a crash after 3000 ticks 1 ms apart (each nanosleep switches away): keep 0.5 s
$FTRAIL record -q --flight-recorder --last 0.5 -e u:fl -e sched:sched_switch -o c.dat -- \
	./flight 3000 1000 segv >/dev/null 2>err
[ $? = 139 ] || fail "segv: exit status $?: $(cat err)"
$FTRAIL show -i c.dat --snapshot -O funcgraph-abstime >snap || fail "show --snapshot"
[ "$(ticks snap | tail -1)" = 2999 ] || fail "the dump ends at tick $(ticks snap | tail -1)"
[ "$(sw snap)" -ge 20 ] || fail "$(sw snap) switches of the program in the dump: $(grep -m3 sched_ snap)"
# merged by time: kernel events lie between the ticks, not after them
first_sw=$(grep -n -m1 'sched_switch: prev_comm=flight ' snap | cut -d: -f1)
last_tick=$(grep -n 'tick: i=' snap | tail -1 | cut -d: -f1)
[ "$first_sw" -lt "$last_tick" ] || fail "kernel events not merged with the ticks (first switch at line $first_sw, last tick at $last_tick)"
# nothing older than the window, kernel events included
awk -F'|' '$1 ~ /^ *[0-9]+\.[0-9]+/ { t[NR] = $1 + 0; if ($1 + 0 > last) last = $1 + 0 }
	END { for (i in t) if (t[i] < last - 0.5) { print "old: " t[i] " last " last; exit 1 } }' snap ||
	fail "events older than --last in the dump"
# nothing but the dump: the live trace holds no kernel event
[ "$($FTRAIL show -i c.dat | grep -c 'sched_switch:')" = 0 ] || fail "the flight recorder wrote kernel events to the live trace"

# an event trigger takes two snapshots (ticks 0-99, 100-199), the exit a third: each
# holds the kernel events of its own window, none twice
$FTRAIL record -q --flight-recorder -e u:fl:tick -e u:fl:mark -R snapshot:2 -e sched:sched_switch \
	-o t.dat -- ./flight 400 1000 exit >/dev/null 2>err
[ $? = 3 ] || fail "exit status: $(cat err)"
for n in 1 2 3; do
	$FTRAIL show -i t.dat --snapshot=$n >s$n || fail "show --snapshot=$n"
	[ "$(sw s$n)" -ge 10 ] || fail "snapshot $n: $(sw s$n) switches of the program"
done
[ "$(ticks s2 | head -1)-$(ticks s2 | tail -1)" = 100-199 ] || fail "snapshot 2: ticks $(ticks s2 | head -1)-$(ticks s2 | tail -1)"
stamps() { grep 'sched_switch: prev_comm=flight ' "$1" | grep -o ' [0-9]*\.[0-9]*: ' | sort; }
[ -z "$(comm -12 <(stamps s1) <(stamps s2))" ] || fail "kernel events in snapshots 1 and 2"
[ -z "$(comm -12 <(stamps s2) <(stamps s3))" ] || fail "kernel events in snapshots 2 and 3"

# armed, nothing is written, kernel events included; ftrail snapshot -P writes them
$FTRAIL record -q --flight-recorder -e u:fl -e sched:sched_switch -o w.dat -- \
	./flight 100 1000 wait >/dev/null 2>err &
rec=$!
pid=
for i in $(seq 1 300); do
	pid=$(pgrep -P $rec -x flight) && [ -n "$pid" ] && [ -s w.dat.partial ] && break
	sleep 0.1
done
[ -n "$pid" ] || { touch stop; fail "the program did not start: $(cat err)"; }
sleep 1
s1=$(stat -c %s w.dat.partial)
sleep 2 # the program polls ./stop every 10 ms: a switch each time
s2=$(stat -c %s w.dat.partial)
$FTRAIL snapshot -P "$pid" 1 || { touch stop; fail "ftrail snapshot -P $pid 1"; }
for i in $(seq 1 300); do
	[ "$(stat -c %s w.dat.partial)" != "$s2" ] && break
	sleep 0.1
done
s3=$(stat -c %s w.dat.partial)
touch stop
wait $rec
[ $? = 3 ] || fail "wait: exit status: $(cat err)"
[ "$s1" = "$s2" ] || fail "the trace grew from $s1 to $s2 bytes while armed"
[ "$s3" != "$s2" ] || fail "ftrail snapshot -P wrote nothing"
$FTRAIL show -i w.dat --snapshot=1 >w1 || fail "show w.dat 1"
[ "$(sw w1)" -ge 50 ] || fail "ftrail snapshot's dump: $(sw w1) switches of the program in 3 s of polling"

# a kernel ring of 8 KiB per CPU overwrites: the dump counts what it lost
$FTRAIL record -q --flight-recorder -b 8 -e u:fl -e sched:sched_switch -o l.dat -- \
	./flight 2000 200 exit >/dev/null 2>err
[ $? = 3 ] || fail "exit status: $(cat err)"
$FTRAIL show -i l.dat --snapshot >lsnap || fail "show l.dat"
[ "$(sw lsnap)" -ge 1 ] || fail "no kernel event in the small ring's dump"
grep -q 'CPU:[0-9]* \[LOST [0-9]* EVENTS\]' lsnap || fail "the kernel's overwritten events are not counted: $(grep -m2 LOST lsnap)"
$FTRAIL info -i l.dat | grep -q '^# section KSNAP *: [1-9]' || fail "info: no KSNAP section: $($FTRAIL info -i l.dat | grep section)"
exit 0
