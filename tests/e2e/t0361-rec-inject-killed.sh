# description: a process killed while ftrail holds its threads for an injected call (record -P's attach and detach) lets ftrail go: it reaps the killed threads it holds instead of waiting for ever on the zombie main thread
# requires: root cc
# asan: yes
. "$TOP/tests/e2e/lib.sh"
need_root
[ "$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null)" != 3 ] || skip "ptrace is disabled (yama ptrace_scope 3)"
[ -x "$BUILD/tests/tools/inject_killed" ] || fail "no $BUILD/tests/tools/inject_killed"
# four threads, all asleep most of the time
cat >v.c <<'C'
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
static void *w(void *a) { for (;;) usleep(1000); return a; }
int main(void)
{
	pthread_t t;
	for (int i = 0; i < 3; i++)
		pthread_create(&t, NULL, w, NULL);
	printf("ready\n");
	fflush(stdout);
	for (;;)
		usleep(1000);
}
C
cc -O1 -o v v.c -lpthread || fail "cc"
for round in 1 2 3; do
	./v >v.out &
	v=$!
	for _ in $(seq 100); do
		grep -q ready v.out && break
		sleep 0.05
	done
	# the call sleeps 20 s in the main thread; the process is killed 0.3 s
	# in: the call must end well before its 40 s limit, and the resume
	timeout 30 "$BUILD/tests/tools/inject_killed" "$v" 20 >ik.out 2>ik.err
	rc=$?
	kill -9 "$v" 2>/dev/null
	wait "$v" 2>/dev/null
	[ $rc = 124 ] && fail "round $round: still waiting 30 s after the process was killed: $(cat ik.out)"
	[ $rc = 0 ] || fail "round $round: exit $rc: $(cat ik.out ik.err)"
	grep -q '^call: process [0-9]* exited while ftrail attached$' ik.out || fail "round $round: $(cat ik.out)"
	grep -q '^resumed$' ik.out || fail "round $round: $(cat ik.out)"
done
exit 0
