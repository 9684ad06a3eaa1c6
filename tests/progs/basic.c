// SPDX-License-Identifier: GPL-2.0
/* The call sequence every e2e test checks: main -> a -> b -> c, twice. */
#include <stdio.h>

#define NOINLINE __attribute__((noinline))

volatile int sink;

NOINLINE int c(int x)
{
	sink += x;
	return x + 1;
}

NOINLINE int b(int x)
{
	return c(x) * 2;
}

NOINLINE int a(int x)
{
	return b(x) + b(x + 1);
}

int main(void)
{
	int r = a(1);

	printf("%d\n", r);
	return r == 10 ? 0 : 1;
}
