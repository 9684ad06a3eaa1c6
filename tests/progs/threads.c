// SPDX-License-Identifier: GPL-2.0
/* Threads: each runs worker -> step -> leaf; one leaves through pthread_exit. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))
#define NTHREADS 4

volatile int sink;

NOINLINE void leaf(int x)
{
	sink += x;
}

NOINLINE void quit_here(void)
{
	pthread_exit(NULL);
}

NOINLINE void step(int x)
{
	leaf(x);
	if (x == 100)
		quit_here();
}

NOINLINE void *worker(void *arg)
{
	int id = (int)(long)arg;

	for (int i = 0; i < 3; i++)
		step(id);
	if (id == 0)
		step(100);
	return NULL;
}

int main(void)
{
	pthread_t th[NTHREADS];

	for (long i = 0; i < NTHREADS; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)i))
			return 1;
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	step(7);
	printf("done %d\n", sink);
	return 0;
}
