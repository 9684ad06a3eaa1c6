// SPDX-License-Identifier: GPL-2.0
/*
 * Pages taken in pieces, for a streamed recording (urecord.c "Streaming"):
 * what was committed to a ring's page being written is taken as a page of
 * its own, and cut from the page when it is consumed.
 *
 * Ordering: the writer publishes a record by the release store of the
 * page's size (core/ringbuf.h); ft_rb_peek_set() acquires it and copies
 * the bytes below it, then checks the page was not reused meanwhile.  So a
 * piece holds whole, committed records, and the next piece starts where
 * this one ended (sp->off), at the time of its last record (sp->ts, from
 * ft_rb_page_walk over the copy).  The page, when consumed (a complete page,
 * or the last one with final = 1), holds the same bytes up to sp->off --
 * a writer never rewrites committed bytes of its current page -- so its
 * rest starts at sp->off.  Event and loss counts are split the same way:
 * the pieces' sums equal the page's.
 */
#include <string.h>

#include "core/record.h"
#include "core/ringbuf.h"
#include "recorder/urec_int.h"

static int walk_last(const uint32_t *rec, uint32_t nwords, uint64_t ts, void *arg)
{
	(void)rec;
	(void)nwords;
	*(uint64_t *)arg = ts;
	return 0;
}

void urec_piece_strip(struct urec_piece *sp, void *page, struct ft_rb_pageinfo *info)
{
	struct ft_page *pg = page;

	if (sp->page != info->number || !sp->off) {
		if (info->number >= sp->page)
			memset(sp, 0, sizeof(*sp)); /* not this one (overwritten meanwhile) */
		return;
	}
	if (sp->off > pg->size)
		sp->off = pg->size;
	memmove(pg + 1, (char *)(pg + 1) + sp->off, pg->size - sp->off);
	pg->size -= sp->off;
	pg->ts = sp->ts;
	pg->depth = FT_PAGE_DEPTH_CONT;
	pg->lost = pg->lost > sp->lost ? pg->lost - sp->lost : 0;
	info->lost = pg->lost;
	info->nev = info->nev > sp->nev ? info->nev - sp->nev : 0;
	info->len = (uint32_t)sizeof(*pg) + pg->size;
	memset(sp, 0, sizeof(*sp));
}

int urec_piece_take(struct ft_rb_area *a, uint32_t s, uint32_t set, uint32_t l,
		    struct urec_piece *sp, void *page, struct ft_rb_pageinfo *info)
{
	struct ft_rb_ring *ring = ft_rb_slot_ring(ft_rb_slot_at(a, s), set, l);
	struct ft_page *pg = page;
	uint64_t wp, end;
	uint32_t size, nev, lost;

	/* acquire: pairs with the writer's release of wpage (the old page is final) */
	wp = __atomic_load_n(&ring->wpage, __ATOMIC_ACQUIRE);
	if ((__atomic_load_n(&ring->rpage, __ATOMIC_ACQUIRE) >> 1) != wp)
		return ft_rb_consume_set(a, s, set, l, 0, page, info) == 1 ? 2 : -1;
	if (ft_rb_peek_set(a, s, set, l, wp, page, info) != 1)
		return -1;
	if (sp->page != wp)
		memset(sp, 0, sizeof(*sp));
	if (pg->size <= sp->off)
		return 0;
	end = pg->ts;
	if (ft_rb_page_walk(pg, info->len, walk_last, &end))
		return -1; /* a torn copy: the next pass sees it whole */
	size = pg->size;
	nev = info->nev > sp->nev ? info->nev - sp->nev : 0;
	lost = sp->off ? 0 : pg->lost;
	if (sp->off) {
		memmove(pg + 1, (char *)(pg + 1) + sp->off, size - sp->off);
		pg->ts = sp->ts;
		pg->depth = FT_PAGE_DEPTH_CONT;
		pg->lost = 0;
	}
	pg->size = size - sp->off;
	info->len = (uint32_t)sizeof(*pg) + pg->size;
	info->nev = nev;
	info->lost = lost;
	sp->page = wp;
	sp->off = size;
	sp->ts = end;
	sp->nev += nev;
	sp->lost += lost;
	return 1;
}
