/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The writer's fast path for one-word function_graph records (ENTRY, EXIT),
 * built on ringbuf.h's structures and protocol, for the runtime's hooks.
 *
 * ft_rb_entry() / ft_rb_exit() (ringbuf.h) handle every case: no slot,
 * nesting too deep, a snapshot generation change, the first page, a page
 * switch, a delta too large for the record (FT_EXT_TIME first), a long fid.
 * ft_rb_fast_word() handles only the common one -- the current page has
 * room, the delta fits, the level's ring is the live set's -- and says so
 * BEFORE it changes anything the record depends on; otherwise it undoes its
 * nesting step and returns -1, and the caller makes the general call,
 * which then does everything from the start.  Nothing is written twice and
 * nothing is lost: the fast path either commits the record exactly as the
 * general path would (same word, same delta chain, same counters), or
 * leaves no trace but a begin/end pair.
 *
 * Per record: one TLS-relative load of the nesting level, the nesting
 * increment, the snapshot protocol's busy store and snap_gen load
 * (ringbuf.h, ft_rb__enter: the writer side stays fence-free), one compare
 * for room (w->lim: the page's capacity, 0 before the first page, so it
 * stands for the page test too), one store of the word, the page's event
 * count (relaxed, counted in its nev word itself) and committed size (release),
 * the nesting decrement and busy's release store.  No call, no loop.
 *
 * Signal safety is ringbuf.h's nesting rule, unchanged: t->nest is raised
 * before any ring access (a handler that interrupts us from then on writes
 * at the next level, through its own ft_rb_wlevel, or is counted lost) and
 * lowered after the last one; signal fences keep the compiler from moving
 * ring accesses across either.  The cached cursor IS the level's wlevel
 * (page, off, last_ts): it belongs to exactly one level, so a handler that
 * writes at the next level never touches it.
 */
#ifndef FTRAIL_RINGBUF_FAST_H
#define FTRAIL_RINGBUF_FAST_H

#include "core/ringbuf.h"

/*
 * Reserve, at level 0 (thread context, no write in progress on this
 * thread), room for a record of 1 + nx words whose first word takes a
 * time delta of at most dmax (FT_REC_EDELTA_MAX for an ENTRY word built
 * with delta 0, FT_REC_XDELTA_MAX for an EXIT) and whose nx more words are
 * an attachment that takes its time (FT_EXT_ARGS after an ENTRY,
 * FT_EXT_RETVAL after an EXIT, as ft_rb_entry_ext() / ft_rb_exit_ext()
 * write them; nx <= ft_rb_max_words() - 1).  Returns where to write the
 * words, with *delta the time delta to put in the first one, and the
 * writer open: the caller writes the 1 + nx words and calls
 * ft_rb_fast_commit(), calling nothing in between.  Returns NULL when the
 * caller must use the general writer (nothing was written and no counter
 * moved): a write in progress that we interrupt (a signal handler's hook:
 * the general writer goes one level up), no slot, no page yet or no room
 * in it, a delta too large, or a snapshot swap to follow.  Level 0 only,
 * so that every access is at a fixed offset of the thread's TLS block.
 * Async-signal-safe.
 */
static inline __attribute__((always_inline)) uint32_t *ft_rb_fast_reserve(struct ft_rb_thread *t,
									  uint32_t nx, uint64_t now,
									  uint64_t dmax,
									  uint32_t *delta)
{
	struct ft_rb_wlevel *w = &t->lv[0];
	struct ft_rb_slot *s = t->slot;
	struct ft_rb_area *a;
	struct ft_page *pg;
	uint32_t off;
	uint64_t d;

	if (__builtin_expect(t->nest != 0 || !s, 0))
		return NULL;
	a = t->area;
	/* begin: ft_rb_begin's order (nest, then busy, then snap_gen) */
	t->nest = 1;
	ft_barrier();
	/* relaxed: ft_rb__enter's store; the recorder's membarrier orders it */
	__atomic_store_n(&s->busy, 1, __ATOMIC_RELAXED);
	ft_barrier();
	pg = w->page;
	off = w->off;
	d = now - w->last_ts;
	/* acquire: pairs with the swapper's release of snap_gen (ft_rb__enter) */
	/* w->lim: the page's capacity, 0 without a page (ft_rb__new_page) */
	if (__builtin_expect(__atomic_load_n(&a->snap_gen, __ATOMIC_ACQUIRE) != w->gen, 0) ||
	    __builtin_expect(d > dmax, 0) || __builtin_expect(off + 4 + 4 * nx > w->lim, 0)) {
		/* not the common case: undo the begin (ft_rb_end's order), nothing written */
		ft_barrier();
		t->nest = 0;
		ft_barrier();
		__atomic_store_n(&s->busy, 0, __ATOMIC_RELEASE); /* ft_rb__leave */
		return NULL;
	}
	*delta = (uint32_t)d;
	return (uint32_t *)(pg + 1) + off / 4;
}

