# description: lost accounting is exact: the LOST lines of show add up to what record reports, under heavy loss, threads + a tracing signal handler, both modes, with snapshots swapping meanwhile, and threads without a slot
# requires: cc
. "$TOP/tests/e2e/t0399-rec.inc"
need_runtime
cc -O2 -pthread -I"$TOP/include" -o ev_threads "$TOP/tests/progs/ev_threads.c" || fail "build"
sum_lost() { grep -o 'LOST [0-9]* EVENTS' "$1" | awk '{ s += $2 } END { print s + 0 }'; }
# META lines are raw text in the file; a section header's checksum bytes may
# run into the first one, so the key is found anywhere, not at a line start
meta() { grep -ao "$2=[^[:cntrl:]]*" "$1" | tail -1 | sed "s/^$2=//"; }
for b in 4 16; do
	for mode in "-O noblock" "-O overwrite"; do
		for snap in "" "-e u:thr:sig -R snapshot"; do
			what="-b $b $mode $snap"
			# shellcheck disable=SC2086
			$FTRAIL record -p nop -b $b $mode -e u:thr $snap -o l.dat -- ./ev_threads 100000 \
				>prog.out 2>err || fail "record $what: $(cat err)"
			set -- $(counts err)
			[ $# = 3 ] || fail "no summary ($what): $(cat err)"
			[ "$2" -gt 10000 ] || fail "only $2 lost with $what: the test proves nothing"
			$FTRAIL show -i l.dat >out || fail "show ($what)"
			[ "$(sum_lost out)" = "$2" ] ||
				fail "$what: LOST lines add up to $(sum_lost out), record said $2 lost"
			[ "$(meta l.dat user_lost)" = "$2" ] || fail "$what: META user_lost $(meta l.dat user_lost) != $2"
			# every record written is either shown or counted lost: the
			# program's events, the runtime's start and end marks of each
			# handler run, and the runtime's record of the process's exit
			# (lost too when the exiting thread's ring is full then)
			read -r evs sigs < <(sed 's/ev=\([0-9]*\) sig=\([0-9]*\)/\1 \2/' prog.out)
			shown=$(grep -c -E ' (ev|sig): | tracing_mark_write: sig | signal_(deliver|return): | sched_process_exit: ' out)
			[ $((shown + $2)) = $((evs + 4 * sigs + 1)) ] ||
				fail "$what: shown $shown + lost $2 != written $((evs + 4 * sigs + 1))"
			if [ -n "$snap" ]; then
				[ "$(meta l.dat snapshot_swaps)" -ge 1 ] || fail "$what: no snapshot taken"
				$FTRAIL show -i l.dat --snapshot >snap || fail "$what: show --snapshot"
				# the last swap may take no more than the start mark of the
				# handler whose event triggered it (threads done meanwhile)
				grep -qE ' (ev|sig|signal_deliver): ' snap || fail "$what: empty snapshot: $(head -5 snap)"
			fi
		done
	done
done
# threads that find no slot: their losses have a LOST line too
mk_selfw
$FTRAIL record -b 300000 -o k.dat -- ./selfw 20000 threads 40 2>err || fail "record (no slot): $(cat err)"
set -- $(counts err)
[ $# = 3 ] || fail "no summary (no slot): $(cat err)"
[ "$2" -gt 0 ] || fail "no thread went without a slot: the test proves nothing ($(cat err))"
$FTRAIL show -i k.dat >out || fail "show (no slot)"
[ "$(sum_lost out)" = "$2" ] || fail "no slot: LOST lines add up to $(sum_lost out), record said $2"
exit 0
