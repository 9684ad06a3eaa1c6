// SPDX-License-Identifier: GPL-2.0
/*
 * Signals: a handler that calls traced functions, raised from inside a
 * traced function, and a nested one (SIGUSR2 raised from the SIGUSR1 handler).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

volatile int sink;

NOINLINE void in_handler(int s)
{
	sink += s;
}

NOINLINE void on_usr2(int s)
{
	in_handler(s);
}

NOINLINE void on_usr1(int s)
{
	in_handler(s);
	raise(SIGUSR2);
}

NOINLINE void work(void)
{
	raise(SIGUSR1);
	sink++;
}

int main(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_usr2;
	sigaction(SIGUSR2, &sa, NULL);
	work();
	work();
	printf("%d\n", sink);
	return 0;
}
