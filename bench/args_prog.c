// SPDX-License-Identifier: GPL-2.0
/*
 * The program of bench/args_bench.sh: N iterations of f1(a, b) -> { f2(a, b),
 * f3(a, b) } (3 calls, each with 2 integer arguments and an integer return
 * value), timed from inside.  Prints "calls=C ns=T".
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline, noclone))

volatile long sink;
long f1(long a, long b);
long f2(long a, long b);
long f3(long a, long b);

NOINLINE long f3(long a, long b)
{
	return a ^ b;
}

NOINLINE long f2(long a, long b)
{
	return a + b;
}

NOINLINE long f1(long a, long b)
{
	return f2(a, b) + f3(a, b);
}

static long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000, t0, t1;

	t0 = now_ns();
	for (long i = 0; i < n; i++)
		sink += f1(i, 7);
	t1 = now_ns();
	printf("calls=%ld ns=%ld\n", 3 * n, t1 - t0);
	return 0;
}
