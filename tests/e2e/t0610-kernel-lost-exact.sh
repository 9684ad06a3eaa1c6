#!/usr/bin/env bash
# description: kernel losses are exact: 16 threads make a known number of system calls (with and without signal handlers making more) into a tiny buffer; events + stacks + lost = entries written, in overwrite and -O nooverwrite modes; every LOST line has its number; show's header counts the losses
# requires: root tracefs cc
# asan: yes
. "$TOP/tests/e2e/lib.sh"
need_tracefs
need_cmd cc
[ -d /sys/kernel/tracing/events/syscalls/sys_enter_getppid ] || skip "needs syscall events"
cc -O2 -pthread -o sys "$TOP/tests/progs/sysstorm.c" || fail "cc"
summary() { sed -n 's/^ftrail: \([0-9]*\) kernel events (\([0-9]*\) lost), \([0-9]*\) stacks$/\1 \2 \3/p' "$1"; }
# META lines are raw text in the file; a section header's checksum bytes may
# run into the first one, so the key is found anywhere, not at a line start
meta() { grep -ao "$2=[^[:cntrl:]]*" "$1" | tail -1 | sed "s/^$2=//"; }
for mode in "" "-O nooverwrite" "-O overwrite"; do
	for sig in "" sig; do
		for T in "" -T; do
			[ -n "$T" ] && [ -n "$sig" ] && continue
			# producer/consumer: an event the kernel drops never gets its stack
			# taken, so the entries attempted are not 2 per call
			[ -n "$T" ] && [ "$mode" = "-O nooverwrite" ] && continue
			what="mode '$mode' $sig $T"
			# shellcheck disable=SC2086
			"$FTRAIL" record -p nop $mode $T -b 8 -e syscalls:sys_enter_getppid -o k.dat \
				-- ./sys 16 20000 $sig >out 2>err || fail "record $what: $(cat err)"
			calls=$(sed -n 's/^calls=//p' out)
			per=1
			[ -n "$T" ] && per=2 # each event and its kernel stack are entries of the ring
			written=$((calls * per))
			set -- $(summary err)
			[ $# = 3 ] || fail "no summary ($what): $(cat err)"
			[ "$2" -gt 0 ] || fail "$what: nothing lost with -b 8: the test proves nothing"
			[ $(($1 + $2 + $3)) = $written ] ||
				fail "$what: events $1 + lost $2 + stacks $3 != $written entries written"
			want=overwrite
			[ "$mode" = "-O nooverwrite" ] && want=producer-consumer
			[ "$(meta k.dat kernel_buffer_mode)" = $want ] ||
				fail "$what: the kernel ran in $(meta k.dat kernel_buffer_mode) mode, not $want"
			"$FTRAIL" show -i k.dat >show.out || fail "show ($what)"
			! grep -q '\[LOST EVENTS\]' show.out || fail "$what: a LOST line without its number"
			lost=$(grep -o 'LOST [0-9]* EVENTS' show.out | awk '{ s += $2 } END { print s + 0 }')
			[ "$lost" = "$2" ] || fail "$what: LOST lines add up to $lost, record said $2"
			# (with -T a stack whose event was lost is an event of its own)
			[ -n "$T" ] || [ "$(grep -c ' sys_enter_getppid: ' show.out)" = "$1" ] ||
				fail "$what: show has $(grep -c ' sys_enter_getppid: ' show.out) events, record said $1"
			grep -q "^# entries-in-buffer/entries-written: $(($1 + $3))/$written " show.out ||
				fail "$what: header $(grep entries-written show.out), expected $(($1 + $3))/$written"
		done
	done
done
exit 0
