// SPDX-License-Identifier: GPL-2.0
/*
 * Threads that rename themselves: main becomes "boss" with
 * prctl(PR_SET_NAME), thread 1 "self-named" with pthread_setname_np(self),
 * thread 2 is named "by-boss" by main (another thread's name).  Each calls
 * before() under its old name and after() under its new one; the threads
 * run one after the other so the trace's order is fixed.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <sys/prctl.h>

#define NOINLINE __attribute__((noinline))

volatile int sink;

NOINLINE void before(void)
{
	sink++;
}

NOINLINE void after(void)
{
	sink++;
}

NOINLINE void *self_named(void *arg)
{
	(void)arg;
	before();
	if (pthread_setname_np(pthread_self(), "self-named"))
		return (void *)1;
	after();
	return NULL;
}

static pthread_mutex_t go_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go_cond = PTHREAD_COND_INITIALIZER;
static int go;

NOINLINE void *other_named(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&go_lock);
	while (!go)
		pthread_cond_wait(&go_cond, &go_lock);
	pthread_mutex_unlock(&go_lock);
	after();
	return NULL;
}

int main(void)
{
	pthread_t t1, t2;
	void *r1, *r2;

	before();
	if (prctl(PR_SET_NAME, "boss", 0, 0, 0))
		return 1;
	after();
	if (pthread_create(&t1, NULL, self_named, NULL) || pthread_join(t1, &r1) || r1)
		return 1;
	if (pthread_create(&t2, NULL, other_named, NULL))
		return 1;
	if (pthread_setname_np(t2, "by-boss"))
		return 1;
	pthread_mutex_lock(&go_lock);
	go = 1;
	pthread_cond_signal(&go_cond);
	pthread_mutex_unlock(&go_lock);
	if (pthread_join(t2, &r2) || r2)
		return 1;
	printf("ok\n");
	return 0;
}
