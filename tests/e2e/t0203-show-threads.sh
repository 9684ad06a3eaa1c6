# description: show: threads and a signal handler merged by time, the thread named on every line (no switch blocks: user events have no CPU), level column
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
mktrace threads t.dat
$FTRAIL show -i t.dat >out || fail "show"
cat >want <<'TXT'
# tracer: function_graph
#
# CPU  TASK/PID         DURATION                  FUNCTION CALLS
# |     |    |           |   |                     |   |   |   |
 0)   prog-1000    |               |  main() {
 0)  worker--1001  |   3.000 us    |  worker();
 0)   prog-1000    |               |    foo() {
 0)   prog-1000    |               |      /* signal_deliver: sig=10 */
 1)   prog-1000    |   0.100 us    |  handler();
 0)   prog-1000    |   1.000 us    |    }
 0)   prog-1000    |   5.000 us    |  }
TXT
diff -u want out || fail "threads output differs"
# asked for without the thread column: still no switch blocks
$FTRAIL show -i t.dat -O nofuncgraph-proc >out || fail "show -O nofuncgraph-proc"
grep -q -- '------' out && fail "a context-switch block between user threads"
[ "$(grep -c '^ [01])  ' out)" = 7 ] || fail "nofuncgraph-proc: $(cat out)"
exit 0
