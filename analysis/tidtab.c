// SPDX-License-Identifier: GPL-2.0
/*
 * Per-thread entries keyed by tid (see tidtab.h).
 */
#include "analysis/tidtab.h"

#include <stdlib.h>
#include <string.h>

#define INITIAL_CAP 64u

static struct ft_tid_entry *entry(const struct ft_tidtab *t, void *tab, size_t i)
{
	return (struct ft_tid_entry *)(void *)((char *)tab + i * t->esize);
}

/* The slot of tid in tab (cap slots): its entry, or the free slot it would take. */
static size_t tid_slot(const struct ft_tidtab *t, void *tab, size_t cap, uint32_t tid)
{
	size_t j = (tid * 0x9e3779b1u) & (cap - 1);

	while (entry(t, tab, j)->used && entry(t, tab, j)->tid != tid)
		j = (j + 1) & (cap - 1);
	return j;
}

int ft_tidtab_init(struct ft_tidtab *t, size_t esize)
{
	t->esize = esize;
	t->cap = INITIAL_CAP;
	t->used = 0;
	t->tab = calloc(t->cap, esize);
	return t->tab ? 0 : -1;
}

void *ft_tidtab_get(struct ft_tidtab *t, uint32_t tid, uint32_t pid, int create)
{
	size_t j = tid_slot(t, t->tab, t->cap, tid);
	struct ft_tid_entry *e = entry(t, t->tab, j);

	if (e->used)
		return e;
	if (!create)
		return NULL;
	if ((t->used + 1) * 2 > t->cap) {
		size_t ncap = t->cap * 2;
		void *nt = calloc(ncap, t->esize);

		if (!nt)
			return NULL;
		for (size_t i = 0; i < t->cap; i++) {
			struct ft_tid_entry *o = entry(t, t->tab, i);

			if (o->used)
				memcpy(entry(t, nt, tid_slot(t, nt, ncap, o->tid)), o, t->esize);
		}
		free(t->tab);
		t->tab = nt;
		t->cap = ncap;
		e = entry(t, t->tab, tid_slot(t, t->tab, t->cap, tid));
	}
	e->used = 1;
	e->tid = tid;
	e->pid = pid;
	t->used++;
	return e;
}

void *ft_tidtab_slot(const struct ft_tidtab *t, size_t i)
{
	struct ft_tid_entry *e = entry(t, t->tab, i);

	return e->used ? e : NULL;
}

void ft_tidtab_free(struct ft_tidtab *t)
{
	free(t->tab);
	memset(t, 0, sizeof(*t));
}
