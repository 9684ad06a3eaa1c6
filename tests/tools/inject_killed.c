// SPDX-License-Identifier: GPL-2.0
/*
 * A process killed while ftrail holds it for an injected call (t0361):
 * stops every thread of PID (recorder/inject.h), calls usleep(SECONDS s)
 * in its main thread -- the others stay held in their ptrace stops, as
 * during record -P's attach and detach -- and SIGKILLs PID 0.3 s into the
 * call.  The call must then fail ("exited"), and the resume return.
 * Prints "call: REASON" and "resumed"; exit status 0, 1 when the stop or
 * the call went wrong otherwise, 2 for usage.
 *
 *   inject_killed PID SECONDS
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recorder/inject.h"

static pid_t victim;

static void *killer(void *arg)
{
	usleep(300000);
	kill(victim, SIGKILL);
	return arg;
}

int main(int argc, char **argv)
{
	char err[256];
	struct ft_inject *in;
	uint64_t fn, args[1], ret = 0;
	pthread_t th;
	int r;

	if (argc != 3 || (victim = (pid_t)atoi(argv[1])) <= 0 || atoi(argv[2]) <= 0) {
		fprintf(stderr, "usage: inject_killed PID SECONDS\n");
		return 2;
	}
	in = ft_inject_stop(victim, err, sizeof(err));
	if (!in) {
		fprintf(stderr, "inject_killed: %s\n", err);
		return 1;
	}
	fn = ft_inject_sym(in, "libc.so", "usleep");
	if (!fn) {
		fprintf(stderr, "inject_killed: no usleep in process %d\n", (int)victim);
		ft_inject_resume(in);
		return 1;
	}
	args[0] = (uint64_t)atoi(argv[2]) * 1000000;
	if (pthread_create(&th, NULL, killer, NULL)) {
		ft_inject_resume(in);
		return 1;
	}
	r = ft_inject_call(in, fn, args, 1, NULL, &ret, atoi(argv[2]) * 2000, err, sizeof(err));
	printf("call: %s\n", r ? err : "returned");
	fflush(stdout);
	ft_inject_resume(in);
	pthread_join(th, NULL);
	printf("resumed\n");
	return r && strstr(err, "exited") ? 0 : 1;
}
