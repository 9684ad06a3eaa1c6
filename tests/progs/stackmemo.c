// SPDX-License-Identifier: GPL-2.0
/*
 * Calls whose stacks repeat in many shapes, for -T (t0441): recursion to
 * varying depths, one callee from two call sites of one caller, callbacks
 * from libc's qsort (their caller is not the traced frame below them),
 * calls through a pointer, a sibling (tail) call, a signal handler's
 * calls, and a second thread.  Deterministic: the same stacks, the same
 * number of times, every run.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

volatile long sink;

NOINLINE long leaf(long x)
{
	sink += x;
	return x ^ 3;
}

NOINLINE long two_sites(long x)
{
	long a = leaf(x);

	a += leaf(x + 1);
	return a;
}

NOINLINE long rec(int n)
{
	long r;

	if (n == 0)
		return two_sites(n);
	r = rec(n - 1);
	if (n % 3 == 0)
		r += leaf(n);
	return r;
}

NOINLINE int cmp(const void *a, const void *b)
{
	leaf(1);
	return *(const int *)a - *(const int *)b;
}

NOINLINE long tail(long x)
{
	return leaf(x + 7); /* a sibling call at -O2 */
}

static long (*volatile fp)(long) = leaf;

NOINLINE long via_ptr(long x)
{
	return fp(x) + 1;
}

static void on_usr1(int s)
{
	(void)s;
	rec(2);
}

static void *thr(void *a)
{
	for (int i = 0; i < 50; i++)
		sink += rec(i % 5);
	return a;
}

int main(void)
{
	int v[64];
	pthread_t th;

	signal(SIGUSR1, on_usr1);
	for (int r = 0; r < 20; r++) {
		for (int d = 0; d < 12; d++)
			sink += rec(d);
		for (int i = 0; i < 64; i++)
			v[i] = (i * 37 + r) % 64;
		qsort(v, 64, sizeof(v[0]), cmp);
		sink += tail(r) + via_ptr(r);
		raise(SIGUSR1);
	}
	if (pthread_create(&th, NULL, thr, NULL) == 0)
		pthread_join(th, NULL);
	printf("%ld\n", sink);
	return 0;
}
