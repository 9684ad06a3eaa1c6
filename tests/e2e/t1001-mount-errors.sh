# description: mount: garbage written to the files fails with the kernel's errno, changes nothing and leaves a line in error_log; bad mount points and pids get one line
# requires: root fuse gcc
# asan: yes
. "$TOP/tests/e2e/t1019-mount.inc"
build_loop

# bad input before anything is mounted: one line, non-zero exit
mkdir full && touch full/x
expect_fail "ftrail: mount point full is not an empty directory" \
	$FTRAIL record -q -o x.dat --mount full -- ./loop
expect_fail "ftrail: mount point nosuch is not an empty directory*" \
	$FTRAIL record -q -o x.dat --mount nosuch -- ./loop
expect_fail "ftrail: --mount needs a program*" $FTRAIL record -q -o x.dat --mount full -e sched:sched_switch
mkdir empty
expect_fail "ftrail: --mount serves a program's own tracing, not the wakeup tracer's" \
	$FTRAIL record -q -o x.dat -p wakeup --mount empty -- ./loop
expect_fail "ftrail: mount: process 999999999 is not traced*" $FTRAIL mount -P 999999999 empty
expect_fail "ftrail: mount: process $$ is not traced*" $FTRAIL mount -P $$ empty
expect_fail "ftrail: mount: one mount point*" $FTRAIL mount -P $$
# no /dev/fuse (a private /dev without it): one line, nothing recorded
if command -v unshare >/dev/null && unshare -m true 2>/dev/null; then
	expect_fail "ftrail: no /dev/fuse (No such file or directory): the mount needs FUSE" \
		unshare -m sh -c "mount -t tmpfs none /dev && exec $FTRAIL record -q -o x.dat --mount empty -- ./loop"
	expect_fail "ftrail: mount: no /dev/fuse*" \
		unshare -m sh -c "mount -t tmpfs none /dev && exec $FTRAIL mount -P $$ empty"
fi
[ ! -e x.dat ] || fail "a refused record left x.dat"

start_rec m -p function -l alpha
# a read-only file refuses writing, even to root, as tracefs' do
write_fails "Permission denied" m/available_tracers function
write_fails "Permission denied" m/stack_map_stat 0
# each garbage write: the errno, nothing changed, one error_log entry
: >m/error_log
check() { # FILE TEXT ERRNO-TEXT MESSAGE
	local before after
	before=$(cat "m/$1")
	write_fails "$3" "m/$1" "$2"
	after=$(cat "m/$1")
	[ "$before" = "$after" ] || fail "$1 changed by '$2': '$before' -> '$after'"
	tail -n 3 m/error_log >last
	grep -q "^\[ *[0-9]*\.[0-9]*\] $(basename "$1"): error: $4\$" last ||
		fail "error_log after '$2' > $1: $(cat m/error_log)"
	grep -qxF "  Command: $2" last || fail "error_log has no Command line for '$2': $(cat last)"
	grep -qx ' *\^' last || fail "error_log has no caret line for '$2': $(cat last)"
}
check tracing_on abc "Invalid argument" "not a number"
check current_tracer wakeup "Invalid argument" "no such tracer.*"
check current_tracer lockheld "Invalid argument" "latency tracers are chosen when recording starts.*"
check set_ftrace_filter nosuch_function "Invalid argument" "no function matches"
check set_ftrace_filter "beta nosuch_function" "Invalid argument" "no function matches"
check set_ftrace_filter "alpha:frobnicate" "Invalid argument" "unknown command.*"
check set_ftrace_filter "alpha:traceoff:x" "Invalid argument" "bad count"
check set_ftrace_notrace "alpha:traceoff" "Invalid argument" "commands are for set_ftrace_filter only"
check set_graph_function "nosuch_function" "Invalid argument" "no function matches"
check max_graph_depth -1 "Invalid argument" "not a depth.*"
check tracing_thresh 1ms "Invalid argument" "not a number of microseconds"
check set_ftrace_pid "12 abc" "Invalid argument" "not a thread id"
check options/stacktrace 2 "Invalid argument" "options take 0 or 1"
check trace_options nosuchoption "Invalid argument" "no such option"
check buffer_size_kb 7 "Device or resource busy" "the buffers are sized when recording starts.*"
check stack_map 1 "Invalid argument" "write 0 or reset to clear the stack map"
check snapshot -1 "Invalid argument" ".*"
# the caret points at the faulty word of a multi-word write
write_fails "Invalid argument" m/set_ftrace_filter "beta gamma_ nosuch_function"
tail -n 1 m/error_log >caret
expect_eq "caret column" "$(awk '{print index($0, "^")}' caret)" $((12 + 12))
# a failed ">" leaves the list as it was (alpha), not emptied
expect_eq "filter after failures" "$(cat m/set_ftrace_filter)" alpha
# the kernel keeps the last 8 entries; > error_log clears it
[ "$(grep -c ': error: ' m/error_log)" = 8 ] || fail "error_log keeps $(grep -c ': error: ' m/error_log) entries, not 8"
: >m/error_log
expect_eq "cleared error_log" "$(cat m/error_log)" ""
# good writes still work after all that
echo 3 >m/max_graph_depth && expect_eq max_graph_depth "$(cat m/max_graph_depth)" 3
echo 250 >m/tracing_thresh && expect_eq tracing_thresh "$(cat m/tracing_thresh)" 250
echo 0 >m/tracing_thresh
echo "$$ 4242" >m/set_ftrace_pid && expect_eq set_ftrace_pid "$(cat m/set_ftrace_pid | tr '\n' ' ')" "$$ 4242 "
echo 77 >>m/set_ftrace_pid && expect_eq "pid >>" "$(cat m/set_ftrace_pid | tr '\n' ' ')" "$$ 4242 77 "
: >m/set_ftrace_pid && expect_eq "pid cleared" "$(cat m/set_ftrace_pid)" "no pid"
echo 1 >m/options/hex && grep -qx hex m/trace_options || fail "options/hex 1 not in trace_options"
echo nohex >m/trace_options && expect_eq options/hex "$(cat m/options/hex)" 0
expect_eq error_log "$(cat m/error_log)" ""
stop_rec
exit 0
