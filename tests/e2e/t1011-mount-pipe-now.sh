# description: mount: echo 'foo*' > set_ftrace_filter; cat trace_pipe shows a slow program's new calls within seconds (the recorder takes pages while they are written), selected by the filter, and ends with the recording
# requires: root fuse gcc
# asan: yes
. "$TOP/tests/e2e/t1019-mount.inc"
gcc -O1 -fpatchable-function-entry=5 -o slow "$TOP/tests/progs/mnt_slow.c" -lpthread || fail "cannot build mnt_slow"
mkdir m || fail "mkdir m"
MNT=m
$FTRAIL record -q -o t.dat --mount m -p function -- ./slow >rec.out 2>rec.err &
REC=$!
wait_mounted m "$REC"
echo 'foo*' >m/set_ftrace_filter
expect_eq "set_ftrace_filter" "$(cat m/set_ftrace_filter | tr '\n' ' ')" "foo_one foo_two "
cat m/trace_pipe >p.out 2>p.err &
c=$!
# A call every 250 ms writes about 32 bytes a second into its ring: a page
# takes many seconds to fill.  Shown from the page being written, the
# calls come within a second or so; 15 s leaves room for a loaded machine.
start=$(date +%s)
for i in $(seq 150); do
	[ "$(grep -c 'foo_one <-main$' p.out)" -ge 3 ] && break
	sleep 0.1
done
took=$(($(date +%s) - start))
[ "$(grep -c 'foo_one <-main$' p.out)" -ge 3 ] ||
	fail "trace_pipe showed $(grep -c 'foo_one <-main$' p.out) foo_one calls in ${took}s: $(tail -n 3 p.out) $(cat p.err)"
grep -qE '^ +slow-[0-9]+ +\[[0-9]+\] +[0-9]+\.[0-9]{6}: foo_two <-main$' p.out || fail "no foo_two line: $(head -n 3 p.out)"
# after the filter took effect (the first foo_one seen), no bar
awk '/foo_one <-main$/ {n++} n >= 2' p.out | grep -q 'bar <-main' && fail "bar traced after the filter: $(grep bar p.out | tail -n 2)"
kill -0 $c 2>/dev/null || fail "trace_pipe reader did not block: $(cat p.err)"
stop_rec
wait_exit $c "the trace_pipe reader"
# every foo_one call the trace file has after the filter was read from the pipe, none twice
norm() { sed 's/^.*\(\[[0-9]*\] \)/\1/' "$@"; }
$FTRAIL show -i t.dat | grep 'foo_one <-main$' | norm >all
norm p.out | grep 'foo_one <-main$' >got
[ -z "$(sort got | uniq -d)" ] || fail "lines read twice: $(sort got | uniq -d | head -n 2)"
n=$(grep -c . got)
tail -n "$n" all | cmp -s - got || fail "trace_pipe's foo_one lines are not the trace's last $n: $(tail -n "$n" all | diff - got | head -n 6)"
exit 0
