// SPDX-License-Identifier: GPL-2.0
/*
 * Stacks under load: THREADS threads call a tail-calling chain and a
 * recursion in a loop while a per-thread timer signal every 50 us runs a
 * handler that calls traced functions too -- stacks are taken in the
 * handler while the interrupted thread is anywhere, hooks included.
 * argv[1] = milliseconds to run (default 300).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "tail_chain.h"

#define THREADS 8

static volatile int stop;

NOINLINE int rec(int n)
{
	if (n == 0)
		return b(n);
	return rec(n - 1) + sink;
}

NOINLINE void h2(void)
{
	sink++;
}

NOINLINE void h1(int s)
{
	h2();
	sink += s;
}

static void on_alarm(int s)
{
	h1(s);
}

NOINLINE void *worker(void *arg)
{
	struct sigevent sev = { 0 };
	struct itimerspec its = { { 0, 50000 }, { 0, 50000 } };
	timer_t tm;
	long i = 0;

	(void)arg;
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGALRM;
	sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_MONOTONIC, &sev, &tm) || timer_settime(tm, 0, &its, NULL)) {
		perror("timer");
		exit(1);
	}
	while (!stop)
		sink += b((int)i) + rec((int)(i++ % 20));
	timer_delete(tm);
	return NULL;
}

int main(int argc, char **argv)
{
	int ms = argc > 1 ? atoi(argv[1]) : 300;
	struct sigaction sa = { 0 };
	pthread_t th[THREADS];

	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&th[i], NULL, worker, NULL))
			return 1;
	usleep((useconds_t)ms * 1000);
	stop = 1;
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	printf("ok\n");
	return 0;
}
