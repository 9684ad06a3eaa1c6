/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What sigstorm.c and sysstorm.c share: threads, each interrupted by a
 * timer of its own that sends it SIGRTMIN every 50 us.
 *
 * Always inlined and never instrumented, so that a traced program calls
 * no function it does not count (-pg and patchable entries see no
 * function, -finstrument-functions is told by the attribute).
 */
#ifndef STORM_TIMER_H
#define STORM_TIMER_H

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

#define STORM_INLINE static inline __attribute__((always_inline, no_instrument_function))

/* Start the calling thread's timer; exits the program when it cannot. */
STORM_INLINE timer_t storm_timer_start(const char *prog)
{
	struct sigevent sev = { 0 };
	struct itimerspec its = { { 0, 50000 }, { 0, 50000 } };
	timer_t tm;

	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGRTMIN;
	sev.sigev_notify_thread_id = (pid_t)gettid();
	if (timer_create(CLOCK_MONOTONIC, &sev, &tm) || timer_settime(tm, 0, &its, NULL)) {
		fprintf(stderr, "%s: timer: %m\n", prog);
		exit(1);
	}
	return tm;
}

/* No handler after the count: block, then stop (a pending signal dies with the thread). */
STORM_INLINE void storm_timer_stop(timer_t tm)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	timer_delete(tm);
}

/* Run n (at most 64) threads of worker with handler on SIGRTMIN; 0, or 1 when one cannot start. */
STORM_INLINE int storm_run(int n, void (*handler)(int), void *(*worker)(void *))
{
	struct sigaction sa = { 0 };
	pthread_t th[64];

	sa.sa_handler = handler;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGRTMIN, &sa, NULL);
	for (int i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, worker, NULL))
			return 1;
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	return 0;
}

#endif
