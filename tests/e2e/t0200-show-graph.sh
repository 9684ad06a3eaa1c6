# description: show: function_graph layout (nesting, leaves, markers, duration markers) of a synthetic trace
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
mktrace graph g.dat
$FTRAIL show -i g.dat >out 2>err || fail "show failed: $(cat err)"
[ -s err ] && fail "unexpected stderr: $(cat err)"
cat >want <<'TXT'
# tracer: function_graph
#
# CPU  DURATION                  FUNCTION CALLS
# |     |   |                     |   |   |   |
 0)               |  main() {
 0)               |    foo() {
 0)   1.382 us    |      bar();
 0) + 14.000 us   |    }
 0)               |  /* hello */
 0)   0.500 us    |    baz();
 0) ! 200.000 us  |  }
TXT
diff -u want out || fail "graph output differs"
# the default file is ./ftrail.dat
cp g.dat ftrail.dat
$FTRAIL show | cmp -s - want || fail "show without -i does not read ./ftrail.dat"
# no display columns at all
$FTRAIL show -i g.dat -O nofuncgraph-duration -O nofuncgraph-cpu >out2 || fail "show -O"
cat >want2 <<'TXT'
# tracer: function_graph
#
#               FUNCTION CALLS
#               |   |   |   |
main() {
  foo() {
    bar();
  }
/* hello */
  baz();
}
TXT
diff -u want2 out2 || fail "nofuncgraph-duration/cpu output differs"
exit 0
