/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tool's one open-addressing hash table (the readers' per-buffer and
 * per-thread state, unique stacks, interned names): linear probing, kept
 * at most half full, doubled when needed, entries of a fixed size stored
 * in the table itself.  Not thread-safe; entries are never removed one by
 * one (ft_htab_clear() empties the whole table).
 *
 * An entry is any struct whose first member is a struct ft_hentry.  Its
 * key is either the key itself (ids, thread ids: ft_htab_get()) or, for
 * keys that do not fit 64 bits (stacks, strings), their hash, with the
 * caller's eq() telling entries of equal hashes apart (ft_htab_get_eq()).
 * The slot comes from ft_hash_u64() of the key, so a poor hash (or plain
 * ids) still spreads.
 *
 * The stack map (core/stackmap.c) has its own lock-free table: this one is
 * for single-threaded tool code.
 */
#ifndef FTRAIL_HASHTAB_H
#define FTRAIL_HASHTAB_H

#include <stddef.h>
#include <stdint.h>

/* The head of every entry. */
struct ft_hentry {
	uint64_t key;
	uint32_t used; /* 0: free slot */
	uint32_t aux;  /* the caller's (a pid, a kind...): zero when created */
};

struct ft_htab {
	void *tab; /* cap entries of esize bytes */
	size_t esize;
	size_t cap;  /* power of two */
	size_t used; /* entries in use */
};

/**
 * ft_htab_init() - an empty table of entries of esize bytes
 * @esize: size of an entry, at least sizeof(struct ft_hentry)
 *
 * Return: 0, or -1 when out of memory (errno ENOMEM).
 */
int ft_htab_init(struct ft_htab *h, size_t esize);

/**
 * ft_htab_get() - the entry of key
 * @create: when there is none, make a new zeroed one (its head holds key)
 *
 * Return: the entry; NULL when absent and !create, or when the table cannot
 * grow (ENOMEM).  A create may move every entry: pointers from earlier
 * calls are then stale.
 */
void *ft_htab_get(struct ft_htab *h, uint64_t key, int create);

/* ft_htab_get() with create, aux set in a new entry's head.  NULL: ENOMEM. */
void *ft_htab_get_aux(struct ft_htab *h, uint64_t key, uint32_t aux);

/* ft_htab_get() without create, on a const table: the entry of key, or NULL. */
void *ft_htab_find(const struct ft_htab *h, uint64_t key);

/**
 * ft_htab_get_eq() - the entry whose key is hash and that eq() accepts
 * @eq: eq(entry, key) is non-zero when entry holds key
 * @create: as for ft_htab_get(); the caller fills the rest of a new entry
 *          (*created, when not NULL, is set to 1 for a new entry, else 0)
 */
void *ft_htab_get_eq(struct ft_htab *h, uint64_t hash,
		     int (*eq)(const void *entry, const void *key), const void *key, int create,
		     int *created);

/*
 * Would one more entry double the table?  For callers that keep a memory
 * budget: the doubling allocates h->cap more entries.  Cannot fail.
 */
int ft_htab_grows(const struct ft_htab *h);

/* Slot i in [0, h->cap): its entry, or NULL when it is free.  For walking every entry. */
void *ft_htab_slot(const struct ft_htab *h, size_t i);

/* Empty the table, keeping its memory.  Cannot fail. */
void ft_htab_clear(struct ft_htab *h);

/* Free the table (not what entries point to).  Cannot fail. */
void ft_htab_free(struct ft_htab *h);

#endif
