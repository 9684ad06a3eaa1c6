# description: show/report: corrupt, truncated, empty or missing trace files and bad options give one line and a non-zero exit
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
for s in badmagic badversion badsection badsize badpage badext badfsmb badsymtab badzstd empty; do
	mktrace $s $s.dat
done
expect_fail "ftrail: badmagic.dat: not an ftrail trace file (bad magic)" $FTRAIL show -i badmagic.dat
expect_fail "ftrail: badversion.dat: unsupported trace file version 99*" $FTRAIL show -i badversion.dat
expect_fail "ftrail: badsection.dat: unknown section type 77 at offset *" $FTRAIL show -i badsection.dat
expect_fail "ftrail: badsize.dat: META section at offset 24 has bad sizes*" $FTRAIL report -i badsize.dat
expect_fail "ftrail: badpage.dat: buffer 0, page 1 (offset 0): page size * runs past the end of the buffer" $FTRAIL show -i badpage.dat
expect_fail "ftrail: badext.dat: buffer 0, page 1 (offset 32): extended record 8 of 1000 words runs past the page" $FTRAIL report -i badext.dat
expect_fail "ftrail: badfsmb.dat: corrupt user STACKMAP section: *" $FTRAIL show -i badfsmb.dat
expect_fail "ftrail: badsymtab.dat: module 0 (*): SYMTAB claims * symbols in * bytes" $FTRAIL show -i badsymtab.dat
expect_fail "ftrail: badzstd.dat: corrupt compressed SYMTAB section at offset *" $FTRAIL show -i badzstd.dat
expect_fail "ftrail: empty.dat: truncated file header (0 bytes)" $FTRAIL show -i empty.dat
expect_fail "ftrail: nothere.dat: No such file or directory" $FTRAIL show -i nothere.dat
expect_fail "ftrail: .: not a regular file" $FTRAIL report -i .
mktrace graph g.dat
expect_fail "ftrail: show: unknown option 'funcgraph-bogus'*" $FTRAIL show -i g.dat -O funcgraph-bogus
expect_fail "ftrail: report: unknown sort key 'speed'*" $FTRAIL report -i g.dat -s speed
expect_fail "ftrail: show: unexpected argument 'g.dat'*" $FTRAIL show g.dat
expect_fail "ftrail: *" $FTRAIL show --frobnicate
# a file cut short is read up to its last complete section, with a warning
mktrace cut c.dat
$FTRAIL show -i c.dat >out 2>err || fail "show of a cut-short file failed: $(cat err)"
[ "$(wc -l <err)" -eq 1 ] || fail "expected one warning line, got: $(cat err)"
grep -qx "ftrail: warning: c.dat was cut short (no END section): reading what is complete" err ||
	fail "warning text: $(cat err)"
cat >want <<'TXT'
# tracer: function_graph
#
# CPU  DURATION                  FUNCTION CALLS
# |     |   |                     |   |   |   |
 0)               |  main() {
 0)               |    foo() {
 0)   1.382 us    |      bar();
 0) + 14.000 us   |    }
TXT
diff -u want out || fail "cut-short output differs"
$FTRAIL report -i c.dat >/dev/null 2>err || fail "report of a cut-short file failed"
grep -q "cut short" err || fail "report gave no warning for a cut-short file"
# every truncation of a valid file: never a crash, always a clean result
size=$(stat -c %s g.dat)
for ((n = 0; n < size; n += 7)); do
	head -c $n g.dat >t.dat
	$FTRAIL show -i t.dat >/dev/null 2>err
	rc=$?
	[ $rc -le 1 ] || fail "show crashed (exit $rc) on g.dat cut at $n bytes"
	# at most: cut short + no clock (META lost too), or one error line
	[ "$(wc -l <err)" -le 2 ] || fail "more than two stderr lines at $n bytes: $(cat err)"
	[ $rc -eq 0 ] || [ "$(wc -l <err)" -eq 1 ] || fail "error is not one line at $n bytes: $(cat err)"
done
exit 0
