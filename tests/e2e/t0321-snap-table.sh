# description: ftrail snapshot drives ftrace's snapshot table on a running trace: 0/2 do nothing unallocated, 1 allocs+swaps, 2 clears, 1 swaps, 0 frees; every snapshot is in the file in order, each a run of consecutive ticks
# requires: cc
. "$TOP/tests/e2e/t0399-rec.inc"
need_runtime
need_cmd pgrep
cc -O1 -I"$TOP/include" -o ticks "$TOP/tests/progs/snap_ticks.c" || fail "build"
state() { $FTRAIL snapshot -P "$pid" | sed -n 's/^snapshot: //p'; }
# the traced program's pid: record's child "ticks" (t0324 runs a "ticks" of its own)
$FTRAIL record -q -p nop -e u:snap -o c.dat -- ./ticks >prog.out 2>err &
rec=$!
for _ in $(seq 100); do
	pid=$(pgrep -P $rec -x ticks) && [ -n "$pid" ] && $FTRAIL snapshot -P "$pid" >/dev/null 2>&1 && break
	sleep 0.05
done
[ -n "${pid:-}" ] || fail "the traced program did not start"
sleep 0.2
[ "$(state)" = "not allocated" ] || fail "start: $(state)"
$FTRAIL snapshot -P "$pid" 0 || fail "0 unallocated"
$FTRAIL snapshot -P "$pid" 2 || fail "2 unallocated"
[ "$(state)" = "not allocated" ] || fail "0 and 2 must do nothing when not allocated: $(state)"
$FTRAIL snapshot -P "$pid" 1 || fail "1 (alloc+swap)"
[ "$(state)" = "allocated" ] || fail "1 must allocate: $(state)"
sleep 0.2
$FTRAIL snapshot -P "$pid" 7 || fail "7 (clear)"
[ "$(state)" = "allocated" ] || fail "clear must keep the buffer: $(state)"
sleep 0.2
$FTRAIL snapshot -P "$pid" 1 || fail "1 (swap)"
sleep 0.2
$FTRAIL snapshot -P "$pid" 0 || fail "0 (free)"
[ "$(state)" = "not allocated" ] || fail "0 must free: $(state)"
$FTRAIL snapshot -P "$pid" | grep -q '^swaps: 2$' || fail "swaps: $($FTRAIL snapshot -P "$pid")"
touch stop
wait $rec || fail "record: $(cat err)"
# the file: taken, cleared, taken, freed
for n in 1 2 3 4; do
	$FTRAIL show -i c.dat --snapshot=$n >s$n || fail "show --snapshot=$n"
done
ticks() { grep -o ' tick: i=[0-9]*' "$1" | sed 's/.*=//'; }
consecutive() { awk 'NR > 1 && $1 != p + 1 { exit 1 } { p = $1 }'; }
[ "$(ticks s1 | head -1)" = 0 ] || fail "snapshot 1 does not start at tick 0"
ticks s1 | consecutive || fail "snapshot 1: ticks not consecutive"
grep -q '^# \* Snapshot is allocated \*$' s2 || fail "snapshot 2 (cleared): $(head -5 s2)"
ticks s2 | grep -q . && fail "snapshot 2 (cleared) shows ticks"
ticks s3 | consecutive || fail "snapshot 3: ticks not consecutive"
# the second swap took what was written since the first: it starts right after snapshot 1
[ "$(ticks s3 | head -1)" = $(($(ticks s1 | tail -1) + 1)) ] ||
	fail "snapshot 3 starts at $(ticks s3 | head -1), snapshot 1 ended at $(ticks s1 | tail -1)"
grep -q '^# \* Snapshot is freed \*$' s4 || fail "snapshot 4 (freed): $(head -5 s4)"
$FTRAIL show -i c.dat --snapshot >last || fail "show --snapshot"
cmp -s last s4 || fail "show --snapshot is not the last one"
expect_fail "ftrail: show: c.dat holds no snapshot 5" $FTRAIL show -i c.dat --snapshot=5
# the live trace still has every tick: a snapshot is a copy
read -r n < <(sed 's/ticks=//' prog.out)
[ "$(ticks <($FTRAIL show -i c.dat) | wc -l)" = "$n" ] || fail "live trace lost ticks"
ticks <($FTRAIL show -i c.dat) | consecutive || fail "live trace: ticks not consecutive"
grep -aq 'snapshot_swaps=2$' c.dat || fail "META snapshot_swaps"
exit 0
