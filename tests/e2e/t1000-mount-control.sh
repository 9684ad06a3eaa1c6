# description: mount: change the tracer, the filters and tracing_on of a running program with echo, and see the trace change
# requires: root fuse gcc
# asan: no
. "$TOP/tests/e2e/t1019-mount.inc"
build_loop
start_rec m -p function -l alpha
for f in tracing_on current_tracer available_tracers set_ftrace_filter set_ftrace_notrace \
	set_graph_function set_graph_notrace max_graph_depth tracing_thresh set_ftrace_pid \
	available_filter_functions enabled_functions trace_options options/stacktrace \
	buffer_size_kb buffer_total_size_kb trace_marker trace_marker_raw error_log snapshot \
	stack_map stack_map_stat stack_map_bin; do
	[ -f "m/$f" ] || fail "no file $f"
done
expect_eq current_tracer "$(cat m/current_tracer)" function
expect_eq tracing_on "$(cat m/tracing_on)" 1
expect_eq available_tracers "$(cat m/available_tracers)" "function_graph function nop"
expect_eq set_ftrace_filter "$(cat m/set_ftrace_filter)" alpha
for fn in alpha beta gamma_ run main; do
	grep -qx "$fn" m/available_filter_functions || fail "$fn not in available_filter_functions"
done
expect_eq enabled_functions "$(cat m/enabled_functions)" "alpha (1)"

# the kernel's > and >> on a filter list
echo beta >m/set_ftrace_filter || fail "echo beta > set_ftrace_filter"
expect_eq "after >" "$(cat m/set_ftrace_filter)" beta
echo 'gamma_' >>m/set_ftrace_filter || fail ">> gamma_"
expect_eq "after >>" "$(cat m/set_ftrace_filter | tr '\n' ' ')" "beta gamma_ "
echo '!gamma_' >>m/set_ftrace_filter || fail ">> !gamma_"
expect_eq "after >> !" "$(cat m/set_ftrace_filter)" beta
echo 'al* b*' >m/set_ftrace_filter || fail "> two globs"
# the program's own functions; the libraries' are listed as "name [module]"
expect_eq "two globs" "$(grep -v '\[' m/set_ftrace_filter | tr '\n' ' ')" "alpha beta "
grep -qx 'bsearch \[libc\]' m/set_ftrace_filter || fail "libc's b* not listed with [libc]"
: >m/set_ftrace_filter
expect_eq "truncated" "$(cat m/set_ftrace_filter)" "#### all functions enabled ####"
echo '*:mod:loop' >m/set_ftrace_filter || fail ":mod:"
grep -qx beta m/set_ftrace_filter || fail ":mod:loop does not select beta"
grep -q '\[' m/set_ftrace_filter && fail ":mod:loop selects a library's functions"
echo '*' >m/set_ftrace_notrace || fail "notrace"
echo '!beta' >>m/set_ftrace_notrace || fail "!notrace"
grep -qx beta m/set_ftrace_notrace && fail "beta still in set_ftrace_notrace"
grep -qx alpha m/set_ftrace_notrace || fail "alpha not in set_ftrace_notrace"
expect_eq "enabled with notrace" "$(cat m/enabled_functions)" "beta (1)"
: >m/set_ftrace_notrace
echo 'main:traceoff:5' >>m/set_ftrace_filter || fail "function command"
grep -qx 'main:traceoff:count=5' m/set_ftrace_filter || fail "command not listed: $(cat m/set_ftrace_filter)"
echo '!main:traceoff' >>m/set_ftrace_filter || fail "command removal"
grep -q 'traceoff' m/set_ftrace_filter && fail "command not removed"

# the running program follows: phase A alpha only, B beta only, C
# function_graph on gamma_; each phase is read between two markers written
# 0.3 s after the change and before the next one
echo alpha >m/set_ftrace_filter
sleep 0.3
echo A1 >m/trace_marker || fail "trace_marker"
sleep 0.3
echo A2 >m/trace_marker
echo beta >m/set_ftrace_filter
sleep 0.3
echo B1 >m/trace_marker
sleep 0.3
echo B2 >m/trace_marker
echo function_graph >m/current_tracer
echo gamma_ >m/set_ftrace_filter
expect_eq current_tracer "$(cat m/current_tracer)" function_graph
sleep 0.3
echo C1 >m/trace_marker
sleep 0.3
echo C2 >m/trace_marker
# tracing_on 0 for a second: a gap in the program's records
echo 0 >m/tracing_on
expect_eq tracing_on "$(cat m/tracing_on)" 0
write_fails "Bad file descriptor" m/trace_marker "while off"
sleep 1
echo 1 >m/tracing_on
sleep 0.3
echo D >m/trace_marker
# a selection whose only function never runs again (main is entered once):
# the next change must still reach the program (the session is live, a
# runtime thread applies it; here the library-call hooks would too --
# t0417 has the case where nothing else would)
echo main >m/set_ftrace_filter
sleep 0.3
echo alpha >m/set_ftrace_filter
sleep 0.3
echo E1 >m/trace_marker
sleep 0.3
echo E2 >m/trace_marker
stop_rec

$FTRAIL show -i t.dat >show.txt || fail "show"
section A1 A2 <show.txt >a.txt
section B1 B2 <show.txt >b.txt
section C1 C2 <show.txt >c.txt
section C2 D <show.txt >d.txt
[ "$(grep -c 'alpha <-' a.txt)" -ge 10 ] || fail "phase A: too few alpha calls: $(head a.txt)"
grep -E ': (beta|gamma_) <-' a.txt && fail "phase A traced more than alpha"
[ "$(grep -c 'beta <-run' b.txt)" -ge 10 ] || fail "phase B: too few beta calls: $(head b.txt)"
grep -E ': (alpha|gamma_) <-' b.txt && fail "phase B traced more than beta"
[ "$(grep -c 'gamma_' c.txt)" -ge 10 ] || fail "phase C: too few gamma_ calls: $(head c.txt)"
grep -E 'alpha|beta' c.txt && fail "phase C traced more than gamma_"
grep -q 'return from gamma_\|gamma_() {\|} /\* gamma_ \*/' c.txt || fail "phase C is not function_graph: $(head c.txt)"
# the largest gap between records from marker C2 to marker D (both
# included) covers the second tracing was off
gap=$(awk '/tracing_mark_write: C2$/ {p = 1} p { t = $3; sub(":", "", t)
	if (q != "" && t - q > g) g = t - q; q = t } /tracing_mark_write: D$/ {p = 0}
	END { printf "%d", g * 1000 }' show.txt)
[ "$gap" -ge 800 ] || fail "tracing_on 0 left no gap ($gap ms): $(head d.txt)"
[ "$(grep -c 'gamma_' d.txt)" -ge 10 ] || fail "tracing_on 1: the program is not traced again"
section E1 E2 <show.txt >e.txt
[ "$(grep -c 'alpha' e.txt)" -ge 10 ] || fail "phase E: a change after a selection nothing runs did not apply: $(head e.txt)"
exit 0
