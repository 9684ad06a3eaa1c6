// SPDX-License-Identifier: GPL-2.0
/*
 * Four threads emit events as fast as they can, and a timer signal's
 * handler emits more inside them, until ./stop exists (tests/e2e/t1035
 * edits the events' filters and triggers meanwhile).  Prints how many.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>
#include <unistd.h>

#include <ftrail/ftrail.h>

FTRAIL_EVENT(edit, ev, (u32, t), (u32, i));
FTRAIL_EVENT(edit, sig, (u32, n));

static volatile int nsig, stop;
static unsigned long counts[4];

static void on_alarm(int s)
{
	(void)s;
	nsig++;
	ftrail_trace(edit, sig, (unsigned int)nsig);
}

static void *run(void *a)
{
	unsigned long t = (unsigned long)a, i;

	for (i = 0; !__atomic_load_n(&stop, __ATOMIC_RELAXED); i++)
		ftrail_trace(edit, ev, (unsigned int)t, (unsigned int)i);
	counts[t] = i;
	return NULL;
}

int main(void)
{
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } }, off = { { 0, 0 }, { 0, 0 } };
	unsigned long total = 0;
	pthread_t th[4];

	signal(SIGALRM, on_alarm);
	setitimer(ITIMER_REAL, &it, NULL);
	for (long i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, run, (void *)i);
	while (access("stop", F_OK))
		usleep(20000);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		total += counts[i];
	}
	setitimer(ITIMER_REAL, &off, NULL);
	printf("ev=%lu sig=%d\n", total, nsig);
	return 0;
}
