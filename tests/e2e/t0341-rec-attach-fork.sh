# description: record -P: a program that forks while attached: its children are traced from their start, the parent runs on right after the detach
# requires: cc
. "$TOP/tests/e2e/t0349-attach.inc"
for flags in "-O2 -fpatchable-function-entry=5" "-O2 -pg"; do
	build srv gcc $flags "$P/attach_srv.c" -lpthread || continue
	start_srv ./srv 2 1
	"$FTRAIL" record -P "$SRV_PID" --duration 1 -o f.dat >rec.out 2>rec.err ||
		fail "$flags: $(cat rec.err)"
	"$FTRAIL" show -i f.dat >show.out || fail "$flags: show"
	# the children: work(7) = 7 steps, 14 leaves, in a process of their own
	kids=$(grep -v '^#' show.out | sed -n 's/^ *[0-9]*)  *[^ ]*-\([0-9][0-9]*\)  *|.*/\1/p' |
		sort -u | grep -vx -f <(ls /proc/"$SRV_PID"/task) | wc -l)
	[ "$kids" -ge 3 ] || fail "$flags: $kids forked children in the trace"
	sleep 0.3
	stop_srv
	grep -q 'errors=0 text_changed=0 sigtrap_changed=0 fds_changed=0$' srv.out ||
		fail "$flags: the program changed: $(cat srv.out)"
done
expect_built 2
exit 0
