// SPDX-License-Identifier: GPL-2.0
/*
 * The tool's open-addressing hash table (see hashtab.h).
 */
#include "core/hashtab.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"

#define INITIAL_CAP 64u

static struct ft_hentry *entry(const struct ft_htab *h, void *tab, size_t i)
{
	return (struct ft_hentry *)(void *)((char *)tab + i * h->esize);
}

int ft_htab_init(struct ft_htab *h, size_t esize)
{
	h->esize = esize < sizeof(struct ft_hentry) ? sizeof(struct ft_hentry) : esize;
	h->cap = INITIAL_CAP;
	h->used = 0;
	h->tab = calloc(h->cap, h->esize);
	if (!h->tab) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

/* Double the table.  0, or -1 (ENOMEM) with the table unchanged. */
static int grow(struct ft_htab *h)
{
	size_t ncap = h->cap * 2;
	void *nt = calloc(ncap, h->esize);

	if (!nt) {
		errno = ENOMEM;
		return -1;
	}
	for (size_t i = 0; i < h->cap; i++) {
		struct ft_hentry *o = entry(h, h->tab, i);
		size_t j;

		if (!o->used)
			continue;
		for (j = ft_hash_u64(o->key) & (ncap - 1); entry(h, nt, j)->used;
		     j = (j + 1) & (ncap - 1))
			;
		memcpy(entry(h, nt, j), o, h->esize);
	}
	free(h->tab);
	h->tab = nt;
	h->cap = ncap;
	return 0;
}

void *ft_htab_get_eq(struct ft_htab *h, uint64_t key, int (*eq)(const void *entry, const void *key),
		     const void *k, int create, int *created)
{
	size_t mask, j;
	struct ft_hentry *e;

	if (created)
		*created = 0;
	if (!h->tab)
		return NULL;
	mask = h->cap - 1;
	for (j = ft_hash_u64(key) & mask;; j = (j + 1) & mask) {
		e = entry(h, h->tab, j);
		if (!e->used)
			break;
		if (e->key == key && (!eq || eq(e, k)))
			return e;
	}
	if (!create)
		return NULL;
	if (ft_htab_grows(h)) {
		if (grow(h) < 0)
			return NULL;
		mask = h->cap - 1;
		for (j = ft_hash_u64(key) & mask; entry(h, h->tab, j)->used; j = (j + 1) & mask)
			;
		e = entry(h, h->tab, j);
	}
	e->used = 1;
	e->key = key;
	h->used++;
	if (created)
		*created = 1;
	return e;
}

void *ft_htab_find(const struct ft_htab *h, uint64_t key)
{
	size_t mask, j;

	if (!h->tab)
		return NULL;
	mask = h->cap - 1;
	for (j = ft_hash_u64(key) & mask; entry(h, h->tab, j)->used; j = (j + 1) & mask)
		if (entry(h, h->tab, j)->key == key)
			return entry(h, h->tab, j);
	return NULL;
}

void *ft_htab_get(struct ft_htab *h, uint64_t key, int create)
{
	return ft_htab_get_eq(h, key, NULL, NULL, create, NULL);
}

void *ft_htab_get_aux(struct ft_htab *h, uint64_t key, uint32_t aux)
{
	int created;
	struct ft_hentry *e = ft_htab_get_eq(h, key, NULL, NULL, 1, &created);

	if (e && created)
		e->aux = aux;
	return e;
}

int ft_htab_grows(const struct ft_htab *h)
{
	return (h->used + 1) * 2 > h->cap;
}

void *ft_htab_slot(const struct ft_htab *h, size_t i)
{
	struct ft_hentry *e = entry(h, h->tab, i);

	return e->used ? e : NULL;
}

void ft_htab_clear(struct ft_htab *h)
{
	if (h->tab)
		memset(h->tab, 0, h->cap * h->esize);
	h->used = 0;
}

void ft_htab_free(struct ft_htab *h)
{
	free(h->tab);
	memset(h, 0, sizeof(*h));
}
