/*
 * The traced work of the attach test programs (attach_ev.c, attach_dl.c):
 * work(n) calls leaf() 2n times and returns a sum the caller checks
 * against its closed form, expect(n) -- a checksum that an attach or a
 * detach which disturbed the program would break.  Included once per
 * program (the functions are defined here).
 */
#ifndef ATTACH_WORK_H
#define ATTACH_WORK_H

__attribute__((noinline)) long leaf(long x)
{
	__asm__ volatile("" ::: "memory");
	return x * 3 + 1;
}

__attribute__((noinline)) long work(long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += leaf(i) + leaf(i + 1);
	return s;
}

/* sum over i < n of (3i+1) + (3i+4) */
static inline long expect(long n)
{
	return 3 * n * (n - 1) + 5 * n;
}

#endif
