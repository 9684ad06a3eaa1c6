// SPDX-License-Identifier: GPL-2.0
/*
 * The program of bench/ulat_bench.sh: ./ulat_prog MODE N, timed from
 * inside.  MODE f: N iterations of f1 -> { f2, f3 } (3 traced calls);
 * l: N pthread_mutex_lock/unlock pairs around a traced call (3 calls);
 * s: N pthread_sigmask block/restore pairs around a traced call (3 calls).
 * Prints "calls=C ns=T".
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

volatile long sink;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

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
	char mode = argc > 1 ? argv[1][0] : 'f';
	long n = argc > 2 ? atol(argv[2]) : 1000000, t0, t1;
	sigset_t all, old;

	sigfillset(&all);
	t0 = now_ns();
	for (long i = 0; i < n; i++) {
		if (mode == 'l') {
			pthread_mutex_lock(&m);
			sink += f3(i);
			pthread_mutex_unlock(&m);
		} else if (mode == 's') {
			pthread_sigmask(SIG_BLOCK, &all, &old);
			sink += f3(i);
			pthread_sigmask(SIG_SETMASK, &old, NULL);
		} else {
			sink += f1(i);
		}
	}
	t1 = now_ns();
	printf("calls=%ld ns=%ld\n", 3 * n, t1 - t0);
	return 0;
}
