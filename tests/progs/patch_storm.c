// SPDX-License-Identifier: GPL-2.0
/*
 * Live patching under load: while the tool flips the function selection
 * (rtrun -R), so the runtime patches and unpatches function entries,
 *   - THREADS threads call storm_a/b/c in tight loops,
 *   - DLTHREADS threads dlopen each LIB in turn (storm_lib.c, built with
 *     different results so a check tells which copy ran), call its
 *     functions in a loop, and dlclose it, so the next library usually
 *     lands where the previous one was,
 *   - a timer signal (every 500 us) runs a traced function inside
 *     whatever thread it interrupts, possibly in the middle of a hook,
 *   - the program has a SIGTRAP handler of its own, installed with every
 *     signal in its mask, which must see its own two raise(SIGTRAP)s and
 *     none of the runtime's int3 traps.
 * Every call's result is checked: a torn or misplaced patch crashes the
 * program or breaks a result (abort).  Right after each dlopen, the first
 * byte of storm_lib_leaf is looked at: 0x90 is gcc's run of 1-byte nops
 * as compiled, which the runtime must have made one 5-byte nop before
 * dlopen returns (RAW counts the times it had not: each one is a run the
 * runtime would rewrite later, under the program's threads).
 * Prints "ok CALLS LIBCALLS SIGNALS RAW".
 *
 *   patch_storm [-m MS] [-t THREADS] [-d DLTHREADS] LIB...
 */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static long ms = 1000;
static char **libs;
static int nr_libs;
static long sig_calls;
static long calls_total, lib_total, raw_total;
static pthread_mutex_t tot_lock = PTHREAD_MUTEX_INITIALIZER;

NOINLINE long storm_a(long x)
{
	return x + 1;
}

NOINLINE long storm_b(long x)
{
	return x * 2;
}

NOINLINE long storm_c(long x)
{
	return storm_a(x) + storm_b(x);
}

NOINLINE long storm_sig(long x)
{
	return storm_a(x) - 1;
}

/* process-directed: several threads may run it at once */
static void on_alarm(int sig)
{
	long v = (long)sig << 8;

	if (storm_sig(v) != v)
		abort();
	__atomic_fetch_add(&sig_calls, 1, __ATOMIC_RELAXED);
}

static int traps;

static void on_trap(int sig)
{
	(void)sig;
	__atomic_fetch_add(&traps, 1, __ATOMIC_RELAXED);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void *call_loop(void *arg)
{
	long end = now_ms() + ms, n = 0;

	(void)arg;
	while (now_ms() < end) {
		for (long i = 0; i < 1000; i++, n++)
			if (storm_c(i) != 3 * i + 1)
				abort();
	}
	pthread_mutex_lock(&tot_lock);
	calls_total += n;
	pthread_mutex_unlock(&tot_lock);
	return NULL;
}

static void *dl_loop(void *arg)
{
	long end = now_ms() + ms, n = 0, raw = 0;

	(void)arg;
	do {
		for (int l = 0; l < nr_libs; l++) {
			void *h = dlopen(libs[l], RTLD_NOW);
			long (*entry)(long), (*k)(void);
			const unsigned char *leaf;

			if (!h) {
				fprintf(stderr, "patch_storm: %s\n", dlerror());
				exit(1);
			}
			entry = (long (*)(long))dlsym(h, "storm_lib_entry");
			k = (long (*)(void))dlsym(h, "storm_lib_k");
			leaf = (const unsigned char *)dlsym(h, "storm_lib_leaf");
			if (!entry || !k || !leaf)
				abort();
			if (*(const volatile unsigned char *)leaf == 0x90)
				raw++;
			for (long i = 0; i < 200; i++, n++)
				if (entry(i) != k() * i + 1)
					abort();
			dlclose(h);
		}
	} while (now_ms() < end);
	pthread_mutex_lock(&tot_lock);
	lib_total += n;
	raw_total += raw;
	pthread_mutex_unlock(&tot_lock);
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = 3, dlthreads = 2, c;
	pthread_t tids[64];
	struct sigaction sa;
	struct itimerval it = { { 0, 500 }, { 0, 500 } };

	while ((c = getopt(argc, argv, "m:t:d:")) != -1) {
		switch (c) {
		case 'm':
			ms = atol(optarg);
			break;
		case 't':
			threads = atoi(optarg);
			break;
		case 'd':
			dlthreads = atoi(optarg);
			break;
		default:
			return 2;
		}
	}
	libs = argv + optind;
	nr_libs = argc - optind;
	if (threads + dlthreads > 64 || (dlthreads && !nr_libs)) {
		fprintf(stderr, "usage: patch_storm [-m MS] [-t THREADS] [-d DLTHREADS] LIB...\n");
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_trap;
	sigfillset(&sa.sa_mask);
	sigaction(SIGTRAP, &sa, NULL);
	raise(SIGTRAP);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	for (int i = 0; i < threads; i++)
		pthread_create(&tids[i], NULL, call_loop, NULL);
	for (int i = 0; i < dlthreads; i++)
		pthread_create(&tids[threads + i], NULL, dl_loop, NULL);
	for (int i = 0; i < threads + dlthreads; i++)
		pthread_join(tids[i], NULL);
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	raise(SIGTRAP);
	if (__atomic_load_n(&traps, __ATOMIC_RELAXED) != 2) {
		fprintf(stderr, "patch_storm: %d SIGTRAPs reached the program, not 2\n", traps);
		return 1;
	}
	printf("ok %ld %ld %ld %ld\n", calls_total, lib_total,
	       __atomic_load_n(&sig_calls, __ATOMIC_RELAXED), raw_total);
	return 0;
}
