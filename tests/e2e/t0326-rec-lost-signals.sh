# description: records + lost = 2 per call (and 2 per handler run) exactly with traced signal handlers firing every 50 us on 16 threads (a handler call dropped inside a hook counts its entry and exit), every hook flag, block, producer/consumer and overwrite modes; show's LOST lines add up
# requires: cc
# --no-libcall: the count is of the program's own calls
. "$TOP/tests/e2e/t0399-rec.inc"
need_runtime
sum_lost() { grep -o 'LOST [0-9]* EVENTS' "$1" | awk '{ s += $2 } END { print s + 0 }'; }
any_lost=0
for flags in "-pg" "-finstrument-functions" "-fpatchable-function-entry=5"; do
	# shellcheck disable=SC2086
	cc -O2 $flags -pthread -o ss "$TOP/tests/progs/sigstorm.c" || fail "cc $flags"
	for mode in "" "-O noblock -b 64" "-O overwrite -b 64"; do
		what="$flags $mode"
		# shellcheck disable=SC2086
		$FTRAIL record --no-libcall $mode -o s.dat -- ./ss 16 200 >out 2>err || fail "record $what: $(cat err)"
		calls=$(sed -n 's/^calls=//p' out)
		sigs=$(sed -n 's/^signals=//p' out)
		set -- $(counts err)
		[ $# = 3 ] || fail "no summary ($what): $(cat err)"
		[ "$3" = 17 ] || fail "$what: $3 threads traced, not 17"
		# 2 records per call, 2 per handler run (its start and end), + the
		# process's exit record
		[ $(($1 + $2)) = $((2 * calls + 2 * sigs + 1)) ] ||
			fail "$what: records $1 + lost $2 = $(($1 + $2)), the program wrote $((2 * calls + 2 * sigs + 1))"
		[ "$2" -gt 0 ] && any_lost=1
		if [ -n "$mode" ]; then
			$FTRAIL show -i s.dat >show.out || fail "show ($what)"
			[ "$(sum_lost show.out)" = "$2" ] ||
				fail "$what: LOST lines add up to $(sum_lost show.out), record said $2"
		fi
	done
done
[ $any_lost = 1 ] || fail "nothing was ever lost: the test proves nothing"
exit 0
