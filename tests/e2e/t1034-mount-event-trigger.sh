# description: mount: echo CMD > events/u/<sys>/<event>/trigger adds a trigger to the running program's event (traceoff stops tracing, snapshot saves one), echo '!CMD' removes it, a duplicate gives EEXIST, removing a missing one ENOENT, a bad one EINVAL with a line in error_log
# requires: root fuse gcc
# asan: yes
. "$TOP/tests/e2e/t1019-mount.inc"
start_evs m -p nop -e u:sleepy:tick
t=m/events/u/sleepy/tick/trigger
# wait_file FILE VALUE: until cat FILE shows VALUE (30 s at most)
wait_file() {
	local i
	for i in $(seq 300); do
		[ "$(cat "$1")" = "$2" ] && return 0
		sleep 0.1
	done
	fail "$1: '$(cat "$1")', expected '$2'"
}
grep -q '^# Available triggers:' $t || fail "trigger at start: $(cat $t)"
expect_eq "tracing_on at start" "$(cat m/tracing_on)" 1
# traceoff: the next tick turns tracing off
echo traceoff >$t
expect_eq "trigger added" "$(cat $t)" "traceoff:unlimited"
wait_file m/tracing_on 0
write_fails "File exists" $t traceoff
# removed: tracing stays on once switched back
echo '!traceoff' >$t
grep -q '^# Available triggers:' $t || fail "trigger after removal: $(cat $t)"
echo 1 >m/tracing_on
sleep 1
expect_eq "tracing_on after the trigger went" "$(cat m/tracing_on)" 1
write_fails "No such file or directory" $t '!traceoff'
# bad commands: EINVAL, a line in error_log, nothing changed
: >m/error_log
write_fails "Invalid argument" $t bogus
write_fails "Invalid argument" $t 'traceoff if nosuch > 1'
grep -q '^\[.*\] trigger: error: .*bogus' m/error_log || fail "error_log: $(cat m/error_log)"
grep -q '^  Command: traceoff if nosuch > 1$' m/error_log || fail "error_log: $(cat m/error_log)"
grep -q '^# Available triggers:' $t || fail "trigger after refusals: $(cat $t)"
# snapshot:1 with a filter: one snapshot, taken at a tick past the mark
echo mark-snap >m/trace_marker
n0=$(cat m/trace | grep -o 'tick: n=[0-9]*' | tail -1 | sed 's/.*=//')
[ -n "$n0" ] || n0=0
echo "snapshot:1 if n > $((n0 + 20))" >$t
expect_eq "snapshot trigger" "$(cat $t)" "snapshot:count=1 if n > $((n0 + 20))"
wait_file $t "snapshot:count=0 if n > $((n0 + 20))"
kill -TERM $REC
wait $REC
REC=
$FTRAIL show -i t.dat --snapshot=1 >s1 || fail "show --snapshot=1: $(cat rec.err)"
grep -q 'tick: n=' s1 || fail "the snapshot has no tick: $(head s1)"
last=$(grep -o 'tick: n=[0-9]*' s1 | tail -1 | sed 's/.*=//')
# the swap runs before the triggering tick is written (n0 + 21 goes to the new live buffer)
[ "$last" -ge $((n0 + 20)) ] && [ "$last" -le $((n0 + 21)) ] ||
	fail "the snapshot ends at tick $last, not at its trigger (n > $((n0 + 20)))"
exit 0
