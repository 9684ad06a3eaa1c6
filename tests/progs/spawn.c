// SPDX-License-Identifier: GPL-2.0
/*
 * posix_spawn: the program starts itself again ("child" argument) with
 * posix_spawn and posix_spawnp, waits for each, and both children call
 * child_work().  The parent calls parent_work() around the spawns.
 */
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#define NOINLINE __attribute__((noinline))

extern char **environ;
volatile int sink;

NOINLINE void child_work(void)
{
	sink++;
}

NOINLINE void parent_work(void)
{
	sink++;
}

NOINLINE int spawn_one(const char *self, int p)
{
	char *argv[] = { (char *)self, "child", NULL };
	pid_t pid;
	int st;

	if ((p ? posix_spawnp : posix_spawn)(&pid, self, NULL, NULL, argv, environ))
		return -1;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "child")) {
		child_work();
		return 0;
	}
	parent_work();
	if (spawn_one(argv[0], 0) || spawn_one(argv[0], 1))
		return 1;
	parent_work();
	printf("spawned 2\n");
	return 0;
}
