// SPDX-License-Identifier: GPL-2.0
/*
 * A program whose threads block for known durations in known call paths,
 * to validate `ftrail offcpu` (tests/e2e/t08xx):
 *
 *   sleep   offcpu_sleep_long   1 x LONG_SLEEP ms   nanosleep
 *           offcpu_sleep_short  N x short ms
 *   mutex   offcpu_mutex_long   a contended pthread mutex, held by a helper
 *           offcpu_mutex_short
 *   pipe    offcpu_pipe_long    read() on an empty pipe, written by a helper
 *           offcpu_pipe_short
 *   cond    offcpu_cond_long    pthread_cond_wait, signalled by a helper
 *           offcpu_cond_short
 *
 * Each blocking call goes through a small wrapper of ours (block_*) so the
 * offcpu_* frame is a caller's frame even in a frame-pointer walk that
 * misses the function that called into libc.  The truth, measured by each
 * thread around each blocking call with CLOCK_MONOTONIC, is printed as
 *   truth <kind> <long|short> <tid> <ns>
 * lines at the end.  Options:
 *   --go FILE        wait until FILE exists before starting (for -p PID)
 *   --long MS        duration of the long blocks (default 200)
 *   --short MS       duration of the short blocks (default 10)
 *   --count N        number of short blocks per kind (default 5)
 *   --linger MS      stay alive MS ms after printing (so that a tool that
 *                    symbolises at exit, such as bpftrace, still finds us)
 * Build with -O0 -fno-omit-frame-pointer (and an instrumentation flag for
 * function_graph stacks).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static long long long_ms = 200, short_ms = 10;
static int count = 5;
static long long linger_ms;

struct truth {
	const char *kind, *len;
	long tid;
	long long ns;
};
static struct truth truths[256];
static atomic_int nr_truths;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void record_truth(const char *kind, const char *len, long long ns)
{
	int i = atomic_fetch_add(&nr_truths, 1);

	if (i < (int)(sizeof(truths) / sizeof(truths[0]))) {
		truths[i].kind = kind;
		truths[i].len = len;
		truths[i].tid = (long)syscall(SYS_gettid);
		truths[i].ns = ns;
	}
}

static void ms_sleep(long long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* A one-shot "ready" flag between a waiter and its helper (spins briefly). */
static void wait_flag(atomic_int *f, int v)
{
	while (atomic_load(f) != v)
		ms_sleep(1);
}

/* --- the blocking wrappers ------------------------------------------------ */

NOINLINE static void block_nanosleep(long long ms)
{
	ms_sleep(ms);
}

NOINLINE static void block_mutex(pthread_mutex_t *m)
{
	pthread_mutex_lock(m);
	pthread_mutex_unlock(m);
}

NOINLINE static void block_read(int fd)
{
	char c;

	while (read(fd, &c, 1) < 0 && errno == EINTR)
		;
}

NOINLINE static void block_cond(pthread_mutex_t *m, pthread_cond_t *c, int *pred)
{
	pthread_mutex_lock(m);
	while (!*pred)
		pthread_cond_wait(c, m);
	*pred = 0;
	pthread_mutex_unlock(m);
}

/* --- sleep ------------------------------------------------------------------ */

NOINLINE void offcpu_sleep_long(void);
NOINLINE void offcpu_sleep_short(void);

NOINLINE void offcpu_sleep_long(void)
{
	long long t = now_ns();

	block_nanosleep(long_ms);
	record_truth("sleep", "long", now_ns() - t);
}

NOINLINE void offcpu_sleep_short(void)
{
	long long t = now_ns();

	block_nanosleep(short_ms);
	record_truth("sleep", "short", now_ns() - t);
}

static void *sleep_thread(void *arg)
{
	offcpu_sleep_long();
	for (int i = 0; i < count; i++)
		offcpu_sleep_short();
	return NULL;
}

/* --- mutex ------------------------------------------------------------------ */

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static atomic_int mtx_held, mtx_round, mtx_got;

NOINLINE void offcpu_mutex_long(void);
NOINLINE void offcpu_mutex_short(void);

NOINLINE void offcpu_mutex_long(void)
{
	long long t = now_ns();

	block_mutex(&mtx);
	record_truth("mutex", "long", now_ns() - t);
}

NOINLINE void offcpu_mutex_short(void)
{
	long long t = now_ns();

	block_mutex(&mtx);
	record_truth("mutex", "short", now_ns() - t);
}

static void *mutex_helper(void *arg)
{
	for (int i = 0; i <= count; i++) {
		pthread_mutex_lock(&mtx);
		atomic_store(&mtx_held, i + 1);
		/* let the waiter reach the lock before the clock runs */
		wait_flag(&mtx_round, i + 1);
		ms_sleep(1);
		ms_sleep(i == 0 ? long_ms : short_ms);
		pthread_mutex_unlock(&mtx);
		/*
		 * the next round's lock only once the waiter has had this one:
		 * mutexes are not fair, and a waiter that the unlock woke but
		 * that did not run before our next lock would wait for it while
		 * we wait for its mtx_round, forever (a loaded machine, or a
		 * slow recorder, makes that wake-up late)
		 */
		wait_flag(&mtx_got, i + 1);
	}
	return NULL;
}

