# description: report: total/self time and calls per function, sort keys, function tracer calls
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
mktrace graph g.dat
mktrace unwind u.dat
mktrace func f.dat
$FTRAIL report -i g.dat >out || fail "report"
cat >want <<'TXT'
  Total time   Self time       Calls  Function
  ==========  ==========  ==========  ====================
  200.000 us  185.500 us           1  main
   14.000 us   12.618 us           1  foo
    1.382 us    1.382 us           1  bar
    0.500 us    0.500 us           1  baz
TXT
diff -u want out || fail "report output differs"
$FTRAIL report -i g.dat -s name | awk 'NR > 2 { print $NF }' | tr '\n' ' ' >names
[ "$(cat names)" = "bar baz foo main " ] || fail "-s name order: $(cat names)"
$FTRAIL report -i g.dat -s self | awk 'NR == 3 { print $NF }' | grep -qx main || fail "-s self"
$FTRAIL report -i u.dat -s self >out || fail "report unwind"
cat >want <<'TXT'
  Total time   Self time       Calls  Function
  ==========  ==========  ==========  ====================
    2.147  s    2.147  s           1  fid#300000
    4.800 us    4.800 us           1  bar
    2.147  s    2.100 us           1  main
    4.900 us    0.100 us           1  foo
TXT
diff -u want out || fail "report -s self on unwind (frames left by longjmp are timed) differs"
$FTRAIL report -i f.dat -s calls >out || fail "report function tracer"
cat >want <<'TXT'
  Total time   Self time       Calls  Function
  ==========  ==========  ==========  ====================
                                   2  bar
                                   1  baz
                                   1  foo
                                   1  main
TXT
diff -u want out || fail "report of function tracer differs"
exit 0
