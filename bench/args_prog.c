// SPDX-License-Identifier: GPL-2.0
/*
 * The program of bench/args_bench.sh: N iterations of f1(a, b) -> { f2(a, b),
 * f3(a, b) } (3 calls, each with 2 integer arguments and an integer return
 * value), timed from inside.  Prints "calls=C ns=T".
 */
/* beside this file: the scripts compile it without -I */
#include "timed_loop.h"

/* noclone too: the argument registers hold what the call site passed */
#define NOINLINE_NOCLONE __attribute__((noinline, noclone))

long f1(long a, long b);
long f2(long a, long b);
long f3(long a, long b);

NOINLINE_NOCLONE long f3(long a, long b)
{
	return a ^ b;
}

NOINLINE_NOCLONE long f2(long a, long b)
{
	return a + b;
}

NOINLINE_NOCLONE long f1(long a, long b)
{
	return f2(a, b) + f3(a, b);
}

int main(int argc, char **argv)
{
	long n = loop_count(argc, argv, 1), t0;

	t0 = now_ns();
	for (long i = 0; i < n; i++)
		sink += f1(i, 7);
	loop_report(3 * n, now_ns() - t0);
	return 0;
}
