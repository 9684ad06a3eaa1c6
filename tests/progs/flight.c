// SPDX-License-Identifier: GPL-2.0
/*
 * Flight recorder tests (tests/e2e/t103x): `flight N USEC HOW`: a helper
 * thread ticks (fl:helper) 50 times and exits; then main ticks (fl:tick,
 * from step(), an instrumented function) N times, USEC microseconds apart,
 * calling mark() (fl:mark) every 100th tick, and ends as HOW says: exit
 * (status 3), segv, abort, or wait (until the file "stop" exists).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ftrail/ftrail.h>

FTRAIL_EVENT(fl, tick, (u32, i));
FTRAIL_EVENT(fl, mark, (u32, i));
FTRAIL_EVENT(fl, helper, (u32, i));

volatile int sink;

__attribute__((noinline)) void mark(unsigned int i)
{
	ftrail_trace(fl, mark, i);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void step(unsigned int i)
{
	ftrail_trace(fl, tick, i);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void helper_step(unsigned int i)
{
	ftrail_trace(fl, helper, i);
	__asm__ volatile("" ::: "memory");
}

static void *helper(void *arg)
{
	(void)arg;
	for (unsigned int i = 0; i < 50; i++)
		helper_step(i);
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	long us = argc > 2 ? atol(argv[2]) : 1000;
	const char *how = argc > 3 ? argv[3] : "exit";
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
	pthread_t th;

	if (pthread_create(&th, NULL, helper, NULL) || pthread_join(th, NULL))
		return 1;
	for (long i = 0; i < n; i++) {
		step((unsigned int)i);
		if (i % 100 == 99)
			mark((unsigned int)i);
		if (us)
			nanosleep(&ts, NULL);
	}
	if (!strcmp(how, "segv"))
		*(volatile int *)(long)sink = 0; /* sink is 0: the null page */
	else if (!strcmp(how, "abort"))
		abort();
	else if (!strcmp(how, "wait"))
		while (access("stop", F_OK))
			usleep(10000);
	return 3;
}
