# description: show/report: lost events printed where they happened, depth resynchronised after lost pages
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
mktrace lost l.dat
$FTRAIL show -i l.dat >out || fail "show"
cat >want <<'TXT'
# tracer: function_graph
#
# CPU  DURATION                  FUNCTION CALLS
# |     |   |                     |   |   |   |
 0)               |  main() {
 0)               |    foo() {
 0)               |      bar() {
CPU:0 [LOST 7 EVENTS]
 0)   0.200 us    |    baz();
 0)               |  } /* ? */
CPU:0 [LOST 2 EVENTS]
 0)               |  } /* ? */
TXT
diff -u want out || fail "lost output differs"
$FTRAIL report -i l.dat >rep || fail "report"
grep -q "(9 events were lost: totals are incomplete)" rep || fail "report does not say events were lost"
exit 0
