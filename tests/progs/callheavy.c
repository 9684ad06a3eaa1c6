// SPDX-License-Identifier: GPL-2.0
/*
 * A call-heavy multi-threaded program: NTHREADS threads each make 3 calls
 * per iteration (mid -> leaf, leaf) for ITERS iterations, as fast as they
 * can.  Every function of this file counts its own calls, so the program
 * prints exactly how many calls it made: under function_graph that is half
 * the records a lossless trace holds.
 *
 * usage: callheavy NTHREADS ITERS
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

static unsigned long total; /* atomic */
static __thread unsigned long calls;
static long iters;
volatile unsigned long sink;

NOINLINE unsigned long leaf(unsigned long x)
{
	calls++;
	return x * 3 + 1;
}

NOINLINE unsigned long mid(unsigned long x)
{
	calls++;
	return leaf(x) ^ leaf(x + 1);
}

NOINLINE void *worker(void *arg)
{
	unsigned long s = 0;

	(void)arg;
	calls++;
	for (long i = 0; i < iters; i++)
		s += mid((unsigned long)i);
	sink += s;
	__atomic_fetch_add(&total, calls, __ATOMIC_RELAXED);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[64];
	int n = argc > 1 ? atoi(argv[1]) : 4;

	calls++;
	iters = argc > 2 ? atol(argv[2]) : 1000000;
	if (n < 1 || n > 64 || iters < 0) {
		fprintf(stderr, "usage: callheavy NTHREADS(1-64) ITERS\n");
		return 2;
	}
	for (int i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, worker, NULL))
			return 1;
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	printf("calls=%lu\n", total + calls);
	return 0;
}
