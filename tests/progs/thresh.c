// SPDX-License-Identifier: GPL-2.0
/* tracing_thresh: slow() sleeps 20 ms inside outer(); fast() returns at once. */
#include <time.h>

#define NOINLINE __attribute__((noinline))

volatile int sink;

NOINLINE void fast(void)
{
	sink++;
}

NOINLINE void slow(void)
{
	struct timespec d = { 0, 20 * 1000 * 1000 };

	fast();
	nanosleep(&d, NULL);
}

NOINLINE void outer(void)
{
	fast();
	slow();
	fast();
}

int main(void)
{
	outer();
	fast();
	return 0;
}
