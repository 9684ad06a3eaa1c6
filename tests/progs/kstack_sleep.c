// SPDX-License-Identifier: GPL-2.0
/*
 * Sleeps under a chain of traced calls, for the user stacks the kernel
 * takes at sched_switch (tests/e2e/t0609; built with frame pointers, which
 * the kernel's user-stack walk follows).  At -O2, d() and c() end in tail
 * calls: the kernel sees e()'s return address as b's.
 */
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

volatile int sink;

NOINLINE void e(void)
{
	usleep(1000);
	sink++;
}

NOINLINE void d(void)
{
	e(); /* jmp e */
}

NOINLINE void c(void)
{
	sink++;
	d(); /* jmp d */
}

NOINLINE void b(void)
{
	c();
	sink++;
}

int main(void)
{
	for (int i = 0; i < 20; i++)
		b();
	return 0;
}
