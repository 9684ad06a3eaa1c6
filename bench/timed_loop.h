/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the call-cost benchmarks' programs share (args_prog, fgraph_prog,
 * libcall_prog, ulat_prog): they time their loop from inside, so that the
 * tracers' start-up and exit are not counted, and print the one line the
 * scripts read ("calls=C ns=T", see best in bench/lib.sh).  With
 * BENCH_F123 defined, also the call triple f1 -> { f2, f3 } of
 * fgraph_prog and ulat_prog, so that both time the same calls.
 */
#ifndef FTRAIL_BENCH_TIMED_LOOP_H
#define FTRAIL_BENCH_TIMED_LOOP_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

/* What the loops add their results to, so that no call is optimised away. */
volatile long sink;

static inline long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* The iteration count: argv[i] when given, else a million. */
static inline long loop_count(int argc, char **argv, int i)
{
	return argc > i ? atol(argv[i]) : 1000000;
}

/*
 * The line the scripts read: @calls calls in @ns.  Callers pass
 * now_ns() - t0, so the clock is read before this call is entered.
 */
static inline void loop_report(long calls, long ns)
{
	printf("calls=%ld ns=%ld\n", calls, ns);
}

#ifdef BENCH_F123
static NOINLINE long f3(long x)
{
	return x ^ 0x55;
}

static NOINLINE long f2(long x)
{
	return x + 1;
}

static NOINLINE long f1(long x)
{
	return f2(x) + f3(x);
}
#endif

#endif
