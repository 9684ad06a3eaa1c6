// SPDX-License-Identifier: GPL-2.0
/*
 * Recorder test (t03xx): calls before_crash() N times, then dies as told:
 *   rec_crash N segv|abort|exit5|kill
 * Every call made before the death must be in the trace.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

volatile int sink;

NOINLINE void before_crash(int i)
{
	sink += i;
}

NOINLINE void die(const char *how)
{
	if (!strcmp(how, "segv"))
		*(volatile int *)(long)sink = 0; /* sink is small: an unmapped page */
	else if (!strcmp(how, "abort"))
		abort();
	else if (!strcmp(how, "kill"))
		kill(getpid(), SIGKILL);
	exit(5);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;

	for (int i = 0; i < n; i++)
		before_crash(i);
	sink = 16;
	die(argc > 2 ? argv[2] : "exit5");
	return 0;
}
