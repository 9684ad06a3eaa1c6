// SPDX-License-Identifier: GPL-2.0
/*
 * Unique stacks with their counts (see stackset.h).
 */
#include "analysis/stackset.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"

struct key {
	char kind;
	uint32_t nr;
	const uint64_t *ips;
};

static int same_stack(const void *entry, const void *key)
{
	const struct ft_ustack *u = entry;
	const struct key *k = key;

	return u->kind == k->kind && u->nr == k->nr &&
	       !memcmp(u->ips, k->ips, k->nr * sizeof(*k->ips));
}

int ft_stackset_init(struct ft_stackset *s)
{
	s->total = 0;
	return ft_htab_init(&s->tab, sizeof(struct ft_ustack));
}

int ft_stackset_add(struct ft_stackset *s, char kind, const uint64_t *ips, uint32_t nr,
		    uint64_t weight)
{
	struct key k = { kind, nr, ips };
	uint64_t hash = ft_hash_mx(ips, nr, (uint64_t)(unsigned char)kind);
	struct ft_ustack *u;
	int created;

	u = ft_htab_get_eq(&s->tab, hash, same_stack, &k, 1, &created);
	if (!u)
		return -1;
	if (created) {
		u->ips = malloc(nr * sizeof(*ips) + 1);
		if (!u->ips) {
			/* leave an entry no lookup can match (nr never equals it) */
			u->nr = UINT32_MAX;
			errno = ENOMEM;
			return -1;
		}
		memcpy(u->ips, ips, nr * sizeof(*ips));
		u->kind = kind;
		u->nr = nr;
	}
	u->count += weight;
	s->total += weight;
	return 0;
}

size_t ft_stackset_count(const struct ft_stackset *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->tab.cap; i++) {
		const struct ft_ustack *u = ft_htab_slot(&s->tab, i);

		n += u && u->ips;
	}
	return n;
}

static int by_count(const void *a, const void *b)
{
	const struct ft_ustack *x = *(const struct ft_ustack *const *)a;
	const struct ft_ustack *y = *(const struct ft_ustack *const *)b;
	uint32_t n;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind - y->kind;
	n = x->nr < y->nr ? x->nr : y->nr;
	for (uint32_t i = 0; i < n; i++)
		if (x->ips[i] != y->ips[i])
			return x->ips[i] < y->ips[i] ? -1 : 1;
	return x->nr < y->nr ? -1 : x->nr > y->nr;
}

struct ft_ustack **ft_stackset_sorted(const struct ft_stackset *s, size_t *n)
{
	size_t nr = ft_stackset_count(s), j = 0;
	struct ft_ustack **v;

	*n = 0;
	if (!nr)
		return NULL;
	v = malloc(nr * sizeof(*v));
	if (!v)
		return NULL;
	for (size_t i = 0; i < s->tab.cap; i++) {
		struct ft_ustack *u = ft_htab_slot(&s->tab, i);

		if (u && u->ips)
			v[j++] = u;
	}
	qsort(v, j, sizeof(*v), by_count);
	*n = j;
	return v;
}

void ft_stackset_free(struct ft_stackset *s)
{
	for (size_t i = 0; s->tab.tab && i < s->tab.cap; i++) {
		struct ft_ustack *u = ft_htab_slot(&s->tab, i);

		if (u)
			free(u->ips);
	}
	ft_htab_free(&s->tab);
}
