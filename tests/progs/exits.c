// SPDX-License-Identifier: GPL-2.0
/*
 * Ways out: argv[1] = "exit" (exit(3) from a nested function), "_exit"
 * (_exit(4)), "segv" (a NULL write), "abort"; every way calls work() first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

volatile int sink;
int *volatile nowhere;

NOINLINE void work(void)
{
	sink++;
}

NOINLINE void leave(const char *how)
{
	work();
	if (!strcmp(how, "exit"))
		exit(3);
	if (!strcmp(how, "_exit"))
		_exit(4);
	if (!strcmp(how, "segv"))
		*nowhere = 1;
	if (!strcmp(how, "abort"))
		abort();
}

int main(int argc, char **argv)
{
	leave(argc > 1 ? argv[1] : "exit");
	return 0;
}
