# description: record -o - prints, while the program runs, exactly the lines show prints of the same recording (after show's header): function_graph with user events and threads, the function tracer, a call-heavy multi-threaded program
# requires: cc
# asan: yes
. "$TOP/tests/e2e/t0399-rec.inc"
need_runtime
cc -O1 -pg -I"$TOP/include" -o flight "$TOP/tests/progs/flight.c" -lpthread || fail "build flight"
cc -O2 -pg -o callheavy "$TOP/tests/progs/callheavy.c" -lpthread || fail "build callheavy"
body() { grep -v '^#' "$1"; }

# function_graph (TASK/PID always on in a stream), user events, a thread that exits
$FTRAIL record -q -e u:fl -o - -o g.dat -- ./flight 400 1000 exit >g.out 2>err
[ $? = 3 ] || fail "record -o -: exit status $?: $(cat err)"
[ ! -s err ] || fail "record -o - -q said: $(cat err)"
$FTRAIL show -i g.dat -O funcgraph-proc >g.show || fail "show g.dat"
[ "$(grep -c 'tick: i=' g.out)" = 400 ] || fail "stream: $(grep -c 'tick: i=' g.out) ticks, not 400"
[ "$(grep -c 'helper: i=' g.out)" = 50 ] || fail "stream: the helper thread's events"
body g.show | diff - g.out >d || fail "stream and show differ: $(head -5 d)"

# the function tracer (show's own layout, no option needed)
$FTRAIL record -q -p function -o - -o f.dat -- ./flight 300 500 exit >f.out 2>err
$FTRAIL show -i f.dat >f.show || fail "show f.dat"
grep -q ' step <-main' f.out || fail "function tracer stream: no step line"
body f.show | diff - f.out >d || fail "function tracer: stream and show differ: $(head -5 d)"

# threads racing: the merge by time across buffers, records taken from pages in pieces
$FTRAIL record -q -o - -o c.dat -- ./callheavy 3 30000 >c.out 2>err || fail "callheavy: $(cat err)"
$FTRAIL show -i c.dat -O funcgraph-proc >c.show || fail "show c.dat"
# the program's own line goes to the same standard output
grep -v '^calls=' c.out >c.lines
[ "$(grep -c 'leaf();' c.lines)" -ge 180000 ] || fail "callheavy stream: $(grep -c 'leaf();' c.lines) leaf calls"
body c.show | diff - c.lines >d || fail "callheavy: stream and show differ: $(head -5 d)"

# without -o FILE: nothing is left behind
mkdir tmp
TMPDIR=$PWD/tmp $FTRAIL record -q -o - -- ./flight 50 0 exit >n.out 2>err
[ "$(grep -c ' step();' n.out)" = 50 ] || fail "stream without a file: $(grep -c ' step();' n.out) steps"
[ -z "$(ls tmp)" ] || fail "the stream's scratch trace stayed: $(ls tmp)"
[ ! -e ftrail.dat ] || fail "-o - wrote ftrail.dat"
exit 0
