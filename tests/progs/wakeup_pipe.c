// SPDX-License-Identifier: GPL-2.0
/*
 * Sleeper threads woken through pipes while CPU hogs compete, for the
 * wakeup latency tracers:
 *
 *   wakeup_pipe [--hogs N] [--rounds R] [--rt] [--idle]
 *
 * N hog threads (named "hog", default 4) spin until the end; 3 sleeper
 * threads (named "sleeper", nice 19 so the hogs keep them waiting) block in
 * read() on a pipe each; main writes one byte to every pipe R times
 * (default 150), 2 ms apart.  Every thread is pinned to one CPU (the
 * last one the process may run on), so that a woken thread waits behind a
 * hog there rather than behind whatever else the machine runs.  With --rt
 * sleeper 0 runs SCHED_FIFO at priority 5 instead (root); with --idle the
 * sleepers run SCHED_IDLE, so that their wait behind the hogs (hundreds of
 * ms) dwarfs any other latency of the program, its start included.  Prints
 * "tid ROLE TID" for main, every hog and every sleeper, then "cpu N",
 * before the first round.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NR_SLEEPERS 3
#define MAX_HOGS 64

static int pipes[NR_SLEEPERS][2];
static volatile int done;
static int rt, idle;
static pthread_barrier_t ready;
static int pin_cpu = -1;

static void pin(void)
{
	cpu_set_t set;

	if (pin_cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(pin_cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void say(const char *role)
{
	printf("tid %s %ld\n", role, (long)syscall(SYS_gettid));
	fflush(stdout);
}

static void *hog(void *a)
{
	volatile unsigned long x = 0;

	pthread_setname_np(pthread_self(), "hog");
	pin();
	say("hog");
	pthread_barrier_wait(&ready);
	while (!done)
		x++;
	return a;
}

static void *sleeper(void *a)
{
	int i = (int)(long)a;
	char c;

	pthread_setname_np(pthread_self(), "sleeper");
	pin();
	if (rt && i == 0) {
		struct sched_param sp = { .sched_priority = 5 };

		if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp)) {
			fprintf(stderr, "SCHED_FIFO refused\n");
			exit(2);
		}
		say("rt-sleeper");
	} else if (idle) {
		struct sched_param sp = { .sched_priority = 0 };

		if (pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp)) {
			fprintf(stderr, "SCHED_IDLE refused\n");
			exit(2);
		}
		say("sleeper");
	} else {
		setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
		say("sleeper");
	}
	pthread_barrier_wait(&ready);
	while (read(pipes[i][0], &c, 1) == 1 && c != 'q')
		;
	return NULL;
}

int main(int argc, char **argv)
{
	int nhogs = 4, rounds = 150;
	pthread_t h[MAX_HOGS], s[NR_SLEEPERS];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--hogs") && i + 1 < argc)
			nhogs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			rounds = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--rt"))
			rt = 1;
		else if (!strcmp(argv[i], "--idle"))
			idle = 1;
		else
			return fprintf(stderr,
				       "usage: wakeup_pipe [--hogs N] [--rounds R] [--rt] [--idle]\n"),
			       2;
	}
	if (nhogs < 0 || nhogs > MAX_HOGS)
		nhogs = MAX_HOGS;
	{
		cpu_set_t set;

		if (!sched_getaffinity(0, sizeof(set), &set))
			for (int c = 0; c < CPU_SETSIZE; c++)
				if (CPU_ISSET(c, &set))
					pin_cpu = c;
	}
	pin();
	say("main");
	pthread_barrier_init(&ready, NULL, (unsigned)(nhogs + NR_SLEEPERS + 1));
	for (int i = 0; i < nhogs; i++)
		pthread_create(&h[i], NULL, hog, NULL);
	for (int i = 0; i < NR_SLEEPERS; i++) {
		if (pipe(pipes[i]))
			return 1;
		pthread_create(&s[i], NULL, sleeper, (void *)(long)i);
	}
	pthread_barrier_wait(&ready);
	printf("cpu %d\n", pin_cpu);
	fflush(stdout);
	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < NR_SLEEPERS; i++)
			if (write(pipes[i][1], "w", 1) != 1)
				return 1;
		usleep(2000);
	}
	for (int i = 0; i < NR_SLEEPERS; i++)
		if (write(pipes[i][1], "q", 1) != 1)
			return 1;
	for (int i = 0; i < NR_SLEEPERS; i++)
		pthread_join(s[i], NULL);
	done = 1;
	for (int i = 0; i < nhogs; i++)
		pthread_join(h[i], NULL);
	return 0;
}
