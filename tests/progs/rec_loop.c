// SPDX-License-Identifier: GPL-2.0
/*
 * Recorder test (t03xx): a deterministic call-heavy program.
 *   rec_loop N [THREADS] [fork]
 * Each thread calls outer() N times; outer() calls inner() once.  With
 * "fork", the process forks first and parent and child both run it.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

volatile long sink;
static long n;

NOINLINE void inner(long i)
{
	sink += i;
}

NOINLINE void outer(long i)
{
	inner(i);
}

NOINLINE void *run(void *arg)
{
	(void)arg;
	for (long i = 0; i < n; i++)
		outer(i);
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 2 ? atoi(argv[2]) : 1;
	pthread_t th[64];
	pid_t c = -1;

	n = argc > 1 ? atol(argv[1]) : 1000;
	if (argc > 3 && !strcmp(argv[3], "fork"))
		c = fork();
	if (threads > 64)
		threads = 64;
	for (int i = 0; i < threads; i++)
		pthread_create(&th[i], NULL, run, NULL);
	for (int i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	if (c > 0)
		waitpid(c, NULL, 0);
	return 0;
}
