// SPDX-License-Identifier: GPL-2.0
/*
 * Live patching under load: 4 threads call f_a, f_b, f_c in a loop for
 * argv[1] ms (default 400) while the tool changes the filter, so the
 * runtime patches and unpatches these functions' entries as they run.
 * Each thread checks its own results: a torn patch would crash or
 * corrupt them.  Prints "ok N" with the number of loop iterations.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

static long ms = 400;

NOINLINE long f_a(long x)
{
	return x + 1;
}

NOINLINE long f_b(long x)
{
	return x * 2;
}

NOINLINE long f_c(long x)
{
	return f_a(x) + f_b(x);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void *loop(void *arg)
{
	long end = now_ms() + ms, n = 0;

	(void)arg;
	while (now_ms() < end) {
		for (long i = 0; i < 1000; i++, n++)
			if (f_c(i) != 3 * i + 1)
				abort();
	}
	return (void *)n;
}

int main(int argc, char **argv)
{
	pthread_t th[4];
	long total = 0;

	if (argc > 1)
		ms = atol(argv[1]);
	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, loop, NULL);
	for (int i = 0; i < 4; i++) {
		void *r;

		pthread_join(th[i], &r);
		total += (long)r;
	}
	printf("ok %ld\n", total);
	return 0;
}
