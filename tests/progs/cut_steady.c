// SPDX-License-Identifier: GPL-2.0
/*
 * Recorder test (t0308): a program that keeps producing user records,
 * stacks and kernel events (sleeps: syscalls, context switches) at a steady
 * rate for about MS milliseconds, so a recorder killed at any moment has
 * already written some of each.
 *   cut_steady MS
 */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

volatile long sink;

NOINLINE void leaf(long i)
{
	sink += i;
}

NOINLINE void middle(long i)
{
	leaf(i);
	if (i % 3 == 0)
		leaf(i + 1);
}

NOINLINE void outer(long i)
{
	middle(i);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 2000, end = now_ms() + ms;

	for (long i = 0; now_ms() < end; i++) {
		for (int k = 0; k < 4; k++)
			outer(i * 4 + k);
		usleep(500);
	}
	return 0;
}
