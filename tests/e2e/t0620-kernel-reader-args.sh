# description: stacks -e, latency --from/--to/--key/--label and flame --from-folded refuse what the input does not have: one line, non-zero exit, nothing on stdout
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
# a real kernel recording (sched_switch/sched_wakeup with stacks), shrunk
cp "$TOP/tests/fuzz/corpus/kern-offcpu-ustack" k.dat || fail "no kernel seed trace"

# only_err "glob" cmd...: expect_fail, and stdout stays empty (no header first)
only_err() {
	local pat=$1
	shift
	expect_fail "$pat" "$@"
	[ -z "$("$@" 2>/dev/null)" ] || fail "'$*' printed on stdout before failing: $("$@" 2>/dev/null | head -3)"
}

# stacks -e: a pattern that selects no event of the trace is an error
only_err "ftrail: stacks: no event matches 'nosuch:event' in k.dat" $FTRAIL stacks -i k.dat -e nosuch:event
only_err "ftrail: stacks: no event matches 'nosuch' in k.dat" $FTRAIL stacks -i k.dat -e sched -e nosuch
for e in sched 'sched:*' sched:sched_switch all; do
	$FTRAIL stacks -i k.dat -e "$e" >out 2>err || fail "stacks -e $e: $(cat err)"
	grep -q "^[1-9][0-9]* unique stacks" out || fail "stacks -e $e found nothing: $(tail -1 out)"
done

# latency: events and fields are checked before the table header is printed
only_err "ftrail: latency: no 'sched:nosuch' event in k.dat" \
	$FTRAIL latency -i k.dat --from sched:sched_switch --to sched:nosuch
only_err "ftrail: latency: event sched:sched_switch has no field 'nofield' to use as --key; its fields: *" \
	$FTRAIL latency -i k.dat --from sched:sched_switch --to sched:sched_wakeup --key nofield
only_err "ftrail: latency: event sched:sched_switch has no field 'nolabel' to use as --label" \
	$FTRAIL latency -i k.dat --from sched:sched_switch --to sched:sched_wakeup --label nolabel
$FTRAIL latency -i k.dat --from sched:sched_wakeup --to sched:sched_switch --key cpu >out 2>err ||
	fail "latency wakeup->switch by cpu: $(cat err)"
grep -q "^BEGIN(s)" out || fail "latency printed no table: $(head -3 out)"

# flame --from-folded: no stacks in the input is an error, and no picture is left
: >empty.folded
printf '\n\n' >blank.folded
only_err "ftrail: empty.folded: no folded stacks*" $FTRAIL flame --from-folded empty.folded
only_err "ftrail: blank.folded: no folded stacks*" $FTRAIL flame --from-folded blank.folded -o b.svg
[ ! -e b.svg ] || fail "a failed flame left b.svg behind"
only_err "ftrail: stdin: no folded stacks*" $FTRAIL flame --from-folded - <empty.folded
printf 'main;a 3\n' >one.folded
$FTRAIL flame --from-folded one.folded -o one.svg || fail "flame of one stack failed"
grep -q "<svg" one.svg || fail "no svg written"

# record --stackmap-bits: out of [10,18] is refused, not clamped
expect_fail "ftrail: --stackmap-bits wants a number in \[10,18\], not '40'" $FTRAIL record --stackmap-bits 40 -- true
expect_fail "ftrail: --stackmap-bits wants a number in \[10,18\], not '9'" $FTRAIL record --stackmap-bits 9 -- true
[ ! -e ftrail.dat ] || fail "a refused record wrote ftrail.dat"
exit 0
