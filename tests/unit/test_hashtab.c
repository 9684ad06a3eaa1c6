// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of core/hashtab.c, the tool's open-addressing hash table:
 * integer keys through growth, keys that collide on purpose, hashed keys
 * told apart by eq(), walking and clearing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/hashtab.h"

struct ent {
	struct ft_hentry h;
	uint64_t val;
	const char *name;
};

static void test_ids_through_growth(void **state)
{
	struct ft_htab h;
	size_t seen = 0;

	(void)state;
	assert_int_equal(ft_htab_init(&h, sizeof(struct ent)), 0);
	/* 0 is a key like any other; multiples of a power of two share low bits */
	for (uint64_t k = 0; k < 5000; k++) {
		struct ent *e = ft_htab_get(&h, k << 20, 1);

		assert_non_null(e);
		assert_int_equal(e->val, 0); /* created zeroed */
		e->val = k + 1;
	}
	assert_int_equal(h.used, 5000);
	assert_true(h.cap >= 2 * h.used); /* at most half full */
	for (uint64_t k = 0; k < 5000; k++) {
		struct ent *e = ft_htab_get(&h, k << 20, 0);

		assert_non_null(e);
		assert_int_equal(e->val, k + 1);
	}
	assert_null(ft_htab_get(&h, 5000ull << 20, 0));
	/* aux is set when the entry is made, kept when it is found */
	assert_int_equal(((struct ent *)ft_htab_get_aux(&h, 5000ull << 20, 7))->h.aux, 7);
	assert_int_equal(((struct ent *)ft_htab_get_aux(&h, 5000ull << 20, 9))->h.aux, 7);
	assert_int_equal(((struct ent *)ft_htab_get_aux(&h, 3ull << 20, 9))->h.aux, 0);
	assert_null(ft_htab_get(&h, 1, 0));
	for (size_t i = 0; i < h.cap; i++)
		seen += ft_htab_slot(&h, i) != NULL;
	assert_int_equal(seen, 5001);
	ft_htab_clear(&h);
	assert_int_equal(h.used, 0);
	assert_null(ft_htab_get(&h, 0, 0));
	ft_htab_free(&h);
}

static int name_eq(const void *entry, const void *key)
{
	return !strcmp(((const struct ent *)entry)->name, key);
}

static void test_hashed_keys(void **state)
{
	static const char *const names[] = { "main", "work", "leaf", "mid", "top" };
	struct ft_htab h;
	int created;

	(void)state;
	assert_int_equal(ft_htab_init(&h, sizeof(struct ent)), 0);
	/* every name gets the same (bad) hash: eq() alone tells them apart */
	for (int round = 0; round < 2; round++) {
		for (size_t i = 0; i < 5; i++) {
			struct ent *e = ft_htab_get_eq(&h, 42, name_eq, names[i], 1, &created);

			assert_non_null(e);
			assert_int_equal(created, round == 0);
			if (created)
				e->name = names[i];
			e->val++;
		}
	}
	assert_int_equal(h.used, 5);
	for (size_t i = 0; i < 5; i++) {
		struct ent *e = ft_htab_get_eq(&h, 42, name_eq, names[i], 0, NULL);

		assert_non_null(e);
		assert_string_equal(e->name, names[i]);
		assert_int_equal(e->val, 2);
	}
	assert_null(ft_htab_get_eq(&h, 42, name_eq, "absent", 0, NULL));
	assert_null(ft_htab_get_eq(&h, 43, name_eq, "main", 0, NULL));
	ft_htab_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ids_through_growth),
		cmocka_unit_test(test_hashed_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
