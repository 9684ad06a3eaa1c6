# description: show/report: after lost events, an exit never pairs with an entry from before the loss (same function, same depth)
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
# main { foo { -- 6 events lost, the next page at the same depth -- } foo(); }
# The exit after the loss belongs to a later call (the lost events hold
# foo's exit and another entry): paired with the foo entered before the
# loss it would show a 50 us foo, and with a return value that call's.
mktrace lostloop l.dat
$FTRAIL show -i l.dat >out || fail "show"
cat >want <<'TXT'
# tracer: function_graph
#
# CPU  DURATION                  FUNCTION CALLS
# |     |   |                     |   |   |   |
 0)               |  main() {
 0)               |    foo() {
CPU:0 [LOST 6 EVENTS]
 0)               |    } /* ? */
 0)   0.100 us    |    foo();
 0)               |  } /* ? */
TXT
diff -u want out || fail "show pairs across the loss"
# report (its own decoding loop): foo's time is the whole call's only
$FTRAIL report -i l.dat >rep || fail "report"
awk '$NF == "foo" { print $1, $2, $5 }' rep >foo
[ "$(cat foo)" = "0.100 us 2" ] || fail "report: foo is '$(cat foo)', expected 0.100 us over 2 calls: $(cat rep)"
grep -q "(6 events were lost: totals are incomplete)" rep || fail "report does not say events were lost"
exit 0
