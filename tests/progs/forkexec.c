// SPDX-License-Identifier: GPL-2.0
/*
 * fork and exec: the parent calls parent_work, forks; the child calls
 * child_work then execs itself with "exec" and calls exec_work there.
 * ./forkexec [l|lp|le]: the child execs with execl (the default), execlp
 * or execle (passing environ on).
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define NOINLINE __attribute__((noinline))

volatile int sink;

NOINLINE void exec_work(void)
{
	sink++;
}

NOINLINE void child_work(void)
{
	sink++;
}

NOINLINE void parent_work(void)
{
	sink++;
}

NOINLINE void do_fork(const char *self, const char *how)
{
	pid_t pid = fork();

	if (pid == 0) {
		child_work();
		if (!strcmp(how, "lp"))
			execlp(self, self, "exec", (char *)NULL);
		else if (!strcmp(how, "le"))
			execle(self, self, "exec", (char *)NULL, environ);
		else
			execl(self, self, "exec", (char *)NULL);
		_exit(127);
	}
	waitpid(pid, NULL, 0);
	parent_work();
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "exec")) {
		exec_work();
		return 3;
	}
	parent_work();
	do_fork(argv[0], argc > 1 ? argv[1] : "l");
	return 0;
}
