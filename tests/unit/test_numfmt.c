// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of analysis/numfmt.h (numbers to text without printf),
 * against snprintf: every power of ten and its neighbours, every bit
 * length, and a pseudo-random sweep.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/numfmt.h"

static void check_u64(uint64_t v)
{
	char want[32], got[32];
	size_t n;

	snprintf(want, sizeof(want), "%" PRIu64, v);
	assert_int_equal(ft_u64_len(v), strlen(want));
	n = ft_u64_dec(got, v);
	got[n] = 0;
	assert_string_equal(got, want);
}

static void check_us(uint64_t ns)
{
	char want[40], got[40];
	size_t n;

	snprintf(want, sizeof(want), "%" PRIu64 ".%03u", ns / 1000, (unsigned int)(ns % 1000));
	n = ft_ns_as_us(got, ns);
	got[n] = 0;
	assert_string_equal(got, want);
}

static void test_u64_dec(void **state)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;

	(void)state;
	check_u64(0);
	check_u64(UINT64_MAX);
	for (int i = 0; i < 20; i++) {
		check_u64(ft_pow10[i]);
		check_u64(ft_pow10[i] - 1);
		check_u64(ft_pow10[i] + 1);
	}
	for (int b = 0; b < 64; b++) {
		check_u64(1ull << b);
		check_u64((1ull << b) - 1);
		check_u64((1ull << b) | 1);
	}
	for (int i = 0; i < 100000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		check_u64(x >> (i % 64));
	}
}

static void test_ns_as_us(void **state)
{
	(void)state;
	check_us(0);
	check_us(1);
	check_us(999);
	check_us(1000);
	check_us(1001);
	check_us(1382);
	check_us(123456789012ull);
	check_us(UINT64_MAX);
	for (uint64_t ns = 0; ns < 100000; ns += 7)
		check_us(ns);
}

/* The memo's text is the plain one, along a rising series with jumps. */
static void test_memo(void **state)
{
	struct ft_decmemo m = { 0 }, mu = { 0 };
	uint64_t v = 0, x = 88172645463325252ull;

	(void)state;
	for (int i = 0; i < 200000; i++) {
		char want[40], got[40];
		size_t n;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* mostly small steps; now and then a carry past 4 digits or a jump */
		v += i % 1000 == 999 ? x % 100000000000ull : x % 37;
		if (i % 5000 == 4999)
			v = x % 20000; /* back down: short numbers again */
		snprintf(want, sizeof(want), "%" PRIu64, v);
		n = ft_u64_dec_memo(&m, got, v);
		got[n] = 0;
		assert_string_equal(got, want);
		snprintf(want, sizeof(want), "%" PRIu64 ".%03u", v / 1000,
			 (unsigned int)(v % 1000));
		n = ft_ns_as_us_memo(&mu, got, v);
		got[n] = 0;
		assert_string_equal(got, want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u64_dec),
		cmocka_unit_test(test_ns_as_us),
		cmocka_unit_test(test_memo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
