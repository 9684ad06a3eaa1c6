// SPDX-License-Identifier: GPL-2.0
/*
 * The section tracers' cases (lockheld, sigsoff): sections of known length
 * planted among many short ones; the program measures its own worst ones.
 *
 *   ulat_lock lock MS     1000 short holds of mutex a, one of MS ms in
 *                         hold_long(), 1000 short holds again
 *   ulat_lock cond MS     hold b MS ms (hold_b), then wait 3*MS ms on a
 *                         condition variable with b (released meanwhile)
 *   ulat_lock threads MS  4 threads take mutex a 2000 times each, briefly;
 *                         a fifth holds mutex b MS ms once (hold_b)
 *   ulat_lock sigs MS     1000 short pthread_sigmask blocks, one sigprocmask
 *                         block of MS ms in block_long()
 *   ulat_lock try MS      a trylock that succeeds and holds MS ms (try_hold),
 *                         one that fails (the mutex is another thread's)
 *   ulat_lock stress MS   8 threads at once, 5000 holds each of a shared and
 *                         of their own mutex, and in thread 5, midway, one
 *                         hold of its own of MS ms (stress_long)
 *   ulat_lock loop MS FILE  until FILE exists: hold a MS ms (hold_loop), then
 *                         1 ms unlocked, for record -P
 *   ulat_lock two MS      hold a 4*MS ms (hold_long), then b MS ms (hold_b):
 *                         the second is no new max, even when the load
 *                         makes its sleep end late
 *
 * Prints "NAME us=N lock=0xADDR tid=T" for each planted section: the time
 * from the lock's return (or the mask call's) to the unlock (or unblock).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static volatile long counter;
static int ms;

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void say(const char *name, int64_t ns, const void *lock)
{
	printf("%s us=%lld lock=%p tid=%d\n", name, (long long)(ns / 1000), lock, gettid());
	fflush(stdout);
}

/* sleep until ns nanoseconds have passed since t0 (whatever the load) */
static void wait_until(int64_t t0, int64_t ns)
{
	int64_t left;

	while ((left = t0 + ns - now_ns()) > 0) {
		struct timespec ts = { left / 1000000000, left % 1000000000 };

		nanosleep(&ts, NULL);
	}
}

NOINLINE void work(void)
{
	counter++;
}

NOINLINE void hold_short(pthread_mutex_t *m)
{
	pthread_mutex_lock(m);
	work();
	pthread_mutex_unlock(m);
}

NOINLINE void hold_long(void)
{
	int64_t t0, t1;

	pthread_mutex_lock(&a);
	t0 = now_ns();
	work();
	wait_until(t0, (int64_t)ms * 1000000);
	t1 = now_ns();
	pthread_mutex_unlock(&a);
	say("hold_long", t1 - t0, &a);
}

NOINLINE void hold_b(void)
{
	int64_t t0, t1;

	pthread_mutex_lock(&b);
	t0 = now_ns();
	wait_until(t0, (int64_t)ms * 1000000);
	t1 = now_ns();
	pthread_mutex_unlock(&b);
	say("hold_b", t1 - t0, &b);
}

NOINLINE void cond_long(void)
{
	struct timespec dl;
	int64_t t0, t1;

	pthread_mutex_lock(&b);
	t0 = now_ns();
	wait_until(t0, (int64_t)ms * 1000000);
	t1 = now_ns();
	say("cond_before", t1 - t0, &b);
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_nsec += (long)(3 * ms % 1000) * 1000000;
	dl.tv_sec += 3 * ms / 1000 + dl.tv_nsec / 1000000000;
	dl.tv_nsec %= 1000000000;
	while (pthread_cond_timedwait(&cv, &b, &dl) == 0)
		;
	work();
	pthread_mutex_unlock(&b);
}

