# description: record with the runtime: with -b 4, records + lost equal what a big buffer records, in both modes; show marks the losses
# requires: cc
. "$TOP/tests/e2e/t0399-rec.inc"
need_runtime
cc -O0 -pg -o loop "$TOP/tests/progs/rec_loop.c" || fail "cc"
$FTRAIL record -b 65536 -o big.dat -- ./loop 100000 2>err || fail "record big: $(cat err)"
set -- $(counts err)
[ "$2" = 0 ] || fail "a 64 MiB buffer lost records: $(cat err)"
total=$1
[ "$total" -ge 400000 ] || fail "only $total records for 200000 calls"
for mode in "-O noblock" "-O overwrite"; do
	# shellcheck disable=SC2086
	$FTRAIL record -b 4 $mode -o l.dat -- ./loop 100000 2>err || fail "record -b 4 $mode: $(cat err)"
	set -- $(counts err)
	[ $# = 3 ] || fail "no summary: $(cat err)"
	[ "$2" -gt 0 ] || fail "-b 4 $mode lost nothing: the test proves nothing"
	[ $(($1 + $2)) = "$total" ] || fail "-b 4 $mode: records $1 + lost $2 != $total"
	$FTRAIL show -i l.dat >out || fail "show ($mode)"
	grep -q "LOST [0-9]* EVENTS" out || fail "no LOST line in show ($mode)"
done
exit 0
