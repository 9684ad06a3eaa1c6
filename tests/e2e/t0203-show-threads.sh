# description: show: threads and a signal handler merged by time, context-switch blocks, level column
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
MK=$BUILD/tests/tools/mktrace
[ -x "$MK" ] || fail "no $MK (make all builds it)"
"$MK" threads t.dat || fail "mktrace threads"
$FTRAIL show -i t.dat >out || fail "show"
cat >want <<'TXT'
# tracer: function_graph
#
# CPU  DURATION                  FUNCTION CALLS
# |     |   |                     |   |   |   |
 0)               |  main() {
 ------------------------------------------
 0)   prog-1000    =>  worker--1001 
 ------------------------------------------

 0)   3.000 us    |  worker();
 ------------------------------------------
 0)  worker--1001  =>   prog-1000   
 ------------------------------------------

 0)               |    foo() {
 0)               |      /* signal_deliver: sig=10 */
 1)   0.100 us    |  handler();
 0)   1.000 us    |    }
 0)   5.000 us    |  }
TXT
diff -u want out || fail "threads output differs"
exit 0
