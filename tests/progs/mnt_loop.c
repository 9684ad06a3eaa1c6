// SPDX-License-Identifier: GPL-2.0
/*
 * Live mount test program (tests/e2e/t10xx): runs until a file named
 * "stop" appears in its directory (at most 120 s), calling alpha(), beta()
 * and gamma() in turn every 2 ms, so a control change made through the
 * mount shows in the trace within a few milliseconds.  Prints the number
 * of rounds at the end.  mnt_loop N: N threads do it (default 1).
 */
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

volatile long sink;

NOINLINE void alpha(long i)
{
	sink += i;
}

NOINLINE void beta(long i)
{
	sink -= i;
}

NOINLINE void gamma_(long i)
{
	alpha(i);
	sink ^= i;
}

NOINLINE void *run(void *arg)
{
	struct timespec ts = { 0, 2 * 1000 * 1000 };
	long i;

	for (i = 0; i < 60000; i++) {
		alpha(i);
		beta(i);
		gamma_(i);
		if (!access("stop", F_OK))
			break;
		nanosleep(&ts, NULL);
	}
	*(long *)arg = i;
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	long rounds[64] = { 0 }, total = 0;
	pthread_t th[64];

	if (n < 1 || n > 64)
		n = 1;
	for (int t = 1; t < n; t++)
		pthread_create(&th[t], NULL, run, &rounds[t]);
	run(&rounds[0]);
	for (int t = 1; t < n; t++)
		pthread_join(th[t], NULL);
	for (int t = 0; t < n; t++)
		total += rounds[t];
	printf("rounds %ld\n", total);
	return 0;
}
