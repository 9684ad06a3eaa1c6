# description: mount: trace shows the running program's trace in ftrace's format and O_TRUNC clears it; trace_pipe blocks, consumes (two readers share the events, none twice) and ends when the recording does
# requires: root fuse gcc
# asan: yes
. "$TOP/tests/e2e/t1019-mount.inc"
build_loop
# small buffers: 1 KiB pages reach the trace file sooner
start_rec m -b 8 -p function -l alpha
# wait_grep PATTERN FILE: until FILE shows PATTERN (30 s at most)
wait_grep() {
	local i
	for i in $(seq 300); do
		grep -q "$1" "$2" && return 0
		sleep 0.1
	done
	fail "$2 never showed '$1': $(tail -n 5 "$2")"
}
wait_grep 'alpha <-run$' m/trace
cat m/trace >t1
expect_eq "first line" "$(head -n 1 t1)" "# tracer: function"
grep -qE '^# entries-in-buffer/entries-written: [0-9]+/[0-9]+ ' t1 || fail "no entries line: $(head t1)"
grep -qE '^ +loop-[0-9]+ +\[000\] +[0-9]+\.[0-9]{6}: alpha <-(run|gamma_)$' t1 ||
	fail "no function line: $(head -n 12 t1)"
grep -E ': (beta|gamma_) <-' t1 && fail "trace shows functions not selected"
echo beta >m/set_ftrace_filter
wait_grep 'beta <-run$' m/trace
# reading trace does not consume: twice the same lines (the older ones)
[ "$(grep -c 'alpha <-run' m/trace)" -ge "$(grep -c 'alpha <-run' t1)" ] || fail "reading trace consumed it"
echo before-clear >m/trace_marker
wait_grep 'before-clear' m/trace
# "> trace" clears it, for trace_pipe too
: >m/trace
grep -q 'before-clear' m/trace && fail "trace still shows what was there before '> trace'"
grep -q 'alpha <-' m/trace && fail "trace still shows alpha after '> trace'"
head -n 1 m/trace | grep -qx "# tracer: function" || fail "cleared trace has no header"

# two consuming readers, blocked until events come, ended with the recording
cat m/trace_pipe >r1 2>r1.err &
c1=$!
cat m/trace_pipe >r2 2>r2.err &
c2=$!
sleep 1
echo 1 >m/options/stacktrace
echo gamma_ >>m/set_ftrace_filter
sleep 2
kill -0 $c1 2>/dev/null || fail "trace_pipe reader 1 did not block: $(cat r1.err)"
kill -0 $c2 2>/dev/null || fail "trace_pipe reader 2 did not block: $(cat r2.err)"
stop_rec
for c in $c1 $c2; do
	for i in $(seq 300); do
		kill -0 $c 2>/dev/null || break
		sleep 0.1
	done
	kill -0 $c 2>/dev/null && fail "a trace_pipe reader still runs after the recording ended"
	wait $c || fail "trace_pipe reader exited $?: $(cat r1.err r2.err)"
done
grep -q 'before-clear' r1 r2 && fail "trace_pipe gave events cleared by '> trace'"
n1=$(grep -c . r1)
n2=$(grep -c . r2)
[ $((n1 + n2)) -ge 100 ] || fail "trace_pipe gave only $n1 + $n2 lines"
# the task column may read <...> while the recording runs: compare from the CPU column on
norm() { sed 's/^.*\(\[[0-9]*\] \)/\1/' "$@"; }
norm r1 r2 | grep -v '^ *=>' | sort >got
[ -z "$(uniq -d got)" ] || fail "events given to both readers: $(uniq -d got | head -n 3)"
# together they are the end of the trace, line for line
$FTRAIL show -i t.dat | grep -v '^#' | norm | grep -v '^ *=>' >all
n=$(grep -c . got)
tail -n "$n" all | sort >want
cmp -s got want || fail "trace_pipe's lines are not the trace's last $n: $(diff got want | head -n 8)"
grep -q 'gamma_ <-run' got || fail "trace_pipe missed the filter change"
exit 0
