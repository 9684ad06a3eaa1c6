// SPDX-License-Identifier: GPL-2.0
/*
 * A known number of kernel events: NTHREADS threads each make CALLS
 * getppid() system calls (each one sys_enter_getppid event); with "sig",
 * a per-thread timer also interrupts every thread every 50 us with a
 * handler that makes one more.  Prints the total number of calls made.
 *
 * usage: sysstorm NTHREADS CALLS [sig]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

static __thread volatile unsigned long h_calls; /* the handler's */
static unsigned long total; /* atomic */
static long ncalls;
static int with_sig;

static void on_timer(int sig)
{
	(void)sig;
	syscall(SYS_getppid);
	h_calls++;
}

static void *worker(void *arg)
{
	struct sigevent sev = {0};
	struct itimerspec its = {{0, 50000}, {0, 50000}};
	sigset_t set;
	timer_t tm;

	(void)arg;
	if (with_sig) {
		sev.sigev_notify = SIGEV_THREAD_ID;
		sev.sigev_signo = SIGRTMIN;
		sev.sigev_notify_thread_id = (pid_t)gettid();
		if (timer_create(CLOCK_MONOTONIC, &sev, &tm) || timer_settime(tm, 0, &its, NULL)) {
			perror("sysstorm: timer");
			exit(1);
		}
	}
	for (long i = 0; i < ncalls; i++)
		syscall(SYS_getppid); /* the libc wrapper could be cached some day */
	if (with_sig) {
		/* no handler after the count: block, then stop */
		sigemptyset(&set);
		sigaddset(&set, SIGRTMIN);
		pthread_sigmask(SIG_BLOCK, &set, NULL);
		timer_delete(tm);
	}
	__atomic_fetch_add(&total, (unsigned long)ncalls + h_calls, __ATOMIC_RELAXED);
	return NULL;
}

int main(int argc, char **argv)
{
	struct sigaction sa = {0};
	pthread_t th[64];
	int n = argc > 1 ? atoi(argv[1]) : 4;

	ncalls = argc > 2 ? atol(argv[2]) : 100000;
	with_sig = argc > 3 && !strcmp(argv[3], "sig");
	if (n < 1 || n > 64 || ncalls < 0) {
		fprintf(stderr, "usage: sysstorm NTHREADS(1-64) CALLS [sig]\n");
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
	printf("calls=%lu\n", total);
	return 0;
}
