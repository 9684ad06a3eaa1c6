// SPDX-License-Identifier: GPL-2.0
/* Deep recursion: rec(N) calls itself N times (argv[1], default 10000). */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

volatile int sink;

NOINLINE int rec(int n)
{
	if (n == 0)
		return 0;
	sink++;
	return rec(n - 1) + 1;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10000;
	int r = rec(n);

	printf("%d\n", r);
	return r == n ? 0 : 1;
}
