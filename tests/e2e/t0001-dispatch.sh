# description: ftrail dispatch: help, --help of every command, unknown commands and options
# requires:
. "$TOP/tests/e2e/lib.sh"
$FTRAIL help >out || fail "ftrail help"
grep -q '^  record ' out || fail "help lists no record"
# every command named in cmd/commands.h exists and has a --help page
for c in $(sed -n 's/^FTRAIL_CMD(\([a-z]*\),.*/\1/p' "$TOP/cmd/commands.h"); do
	$FTRAIL "$c" --help >h || fail "$c --help"
	head -n 1 h | grep -q "^usage: ftrail $c" || fail "$c --help first line: $(head -n 1 h)"
	$FTRAIL help "$c" | cmp -s - h || fail "help $c differs from $c --help"
done
expect_fail "ftrail: 'frobnicate' is not an ftrail command*" $FTRAIL frobnicate
expect_fail "ftrail: no such command*" $FTRAIL help frobnicate
$FTRAIL >/dev/null 2>&1 && fail "no arguments should fail"
exit 0
