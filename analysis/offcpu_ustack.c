// SPDX-License-Identifier: GPL-2.0
/*
 * Per-thread shadow stacks of function_graph calls (see offcpu_ustack.h):
 * one hash table entry per thread, its open calls' addresses root first in
 * an array grown by doubling up to FT_OFFCPU_USTACK_MAX.
 */
#include <errno.h>
#include <stdlib.h>

#include "analysis/offcpu_ustack.h"
#include "core/hashtab.h"

struct ustack_thr {
	struct ft_hentry h; /* first (hashtab.h): key the tid */
	uint32_t depth;	    /* open calls, including those beyond the stored ones */
	uint32_t cap;
	uint64_t *addrs; /* root first, addrs[0..min(depth, MAX)) */
};

struct ft_offcpu_ustack {
	struct ft_htab tab; /* struct ustack_thr */
};

struct ft_offcpu_ustack *ft_offcpu_ustack_new(void)
{
	struct ft_offcpu_ustack *us = calloc(1, sizeof(*us));

	if (!us)
		return NULL;
	if (ft_htab_init(&us->tab, sizeof(struct ustack_thr)) < 0) {
		free(us);
		return NULL;
	}
	return us;
}

void ft_offcpu_ustack_free(struct ft_offcpu_ustack *us)
{
	if (!us)
		return;
	for (size_t i = 0; i < us->tab.cap; i++) {
		struct ustack_thr *t = ft_htab_slot(&us->tab, i);

		if (t)
			free(t->addrs);
	}
	ft_htab_free(&us->tab);
	free(us);
}

static struct ustack_thr *ustack_get(struct ft_offcpu_ustack *us, uint32_t tid, int create)
{
	return tid ? ft_htab_get(&us->tab, tid, create) : NULL;
}

/* Make room for frame index i (< FT_OFFCPU_USTACK_MAX).  0 or -1 ENOMEM. */
static int ustack_room(struct ustack_thr *t, uint32_t i)
{
	uint32_t ncap;
	uint64_t *n;

	if (i < t->cap)
		return 0;
	ncap = t->cap ? t->cap : 16;
	while (ncap <= i)
		ncap *= 2;
	if (ncap > FT_OFFCPU_USTACK_MAX)
		ncap = FT_OFFCPU_USTACK_MAX;
	n = realloc(t->addrs, ncap * sizeof(*n));
	if (!n) {
		errno = ENOMEM;
		return -1;
	}
	t->addrs = n;
	t->cap = ncap;
	return 0;
}

int ft_offcpu_ustack_entry(struct ft_offcpu_ustack *us, uint32_t tid, int depth, uint64_t addr)
{
	struct ustack_thr *t = ustack_get(us, tid, 1);

	if (!t)
		return tid ? -1 : 0;
	if (depth >= 0) {
		/* pad frames whose entries were lost with unknown (0) ones */
		while (t->depth < (uint32_t)depth) {
			if (t->depth < FT_OFFCPU_USTACK_MAX) {
				if (ustack_room(t, t->depth))
					return -1;
				t->addrs[t->depth] = 0;
			}
			t->depth++;
		}
		t->depth = (uint32_t)depth;
	}
	if (t->depth < FT_OFFCPU_USTACK_MAX) {
		if (ustack_room(t, t->depth))
			return -1;
		t->addrs[t->depth] = addr;
	}
	t->depth++;
	return 0;
}

void ft_offcpu_ustack_exit(struct ft_offcpu_ustack *us, uint32_t tid, int depth)
{
	struct ustack_thr *t = ustack_get(us, tid, 0);

	if (!t)
		return;
	if (depth < 0) {
		if (t->depth)
			t->depth--;
	} else if ((uint32_t)depth < t->depth) {
		t->depth = (uint32_t)depth;
	}
}

uint32_t ft_offcpu_ustack_get(const struct ft_offcpu_ustack *us, uint32_t tid, uint64_t *ips,
			      uint32_t max)
{
	const struct ustack_thr *t = tid ? ft_htab_find(&us->tab, tid) : NULL;
	uint32_t stored, n = 0;

	if (!t)
		return 0;
	stored = t->depth < FT_OFFCPU_USTACK_MAX ? t->depth : FT_OFFCPU_USTACK_MAX;
	for (uint32_t i = stored; i-- > 0 && n < max;)
		if (t->addrs[i])
			ips[n++] = t->addrs[i];
	return n;
}
