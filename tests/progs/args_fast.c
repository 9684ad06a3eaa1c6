// SPDX-License-Identifier: GPL-2.0
/*
 * Calls whose arguments and return values are integers of every width and
 * sign, many times over (enough records for several ring pages), for the
 * case that compares the hooks' fast capture with the general one
 * (t0452).  Each call's values depend on its index, so a value put in the
 * wrong call or the wrong slot shows.
 */
#include <stdint.h>
#include <stdlib.h>

__attribute__((noinline)) int64_t wide(int64_t a, uint64_t b)
{
	__asm__ volatile("" ::: "memory");
	return a - (int64_t)b;
}

__attribute__((noinline)) int8_t narrow(int8_t c, uint16_t s, int32_t i, unsigned char u)
{
	__asm__ volatile("" ::: "memory");
	return (int8_t)(c + s + i + u);
}

__attribute__((noinline)) uint32_t six(long a, long b, long c, long d, long e, long f)
{
	__asm__ volatile("" ::: "memory");
	return (uint32_t)(a + b + c + d + e + f);
}

__attribute__((noinline)) void noret(int x)
{
	__asm__ volatile("" ::: "memory");
	(void)x;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000;
	int64_t acc = 0;

	for (long i = 0; i < n; i++) {
		acc += wide(-5000000000LL * (i & 1 ? 1 : -1) + i, (uint64_t)i << 33);
		acc += narrow((int8_t)(i - 64), (uint16_t)(60000 + i), (int32_t)(-i * 1000),
			      (unsigned char)(200 + i));
		acc += six(i, -i, 2 * i, 3, -4, 1L << 40);
		noret((int)i);
	}
	return acc == 42; /* 0 in practice: keeps the calls */
}
