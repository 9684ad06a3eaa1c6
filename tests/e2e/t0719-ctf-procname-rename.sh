# description: export --format ctf: each call's procname is its thread's name at that point of the trace, right after pthread_setname_np renames it too, on two threads taking turns
# requires: cc babeltrace2 python3
# asan: yes
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
need_cmd babeltrace2
need_cmd python3
cat >p.c <<'C'
#define _GNU_SOURCE
#include <pthread.h>
#define NOINLINE __attribute__((noinline))
volatile int sink;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int turn; /* 0: main's, 1: the worker's; they alternate 6 times */
NOINLINE void before(void) { sink++; }
NOINLINE void after(void) { sink++; }
static void take_turns(int me, int rename_at, const char *name)
{
	for (int i = 0; i < 6; i++) {
		pthread_mutex_lock(&m);
		while (turn != me)
			pthread_cond_wait(&cv, &m);
		if (i == rename_at)
			pthread_setname_np(pthread_self(), name);
		if (i < rename_at)
			before();
		else
			after();
		turn = !me;
		pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&m);
	}
}
static void *worker(void *arg)
{
	take_turns(1, 2, "renamed-w");
	return arg;
}
int main(void)
{
	pthread_t t;

	pthread_setname_np(pthread_self(), "first-m");
	pthread_create(&t, NULL, worker, NULL);
	take_turns(0, 4, "renamed-m");
	pthread_join(t, NULL);
	return 0;
}
C
build p gcc -O1 -pg -mfentry p.c -lpthread || fail "build"
rec p.dat -- ./p
"$FTRAIL" export --format ctf -i p.dat -o p.ctf 2>err || fail "export: $(cat err)"
babeltrace2 p.ctf >p.txt 2>bt.err || fail "babeltrace2: $(cat bt.err)"
# per thread, in order: the names the entries of before() and after() carry
python3 - <<'PY' >got || fail "parse babeltrace2's text"
import re
seen = {}
for l in open("p.txt"):
    m = re.search(r'func_entry: .*vtid = (\d+), procname = "([^"]*)" \}, \{ .*name = "(before|after)"', l)
    if m:
        seen.setdefault(m.group(1), []).append("%s:%s" % (m.group(3), m.group(2)))
for tid in sorted(seen, key=lambda t: len(seen[t][0])):
    print(" ".join(seen[tid]))
PY
# main renames itself first-m before the worker starts, then renamed-m
# in its 5th turn, right before its call (no other thread's record between);
# the worker's name before its own rename is the one it inherited
# (first-m), from its own stream's start even when the worker was gone
# before the recorder read its name from /proc; after it, renamed-w
grep -qx "before:first-m before:first-m before:first-m before:first-m after:renamed-m after:renamed-m" got ||
	fail "main's calls: $(cat got)"
grep -qx "before:first-m before:first-m after:renamed-w after:renamed-w after:renamed-w after:renamed-w" got ||
	fail "the worker's calls: $(cat got)"
[ "$(wc -l <got)" = 2 ] || fail "threads: $(cat got)"
exit 0
