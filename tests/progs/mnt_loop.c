// SPDX-License-Identifier: GPL-2.0
/*
 * Live mount test program (tests/e2e/t10xx): runs until a file named
 * "stop" appears in its directory (at most 120 s), calling alpha(), beta()
 * and gamma() in turn every 2 ms, so a control change made through the
 * mount shows in the trace within a few milliseconds.  Prints the number
 * of rounds at the end.
 */
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

int main(void)
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
	printf("rounds %ld\n", i);
	return 0;
}