NOINLINE void block_short(void)
{
	sigset_t s, old;

	sigfillset(&s);
	pthread_sigmask(SIG_BLOCK, &s, &old);
	work();
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

NOINLINE void block_long(void)
{
	sigset_t s, old;
	int64_t t0, t1;

	sigemptyset(&s);
	sigaddset(&s, SIGINT);
	sigaddset(&s, SIGUSR1);
	sigprocmask(SIG_BLOCK, &s, &old);
	t0 = now_ns();
	work();
	wait_until(t0, (int64_t)ms * 1000000);
	t1 = now_ns();
	sigprocmask(SIG_UNBLOCK, &s, NULL);
	say("block_long", t1 - t0, NULL);
}

static void *short_holder(void *arg)
{
	(void)arg;
	for (int i = 0; i < 2000; i++)
		hold_short(&a);
	return NULL;
}

static void *long_holder(void *arg)
{
	(void)arg;
	hold_b();
	return NULL;
}

NOINLINE void try_hold(void)
{
	int64_t t0, t1;

	if (pthread_mutex_trylock(&a))
		exit(2);
	t0 = now_ns();
	work();
	wait_until(t0, (int64_t)ms * 1000000);
	t1 = now_ns();
	pthread_mutex_unlock(&a);
	say("try_hold", t1 - t0, &a);
}

static pthread_mutex_t own_locks[8];

NOINLINE void stress_long(pthread_mutex_t *m)
{
	int64_t t0, t1, before, after;

	before = now_ns();
	pthread_mutex_lock(m);
	t0 = now_ns();
	wait_until(t0, (int64_t)ms * 1000000);
	t1 = now_ns();
	pthread_mutex_unlock(m);
	after = now_ns();
	say("stress_long", t1 - t0, m);
	/* the hold as seen from outside the two calls: a tracer's measurement,
	 * taken inside them, lies between this and the line above (a thread
	 * preempted between the lock's return and t0 holds the lock longer
	 * than it measured) */
	say("stress_long_outer", after - before, m);
}

static void *stresser(void *arg)
{
	int k = (int)(intptr_t)arg;

	for (int i = 0; i < 5000; i++) {
		hold_short(i & 1 ? &a : &own_locks[k]);
		if (k == 5 && i == 2500)
			stress_long(&own_locks[k]);
	}
	return NULL;
}

NOINLINE void hold_loop(void)
{
	pthread_mutex_lock(&a);
	wait_until(now_ns(), (int64_t)ms * 1000000);
	pthread_mutex_unlock(&a);
}

static void *try_fail(void *arg)
{
	(void)arg;
	if (pthread_mutex_trylock(&a) == 0) /* main holds it: must fail */
		exit(3);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "lock";

	ms = argc > 2 ? atoi(argv[2]) : 50;
	if (!strcmp(mode, "lock")) {
		for (int i = 0; i < 1000; i++)
			hold_short(&a);
		hold_long();
		for (int i = 0; i < 1000; i++)
			hold_short(&a);
	} else if (!strcmp(mode, "stress")) {
		pthread_t th[8];

		for (int i = 0; i < 8; i++) {
			pthread_mutex_init(&own_locks[i], NULL);
			if (pthread_create(&th[i], NULL, stresser, (void *)(intptr_t)i))
				return 1;
		}
		for (int i = 0; i < 8; i++)
			pthread_join(th[i], NULL);
	} else if (!strcmp(mode, "loop") && argc > 3) {
		printf("loop lock=%p\n", (void *)&a);
		fflush(stdout);
		while (access(argv[3], F_OK)) {
			hold_loop();
			usleep(1000);
		}
		work();
	} else if (!strcmp(mode, "two")) {
		ms *= 4;
		hold_long();
		ms /= 4;
		hold_b();
		work();
	} else if (!strcmp(mode, "cond")) {
		cond_long();
	} else if (!strcmp(mode, "threads")) {
		pthread_t th[5];

		for (int i = 0; i < 5; i++)
			if (pthread_create(&th[i], NULL, i == 2 ? long_holder : short_holder, NULL))
				return 1;
		for (int i = 0; i < 5; i++)
			pthread_join(th[i], NULL);
	} else if (!strcmp(mode, "sigs")) {
		for (int i = 0; i < 1000; i++)
			block_short();
		block_long();
		for (int i = 0; i < 1000; i++)
			block_short();
	} else if (!strcmp(mode, "try")) {
		pthread_t th;
		int64_t t0;

		pthread_mutex_lock(&a);
		t0 = now_ns();
		if (pthread_create(&th, NULL, try_fail, NULL) || pthread_join(th, NULL))
			return 1;
		pthread_mutex_unlock(&a);
		say("main_hold", now_ns() - t0, &a);
		try_hold();
	} else {
		fprintf(stderr, "ulat_lock: unknown mode %s\n", mode);
		return 1;
	}
	return counter > 0 ? 0 : 1;
}
