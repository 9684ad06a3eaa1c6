// SPDX-License-Identifier: GPL-2.0
/*
 * Stop one thread of another process for a while, the others running on:
 * a thread cannot be stopped alone with a signal (SIGSTOP stops the whole
 * group), but a ptrace stop is per thread.  Seizes TID, interrupts it,
 * waits until it is stopped, sleeps MS milliseconds, then lets it go.
 * Prints "stopped" once TID is stopped.  Exit status 0, or 1 with a
 * message on stderr.
 *
 * usage: thread_stop TID MS
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>

int main(int argc, char **argv)
{
	struct timespec ts;
	pid_t tid;
	long ms;
	int st;

	if (argc != 3 || (tid = (pid_t)atoi(argv[1])) <= 0 || (ms = atol(argv[2])) < 0) {
		fprintf(stderr, "usage: thread_stop TID MS\n");
		return 1;
	}
	if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) || ptrace(PTRACE_INTERRUPT, tid, NULL, NULL)) {
		fprintf(stderr, "thread_stop: %d: %s\n", tid, strerror(errno));
		return 1;
	}
	if (waitpid(tid, &st, __WALL) != tid || !WIFSTOPPED(st)) {
		fprintf(stderr, "thread_stop: %d did not stop\n", tid);
		return 1;
	}
	printf("stopped\n");
	fflush(stdout);
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = ms % 1000 * 1000000;
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	if (ptrace(PTRACE_DETACH, tid, NULL, NULL)) {
		fprintf(stderr, "thread_stop: detach %d: %s\n", tid, strerror(errno));
		return 1;
	}
	return 0;
}
