// SPDX-License-Identifier: GPL-2.0
/*
 * The stack tracer's cases: a recursion of known depth whose deepest frame
 * measures its own stack use, in the main thread and in other threads.
 *
 *   ulat_stack [N [M...]]   main recurses N deep (default 200); then one
 *                           thread per M (at most 16, all at once) recurses
 *                           M deep
 *
 * Prints "tid=T depth=D used=U" per recursion: U bytes of stack between
 * the top of the thread's stack and the deepest frame's buffer, the top as
 * doc/latency-user.md defines it (the main thread: the initial stack
 * pointer, __libc_stack_end; other threads: their descriptor, which glibc
 * puts at the top of each thread's stack).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

extern void *__libc_stack_end;

static __thread uintptr_t deepest;

NOINLINE int leaf(volatile char *p)
{
	return p[0] + 1;
}

/* about 1 KiB of stack per level, so the frames dominate the measure */
NOINLINE int recurse(int n)
{
	volatile char buf[1000];

	memset((char *)buf, n, sizeof(buf));
	if (n > 1)
		return recurse(n - 1) + buf[7];
	deepest = (uintptr_t)buf;
	return leaf(buf);
}

static void report(uintptr_t top, int depth)
{
	printf("tid=%d depth=%d used=%lu\n", gettid(), depth, (unsigned long)(top - deepest));
	fflush(stdout);
}

static void *thread_main(void *arg)
{
	int n = (int)(intptr_t)arg;

	recurse(n);
	report((uintptr_t)pthread_self(), n);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 200;

	recurse(n);
	report((uintptr_t)__libc_stack_end, n);
	/* the threads run at once: each one's max is its own */
	pthread_t th[16];
	int n_th = 0;

	for (int i = 2; i < argc && n_th < 16; i++)
		if (pthread_create(&th[n_th++], NULL, thread_main, (void *)(intptr_t)atoi(argv[i])))
			return 1;
	for (int i = 0; i < n_th; i++)
		if (pthread_join(th[i], NULL))
			return 1;
	return 0;
}
