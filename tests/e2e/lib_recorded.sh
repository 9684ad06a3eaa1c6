# Small programs that several cases record the same way:
#   . "$TOP/tests/e2e/lib_recorded.sh"   (after lib.sh)
#
# need_runtime                 skips unless libftrail.so is there; exports
#                              FTRAIL_LIB
# record_twothreads [-D...]    builds ./prog (-O0 -g -pg -pthread) from
#                              prog.c: main calls mid(5) 30 times, a worker
#                              thread mid(10) 20 times, mid(n) calls leaf()
#                              n times, so leaf 350 and mid 50 calls; then
#                              records it into p.dat (stdout ./out, stderr
#                              ./rec.err).  Skips when the runtime did not
#                              start in prog (a sanitizer build) or when the
#                              recording lost events: the callers count
#                              every call.  The -D options add to it:
#                                -DWORKER_NAME='"x"'  the worker names itself
#                                                     x (pthread_self and
#                                                     pthread_setname_np)
#                                -DFIB=8              main adds fib(8) (67
#                                                     calls, 8 deep)
#                                -DNAP_US=1000        the worker ends with
#                                                     usleep(1000)
# record_stacks                ./p (-O0 -pg): main calls middle() 100 times,
#                              each calls leaf() twice, so four call sites
#                              and 301 calls; records it into t.dat with the
#                              function tracer, a stack per call in the
#                              stack map (-O stackmap -T) and --no-libcall
#                              (the program's own stacks only)

need_runtime() {
	export FTRAIL_LIB=${FTRAIL_LIB:-$BUILD/libftrail.so}
	[ -r "$FTRAIL_LIB" ] || skip "needs the runtime ($FTRAIL_LIB)"
}

record_twothreads() {
	cat >prog.c <<'C'
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
static volatile int sink;
static void leaf(int x) { sink += x; }
#ifdef FIB
static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
#endif
static void mid(int n) { for (int i = 0; i < n; i++) leaf(i); }
static void *worker(void *arg)
{
#ifdef WORKER_NAME
	pthread_setname_np(pthread_self(), WORKER_NAME);
#endif
	for (int i = 0; i < 20; i++)
		mid(10);
#ifdef NAP_US
	usleep(NAP_US);
#endif
	return arg;
}
int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	for (int i = 0; i < 30; i++)
		mid(5);
#ifdef FIB
	sink += fib(FIB);
#endif
	pthread_join(t, NULL);
	printf("%d\n", sink);
	return 0;
}
C
	cc -O0 -g -pg -pthread "$@" -o prog prog.c || fail "cannot build prog"
	$FTRAIL record -o p.dat -- ./prog >out 2>rec.err || fail "record failed: $(cat rec.err)"
	grep -q 'runtime never started' rec.err &&
		skip "the runtime did not start in prog (sanitizer build?): $(head -n 1 rec.err)"
	grep -q '(0 lost)' rec.err || skip "the recording lost events: $(cat rec.err)"
}

record_stacks() {
	cat >p.c <<'C'
int leaf(int x) { return x * 3 + 1; }
int middle(int x) { return leaf(x) + leaf(x + 1); }
int main(void) { int s = 0; for (int i = 0; i < 100; i++) s += middle(i); return s == 42; }
C
	cc -O0 -pg -o p p.c || fail "cannot compile"
	$FTRAIL record -q -p function -O stackmap -T --no-libcall -o t.dat -- ./p || fail "record"
}
