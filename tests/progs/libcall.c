// SPDX-License-Identifier: GPL-2.0
/*
 * Library calls through the PLT (t0432): ./libcall MODE
 *   s  work(): malloc, qsort calling back cmp() three times, printf, free
 *   e  leave(): exit(3) through the PLT, from two traced frames down
 *   j  jump(): qsort's callback longjmp()s out of qsort
 *   t  a thread that takes a mutex; main joins it
 *   p  a thread that leaves through pthread_exit() two frames down
 * No other library call is made after main starts, so the graph below
 * main is exact.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

static jmp_buf env;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static volatile int sink;

static int cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static int cmp_jump(const void *a, const void *b)
{
	(void)a;
	(void)b;
	longjmp(env, 1);
}

NOINLINE void work(void)
{
	int *v = malloc(3 * sizeof(int));

	for (int i = 0; i < 3; i++)
		v[i] = 3 - i;
	qsort(v, 3, sizeof(int), cmp);
	printf("%d %d\n", v[0], v[2]);
	free(v);
}

NOINLINE void leave(void)
{
	sink++;
	exit(3);
}

NOINLINE void jump(void)
{
	int v[3] = { 3, 2, 1 };

	if (!setjmp(env))
		qsort(v, 3, sizeof(int), cmp_jump);
	sink++;
}

NOINLINE void *locker(void *arg)
{
	pthread_mutex_lock(&mu);
	sink++;
	pthread_mutex_unlock(&mu);
	return arg;
}

NOINLINE void bye(void)
{
	pthread_exit(NULL);
}

NOINLINE void *leaver(void *arg)
{
	bye();
	return arg;
}

NOINLINE void threads(void *(*fn)(void *))
{
	pthread_t t;

	pthread_create(&t, NULL, fn, NULL);
	pthread_join(t, NULL);
}

int main(int argc, char **argv)
{
	char mode = argc > 1 ? argv[1][0] : 's';

	if (mode == 'e')
		leave();
	else if (mode == 'j')
		jump();
	else if (mode == 't')
		threads(locker);
	else if (mode == 'p')
		threads(leaver);
	else
		work();
	return 0;
}