static void *mutex_thread(void *arg)
{
	for (int i = 0; i <= count; i++) {
		wait_flag(&mtx_held, i + 1);
		atomic_store(&mtx_round, i + 1);
		if (i == 0)
			offcpu_mutex_long();
		else
			offcpu_mutex_short();
		atomic_store(&mtx_got, i + 1);
	}
	return NULL;
}

/* --- pipe ------------------------------------------------------------------- */

static int pfd[2];
static atomic_int pipe_round;

NOINLINE void offcpu_pipe_long(void);
NOINLINE void offcpu_pipe_short(void);

NOINLINE void offcpu_pipe_long(void)
{
	long long t = now_ns();

	block_read(pfd[0]);
	record_truth("pipe", "long", now_ns() - t);
}

NOINLINE void offcpu_pipe_short(void)
{
	long long t = now_ns();

	block_read(pfd[0]);
	record_truth("pipe", "short", now_ns() - t);
}

static void *pipe_helper(void *arg)
{
	for (int i = 0; i <= count; i++) {
		wait_flag(&pipe_round, i + 1);
		ms_sleep(i == 0 ? long_ms : short_ms);
		if (write(pfd[1], "x", 1) != 1)
			abort();
	}
	return NULL;
}

static void *pipe_thread(void *arg)
{
	for (int i = 0; i <= count; i++) {
		atomic_store(&pipe_round, i + 1);
		if (i == 0)
			offcpu_pipe_long();
		else
			offcpu_pipe_short();
	}
	return NULL;
}

/* --- condition variable ------------------------------------------------------ */

static pthread_mutex_t cmtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int cpred;
static atomic_int cond_round;

NOINLINE void offcpu_cond_long(void);
NOINLINE void offcpu_cond_short(void);

NOINLINE void offcpu_cond_long(void)
{
	long long t = now_ns();

	block_cond(&cmtx, &cond, &cpred);
	record_truth("cond", "long", now_ns() - t);
}

NOINLINE void offcpu_cond_short(void)
{
	long long t = now_ns();

	block_cond(&cmtx, &cond, &cpred);
	record_truth("cond", "short", now_ns() - t);
}

static void *cond_helper(void *arg)
{
	for (int i = 0; i <= count; i++) {
		wait_flag(&cond_round, i + 1);
		ms_sleep(i == 0 ? long_ms : short_ms);
		/* set the predicate, release the mutex, then signal: the waiter
		 * wakes once and finds the mutex free */
		pthread_mutex_lock(&cmtx);
		cpred = 1;
		pthread_mutex_unlock(&cmtx);
		pthread_cond_signal(&cond);
	}
	return NULL;
}

static void *cond_thread(void *arg)
{
	for (int i = 0; i <= count; i++) {
		atomic_store(&cond_round, i + 1);
		if (i == 0)
			offcpu_cond_long();
		else
			offcpu_cond_short();
	}
	return NULL;
}

/* --- main ------------------------------------------------------------------- */

NOINLINE static void wait_for_go(const char *path)
{
	while (access(path, F_OK))
		ms_sleep(1);
}

int main(int argc, char **argv)
{
	void *(*fns[])(void *) = { sleep_thread, mutex_helper, mutex_thread, pipe_helper,
				   pipe_thread,	 cond_helper,  cond_thread };
	pthread_t th[sizeof(fns) / sizeof(fns[0])];
	const char *go = NULL;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--go") && i + 1 < argc)
			go = argv[++i];
		else if (!strcmp(argv[i], "--long") && i + 1 < argc)
			long_ms = atoll(argv[++i]);
		else if (!strcmp(argv[i], "--short") && i + 1 < argc)
			short_ms = atoll(argv[++i]);
		else if (!strcmp(argv[i], "--count") && i + 1 < argc)
			count = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--linger") && i + 1 < argc)
			linger_ms = atoll(argv[++i]);
		else {
			fprintf(stderr,
				"usage: %s [--go FILE] [--long MS] [--short MS] [--count N] "
				"[--linger MS]\n",
				argv[0]);
			return 2;
		}
	}
	if (count < 0 || count > 40 || long_ms <= 0 || short_ms <= 0) {
		fprintf(stderr, "bad arguments\n");
		return 2;
	}
	if (pipe(pfd))
		return 1;
	if (go)
		wait_for_go(go);
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (pthread_create(&th[i], NULL, fns[i], NULL))
			return 1;
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < atomic_load(&nr_truths); i++)
		printf("truth %s %s %ld %lld\n", truths[i].kind, truths[i].len, truths[i].tid,
		       truths[i].ns);
	fflush(stdout);
	if (linger_ms > 0)
		ms_sleep(linger_ms);
	return 0;
}
