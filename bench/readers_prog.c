// SPDX-License-Identifier: GPL-2.0
/*
 * bench/readers_bench.sh's workload: a tree of small calls (top -> 2 mid
 * -> 2 leaf each, 7 calls per iteration), in THREADS threads.
 *
 *   readers_prog ITER [THREADS]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_THREADS 16

static long n_iter;

__attribute__((noinline)) static int leaf(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) static int mid(int x)
{
	return leaf(x) + leaf(x + 1);
}

__attribute__((noinline)) static int top(int x)
{
	return mid(x) ^ mid(x >> 1);
}

static void *work(void *arg)
{
	long s = 0;

	(void)arg;
	for (long i = 0; i < n_iter; i++)
		s += top((int)i);
	return (void *)s;
}

int main(int argc, char **argv)
{
	pthread_t th[MAX_THREADS];
	int nt = argc > 2 ? atoi(argv[2]) : 1;
	long s;

	n_iter = argc > 1 ? atol(argv[1]) : 100000;
	if (nt < 1 || nt > MAX_THREADS)
		nt = 1;
	for (int i = 1; i < nt; i++)
		pthread_create(&th[i], NULL, work, NULL);
	s = (long)work(NULL);
	for (int i = 1; i < nt; i++)
		pthread_join(th[i], NULL);
	printf("%ld\n", s);
	return 0;
}
