// SPDX-License-Identifier: GPL-2.0
/*
 * Traced signal handlers under fire: NTHREADS threads call traced
 * functions in a loop for MS milliseconds while a per-thread timer sends
 * each of them a signal every 50 us, whose handler calls traced functions
 * too -- often in the middle of a hook.  Every traced function counts its
 * calls (thread and handler contexts apart: the handler never interrupts
 * its own counter update), and the program prints the total and the
 * handler's runs, so that records + lost can be checked against 2 records
 * per call and 2 per handler run (the runtime marks its start and end).
 *
 * usage: sigstorm NTHREADS MS
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "storm_timer.h"

#define NOINLINE __attribute__((noinline))

static __thread unsigned long t_calls;		/* calls made by the thread itself */
static __thread volatile unsigned long h_calls; /* calls made by its handler */
static unsigned long total;			/* atomic */
static unsigned long signals;			/* atomic: handler runs */
static long run_ms;
volatile unsigned long sink;

NOINLINE void h_leaf(int x)
{
	h_calls++;
	sink += (unsigned long)x;
}

NOINLINE void on_timer(int sig)
{
	h_calls++;
	h_leaf(sig);
}

NOINLINE unsigned long leaf(unsigned long x)
{
	t_calls++;
	return x * 7 + 3;
}

NOINLINE unsigned long work(unsigned long x)
{
	t_calls++;
	return leaf(x) + leaf(x >> 1);
}

/* not a traced call: -finstrument-functions would hook it even inlined */
static __attribute__((no_instrument_function)) unsigned long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long)ts.tv_sec * 1000 + (unsigned long)ts.tv_nsec / 1000000;
}

NOINLINE void *worker(void *arg)
{
	unsigned long end, s = 0;
	timer_t tm;

	(void)arg;
	t_calls++;
	tm = storm_timer_start("sigstorm");
	end = now_ms() + (unsigned long)run_ms;
	for (unsigned long i = 0;; i++) {
		s += work(i);
		if (!(i & 255) && now_ms() >= end)
			break;
	}
	storm_timer_stop(tm);
	sink += s;
	__atomic_fetch_add(&total, t_calls + h_calls, __ATOMIC_RELAXED);
	/* the handler counts two calls a run */
	__atomic_fetch_add(&signals, h_calls / 2, __ATOMIC_RELAXED);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 16;

	t_calls++;
	run_ms = argc > 2 ? atol(argv[2]) : 300;
	if (n < 1 || n > 64 || run_ms < 1) {
		fprintf(stderr, "usage: sigstorm NTHREADS(1-64) MS\n");
		return 2;
	}
	if (storm_run(n, on_timer, worker))
		return 1;
	printf("calls=%lu\nsignals=%lu\n", total + t_calls, signals);
	return 0;
}
