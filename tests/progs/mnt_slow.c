// SPDX-License-Identifier: GPL-2.0
/*
 * Live mount test program for a slow program (tests/e2e/t1011): calls
 * foo_one(), foo_two() and bar() every 250 ms until a file named "stop"
 * appears in its directory (at most 120 s).  At that pace a ring page
 * takes minutes to fill, so its events reach trace_pipe only if the
 * recorder takes pages while they are written.  mnt_slow stuck: a second
 * thread sits in stuck(), calling nothing traced (record --no-libcall),
 * until "stop" appears (tests/e2e/t1015).
 */
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

volatile long sink;

NOINLINE void foo_one(long i)
{
	sink += i;
}

NOINLINE void foo_two(long i)
{
	sink -= i;
}

NOINLINE void bar(long i)
{
	sink ^= i;
}

NOINLINE void stuck(void)
{
	while (access("stop", F_OK))
		usleep(100000);
}

static void *stuck_thread(void *arg)
{
	(void)arg;
	stuck();
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec ts = { 0, 250 * 1000 * 1000 };
	pthread_t th;

	(void)argv;
	if (argc > 1 && pthread_create(&th, NULL, stuck_thread, NULL))
		return 1;

	for (long i = 0; i < 480 && access("stop", F_OK); i++) {
		foo_one(i);
		foo_two(i);
		bar(i);
		nanosleep(&ts, NULL);
	}
	if (argc > 1)
		pthread_join(th, NULL);
	return 0;
}
