// SPDX-License-Identifier: GPL-2.0
/*
 * Recorder test (t0330): end with a chosen status.
 *   status HOW [CHILD]
 * HOW: a number (exit with it), segv, abort or kill (raise SIGKILL).
 * With CHILD, fork first: the child ends as CHILD says, 100 ms after the
 * parent has ended as HOW says (the parent does not wait for it).
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

NOINLINE void work(void)
{
	__asm__ volatile("" ::: "memory");
}

static int end(const char *how)
{
	work();
	if (!strcmp(how, "segv"))
		raise(SIGSEGV);
	else if (!strcmp(how, "abort"))
		abort();
	else if (!strcmp(how, "kill"))
		raise(SIGKILL);
	return atoi(how);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 100;
	if (argc > 2) {
		pid_t c = fork();

		if (c < 0)
			return 101;
		if (c == 0) {
			usleep(100 * 1000);
			return end(argv[2]);
		}
	}
	return end(argv[1]);
}
