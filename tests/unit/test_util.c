// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of core/util.c's ft_grow() and FT_GROW(): the array doubles
 * from its first capacity to hold what is asked, keeps its contents, and
 * an impossible size leaves the array and its capacity as they were.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/util.h"

static void test_grow_doubles(void **state)
{
	int *v = NULL, *before;
	size_t cap = 0, nr = 0;
	char *s = NULL;
	size_t scap = 0;

	(void)state;
	for (int i = 0; i < 100; i++) {
		assert_int_equal(FT_GROW(v, cap, nr + 1, 16), 0);
		v[nr++] = i;
	}
	assert_int_equal(cap, 128); /* 16, 32, 64, 128 */
	for (int i = 0; i < 100; i++)
		assert_int_equal(v[i], i);
	/* room enough: nothing moves */
	before = v;
	assert_int_equal(FT_GROW(v, cap, 128, 16), 0);
	assert_ptr_equal(v, before);
	assert_int_equal(cap, 128);
	/* several doublings at once */
	assert_int_equal(FT_GROW(v, cap, 1000, 16), 0);
	assert_int_equal(cap, 1024);
	assert_int_equal(v[99], 99);
	free(v);
	/* no first capacity: from 1 */
	assert_int_equal(FT_GROW(s, scap, 3, 0), 0);
	assert_int_equal(scap, 4); /* 1, 2, 4 */
	free(s);
}

static void test_grow_overflow(void **state)
{
	uint64_t *v = NULL;
	size_t cap = 0;

	(void)state;
	assert_int_equal(FT_GROW(v, cap, 4, 4), 0);
	errno = 0;
	assert_int_equal(FT_GROW(v, cap, SIZE_MAX / 4, 4), -1);
	assert_int_equal(errno, ENOMEM);
	assert_non_null(v);
	assert_int_equal(cap, 4);
	errno = 0;
	assert_null(ft_grow(v, &cap, SIZE_MAX, 1, 1));
	assert_int_equal(errno, ENOMEM);
	assert_int_equal(cap, 4);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grow_doubles),
		cmocka_unit_test(test_grow_overflow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
