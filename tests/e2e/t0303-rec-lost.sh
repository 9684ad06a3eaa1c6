# description: record: with a tiny -b, records + lost = written exactly, in producer/consumer and overwrite modes, and show prints the loss
# requires: cc
. "$TOP/tests/e2e/t0399-rec.inc"
mk_selfw
for mode in "-O noblock" "-O overwrite"; do
	# shellcheck disable=SC2086
	$FTRAIL record -b 4 $mode -o l.dat -- ./selfw 200000 plain 2>err || fail "record $mode: $(cat err)"
	set -- $(counts err)
	[ $# = 3 ] || fail "no summary ($mode): $(cat err)"
	[ $(($1 + $2)) = 400000 ] || fail "records $1 + lost $2 != 400000 ($mode)"
	[ "$2" -gt 0 ] || fail "nothing lost with -b 4 ($mode): the test proves nothing"
	$FTRAIL show -i l.dat >out || fail "show ($mode)"
	grep -q "LOST [0-9]* EVENTS" out || fail "show prints no LOST line ($mode)"
done
exit 0
