# description: the off-CPU test program ends when its mutex waiter runs late after each unlock (a loaded machine, a slow recorder): its helper does not take the next round's lock before the waiter has had this one
# requires: cc
# asan: no
. "$TOP/tests/e2e/lib.sh"
need_cmd cc
cc -O1 -g -pthread -o blocks "$TOP/tests/progs/offcpu_blocks.c" || fail "cannot build offcpu_blocks"
cc -O1 -g -shared -fPIC -o slow_mutex.so "$TOP/tests/progs/slow_mutex.c" || fail "cannot build slow_mutex.so"
# untraced: the program alone, with every contended lock taken up to 5 ms late
timeout 60 env LD_PRELOAD=./slow_mutex.so ./blocks --long 20 --short 5 --count 3 >out 2>err
rc=$?
[ $rc -eq 124 ] && fail "the program hung (killed after 60 s): a waiter woken late never gets the mutex"
[ $rc -eq 0 ] || fail "the program exited $rc: $(cat err)"
# each kind: one long block and --count short ones
for k in sleep mutex pipe cond; do
	[ "$(grep -c "^truth $k long " out)" = 1 ] || fail "$k: want 1 long block: $(grep "^truth $k " out)"
	[ "$(grep -c "^truth $k short " out)" = 3 ] || fail "$k: want 3 short blocks: $(grep "^truth $k " out)"
done
exit 0
