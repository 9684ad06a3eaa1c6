// SPDX-License-Identifier: GPL-2.0
/*
 * The call-heavy program of bench/fgraph_bench.sh: N iterations of
 * f1 -> { f2, f3 } (3 calls each), timed from inside so that start-up and
 * exit of the tracers are not counted.  Prints "calls=C ns=T".
 * The script compiles it with each instrumentation flag; the Makefile also
 * builds it plainly (harmless).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

volatile long sink;

static NOINLINE long f3(long x)
{
	return x ^ 0x55;
}

static NOINLINE long f2(long x)
{
	return x + 1;
}

static NOINLINE long f1(long x)
{
	return f2(x) + f3(x);
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
		sink += f1(i);
	t1 = now_ns();
	printf("calls=%ld ns=%ld\n", 3 * n, t1 - t0);
	return 0;
}
