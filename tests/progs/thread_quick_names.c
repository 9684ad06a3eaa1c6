// SPDX-License-Identifier: GPL-2.0
/*
 * Threads that get a name and are gone at once, before a recorder that
 * looks at /proc late would read it: four threads named by main
 * (pthread_setname_np(other)) before they run, each calling work_a() and
 * exiting; a thread that names itself "spawner" and starts a child that
 * inherits the name, calls work_b() and exits.  Then main renames itself
 * "qn-end", a name none of them ever had (the process's name from then
 * on), and waits for ENDFILE.  Nothing starts before GOFILE exists.
 *
 *   thread_quick_names GOFILE ENDFILE
 *
 * Built twice: with -DQN_START_OBJ, without instrumentation, for the named
 * threads' start routine (a hooked function there would make the thread
 * known to the runtime, with the name it inherited, before main names it:
 * a race the test is not about), and with instrumentation for the rest.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

void work_a(void);
void *qn_named_by_main(void *arg);
extern sem_t qn_go;

#ifdef QN_START_OBJ
/* waits until main has named it, calls work_a() and exits */
void *qn_named_by_main(void *arg)
{
	sem_wait(&qn_go);
	work_a();
	return arg;
}
#else
volatile int sink;
sem_t qn_go;

NOINLINE void work_a(void)
{
	sink++;
}

NOINLINE void work_b(void)
{
	sink++;
}

static void wait_file(const char *f)
{
	while (access(f, F_OK))
		usleep(10000);
}

static void *child(void *arg)
{
	work_b();
	return arg;
}

/* names itself, starts a child that inherits the name */
static void *spawner(void *arg)
{
	pthread_t c;

	if (pthread_setname_np(pthread_self(), "spawner") ||
	    pthread_create(&c, NULL, child, NULL) || pthread_join(c, NULL))
		return (void *)1;
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t, s;
	char name[16];
	void *r;

	if (argc != 3)
		return 2;
	if (prctl(PR_SET_NAME, "qn-main", 0, 0, 0) || sem_init(&qn_go, 0, 0))
		return 1;
	wait_file(argv[1]);
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "by-main-%d", i);
		if (pthread_create(&t, NULL, qn_named_by_main, NULL) ||
		    pthread_setname_np(t, name) || sem_post(&qn_go) || pthread_join(t, NULL))
			return 1;
	}
	if (pthread_create(&s, NULL, spawner, NULL) || pthread_join(s, &r) || r)
		return 1;
	printf("threads gone\n");
	fflush(stdout);
	if (prctl(PR_SET_NAME, "qn-end", 0, 0, 0))
		return 1;
	wait_file(argv[2]);
	return 0;
}
#endif
