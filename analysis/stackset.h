/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unique stacks with their counts: what `ftrail stacks` lists and what
 * `ftrail flame --stacks` draws.  Stacks are told apart by their frames
 * (not by stack_id), so duplicates the lock-free map may create under
 * races count as one, and each unique stack is symbolised once however
 * often it was seen.
 */
#ifndef FTRAIL_STACKSET_H
#define FTRAIL_STACKSET_H

#include <stddef.h>
#include <stdint.h>

#include "core/hashtab.h"

/* One unique stack: kind 'k' (kernel addresses) or 'u' (user), leaf first. */
struct ft_ustack {
	struct ft_hentry h; /* first (hashtab.h): key the frames' hash */
	char kind;
	uint32_t nr;
	uint64_t count;
	uint64_t *ips;
};

struct ft_stackset {
	struct ft_htab tab; /* struct ft_ustack */
	uint64_t total;	    /* counts summed */
};

/* An empty set.  0, or -1 (ENOMEM). */
int ft_stackset_init(struct ft_stackset *s);

/**
 * ft_stackset_add() - count one more sight (weight) of a stack
 * @ips: nr addresses, leaf first (copied when the stack is new)
 *
 * Return: 0, or -1 when out of memory (nothing counted).
 */
int ft_stackset_add(struct ft_stackset *s, char kind, const uint64_t *ips, uint32_t nr,
		    uint64_t weight);

/* Unique stacks in the set. */
size_t ft_stackset_count(const struct ft_stackset *s);

/*
 * The unique stacks, most counted first (ties: kernel before user, then
 * by frames), in a malloc'ed array of *n pointers into the set, valid until
 * the next add or free.  NULL when out of memory or the set is empty.
 */
struct ft_ustack **ft_stackset_sorted(const struct ft_stackset *s, size_t *n);

/* Free the set and its stacks.  Cannot fail. */
void ft_stackset_free(struct ft_stackset *s);

#endif
