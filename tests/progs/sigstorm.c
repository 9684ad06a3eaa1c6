// SPDX-License-Identifier: GPL-2.0
/*
 * Traced signal handlers under fire: NTHREADS threads call traced
 * functions in a loop for MS milliseconds while a per-thread timer sends
 * each of them a signal every 50 us, whose handler calls traced functions
 * too -- often in the middle of a hook.  Every traced function counts its
 * calls (thread and handler contexts apart: the handler never interrupts
 * its own counter update), and the program prints the total, so that
 * records + lost can be checked against 2 records per call exactly.
 *
 * usage: sigstorm NTHREADS MS
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

#define NOINLINE __attribute__((noinline))

static __thread unsigned long t_calls; /* calls made by the thread itself */
static __thread volatile unsigned long h_calls; /* calls made by its handler */
static unsigned long total; /* atomic */
static long run_ms;
volatile unsigned long sink;

NOINLINE void h_leaf(int x)
{
	h_calls++;
	sink += (unsigned long)x;
}

NOINLINE void on_timer(int sig)
{
	h_calls++;
	h_leaf(sig);
}

NOINLINE unsigned long leaf(unsigned long x)
{
	t_calls++;
	return x * 7 + 3;
}

NOINLINE unsigned long work(unsigned long x)
{
	t_calls++;
	return leaf(x) + leaf(x >> 1);
}

/* not a traced call: -finstrument-functions would hook it even inlined */
static __attribute__((no_instrument_function)) unsigned long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long)ts.tv_sec * 1000 + (unsigned long)ts.tv_nsec / 1000000;
}

NOINLINE void *worker(void *arg)
{
	struct sigevent sev = {0};
	struct itimerspec its = {{0, 50000}, {0, 50000}};
	unsigned long end, s = 0;
	sigset_t set;
	timer_t tm;

	(void)arg;
	t_calls++;
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGRTMIN;
	sev.sigev_notify_thread_id = (pid_t)gettid();
	if (timer_create(CLOCK_MONOTONIC, &sev, &tm) || timer_settime(tm, 0, &its, NULL)) {
		perror("sigstorm: timer");
		exit(1);
	}
	end = now_ms() + (unsigned long)run_ms;
	for (unsigned long i = 0;; i++) {
		s += work(i);
		if (!(i & 255) && now_ms() >= end)
			break;
	}
	/* no handler after the count: block, then stop (a pending signal dies with us) */
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	timer_delete(tm);
	sink += s;
	__atomic_fetch_add(&total, t_calls + h_calls, __ATOMIC_RELAXED);
	return NULL;
}

int main(int argc, char **argv)
{
	struct sigaction sa = {0};
	pthread_t th[64];
	int n = argc > 1 ? atoi(argv[1]) : 16;

	t_calls++;
	run_ms = argc > 2 ? atol(argv[2]) : 300;
	if (n < 1 || n > 64 || run_ms < 1) {
		fprintf(stderr, "usage: sigstorm NTHREADS(1-64) MS\n");
		return 2;
	}
	sa.sa_handler = on_timer;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGRTMIN, &sa, NULL);
	for (int i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, worker, NULL))
			return 1;
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	printf("calls=%lu\n", total + t_calls);
	return 0;
}
