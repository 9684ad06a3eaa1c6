// SPDX-License-Identifier: GPL-2.0
/*
 * A known number of kernel events: NTHREADS threads each make CALLS
 * getppid() system calls (each one sys_enter_getppid event); with "sig",
 * a per-thread timer also interrupts every thread every 50 us with a
 * handler that makes one more.  Prints the total number of calls made.
 *
 * usage: sysstorm NTHREADS CALLS [sig]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "storm_timer.h"

static __thread volatile unsigned long h_calls; /* the handler's */
static unsigned long total;			/* atomic */
static long ncalls;
static int with_sig;

static void on_timer(int sig)
{
	(void)sig;
	syscall(SYS_getppid);
	h_calls++;
}

static void *worker(void *arg)
{
	timer_t tm = 0;

	(void)arg;
	if (with_sig)
		tm = storm_timer_start("sysstorm");
	for (long i = 0; i < ncalls; i++)
		syscall(SYS_getppid); /* the libc wrapper could be cached some day */
	if (with_sig)
		storm_timer_stop(tm);
	__atomic_fetch_add(&total, (unsigned long)ncalls + h_calls, __ATOMIC_RELAXED);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;

	ncalls = argc > 2 ? atol(argv[2]) : 100000;
	with_sig = argc > 3 && !strcmp(argv[3], "sig");
	if (n < 1 || n > 64 || ncalls < 0) {
		fprintf(stderr, "usage: sysstorm NTHREADS(1-64) CALLS [sig]\n");
		return 2;
	}
	if (storm_run(n, on_timer, worker))
		return 1;
	printf("calls=%lu\n", total);
	return 0;
}
