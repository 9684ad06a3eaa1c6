/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-thread state of the readers and writers (Chrome and speedscope
 * export, function_graph folding), keyed by thread id: an open-addressing
 * table with linear probing, kept at most half full, doubled when needed.
 * Entries are any struct whose first member is a struct ft_tid_entry; the
 * rest of an entry is zeroed when it is created and owned by the caller.
 * Entries are never removed.  Not thread-safe.
 */
#ifndef FTRAIL_TIDTAB_H
#define FTRAIL_TIDTAB_H

#include <stddef.h>
#include <stdint.h>

/* The head of every entry. */
struct ft_tid_entry {
	uint32_t tid;
	uint32_t pid; /* given when the entry was created */
	int used;     /* 0: free slot */
};

struct ft_tidtab {
	void *tab;    /* cap entries of esize bytes */
	size_t esize;
	size_t cap;   /* power of two */
	size_t used;  /* entries in use */
};

/* An empty table of entries of esize bytes.  Returns 0, or -1 (ENOMEM). */
int ft_tidtab_init(struct ft_tidtab *t, size_t esize);

/*
 * The entry of tid.  When there is none: with create, a new zeroed entry
 * with tid and pid in its head; without, NULL.  NULL too when the table
 * cannot grow (ENOMEM).  A create may move every entry: pointers from
 * earlier calls are then stale.
 */
void *ft_tidtab_get(struct ft_tidtab *t, uint32_t tid, uint32_t pid, int create);

/* Slot i in [0, cap): its entry, or NULL when it is free.  For walking every entry. */
void *ft_tidtab_slot(const struct ft_tidtab *t, size_t i);

/* Free the table (not what entries point to).  Cannot fail. */
void ft_tidtab_free(struct ft_tidtab *t);

#endif
