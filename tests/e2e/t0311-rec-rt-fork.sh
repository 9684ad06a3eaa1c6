# description: record with the runtime: a forked child and the threads of both processes are in one trace
# requires: cc
. "$TOP/tests/e2e/t0399-rec.inc"
need_runtime
cc -O0 -pg -pthread -o loop "$TOP/tests/progs/rec_loop.c" || fail "cc"
$FTRAIL record -o f.dat -- ./loop 200 3 fork 2>err || fail "record: $(cat err)"
grep -q "(0 lost) from [0-9]* threads*" err || fail "lost records: $(cat err)"
$FTRAIL show -i f.dat >out || fail "show"
n=$(calls outer <out)
[ "$n" = 1200 ] || fail "$n calls of outer, expected 1200 (2 processes x 3 threads x 200)"
n=$(calls inner <out)
[ "$n" = 1200 ] || fail "$n calls of inner, expected 1200"
exit 0
