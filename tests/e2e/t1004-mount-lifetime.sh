# description: mount: the tree goes away cleanly when the program exits (files open included), on SIGTERM/SIGINT of ftrail mount, and when its recorder is killed
# requires: root fuse gcc
# asan: no
. "$TOP/tests/e2e/t1019-mount.inc"
build_loop

# 1. record --mount: the program exits while a file is open: record returns, tree gone
start_rec m -p function -l alpha
exec 3<m/stack_map_stat
touch stop
wait "$REC" || fail "record exited $?: $(cat rec.err)"
REC=
exec 3<&-
! mounted m || fail "m still mounted after record returned"
[ -z "$(ls -A m)" ] || fail "m not left empty"
grep -q "trace written to t.dat" rec.err && fail "-q printed the summary"
[ -s t.dat ] || fail "no trace"

# 2. ftrail mount -P on a running recording, ended by SIGTERM then SIGINT
rm -f stop t.dat
$FTRAIL record -q -o t.dat -p function -l alpha -- ./loop >rec.out 2>rec.err &
REC=$!
for i in $(seq 300); do
	pid=$(pgrep -P "$REC" -x loop) && break
	sleep 0.1
done
[ -n "$pid" ] || fail "no traced program"
for sig in TERM INT; do
	mkdir "k$sig"
	MNT=k$sig
	$FTRAIL mount --wait 10000 -P "$pid" "k$sig" 2>mnt.err &
	srv=$!
	wait_mounted "k$sig" "$srv"
	expect_eq "tracing_on via mount" "$(cat "k$sig/tracing_on")" 1
	kill -"$sig" "$srv"
	wait "$srv" || fail "ftrail mount exited $? on SIG$sig: $(cat mnt.err)"
	! mounted "k$sig" || fail "still mounted after SIG$sig"
	[ -s mnt.err ] && fail "ftrail mount printed: $(cat mnt.err)"
done

# 3. the program ends: ftrail mount ends too, unmounted, exit 0
mkdir e
MNT=e
$FTRAIL mount -P "$pid" e 2>mnt.err &
srv=$!
wait_mounted e "$srv"
touch stop
wait "$REC" || fail "record exited $?"
REC=
for i in $(seq 300); do
	kill -0 "$srv" 2>/dev/null || break
	sleep 0.1
done
wait "$srv" || fail "ftrail mount exited $? when the program ended: $(cat mnt.err)"
! mounted e || fail "e still mounted after the program ended"

# 4. the recorder is killed outright: the server started by record --mount goes too
rm -f stop
start_rec r -p function -l alpha
srv=$(pgrep -f -- "mount -P [0-9]* --wait 10000 --watch $REC -- r\$") || fail "no mount server for record"
kill -KILL "$REC"
wait "$REC" 2>/dev/null
REC=
for i in $(seq 300); do
	mounted r || break
	sleep 0.1
done
! mounted r || fail "r still mounted 30 s after the recorder was killed"
alive() { [ -e "/proc/$1" ] && ! grep -q '^State:.*zombie' "/proc/$1/status" 2>/dev/null; }
for i in $(seq 300); do
	alive "$srv" || break
	sleep 0.1
done
alive "$srv" && fail "the mount server outlived its recorder by 30 s"
touch stop
exit 0
