# description: mount: the program's events appear under events/u however early the tree is read, with many readers racing for the first look; the tree's server maps the program's event area once
# requires: root fuse gcc
# asan: yes
. "$TOP/tests/e2e/t1019-mount.inc"
gcc -O1 -I"$TOP/include" -o evs "$TOP/tests/progs/ev_sleep.c" || fail "build ev_sleep"
mkdir m
MNT=m
# the program runs until the test stops it (1000 x 50 ms at most)
$FTRAIL record -q -o t.dat --mount m -p nop -e u:sleepy:tick -- ./evs 1000 >rec.out 2>rec.err &
REC=$!
wait_mounted m "$REC"
# 8 readers at once from the moment the tree is up, each until it sees the
# format (60 s at most): the first of them maps the area, the others race it
for r in $(seq 8); do
	(
		for _ in $(seq 600); do
			cat m/events/u/sleepy/tick/format >fmt.$r 2>/dev/null && [ -s fmt.$r ] && exit 0
			ls m/events/u >/dev/null 2>&1
			sleep 0.1
		done
		exit 1
	) &
done
bad=0
for j in $(jobs -p); do
	[ "$j" = "$REC" ] && continue
	wait "$j" || bad=$((bad + 1))
done
[ "$bad" = 0 ] || fail "$bad of 8 readers never saw events/u/sleepy/tick/format: events/u holds '$(ls m/events/u 2>&1)'"
for r in $(seq 8); do
	cmp -s fmt.1 fmt.$r || fail "reader $r saw another format: $(diff fmt.1 fmt.$r)"
done
grep -q '^name: tick$' fmt.1 || fail "format: $(cat fmt.1)"
# the subsystem directory holds its enable switch and the event, as in tracefs
expect_eq "events/u/sleepy" "$(ls m/events/u/sleepy | tr "\n" " ")" "enable tick "
# the server (its cwd is ours; neither the recorder nor the program) maps the area once
srv=0
for p in /proc/[0-9]*; do
	[ "$(readlink "$p/cwd" 2>/dev/null)" = "$PWD" ] || continue
	[ "$(cat "$p/comm" 2>/dev/null)" = ftrail ] || continue
	n=$(grep -c 'memfd:ftrail-uev' "$p/maps" 2>/dev/null)
	[ "${n:-0}" -le 1 ] || fail "process ${p#/proc/} maps the event area $n times"
	srv=$((srv + 1))
done
[ "$srv" -ge 1 ] || fail "no ftrail process found beside the test"
kill -TERM $REC
wait $REC
REC=
! mounted m || fail "m still mounted after record ended"
exit 0
