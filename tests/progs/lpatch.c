/*
 * A program for the library calls of patched functions (t0356-t0359):
 * built without instrumentation and patched (-l, --patch), or with -pg
 * for comparison.  Its lp_* functions call into libc through the PLT
 * (malloc, snprintf, strtol, free), one tail-calls fputs (jmp through the
 * PLT, or the GOT with -fno-plt), one calls a helper that is never
 * patched (its getenv() nests under its patched caller) and a function of
 * liblpatch_lib.so (lpatch_lib.c, whose own getpid() is hooked only when
 * that library has patched functions), and main and a thread make library
 * calls of their own.  Every result is checked.
 *
 *   lpatch N            N rounds in main and N in one thread, then
 *                       "sum=S errors=E"
 *   lpatch /STOPFILE    (an absolute path) rounds, with short sleeps,
 *                       until STOPFILE exists; "ready" once running,
 *                       "sum=S errors=E" at the end (t0349-attach.inc's
 *                       start_srv runs it so)
 * Exit status 0 when every result was right.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LP_FIB 3
#define LP_FIB_WANT 2 /* fib(3) */

/* one symbol each, called as written (no clone, no inlining) */
#ifdef __clang__
#define LP_FN __attribute__((noinline))
#else
#define LP_FN __attribute__((noinline, noclone))
#endif

long lpl_pid(void); /* lpatch_lib.c: 1 */

static FILE *lp_out;
static volatile long errors;

/* never patched: its library call shows under its caller */
LP_FN long helper_env(void)
{
	return getenv("LPATCH_UNSET_VARIABLE") != NULL;
}

/* a tail call through the PLT (-fno-plt: through the GOT) */
LP_FN int lp_say(const char *s)
{
	return fputs(s, lp_out);
}

LP_FN long lp_fib(long n)
{
	char *p = malloc(32);
	long r;

	snprintf(p, 32, "%ld", n);
	r = n < 2 ? n : lp_fib(n - 1) + lp_fib(n - 2);
	r += strtol(p, NULL, 10) - n;
	free(p);
	return r;
}

LP_FN long lp_work(long n)
{
	long r = lp_fib(n);

	r += helper_env();
	if (lpl_pid() != 1)
		errors++;
	if (lp_say("work\n") < 0)
		errors++;
	return r;
}

static void one(long *sum)
{
	long r = lp_work(LP_FIB);

	if (r != LP_FIB_WANT)
		errors++;
	*sum += r;
}

static const char *stopfile;
static long rounds;

static void *worker(void *arg)
{
	long *sum = arg;

	if (stopfile) {
		while (access(stopfile, F_OK)) {
			one(sum);
			usleep(1000);
		}
	} else {
		for (long i = 0; i < rounds; i++)
			one(sum);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long s1 = 0, s2 = 0;
	pthread_t t;

	lp_out = fopen("/dev/null", "w");
	if (!lp_out)
		return 2;
	if (argc > 1 && argv[1][0] == '/')
		stopfile = argv[1];
	else
		rounds = argc > 1 ? strtol(argv[1], NULL, 10) : 1;
	if (pthread_create(&t, NULL, worker, &s2))
		return 2;
	if (stopfile) {
		printf("ready\n");
		fflush(stdout);
	}
	worker(&s1);
	pthread_join(t, NULL);
	printf("sum=%ld errors=%ld\n", s1 + s2, errors);
	return errors != 0;
}
