// SPDX-License-Identifier: GPL-2.0
/*
 * Stream test (t104x): call-heavy workers racing while one thread sits in
 * a traced call.
 *   stream_hold [WORKERS] [HOLDS] [HOLD_MS] [BURST]
 * The workers call outer() (which calls inner()) in bursts of BURST
 * (default 50), with a 1 ms pause between bursts, until main has called
 * hold() HOLDS times (default 5), each sleeping HOLD_MS (default 500) in
 * nanosleep(): an entry whose next record comes that much later.  Each
 * worker then prints its call count.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

volatile long sink;
static volatile int stop;
static int burst = 50;

NOINLINE void inner(long i)
{
	sink += i;
}

NOINLINE void outer(long i)
{
	inner(i);
}

NOINLINE void hold(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static void *work(void *arg)
{
	struct timespec pause = { 0, 1000000 };
	long i = 0;

	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		for (int k = 0; k < burst; k++)
			outer(i++);
		nanosleep(&pause, NULL);
	}
	*(long *)arg = i;
	return NULL;
}

int main(int argc, char **argv)
{
	int workers = argc > 1 ? atoi(argv[1]) : 3;
	int holds = argc > 2 ? atoi(argv[2]) : 5;
	long ms = argc > 3 ? atol(argv[3]) : 500;
	long calls[16] = { 0 };
	pthread_t th[16];

	if (argc > 4 && atoi(argv[4]) > 0)
		burst = atoi(argv[4]);
	if (workers < 1 || workers > 16)
		workers = 3;
	for (int i = 0; i < workers; i++)
		pthread_create(&th[i], NULL, work, &calls[i]);
	for (int i = 0; i < holds; i++)
		hold(ms);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < workers; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < workers; i++)
		fprintf(stderr, "worker %d: %ld calls\n", i, calls[i]);
	return 0;
}
