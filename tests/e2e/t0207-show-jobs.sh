# description: show --jobs 2 (decoding on a thread of its own, ahead of the formatter) prints what --jobs 1 prints: threads, stacks, forks, every display option, a buffer in several chunks; bad --jobs
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
build loop gcc -O2 -pg "$P/rec_loop.c" -lpthread || fail "build"
# thousands of events in 3 threads and 2 processes: many batches, tids and names
rec g.dat -b 4096 -- ./loop 3000 3 fork
rec s.dat -T -- ./loop 200 2
rec f.dat -p function -- ./loop 500 2
$FTRAIL show -i g.dat --jobs 1 >g.out || fail "show g.dat"
[ "$(grep -vc '^#' g.out)" -gt 20000 ] || fail "too few lines to cross batches: $(grep -vc '^#' g.out)"
tid=$(sed -n 's/^ *[0-9]*)  *[^ ]*-\([0-9][0-9]*\)  *|.*/\1/p' g.out | tail -1)
[ -n "$tid" ] || fail "no thread column in $(head -5 g.out)"
for f in g.dat s.dat f.dat; do
	for o in "" "-O funcgraph-proc -O funcgraph-abstime -O funcgraph-tail" "-O expand-stacks" \
		"-O print-parent -O sym-offset -O sym-addr" "-O raw" "--tid $tid"; do
		$FTRAIL show -i $f $o --jobs 1 >one 2>one.err || fail "$f $o --jobs 1: $(cat one.err)"
		$FTRAIL show -i $f $o --jobs 2 >two 2>two.err || fail "$f $o --jobs 2: $(cat two.err)"
		cmp -s one two || fail "$f $o: --jobs 2 differs: $(diff one two | head -5)"
	done
done
# one buffer in several UDATA chunks (the recorder cuts them at 1 MiB of
# records): 150000 x outer() { inner(); } is 600000 records of 4 bytes
rec m.dat -- ./loop 150000 1
$FTRAIL show -i m.dat --jobs 1 >one 2>one.err || fail "m.dat --jobs 1: $(cat one.err)"
$FTRAIL show -i m.dat --jobs 2 >two 2>two.err || fail "m.dat --jobs 2: $(cat two.err)"
[ "$(grep -c 'inner();' one)" -ge 150000 ] || fail "m.dat: too few calls for several chunks"
cmp -s one two || fail "m.dat: --jobs 2 differs: $(diff one two | head -5)"
expect_fail "ftrail: show: --jobs wants 1 or 2, not '3'" $FTRAIL show -i g.dat --jobs 3
exit 0
