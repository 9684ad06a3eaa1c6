// SPDX-License-Identifier: GPL-2.0
/* longjmp out of three traced frames, then ordinary calls again. */
#include <setjmp.h>
#include <stdio.h>

#define NOINLINE __attribute__((noinline))

static jmp_buf env;
volatile int sink;

NOINLINE void deep3(void)
{
	longjmp(env, 1);
}

NOINLINE void deep2(void)
{
	deep3();
	sink++;
}

NOINLINE void deep1(void)
{
	deep2();
	sink++;
}

NOINLINE void after(void)
{
	sink++;
}

NOINLINE int jumper(void)
{
	if (setjmp(env) == 0) {
		deep1();
		return 0;
	}
	after();
	return 1;
}

int main(void)
{
	int r = jumper();

	after();
	printf("%d\n", r);
	return r == 1 ? 0 : 1;
}
