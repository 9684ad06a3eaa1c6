// SPDX-License-Identifier: GPL-2.0
/*
 * dlopen / dlclose churn: each round opens every LIB in turn, calls its
 * lib_entry() through cycle_call(), and closes it again, so the next
 * library is usually mapped where the previous one was.
 *
 *   dl_cycle [-n ROUNDS] [-m MS] [-t THREADS] [-v] LIB...
 *     -n  rounds per thread (default 1)
 *     -m  keep going for MS milliseconds instead (at least one round)
 *     -t  run the rounds in THREADS threads at once (default: main only)
 *     -v  print "#load LIB BASE" (where the loader mapped it) for every
 *         load of the first round, so a test can see addresses reused
 * Prints "ok N" (library calls made) and exits 0; 1 when a load fails.
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static char **libs;
static int nr_libs, verbose;
static long rounds = 1, ms;

void *cycle_thread(void *arg);

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

NOINLINE int cycle_call(const char *path, int print)
{
	void *h = dlopen(path, RTLD_NOW);
	void (*fn)(void);

	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return -1;
	}
	fn = (void (*)(void))dlsym(h, "lib_entry");
	if (!fn) {
		dlclose(h);
		return -1;
	}
	if (print) {
		Dl_info di;

		if (dladdr((void *)fn, &di))
			printf("#load %s %p\n", path, di.dli_fbase);
	}
	fn();
	dlclose(h);
	return 0;
}

NOINLINE long cycle_round(int first)
{
	long n = 0;

	for (int i = 0; i < nr_libs; i++) {
		if (cycle_call(libs[i], first && verbose) < 0)
			return -1;
		n++;
	}
	return n;
}

NOINLINE void *cycle_thread(void *arg)
{
	long end = ms ? now_ms() + ms : 0, n = 0, r;

	for (long i = 0; i < rounds || (ms && now_ms() < end); i++) {
		r = cycle_round(i == 0 && !arg);
		if (r < 0)
			return (void *)-1L;
		n += r;
	}
	return (void *)n;
}

int main(int argc, char **argv)
{
	int c, threads = 0;
	long total = 0;

	while ((c = getopt(argc, argv, "n:m:t:v")) != -1) {
		switch (c) {
		case 'n':
			rounds = atol(optarg);
			break;
		case 'm':
			ms = atol(optarg);
			rounds = 1;
			break;
		case 't':
			threads = atoi(optarg);
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			return 2;
		}
	}
	libs = argv + optind;
	nr_libs = argc - optind;
	if (!nr_libs || threads < 0 || threads > 64)
		return 2;
	if (!threads) {
		void *r = cycle_thread(NULL);

		if ((long)r < 0)
			return 1;
		total = (long)r;
	} else {
		pthread_t tid[64];
		void *r;

		for (int i = 0; i < threads; i++)
			if (pthread_create(&tid[i], NULL, cycle_thread, i ? (void *)1L : NULL))
				return 1;
		for (int i = 0; i < threads; i++) {
			pthread_join(tid[i], &r);
			if ((long)r < 0)
				return 1;
			total += (long)r;
		}
	}
	fflush(stdout);
	printf("ok %ld\n", total);
	return 0;
}
