# description: record -e mounts tracefs itself when root and it is not mounted (in a private mount namespace)
# requires: root tracefs unshare
. "$TOP/tests/e2e/lib.sh"
need_tracefs
need_cmd unshare
unshare -m --propagation private sh -c '
	umount -l /sys/kernel/tracing 2>/dev/null || exit 77
	[ -e /sys/kernel/tracing/trace ] && exit 77
	'"$FTRAIL"' record -q -p nop -e sched:sched_switch -o m.dat -- true || exit 1
	[ -e /sys/kernel/tracing/trace ] || exit 2
	exit 0'
rc=$?
[ $rc -eq 77 ] && skip "cannot unmount tracefs in a private mount namespace here"
[ $rc -eq 2 ] && fail "tracefs is still not mounted after record"
[ $rc -eq 0 ] || fail "record failed without tracefs mounted"
$FTRAIL show -i m.dat | grep -q 'sched_switch:' || fail "no sched_switch events in the trace"
exit 0
