// SPDX-License-Identifier: GPL-2.0
/*
 * Threads emitting events while a timer signal's handler emits events and
 * markers of its own (nested writes).  Prints the totals it emitted, for
 * tests/e2e/t0907 to compare with what the trace holds.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>

#include <ftrail/ftrail.h>

FTRAIL_EVENT(thr, ev, (u32, t), (u32, i), (string, s));
FTRAIL_EVENT(thr, sig, (u32, n));

static volatile int nsig;
static int per_thread = 50000;

static void on_alarm(int s)
{
	(void)s;
	nsig++;
	ftrail_trace(thr, sig, (unsigned int)nsig);
	ftrail_marker("sig %d", nsig);
}

static void *run(void *a)
{
	for (int i = 0; i < per_thread; i++)
		ftrail_trace(thr, ev, (unsigned int)(long)a, (unsigned int)i, "abc");
	return NULL;
}

int main(int argc, char **argv)
{
	struct itimerval it = { { 0, 500 }, { 0, 500 } }, off = { { 0, 0 }, { 0, 0 } };
	pthread_t t[4];

	if (argc > 1)
		per_thread = atoi(argv[1]);
	signal(SIGALRM, on_alarm);
	setitimer(ITIMER_REAL, &it, NULL);
	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, run, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	setitimer(ITIMER_REAL, &off, NULL);
	printf("ev=%d sig=%d\n", 4 * per_thread, nsig);
	return 0;
}
