// SPDX-License-Identifier: GPL-2.0
/* A library of the argument cases (t0451): called directly, through dlopen,
 * calling back into libc's qsort, and longjmp()ing out to its caller. */
#include <setjmp.h>
#include <stdlib.h>

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

int lib_sum(int a, int b)
{
	return a + b;
}

const char *lib_word(int i)
{
	return i ? "yes" : "no";
}

int lib_sort(int *v, long n)
{
	qsort(v, (size_t)n, sizeof(int), cmp_int);
	return v[0];
}

void lib_jump(jmp_buf *env, int v)
{
	longjmp(*env, v);
}
