// SPDX-License-Identifier: GPL-2.0
/*
 * Snapshot tests (tests/e2e/t032x): ticks numbered from 0, one every
 * 200 us (each from step(), an instrumented function), from one thread, until the file "stop"
 * exists (or argv[1] ticks when given).  Every `every`-th tick (argv[2], default 0 = never) also
 * calls mark(), an instrumented function the test can put a `mark:snapshot[:N]` command on, and
 * emits snap:mark.  Prints how many ticks it wrote.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <ftrail/ftrail.h>

FTRAIL_EVENT(snap, tick, (u32, i));
FTRAIL_EVENT(snap, mark, (u32, i));

__attribute__((noinline)) void mark(unsigned int i)
{
	ftrail_trace(snap, mark, i);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void step(unsigned int i)
{
	ftrail_trace(snap, tick, i);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	long max = argc > 1 ? atol(argv[1]) : -1;
	long every = argc > 2 ? atol(argv[2]) : 0;
	struct timespec ts = { 0, 200000 };
	long i;

	for (i = 0; max < 0 || i < max; i++) {
		step((unsigned int)i);
		if (every && i % every == every - 1)
			mark((unsigned int)i);
		nanosleep(&ts, NULL);
		if (max < 0 && !(i % 64) && !access("stop", F_OK))
			break;
	}
	printf("ticks=%ld\n", i + (max < 0 ? 1 : 0));
	return 0;
}
