// SPDX-License-Identifier: GPL-2.0
/*
 * A coroutine through makecontext/swapcontext: run() starts co_body() on
 * its own stack, which yields back twice; run() calls after() between the
 * switches, and co_body() calls co_leaf() after each resume.  co_body()
 * returns through uc_link into run().  Prints "sum N" (N = 7).
 */
#include <stdio.h>
#include <ucontext.h>

#define NOINLINE __attribute__((noinline))

static ucontext_t uc_run, uc_co;
static char co_stack[256 * 1024];
static volatile int sum;

NOINLINE void co_leaf(int v)
{
	sum += v;
}

NOINLINE void co_body(int a)
{
	co_leaf(a);
	swapcontext(&uc_co, &uc_run);
	co_leaf(1);
	swapcontext(&uc_co, &uc_run);
	co_leaf(1);
}

NOINLINE void after(void)
{
	sum += 1;
}

NOINLINE void run(void)
{
	getcontext(&uc_co);
	uc_co.uc_stack.ss_sp = co_stack;
	uc_co.uc_stack.ss_size = sizeof(co_stack);
	uc_co.uc_link = &uc_run;
	makecontext(&uc_co, (void (*)(void))co_body, 1, 2);
	swapcontext(&uc_run, &uc_co);
	after();
	swapcontext(&uc_run, &uc_co);
	after();
	swapcontext(&uc_run, &uc_co); /* co_body returns: back here through uc_link */
	after();
}

int main(void)
{
	run();
	after();
	printf("sum %d\n", sum);
	return sum == 8 ? 0 : 1;
}
