// SPDX-License-Identifier: GPL-2.0
/*
 * Stacks through tail calls and deep recursion.  At -O2, c() ends in a
 * tail call (jmp d): under function_graph c's hijacked return slot is the
 * one d's entry finds, so d's frame saves ft_rt_return as its "return
 * address".  rec(n) recurses n deep (not a tail call: it adds after).
 */
#include <stdio.h>
#include <stdlib.h>

#include "tail_chain.h"

NOINLINE int a(int x)
{
	return b(x) + 1;
}

NOINLINE int rec(int n)
{
	if (n == 0)
		return e(0);
	return rec(n - 1) + sink;
}

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 40;
	int r = a(1);

	r += rec(depth);
	printf("%d\n", r > 0);
	return 0;
}
