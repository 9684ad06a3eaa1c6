# description: the snapshot trigger (-R snapshot:COUNT on a user event) and function command (-l FUNC:snapshot:COUNT) take exactly COUNT snapshots, each ending where it fired; no count takes one per hit the recorder can save
# requires: cc
. "$TOP/tests/e2e/t0399-rec.inc"
need_runtime
cc -O1 -pg -I"$TOP/include" -o ticks "$TOP/tests/progs/snap_ticks.c" || fail "build"
ticks() { grep -o ' tick: i=[0-9]*' "$1" | sed 's/.*=//'; }
consecutive() { awk 'NR > 1 && $1 != p + 1 { exit 1 } { p = $1 }'; }
# META lines are raw text in the file; a section header's checksum bytes may
# run into the first one, so the key is found anywhere, not at a line start
meta() { grep -ao "$2=[^[:cntrl:]]*" "$1" | tail -1 | sed "s/^$2=//"; }
# a mark every 500 ticks (100 ms): snapshot:2 fires at the marks of ticks 499 and 999
$FTRAIL record -q -p nop -e u:snap:tick -e u:snap:mark -R snapshot:2 -o e.dat -- ./ticks 3000 500 \
	>/dev/null 2>err || fail "record (trigger): $(cat err)"
[ "$(meta e.dat snapshot_swaps)" = 2 ] || fail "trigger snapshot:2 took $(meta e.dat snapshot_swaps) snapshots"
$FTRAIL show -i e.dat --snapshot=1 >s1 || fail "show 1"
$FTRAIL show -i e.dat --snapshot=2 >s2 || fail "show 2"
[ "$(ticks s1 | head -1)-$(ticks s1 | tail -1)" = "0-499" ] || fail "snapshot 1 holds ticks $(ticks s1 | head -1)-$(ticks s1 | tail -1)"
[ "$(ticks s2 | head -1)-$(ticks s2 | tail -1)" = "500-999" ] || fail "snapshot 2 holds ticks $(ticks s2 | head -1)-$(ticks s2 | tail -1)"
ticks s1 | consecutive && ticks s2 | consecutive || fail "snapshot ticks not consecutive"
# the event that fired is written after the swap: first in the new buffer
grep -q ' mark: i=499$' s1 && fail "the firing event is in the snapshot it took"
grep -q ' mark: i=499$' s2 || fail "the firing event is not in the following buffer"
[ "$(ticks <($FTRAIL show -i e.dat) | wc -l)" = 3000 ] || fail "live trace lost ticks"

# the function command, with the function tracer
$FTRAIL record -q -p function -l 'mark:snapshot:2' -e u:snap -o f.dat -- ./ticks 3000 500 \
	>/dev/null 2>err || fail "record (function command): $(cat err)"
[ "$(meta f.dat snapshot_swaps)" = 2 ] || fail "mark:snapshot:2 took $(meta f.dat snapshot_swaps) snapshots"
$FTRAIL show -i f.dat --snapshot=2 >f2 || fail "show f 2"
[ "$(ticks f2 | head -1)-$(ticks f2 | tail -1)" = "500-999" ] || fail "function command snapshot 2: ticks $(ticks f2 | head -1)-$(ticks f2 | tail -1)"

# no count: a snapshot per mark (6; a save takes far less than the 100 ms between marks)
$FTRAIL record -q -p nop -e u:snap:tick -e u:snap:mark -R snapshot -o u.dat -- ./ticks 3000 500 \
	>/dev/null 2>err || fail "record (no count): $(cat err)"
[ "$(meta u.dat snapshot_swaps)" = 6 ] || fail "snapshot without count: $(meta u.dat snapshot_swaps) swaps, $(meta u.dat snapshot_skipped) skipped"
$FTRAIL show -i u.dat --snapshot >last || fail "show last"
[ "$(ticks last | head -1)-$(ticks last | tail -1)" = "2500-2999" ] || fail "last snapshot: ticks $(ticks last | head -1)-$(ticks last | tail -1)"
exit 0
