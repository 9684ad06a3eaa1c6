# description: --pid TID traces that thread only, in user space and in kernel events, with or without a program
# requires: root tracefs
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
build sl gcc -O2 -pg -mfentry "$P/pid_sleepers.c" -lpthread || fail "build"

# user space: in a new pid namespace the recorder is pid 1 and the program
# pid 2, so its main thread's id is known before it starts; its worker
# thread must not be traced (set_ftrace_pid names threads, not processes)
command -v unshare >/dev/null || skip "no unshare"
unshare -pf --mount-proc "$FTRAIL" record -q -o u.dat --pid 2 -- ./sl 1 >rec.out 2>rec.err ||
	fail "record --pid 2: $(cat rec.err)"
grep -q '^tids 2 ' rec.out || skip "the program is not pid 2 in a new namespace: $(cat rec.out)"
"$FTRAIL" show -i u.dat >show.out 2>show.err || fail "show: $(cat show.err)"
grep -q 'main_loop()' show.out || fail "the main thread was not traced: $(head -20 show.out)"
grep -q 'worker()' show.out && fail "--pid 2 traced the worker thread too: $(grep -m3 worker show.out)"
grep -q '=>' show.out && fail "--pid 2 traced another thread: $(grep -m3 '=>' show.out)"

# kernel events, no program: only the listed thread's events
need_tracefs
./sl 3 >sl.out &
SL=$!
for _ in $(seq 100); do grep -q '^tids' sl.out && break; sleep 0.02; done
wtid=$(awk '/^tids/ { print $3 }' sl.out)
[ -n "$wtid" ] || fail "no worker tid: $(cat sl.out)"
"$FTRAIL" record -o k.dat -e syscalls:sys_enter_clock_nanosleep --pid "$wtid" >krec.out 2>krec.err &
KREC=$!
for _ in $(seq 200); do grep -q 'recording kernel events' krec.err && break; sleep 0.05; done
sleep 0.5
kill -INT $KREC
wait $KREC || fail "record --pid $wtid: $(cat krec.err)"
wait $SL
"$FTRAIL" show -i k.dat >kshow.out 2>kshow.err || fail "show kernel: $(cat kshow.err)"
tids=$(grep 'sys_enter_clock_nanosleep' kshow.out | sed -n 's/^ *[^ ]*-\([0-9][0-9]*\) .*/\1/p' | sort -u | tr '\n' ' ')
[ "$tids" = "$wtid " ] || fail "kernel events of threads '$tids', expected only $wtid: $(head -5 kshow.out)"
exit 0
