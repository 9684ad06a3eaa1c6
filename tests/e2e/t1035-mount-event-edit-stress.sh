# description: mount: hundreds of filter and trigger edits while four threads and a signal handler emit the event without pause; every edit is answered, the program and the trace come out whole, and the last filter holds afterwards
# requires: root fuse gcc
# asan: yes
. "$TOP/tests/e2e/t1019-mount.inc"
gcc -O1 -pthread -I"$TOP/include" -o eve "$TOP/tests/progs/ev_edit.c" || fail "build ev_edit"
mkdir m
MNT=m
# from the start nothing passes the filter: the storm costs no trace
$FTRAIL record -q -o t.dat --mount m -p nop -b 4096 -e u:edit -f 't == 9' -- ./eve >prog.out 2>rec.err &
REC=$!
wait_mounted m "$REC"
wait_dir m/events/u/edit/ev
f=m/events/u/edit/ev/filter
t=m/events/u/edit/ev/trigger
edits=0
for i in $(seq 100); do
	echo "t == 9 && i == $i" >$f || fail "filter edit $i"
	echo "stacktrace if t == 9" >$t || fail "trigger add $i"
	echo "traceon:$i if n == 4000000000" >m/events/u/edit/sig/trigger || fail "sig trigger add $i"
	echo '!stacktrace' >$t || fail "trigger remove $i"
	echo '!traceon' >m/events/u/edit/sig/trigger || fail "sig trigger remove $i"
	edits=$((edits + 5))
	kill -0 $REC 2>/dev/null || fail "record ended during the edits: $(cat rec.err)"
done
expect_eq "filter after the storm" "$(cat $f)" "t == 9 && i == 100"
grep -q '^# Available triggers:' $t || fail "trigger after the storm: $(cat $t)"
# the last filter holds: only thread 1's events from here
echo 't == 1' >$f
sleep 1
echo after-1 >m/trace_marker
sleep 1
echo after-2 >m/trace_marker
touch stop
wait $REC || fail "record exited $?: $(cat rec.err)"
REC=
grep -q '^ev=[1-9][0-9]* sig=' prog.out || fail "the program's totals: $(cat prog.out)"
$FTRAIL show -i t.dat >out || fail "show"
section after-1 after-2 <out | grep ' ev: ' >last || :
[ -s last ] || fail "no event of thread 1 between the markers"
grep -qv ' ev: t=1 i=[0-9]*$' last && fail "events of other threads passed 't == 1': $(grep -v ' ev: t=1 ' last | head -3)"
# no filter of the storm let an event through (threads 0-3 only, never t == 9)
grep ' ev: ' out | grep -v ' ev: t=1 ' >other || :
[ -s other ] && fail "events outside the last filter: $(head -3 other)"
grep -q ' sig: n=' out || fail "no sig event (no filter on it)"
echo "$edits edits"
exit 0
