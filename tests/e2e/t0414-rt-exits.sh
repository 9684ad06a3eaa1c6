# description: exit, _exit, SIGSEGV and abort: status kept, events before the end are in the trace, crash reported
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
for flags in "-pg -mfentry" "-fpatchable-function-entry=5" "-finstrument-functions"; do
	build ex gcc -O2 $flags "$P/exits.c" || fail "build"
	for how in exit _exit segv abort; do
		"$FTRAIL" record -o t.dat -- ./ex $how >out 2>err
		[ "$(calls t.dat work)" = 1 ] || fail "$flags $how: work not in the trace"
		[ "$(calls t.dat leave)" = 1 ] || fail "$flags $how: leave not in the trace"
		case $how in
		segv) grep -qi 'signal 11\|segmentation' err || fail "$flags: crash not reported: $(cat err)" ;;
		abort) grep -qi 'signal 6\|abort' err || fail "$flags: abort not reported: $(cat err)" ;;
		esac
	done
done
exit 0
