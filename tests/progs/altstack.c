// SPDX-License-Identifier: GPL-2.0
/*
 * A signal handler on an alternate stack (sigaltstack, SA_ONSTACK) that
 * calls traced functions, returning normally twice and once leaving
 * through siglongjmp.  Prints 5021.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

volatile int sink;
static sigjmp_buf jb;

NOINLINE void inh(int x)
{
	sink += x;
}

NOINLINE void h(int s)
{
	inh(s);
	inh(s);
	if (sink > 100 && sink < 5000) {
		sink = 5000;
		siglongjmp(jb, 1);
	}
}

NOINLINE void work(void)
{
	raise(SIGUSR1);
	sink++;
}

NOINLINE void deep(void)
{
	sink = 1000;
	raise(SIGUSR1);
	sink++;
}

int main(void)
{
	struct sigaction sa;
	stack_t ss;

	ss.ss_sp = malloc(65536);
	ss.ss_size = 65536;
	ss.ss_flags = 0;
	if (sigaltstack(&ss, NULL))
		return 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = h;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);
	work();
	work();
	if (!sigsetjmp(jb, 1))
		deep();
	work();
	printf("%d\n", sink);
	return 0;
}
