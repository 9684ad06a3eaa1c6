#!/usr/bin/env bash
# description: ftrail latency: syscall enter/exit pairs per thread, per-label stats and histogram
# requires: root tracefs
# asan: yes
. "$TOP/tests/e2e/lib.sh"
need_tracefs
[ -d /sys/kernel/tracing/events/raw_syscalls ] || skip "no raw_syscalls events"

: >rec.err
"$FTRAIL" record -e raw_syscalls -f 'common_pid == '$$ -a -o k.dat >rec.out 2>rec.err &
KREC=$!
for _ in $(seq 200); do grep -q 'recording kernel events' rec.err && break; sleep 0.05; done
# the shell itself makes syscalls: reads of a file, a few sleeps
for i in 1 2 3 4 5 6 7 8; do read -r _ </etc/hostname; done
sleep 0.05
kill -INT $KREC; wait $KREC || fail "record failed: $(cat rec.err)"

$FTRAIL latency -i k.dat --from raw_syscalls:sys_enter --to raw_syscalls:sys_exit --key pid --label id >lat.txt ||
	fail "latency failed"
grep -Eq '^ *[0-9]+\.[0-9]{9} +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+\.[0-9]{3}$' lat.txt || fail "no pair lines: $(head lat.txt)"
pairs=$(sed -n 's/^pairs: \([0-9]*\),.*/\1/p' lat.txt)
[ "${pairs:-0}" -ge 8 ] || fail "only ${pairs:-0} pairs"
# each pair line's duration is in [min, max] of (all)
read -r _ cnt _ min _ max < <(grep '^(all)' lat.txt)
[ "$cnt" = "$pairs" ] || fail "(all) count $cnt != pairs $pairs"
grep -q '^LABEL ' lat.txt || fail "no label table"
grep -q 'log2 histogram' lat.txt || fail "no histogram"
h=$(grep -E '^\[' lat.txt | sed -E 's/^(\[[^]]*\]|\[[^)]*\)) +([0-9]+) .*/\2/' | awk '{ s += $1 } END { print s }')
[ "$h" = "$pairs" ] || fail "histogram counts $h != $pairs pairs"

$FTRAIL latency -i k.dat --from raw_syscalls:sys_enter --to raw_syscalls:sys_exit --summary >sum.txt ||
	fail "--summary"
grep -Eq '^ *[0-9]+\.[0-9]{9} ' sum.txt && fail "--summary printed pair lines"

expect_fail "ftrail: latency: --from SYS:EVENT and --to SYS:EVENT are both needed" \
	$FTRAIL latency -i k.dat --from raw_syscalls:sys_enter
expect_fail "ftrail: latency: no 'nosuch:event' event in k.dat" \
	$FTRAIL latency -i k.dat --from nosuch:event --to raw_syscalls:sys_exit
expect_fail "ftrail: latency: event raw_syscalls:sys_e* has no field 'nofield' to use as --key; its fields: *" \
	$FTRAIL latency -i k.dat --from raw_syscalls:sys_enter --to raw_syscalls:sys_exit --key nofield
exit 0