/*
 * Publish the 1 + nx words written where ft_rb_fast_reserve() said, as one
 * event at time now, and close the writer.  ddepth: +1 for an entry, -1
 * for an exit (the level's function_graph depth, kept as ft_rb_entry /
 * ft_rb_exit keep it: an exit never takes it below 0).
 */
static inline __attribute__((always_inline)) void
ft_rb_fast_commit(struct ft_rb_thread *t, uint32_t nx, uint64_t now, int ddepth)
{
	struct ft_rb_wlevel *w = &t->lv[0];
	struct ft_rb_slot *s = t->slot;
	uint32_t off = w->off + 4 + 4 * nx;

	w->last_ts = now;
	w->off = off;
	/* the page's event count: this thread (level) is its only writer */
	__atomic_store_n(w->nev, __atomic_load_n(w->nev, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED); /* ordered by the release below */
	/* release: a reader that acquires size sees the words (ringbuf.h, ft_page.size) */
	__atomic_store_n(&w->page->size, off, __ATOMIC_RELEASE);
	if (ddepth > 0)
		w->depth++;
	else
		w->depth -= w->depth != 0;
	/* end: the ring accesses stay before the decrement, for a handler's sake */
	ft_barrier();
	t->nest = 0;
	ft_barrier();
	/*
	 * release (ft_rb__leave): every commit happens-before the recorder's
	 * acquire of busy.  s is t->slot as reserve saw it: only this thread's
	 * exit (never a handler that returns to us) detaches the slot.
	 */
	__atomic_store_n(&s->busy, 0, __ATOMIC_RELEASE);
}

/*
 * Commit one record word at level 0: word | delta << 2 (see
 * ft_rb_fast_reserve() for dmax, ddepth and when the caller must use the
 * general writer).  Returns 0 when committed, -1 when nothing was written.
 */
static inline __attribute__((always_inline)) int
ft_rb_fast_word(struct ft_rb_thread *t, uint32_t word, uint64_t now, uint64_t dmax, int ddepth)
{
	uint32_t d, *p = ft_rb_fast_reserve(t, 0, now, dmax, &d);

	if (__builtin_expect(!p, 0))
		return -1;
	p[0] = word | d << 2;
	ft_rb_fast_commit(t, 0, now, ddepth);
	return 0;
}

/* function_graph entry of fid (<= FT_REC_FID_MAX) at now: fast, else ft_rb_entry. */
static inline __attribute__((always_inline)) int ft_rb_fast_entry(struct ft_rb_thread *t,
								  uint32_t fid, uint64_t now)
{
	if (__builtin_expect(fid <= FT_REC_FID_MAX, 1) &&
	    __builtin_expect(!ft_rb_fast_word(t, ft_rec_entry(fid, 0), now, FT_REC_EDELTA_MAX, 1),
			     1))
		return 0;
	return ft_rb_entry(t, fid, now);
}

/*
 * function_graph entry of fid at now with a one-word attachment of type
 * (FT_EXT_STACK_ID: the stack id): fast, else ft_rb_entry_ext.
 */
static inline __attribute__((always_inline)) int
ft_rb_fast_entry_ext1(struct ft_rb_thread *t, uint32_t fid, uint64_t now, uint32_t type, uint32_t v)
{
	uint32_t d, *p = NULL;

	if (__builtin_expect(fid <= FT_REC_FID_MAX, 1))
		p = ft_rb_fast_reserve(t, 2, now, FT_REC_EDELTA_MAX, &d);
	if (__builtin_expect(!p, 0))
		return ft_rb_entry_ext(t, fid, now, type, &v, 4);
	p[0] = ft_rec_entry(fid, d);
	p[1] = ft_rec_ext(type, 1, 0);
	p[2] = v;
	ft_rb_fast_commit(t, 2, now, 1);
	return 0;
}

/* function_graph exit at now: fast, else ft_rb_exit. */
static inline __attribute__((always_inline)) int ft_rb_fast_exit(struct ft_rb_thread *t,
								 uint64_t now)
{
	if (__builtin_expect(!ft_rb_fast_word(t, ft_rec_exit(0), now, FT_REC_XDELTA_MAX, -1), 1))
		return 0;
	return ft_rb_exit(t, now);
}

#endif
