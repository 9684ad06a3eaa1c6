# description: mount: ftrail mount -P on a recording started without --mount starts the program's live thread, so a change still reaches it after a selection that patches nothing it runs
# requires: root fuse gcc
# asan: yes
. "$TOP/tests/e2e/t1019-mount.inc"
build_loop
$FTRAIL record -q -o t.dat -b 8 -p function -l alpha -- ./loop >rec.out 2>rec.err &
REC=$!
prog=
for i in $(seq 300); do
	prog=$(pgrep -P "$REC" -x loop) && break
	sleep 0.1
done
[ -n "$prog" ] || fail "no traced program: $(cat rec.err)"
has_live() { grep -qx ftrail-live /proc/"$prog"/task/*/comm 2>/dev/null; }
has_live && fail "a live thread before any mount (recorded without --mount)"
mkdir m
MNT=m
$FTRAIL mount -P "$prog" m >mnt.out 2>mnt.err &
mnt=$!
wait_mounted m "$mnt"
# the program's next traced call (alpha, every 2 ms) starts the thread
for i in $(seq 300); do
	has_live && break
	sleep 0.1
done
has_live || fail "no ftrail-live thread in the program after the mount: $(cat /proc/"$prog"/task/*/comm | tr '\n' ' ')"
# run() is never called again: with it alone selected nothing the program
# runs is patched, and only the live thread can take the next change
echo run >m/set_ftrace_filter
echo deaf-1 >m/trace_marker
sleep 1
echo beta >m/set_ftrace_filter
echo beta-on >m/trace_marker
cat m/trace_pipe >p.out 2>p.err &
c=$!
for i in $(seq 600); do
	sed -n '/beta-on$/,$p' p.out | grep -q 'beta <-run$' && break
	sleep 0.1
done
sed -n '/beta-on$/,$p' p.out | grep -q 'beta <-run$' ||
	fail "the change after a deaf selection never reached the program: $(tail -n 3 p.out)"
touch stop
wait "$REC" || fail "record exited $?: $(cat rec.err)"
REC=
wait_exit $mnt "ftrail mount"
! mounted m || fail "m still mounted"
kill $c 2>/dev/null
exit 0
