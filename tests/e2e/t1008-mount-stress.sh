# description: mount: writers and readers at once on every kind of file for seconds; the tree keeps answering, the program and the trace come out whole, every marker written is in the trace
# requires: root fuse gcc
# asan: yes
. "$TOP/tests/e2e/t1019-mount.inc"
build_loop
LOOP_ARGS=3
start_rec m -b 8 -p function -l alpha
end=$((SECONDS + 4))
filters() {
	while [ $SECONDS -lt $end ]; do
		echo alpha >m/set_ftrace_filter
		echo beta >>m/set_ftrace_filter
		echo '!alpha' >>m/set_ftrace_filter
		echo 'gamma_ run' >m/set_ftrace_notrace
		: >m/set_ftrace_notrace
		echo function_graph >m/current_tracer
		echo function >m/current_tracer
	done
}
options() {
	while [ $SECONDS -lt $end ]; do
		echo 1 >m/options/stacktrace
		echo nostacktrace >m/trace_options
		echo 2 >m/max_graph_depth
		echo 0 >m/max_graph_depth
		echo nosuch >m/current_tracer 2>/dev/null
	done
}
readers() {
	while [ $SECONDS -lt $end ]; do
		cat m/trace m/stack_map m/stack_map_stat m/enabled_functions m/error_log >/dev/null
		cat m/per_thread/*/stats >/dev/null 2>&1
		cat m/stack_map_bin >/dev/null
	done
}
markers() { # count the markers that were taken
	local n=0
	while [ $SECONDS -lt $end ]; do
		echo "mark-$1-$n" >m/trace_marker 2>/dev/null && n=$((n + 1))
	done
	echo $n >"marks$1"
}
pids=
filters &
pids="$pids $!"
options &
pids="$pids $!"
readers &
pids="$pids $!"
markers 1 &
pids="$pids $!"
markers 2 &
pids="$pids $!"
cat m/trace_pipe >pipe.out 2>pipe.err &
pipe=$!
for p in $pids; do
	wait "$p"
done
# still answering, and in a known state once the writers stopped
echo alpha >m/set_ftrace_filter || fail "the tree stopped answering"
expect_eq set_ftrace_filter "$(cat m/set_ftrace_filter)" alpha
expect_eq current_tracer "$(cat m/current_tracer)" function
stop_rec
for i in $(seq 300); do
	kill -0 $pipe 2>/dev/null || break
	sleep 0.1
done
kill -0 $pipe 2>/dev/null && fail "trace_pipe reader still blocked after the end"
wait $pipe || fail "trace_pipe reader: $(cat pipe.err)"
grep -q 'rounds [1-9]' rec.out || fail "program: $(cat rec.out)"
$FTRAIL show -i t.dat >show.txt || fail "show"
for k in 1 2; do
	n=$(cat marks$k)
	[ "$n" -gt 10 ] || fail "only $n markers taken by writer $k"
	got=$(grep -c "tracing_mark_write: mark-$k-" show.txt)
	expect_eq "markers of writer $k in the trace" "$got" "$n"
done
[ -s pipe.out ] || fail "trace_pipe gave nothing"
exit 0
