// SPDX-License-Identifier: GPL-2.0
/*
 * 2^depth distinct stacks: l() and r() call each other or themselves
 * along the bits of each path, so every path reaches leaf() through its
 * own chain of call sites.  argv[1] = depth (default 12).
 */
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

volatile int sink;

NOINLINE void leaf(void)
{
	sink++;
}

NOINLINE void r(int d, unsigned int p);

NOINLINE void l(int d, unsigned int p)
{
	if (!d)
		leaf();
	else if (p & 1)
		l(d - 1, p >> 1);
	else
		r(d - 1, p >> 1);
	sink++;
}

void r(int d, unsigned int p)
{
	if (!d)
		leaf();
	else if (p & 1)
		l(d - 1, p >> 1);
	else
		r(d - 1, p >> 1);
	sink++;
}

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 12;

	for (unsigned int p = 0; p < (1u << depth); p++)
		l(depth, p);
	return 0;
}
