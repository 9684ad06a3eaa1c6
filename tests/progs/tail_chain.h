/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The call chain of tailcall.c and unwind_stress.c: b -> c -> d -> e, where
 * c ends in a tail call at -O2 (jmp d), so c is not on the real stack
 * while d and e run.  Defines sink and the four functions: include it in
 * one file of a program.
 */
#ifndef TAIL_CHAIN_H
#define TAIL_CHAIN_H

#define NOINLINE __attribute__((noinline))

volatile int sink;

NOINLINE int e(int x)
{
	sink += x;
	return x + 1;
}

NOINLINE int d(int x)
{
	return e(x) * 3;
}

NOINLINE int c(int x)
{
	sink++;
	return d(x + 1); /* jmp d */
}

NOINLINE int b(int x)
{
	return c(x) * 2;
}

#endif
