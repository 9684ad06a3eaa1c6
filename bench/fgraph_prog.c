// SPDX-License-Identifier: GPL-2.0
/*
 * The call-heavy program of bench/fgraph_bench.sh: N iterations of
 * f1 -> { f2, f3 } (3 calls each), timed from inside so that start-up and
 * exit of the tracers are not counted.  Prints "calls=C ns=T".
 * The script compiles it with each instrumentation flag; the Makefile also
 * builds it plainly (harmless).
 */
#define BENCH_F123
/* beside this file: the scripts compile it without -I */
#include "timed_loop.h"

int main(int argc, char **argv)
{
	long n = loop_count(argc, argv, 1), t0;

	t0 = now_ns();
	for (long i = 0; i < n; i++)
		sink += f1(i);
	loop_report(3 * n, now_ns() - t0);
	return 0;
}
