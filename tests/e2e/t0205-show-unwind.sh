# description: show: frames left by longjmp (unwound), fids beyond 18 bits, calls longer than 2^30 ticks
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
mktrace unwind u.dat
$FTRAIL show -i u.dat >out || fail "show"
cat >want <<'TXT'
# tracer: function_graph
#
# CPU  DURATION                  FUNCTION CALLS
# |     |   |                     |   |   |   |
 0)               |  main() {
 0)               |    foo() {
 0)               |      bar() {
 0)   4.800 us    |      } /* bar (unwound) */
 0)   4.900 us    |    } /* foo (unwound) */
 0) $ 2147483 us  |    fid#300000();
 0) $ 2147490 us  |  }
TXT
diff -u want out || fail "unwind output differs"
exit 0
