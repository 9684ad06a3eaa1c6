# description: mount: ftrail mount -P on a recording started without --mount is as live as --mount: a slow program's calls and the markers written reach trace_pipe within seconds, in time order, though no ring page is full yet
# requires: root fuse gcc
# asan: yes
. "$TOP/tests/e2e/t1019-mount.inc"
gcc -O1 -fpatchable-function-entry=5 -o slow "$TOP/tests/progs/mnt_slow.c" -lpthread || fail "cannot build mnt_slow"
# -b 1024: a call every 250 ms fills a page of its 1 MiB ring only after
# minutes, so without streaming trace_pipe would show none of it
$FTRAIL record -q -o t.dat -b 1024 -p function -l 'foo*' -- ./slow >rec.out 2>rec.err &
REC=$!
child_of "$REC" slow
sleep 1 # calls recorded before the mount: they come too
late_mount m
echo late-1 >m/trace_marker
start=$(date +%s)
# streamed, they come within a second or so; 20 s is room for a loaded
# machine and still short of the 40 s a page needs to fill
for i in $(seq 200); do
	sed -n '/late-1$/,$p' p.out | grep -c 'foo_one <-main$' | grep -qv '^[012]$' && break
	sleep 0.1
done
took=$(($(date +%s) - start))
n=$(sed -n '/late-1$/,$p' p.out | grep -c 'foo_one <-main$')
[ "$n" -ge 3 ] || fail "trace_pipe showed $n foo_one calls after the marker in ${took}s: $(tail -n 3 p.out) $(cat p.err) $(cat mnt.err)"
grep -q 'foo_one <-main$' <(sed -n '1,/late-1$/p' p.out) || fail "no call from before the marker: $(head -n 3 p.out)"
# time order: the stamps never go back
awk '{for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]{6}:$/) {t = $i + 0; if (t < last) {print "back at " NR ": " $0; exit 1}; last = t}}' p.out ||
	fail "trace_pipe out of time order"
late_end
# the file is whole: every call the pipe showed is in it
pipe_in_trace 'foo_one <-main$'
exit 0
