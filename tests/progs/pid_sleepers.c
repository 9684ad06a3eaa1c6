// SPDX-License-Identifier: GPL-2.0
/*
 * Two threads that sleep 1 ms at a time for argv[1] seconds (default 3),
 * each in its own traced function; prints "tids MAIN WORKER" first.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static int secs = 3;
static volatile pid_t worker_tid;

NOINLINE void nap(void)
{
	struct timespec ts = { 0, 1000000 };

	nanosleep(&ts, NULL);
}

NOINLINE void main_loop(void)
{
	for (long i = 0; i < secs * 1000L; i++)
		nap();
}

NOINLINE void *worker(void *arg)
{
	(void)arg;
	worker_tid = gettid();
	main_loop();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc > 1)
		secs = atoi(argv[1]);
	pthread_create(&t, NULL, worker, NULL);
	while (!worker_tid)
		usleep(1000);
	printf("tids %d %d\n", (int)gettid(), (int)worker_tid);
	fflush(stdout);
	main_loop();
	pthread_join(t, NULL);
	return 0;
}
