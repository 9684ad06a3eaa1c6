/*
 * The bundled example: a small program with a call tree worth looking at --
 * recursion, a hot leaf, two threads and a sleep -- for `make example`.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static unsigned int fib(unsigned int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static unsigned int checksum(const char *s)
{
	unsigned int h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static void nap(long ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

static void *worker(void *arg)
{
	char buf[64];
	unsigned int sum = 0;

	for (int i = 0; i < 3; i++) {
		snprintf(buf, sizeof(buf), "%s-%d", (const char *)arg, i);
		sum += checksum(buf);
	}
	nap(2);
	return (void *)(unsigned long)sum;
}

int main(void)
{
	pthread_t t;
	void *ret;

	pthread_create(&t, NULL, worker, "worker");
	printf("fib(10) = %u\n", fib(10));
	pthread_join(t, &ret);
	printf("checksum = %lu\n", (unsigned long)ret);
	return 0;
}
