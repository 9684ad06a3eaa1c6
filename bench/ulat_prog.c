// SPDX-License-Identifier: GPL-2.0
/*
 * The program of bench/ulat_bench.sh: ./ulat_prog MODE N, timed from
 * inside.  MODE f: N iterations of f1 -> { f2, f3 } (3 traced calls);
 * l: N pthread_mutex_lock/unlock pairs around a traced call (3 calls);
 * s: N pthread_sigmask block/restore pairs around a traced call (3 calls).
 * Prints "calls=C ns=T".
 */
#include <pthread.h>
#include <signal.h>

#define BENCH_F123
/* beside this file: the scripts compile it without -I */
#include "timed_loop.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

int main(int argc, char **argv)
{
	char mode = argc > 1 ? argv[1][0] : 'f';
	long n = loop_count(argc, argv, 2), t0;
	sigset_t all, old;

	sigfillset(&all);
	t0 = now_ns();
	for (long i = 0; i < n; i++) {
		if (mode == 'l') {
			pthread_mutex_lock(&m);
			sink += f3(i);
			pthread_mutex_unlock(&m);
		} else if (mode == 's') {
			pthread_sigmask(SIG_BLOCK, &all, &old);
			sink += f3(i);
			pthread_sigmask(SIG_SETMASK, &old, NULL);
		} else {
			sink += f1(i);
		}
	}
	loop_report(3 * n, now_ns() - t0);
	return 0;
}
