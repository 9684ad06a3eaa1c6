// SPDX-License-Identifier: GPL-2.0
/*
 * The program of bench/libcall_bench.sh: ./libcall_prog MODE N, timed from
 * inside.  MODE l: N calls of strlen() through the PLT (built with
 * -fno-builtin so each is a real call); MODE f: N calls of a traced
 * function of the program.  Prints "calls=N ns=T".
 */
#include <string.h>

/* beside this file: the scripts compile it without -I */
#include "timed_loop.h"

const char *volatile str = "ftrail";

static NOINLINE long leaf(long x)
{
	return x ^ 0x55;
}

int main(int argc, char **argv)
{
	char mode = argc > 1 ? argv[1][0] : 'l';
	long n = loop_count(argc, argv, 2), t0;

	t0 = now_ns();
	if (mode == 'f')
		for (long i = 0; i < n; i++)
			sink += leaf(i);
	else
		for (long i = 0; i < n; i++)
			sink += (long)strlen(str);
	loop_report(n, now_ns() - t0);
	return 0;
}
