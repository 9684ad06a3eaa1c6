// SPDX-License-Identifier: GPL-2.0
/*
 * The program of bench/libcall_bench.sh: ./libcall_prog MODE N, timed from
 * inside.  MODE l: N calls of strlen() through the PLT (built with
 * -fno-builtin so each is a real call); MODE f: N calls of a traced
 * function of the program.  Prints "calls=N ns=T".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

volatile long sink;
const char *volatile str = "ftrail";

static NOINLINE long leaf(long x)
{
	return x ^ 0x55;
}

static long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	char mode = argc > 1 ? argv[1][0] : 'l';
	long n = argc > 2 ? atol(argv[2]) : 1000000, t0, t1;

	t0 = now_ns();
	if (mode == 'f')
		for (long i = 0; i < n; i++)
			sink += leaf(i);
	else
		for (long i = 0; i < n; i++)
			sink += (long)strlen(str);
	t1 = now_ns();
	printf("calls=%ld ns=%ld\n", n, t1 - t0);
	return 0;
}
