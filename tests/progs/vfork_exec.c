// SPDX-License-Identifier: GPL-2.0
/*
 * vfork children share the parent's memory and stack until they exec or
 * _exit.  The parent, in spawn() (a traced function), vforks three times:
 *   1. the child calls in_child() (a traced function) and execs
 *      "vfork_exec child", which calls exec_main();
 *   2. the child calls in_child() and _exit(3)s;
 *   3. the child execs a path that does not exist, sets the shared
 *      exec_failed flag (the vfork idiom) and _exit(127)s.
 * The parent checks each child's status and the flag, then calls after().
 * Exit status 0 when everything was as expected.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

volatile int sink;
static volatile int exec_failed;

NOINLINE void in_child(void)
{
	sink++;
}

NOINLINE void exec_main(void)
{
	sink++;
}

NOINLINE void after(void)
{
	sink++;
}

NOINLINE int spawn(const char *self, int how)
{
	int status;
	pid_t pid = vfork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (how != 3)
			in_child();
		if (how == 1)
			execl(self, self, "child", (char *)NULL);
		if (how == 3) {
			execl("/nonexistent/ftrail-test", "x", (char *)NULL);
			exec_failed = 1;
			_exit(127);
		}
		_exit(3);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "child")) {
		exec_main();
		return 7;
	}
	if (spawn(argv[0], 1) != 7 || spawn(argv[0], 2) != 3 || spawn(argv[0], 3) != 127 ||
	    !exec_failed)
		return 1;
	after();
	printf("ok\n");
	return 0;
}
