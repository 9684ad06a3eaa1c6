// SPDX-License-Identifier: GPL-2.0
/*
 * Arguments and return values of every kind (t0440): integers of each size
 * and sign, chars, bools, enums, pointers, strings (good, NULL, unmapped),
 * floats and doubles, small and large structs by value, a struct returned
 * in memory.  Values are fixed so the expected output is exact; noinline and
 * noclone keep each function a call of its own at -O2 (and its symbol name).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define F __attribute__((noinline, noclone))

enum color {
	RED = 0,
	GREEN = 1,
	BLUE = 7
};
struct pt {
	int x, y;
};
struct big {
	long a[5];
};

volatile long sink;

F int add(int a, int b)
{
	sink += a;
	return a + b;
}

F long mix(signed char c8, short s16, unsigned int u32, long long i64, unsigned char uc, bool ok)
{
	sink += c8 + s16 + u32 + i64 + uc + ok;
	return -5;
}

F double scale(double d, float f, int n)
{
	sink += n;
	return d * f * n;
}

/* reads s only when told to: the tracer must never need to */
F size_t slen(const char *s, int deref)
{
	sink++;
	return deref && s ? strlen(s) : 0;
}

F enum color paint(enum color c, void *where)
{
	sink += (long)where & 1;
	return c == RED ? BLUE : GREEN;
}

F int byval(struct pt p, struct big b, int after)
{
	sink++;
	return p.x + p.y + (int)b.a[4] + after;
}

F struct big make_big(int seed)
{
	struct big b = { { seed, seed, seed, seed, seed } };

	sink++;
	return b;
}

F const char *name_of(int i)
{
	sink++;
	return i ? "one" : "zero";
}

F void nothing(void)
{
	sink++;
}

int main(int argc, char **argv)
{
	struct pt p = { 3, 4 };
	struct big b = { { 1, 2, 3, 4, 5 } };
	char *guard;
	long page = sysconf(_SC_PAGESIZE);

	(void)argc;
	(void)argv;
	add(2, 40);
	add(-7, 1);
	mix(-3, -300, 4000000000u, -5000000000ll, 200, true);
	scale(1.5, 0.25f, 4);
	slen("hello", 1);
	slen(NULL, 0);
	slen((const char *)16, 0); /* unmapped: the tracer prints it (bad) */
	/* a string running into an unmapped page: read up to the page's end */
	guard = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		     -1, 0);
	if (guard != MAP_FAILED) {
		munmap(guard + page, (size_t)page);
		memset(guard + page - 4, 'x', 4);
		slen(guard + page - 4, 0); /* "xxxx" then the hole: read up to it */
		slen(guard + page - 2, 0);
	}
	paint(RED, (void *)0x1234);
	paint(GREEN, NULL);
	sink += byval(p, b, 9);
	sink += make_big(6).a[0];
	sink += (long)name_of(1);
	nothing();
	return 0;
}
