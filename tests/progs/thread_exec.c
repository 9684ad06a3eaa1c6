// SPDX-License-Identifier: GPL-2.0
/*
 * exec from a thread that is not the main one: the main thread calls
 * main_leaf() in a loop, a second thread waits for 100 of those calls,
 * calls before_exec() and execs this program again with "exec", which
 * calls exec_work() and exits 0.  The kernel ends the main thread at the
 * exec (wherever it is, a hook included) and gives the exec'ing thread
 * the process id.
 *
 * usage: thread_exec [exec]
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

volatile int sink;
static unsigned long leaf_calls; /* atomic */

NOINLINE void exec_work(void)
{
	sink++;
}

NOINLINE void main_leaf(void)
{
	sink++;
	__atomic_fetch_add(&leaf_calls, 1, __ATOMIC_RELAXED);
}

NOINLINE void before_exec(void)
{
	sink++;
}

NOINLINE void *execer(void *arg)
{
	(void)arg;
	while (__atomic_load_n(&leaf_calls, __ATOMIC_RELAXED) < 100)
		usleep(1000);
	before_exec();
	execl("/proc/self/exe", "thread_exec", "exec", (char *)NULL);
	perror("thread_exec: exec");
	_exit(127);
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc > 1 && !strcmp(argv[1], "exec")) {
		exec_work();
		printf("exec ok\n");
		return 0;
	}
	if (pthread_create(&t, NULL, execer, NULL))
		return 1;
	for (;;)
		main_leaf(); /* until the exec ends this thread */
}
