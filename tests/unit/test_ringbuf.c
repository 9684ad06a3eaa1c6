// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the ring buffer (core/ringbuf.c), single-threaded and exact:
 * layout and validation, the record encoding of the write helpers (deltas,
 * the FT_EXT_TIME fallback, long fids, ext payloads), page switches, both
 * loss modes with their exact counts and where they are reported, nesting
 * levels, slots (claim, no slot, detach, reap, recycle), non-consuming
 * reads.  The concurrent rules are in tests/stress/ringbuf_stress.c.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <pthread.h>
#include <time.h>

#include <cmocka.h>

#include "core/ringbuf.h"

struct fixture {
	void *mem;
	size_t len;
	struct ft_rb_area *a;
	struct ft_rb_thread t;
	char page[FT_RB_PAGE_MAX];
};

static struct fixture *mkarea(uint32_t page_size, uint32_t n0, uint32_t slots, int overwrite)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct ft_rb_params p = { 0 };

	assert_non_null(f);
	p.page_size = page_size;
	p.npages[0] = n0;
	p.npages[1] = p.npages[2] = p.npages[3] = 2;
	p.nr_slots = slots;
	p.flags = overwrite ? FT_RB_F_OVERWRITE : 0;
	f->len = ft_rb_area_size(&p);
	assert_true(f->len > 0);
	f->mem = mmap(NULL, f->len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(f->mem != MAP_FAILED);
	f->a = ft_rb_area_init(f->mem, f->len, &p);
	assert_non_null(f->a);
	return f;
}

static void freearea(struct fixture *f)
{
	munmap(f->mem, f->len);
	free(f);
}

/* Records of a page copy, flattened: kinds/words and absolute times. */
struct flat {
	uint32_t w[4096];
	uint64_t ts[4096];
	uint32_t n;
};

static int flat_cb(const uint32_t *rec, uint32_t nw, uint64_t ts, void *arg)
{
	struct flat *fl = arg;

	fl->w[fl->n] = rec[0];
	fl->ts[fl->n] = ts;
	fl->n++;
	return 0;
}

static void test_layout(void **state)
{
	struct ft_rb_params p;
	struct fixture *f;

	ft_rb_params_default(&p, 0, 0);
	assert_int_equal(p.page_size, 4096);
	assert_int_equal(p.npages[0], FT_RB_DEFAULT_KB * 1024 / 4096);
	assert_int_equal(p.npages[1], p.npages[0] / 8);
	assert_true(p.nr_slots >= 8 && p.nr_slots <= 1024);
	assert_int_equal(ft_rb_area_size(&p) % 4096, 0);
	ft_rb_params_default(&p, 4, 1);
	assert_int_equal(p.page_size, 1024);
	assert_int_equal(p.npages[0], 4);
	assert_int_equal(p.npages[1], 2);
	assert_int_equal(p.flags, FT_RB_F_OVERWRITE);
	/* invalid params */
	p.page_size = 3000;
	assert_int_equal(ft_rb_area_size(&p), 0);
	ft_rb_params_default(&p, 4, 0);
	p.npages[2] = 1;
	assert_int_equal(ft_rb_area_size(&p), 0);

	f = mkarea(1024, 4, 3, 0);
	assert_ptr_equal(ft_rb_area_attach(f->mem, f->len), f->a);
	assert_null(ft_rb_area_attach(f->mem, f->len - 4096));
	f->a->slots_off += 64;
	assert_null(ft_rb_area_attach(f->mem, f->len));
	f->a->slots_off -= 64;
	assert_non_null(ft_rb_area_attach(f->mem, f->len));
	/* too short for init */
	{
		struct ft_rb_params q = { 1024, { 4, 2, 2, 2 }, 3, 0 };

		assert_null(ft_rb_area_init(f->mem, ft_rb_area_size(&q) - 1, &q));
	}
	freearea(f);
}

static void test_encoding(void **state)
{
	struct fixture *f = mkarea(4096, 4, 2, 0);
	struct ft_rb_pageinfo info;
	struct flat *fl = calloc(1, sizeof(*fl));
	struct ft_page *pg = (struct ft_page *)f->page;
	uint64_t t0 = 1000000;
	char msg[] = "hello";

	assert_int_equal(ft_rb_thread_attach(&f->t, f->a, 42, 43), 0);
	assert_int_equal(ft_rb_entry(&f->t, 7, t0), 0);		 /* first: page ts */
	assert_int_equal(ft_rb_entry(&f->t, 8, t0 + 100), 0);	 /* delta 100 */
	assert_int_equal(ft_rb_exit(&f->t, t0 + 100 + 5000), 0); /* exit delta 5000 */
	assert_int_equal(ft_rb_entry(&f->t, 9, t0 + 100000), 0); /* too far: EXT_TDELTA */
	assert_int_equal(ft_rb_entry(&f->t, FT_REC_FID_MAX + 5, t0 + 100001), 0); /* long fid */
	assert_int_equal(ft_rb_func(&f->t, 11, 8, 0, t0 + 100002), 0);
	assert_int_equal(ft_rb_func(&f->t, 12, 0, 0xdeadbeefcafe, t0 + 100003), 0);
	assert_int_equal(ft_rb_ext(&f->t, FT_EXT_MARKER, msg, 5, t0 + 100003, 1, 1), 0);
	assert_int_equal(ft_rb_exit(&f->t, t0 + 100003 + (1ull << 31)), 0); /* > 30 bits */

	/* nothing complete yet: a non-final read finds nothing */
	assert_int_equal(ft_rb_consume(f->a, f->t.slot_idx, 0, 0, f->page, &info), 0);
	assert_int_equal(ft_rb_consume(f->a, f->t.slot_idx, 0, 1, f->page, &info), 1);
	assert_int_equal(info.nev, 9);
	assert_int_equal(info.partial, 1);
	assert_int_equal(info.buf_id, ft_rb_buf_id(f->t.slot_idx, 0, 0));
	assert_int_equal(pg->tid, 43);
	assert_int_equal(pg->pid, 42);
	assert_int_equal(pg->level, 0);
	assert_int_equal(pg->depth, 0);
	assert_int_equal(pg->ts, t0);
	assert_int_equal(ft_rb_page_walk(pg, info.len, flat_cb, fl), 0);
	/* entry(7) entry(8) exit TDELTA entry(9) TDELTA ENTRY_LONG func func+PARENT_ADDR marker
	 * TIME exit */
	{
		uint32_t *r = (uint32_t *)(pg + 1);
		uint32_t i = 0;

		assert_int_equal(r[i], ft_rec_entry(7, 0));
		i++;
		assert_int_equal(r[i], ft_rec_entry(8, 100));
		i++;
		assert_int_equal(r[i], ft_rec_exit(5000));
		i++;
		/* 94900 ticks: one TDELTA word, not a 3-word absolute time */
		assert_int_equal(r[i], ft_rec_tdelta(100000 - 5100));
		assert_int_equal(ft_ext_words(r[i]), 0);
		i++;
		assert_int_equal(r[i], ft_rec_entry(9, 0));
		i++;
		assert_int_equal(r[i], ft_rec_tdelta(1)); /* an EXT record has no delta field */
		i++;
		assert_int_equal(r[i], ft_rec_ext(FT_EXT_ENTRY_LONG, 1, 0));
		assert_int_equal(r[i + 1], FT_REC_FID_MAX + 5);
		i += 2;
		assert_int_equal(r[i], ft_rec_func(11, 1));
		assert_int_equal(r[i + 1], 8);
		i += 2;
		assert_int_equal(r[i], ft_rec_func(12, 1));
		assert_int_equal(r[i + 1], 0);
		assert_int_equal(r[i + 2], ft_rec_ext(FT_EXT_PARENT_ADDR, 2, 0));
		i += 5;
		/* same time as the previous record: no FT_EXT_TIME */
		assert_int_equal(r[i], ft_rec_ext(FT_EXT_MARKER, 2, 3));
		assert_memory_equal(&r[i + 1], "hello", 5);
		i += 3;
		/* 2^31 ticks: beyond TDELTA's 22 bits, an absolute time */
		assert_int_equal(r[i], ft_rec_ext(FT_EXT_TIME, 2, 0));
		i += 3;
		assert_int_equal(r[i], ft_rec_exit(0));
		i++;
		assert_int_equal(pg->size, i * 4);
	}
	/* the walk reconstructs every absolute time */
	assert_int_equal(fl->ts[0], t0);
	assert_int_equal(fl->ts[1], t0 + 100);
	assert_int_equal(fl->ts[2], t0 + 5100);
	assert_int_equal(fl->ts[4], t0 + 100000);
	assert_int_equal(fl->ts[fl->n - 1], t0 + 100003 + (1ull << 31));
	/* depth: 4 entries (3 graph entries + ENTRY_LONG), 2 exits */
	assert_int_equal(f->t.lv[0].depth, 2);
	ft_rb_thread_detach(&f->t);
	free(fl);
	freearea(f);
}

/*
 * An entry or exit with its attachment (FT_EXT_ARGS / FT_EXT_RETVAL) is one
 * reservation: when the pair does not fit in the page's rest, both go to
 * the next page, never the word alone; the depth moves as for plain words.
 */
static void test_entry_exit_ext(void **state)
{
	struct fixture *f = mkarea(4096, 4, 1, 0);
	struct ft_rb_pageinfo info;
	struct ft_page *pg = (struct ft_page *)f->page;
	uint32_t payload[6] = { 1, 2, 3, 4, 5, 6 }, *r;
	uint64_t t = 1000;
	uint32_t n = 0, cap = 4096 - (uint32_t)sizeof(struct ft_page);

	(void)state;
	assert_int_equal(ft_rb_thread_attach(&f->t, f->a, 1, 2), 0);
	/* fill the first page up to 12 bytes before its end */
	while (f->t.lv[0].off + 4 <= cap - 12) {
		assert_int_equal(ft_rb_entry(&f->t, 3, t), 0);
		n++;
	}
	/* 1 + 1 + 6 words do not fit in the 12 bytes left: a new page for both */
	assert_int_equal(ft_rb_entry_ext(&f->t, 5, t, FT_EXT_ARGS, payload, sizeof(payload)), 0);
	assert_int_equal(ft_rb_exit_ext(&f->t, t + 10, FT_EXT_RETVAL, payload, 5), 0);
	/* a fid beyond the short word: ENTRY_LONG, then the attachment */
	assert_int_equal(
		ft_rb_entry_ext(&f->t, FT_REC_FID_MAX + 1, t + 20, FT_EXT_ARGS, payload, 4), 0);
	assert_int_equal(f->t.lv[0].depth, n + 1);
	assert_int_equal(ft_rb_consume(f->a, f->t.slot_idx, 0, 0, f->page, &info), 1);
	assert_int_equal(pg->size, n * 4); /* the first page ends with plain entries */
	assert_int_equal(ft_rb_consume(f->a, f->t.slot_idx, 0, 1, f->page, &info), 1);
	assert_int_equal(pg->depth, n);
	r = (uint32_t *)(pg + 1);
	assert_int_equal(r[0], ft_rec_entry(5, 0));
	assert_int_equal(r[1], ft_rec_ext(FT_EXT_ARGS, 6, 0));
	assert_memory_equal(&r[2], payload, sizeof(payload));
	assert_int_equal(r[8], ft_rec_exit(10));
	assert_int_equal(r[9], ft_rec_ext(FT_EXT_RETVAL, 2, 3)); /* 5 bytes: 3 of pad */
	assert_memory_equal(&r[10], payload, 5);
	assert_int_equal(((unsigned char *)&r[10])[5], 0); /* pad bytes are zero */
	assert_int_equal(r[12], ft_rec_tdelta(10));
	assert_int_equal(r[13], ft_rec_ext(FT_EXT_ENTRY_LONG, 1, 0));
	assert_int_equal(r[14], FT_REC_FID_MAX + 1);
	assert_int_equal(r[15], ft_rec_ext(FT_EXT_ARGS, 1, 0));
	assert_int_equal(pg->size, 17 * 4);
	assert_int_equal(info.nev, 3); /* one event per pair */
	/* a payload longer than a page: the event is lost, counted, nothing written */
	{
		static uint32_t big[1100];

		assert_int_equal(ft_rb_entry_ext(&f->t, 5, t + 30, FT_EXT_ARGS, big, sizeof(big)),
				 -1);
		assert_int_equal(f->t.lv[0].depth, n + 2);
	}
	ft_rb_thread_detach(&f->t);
	freearea(f);
}

static void test_walk_rejects(void **state)
{
	char buf[256];
	struct ft_page *pg = (struct ft_page *)buf;
	uint32_t *r = (uint32_t *)(pg + 1);

	memset(buf, 0, sizeof(buf));
	pg->size = 8;
	r[0] = ft_rec_ext(FT_EXT_MARKER, 5, 0); /* claims 5 payload words, has 1 */
	assert_int_equal(ft_rb_page_walk(pg, sizeof(*pg) + 8, NULL, NULL), -1);
	pg->size = 300; /* past the copy */
	assert_int_equal(ft_rb_page_walk(pg, sizeof(buf), NULL, NULL), -1);
	pg->size = 6; /* not words */
	assert_int_equal(ft_rb_page_walk(pg, sizeof(buf), NULL, NULL), -1);
	pg->size = 4;
	r[0] = ft_rec_func(1, 0); /* FUNC needs 2 words */
	assert_int_equal(ft_rb_page_walk(pg, sizeof(buf), NULL, NULL), -1);
}

/* Fill level 0 with n entries at increasing times; returns how many were accepted. */
static uint32_t fill(struct fixture *f, uint32_t n, uint64_t *t)
{
	uint32_t ok = 0;

	for (uint32_t i = 0; i < n; i++, (*t)++)
		ok += ft_rb_entry(&f->t, i & 1023, *t) == 0;
	return ok;
}

static void test_producer_consumer(void **state)
{
	/* 1 KiB pages: (1024 - 32) / 4 = 248 entries each; 4 pages */
	struct fixture *f = mkarea(1024, 4, 1, 0);
	struct ft_rb_pageinfo info;
	struct ft_rb_totals tot;
	struct ft_page *pg = (struct ft_page *)f->page;
	uint64_t t = 1;
	uint32_t ok, read = 0;

	assert_int_equal(ft_rb_thread_attach(&f->t, f->a, 1, 2), 0);
	ok = fill(f, 2000, &t);
	assert_int_equal(ok, 4 * 248); /* the ring holds 4 pages; the rest is dropped */
	ft_rb_area_totals(f->a, &tot);
	assert_int_equal(tot.lost_new, 2000 - ok);
	assert_int_equal(tot.lost, 2000 - ok);
	/* consume one page: the writer can move on; the next page says what was lost */
	assert_int_equal(ft_rb_consume(f->a, 0, 0, 0, f->page, &info), 1);
	assert_int_equal(info.nev, 248);
	assert_int_equal(pg->seq, 0);
	assert_int_equal(pg->lost, 0);
	read += info.nev;
	assert_int_equal(ft_rb_entry(&f->t, 5, t++), 0);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(ft_rb_consume(f->a, 0, 0, 1, f->page, &info), 1);
		read += info.nev;
		if (i == 3) {
			/* page 4: started after the drops, reports them */
			assert_int_equal(pg->seq, 4);
			assert_int_equal(pg->lost, 2000 - ok);
			assert_int_equal(info.nev, 1);
		} else {
			assert_int_equal(pg->lost, 0);
		}
	}
	assert_int_equal(ft_rb_consume(f->a, 0, 0, 1, f->page, &info), 0);
	ft_rb_area_totals(f->a, &tot);
	assert_int_equal(read + tot.lost, 2001);
	assert_int_equal(tot.written, read);
	freearea(f);
}

static void test_overwrite(void **state)
{
	struct fixture *f = mkarea(1024, 4, 1, 1);
	struct ft_rb_pageinfo info;
	struct ft_rb_totals tot;
	struct ft_page *pg = (struct ft_page *)f->page;
	uint64_t t = 1, read = 0;
	uint32_t ok;

	assert_int_equal(ft_rb_thread_attach(&f->t, f->a, 1, 2), 0);
	ok = fill(f, 248 * 10 + 7, &t);	    /* 11 pages' worth into a 4-page ring */
	assert_int_equal(ok, 248 * 10 + 7); /* overwrite never drops the newest */
	ft_rb_area_totals(f->a, &tot);
	assert_int_equal(tot.pages_old, 7);
	assert_int_equal(tot.lost_old, 7 * 248);
	assert_int_equal(tot.lost_new, 0);
	/* the oldest left is page 7, and it carries the 7 pages' loss */
	assert_int_equal(ft_rb_consume(f->a, 0, 0, 0, f->page, &info), 1);
	assert_int_equal(info.number, 7);
	assert_int_equal(pg->seq, 7);
	assert_int_equal(pg->lost, 7 * 248);
	read += info.nev;
	/* while the reader holds a page (BUSY), the writer drops instead of overwriting */
	{
		struct ft_rb_ring *r = &ft_rb_slot_at(f->a, 0)->ring[0];

		/* take page 8 by hand as a reader in the middle of its copy would */
		assert_int_equal(r->rpage, 8u << 1);
		r->rpage |= FT_RB_BUSY;
		ok = fill(
			f, 248 * 2,
			&t); /* needs page 11 = reuse of page 7's slot (free), then 12 (= 8, busy) */
		ft_rb_area_totals(f->a, &tot);
		assert_int_equal(tot.pages_old, 7);
		assert_true(tot.lost_new > 0);
		assert_int_equal(ok + tot.lost_new, 248 * 2);
		r->rpage &= ~FT_RB_BUSY;
	}
	while (ft_rb_consume(f->a, 0, 0, 1, f->page, &info) == 1)
		read += info.nev;
	ft_rb_area_totals(f->a, &tot);
	assert_int_equal(read + tot.lost, 248 * 10 + 7 + 248 * 2);
	assert_int_equal(tot.written, read + tot.lost_old);
	freearea(f);
}

/*
 * Overwrite mode: the writer counts a page it took away (lost_old, then
 * pages_old) just after its CAS on rpage.  A reader that comes in between
 * must not hand out the next page as if it followed the last one read:
 * the page after a gap carries the gap's loss, or waits for the next pass
 * -- except in a final pass, which takes it (the count, if it ever comes,
 * goes to a later page: the LOST lines still add up).
 */
static void test_overwrite_gap_pending(void **state)
{
	struct fixture *f = mkarea(1024, 4, 1, 1);
	struct ft_rb_ring *r = &ft_rb_slot_at(f->a, 0)->ring[0];
	struct ft_page *pg = (struct ft_page *)f->page;
	struct ft_rb_pageinfo info;
	struct ft_rb_totals tot;
	uint64_t t = 1, read = 0, shown = 0;

	assert_int_equal(ft_rb_thread_attach(&f->t, f->a, 1, 2), 0);
	assert_int_equal(fill(f, 248 * 2, &t), 248 * 2); /* pages 0 and 1 */
	assert_int_equal(ft_rb_consume(f->a, 0, 0, 0, f->page, &info), 1);
	assert_int_equal(info.number, 0);
	read += info.nev;
	/* pages 2, 3, 4 and one event in 5, which takes page 1 away */
	assert_int_equal(fill(f, 248 * 3 + 1, &t), 248 * 3 + 1);
	assert_int_equal(r->pages_old, 1);
	assert_int_equal(r->lost_old, 248);
	/* as if the writer were still between its CAS and its counts */
	r->lost_old -= 248;
	r->pages_old -= 1;
	assert_int_equal(ft_rb_consume(f->a, 0, 0, 0, f->page, &info), 0);
	assert_int_equal(r->rpage, 2u << 1); /* left, not BUSY */
	r->lost_old += 248;
	r->pages_old += 1;
	assert_int_equal(ft_rb_consume(f->a, 0, 0, 0, f->page, &info), 1);
	assert_int_equal(info.number, 2);
	assert_int_equal(pg->lost, 248); /* the gap, shown after page 0 */
	read += info.nev;
	shown += pg->lost;
	/* fill page 5 and 6, then one event in 7 takes page 3 away */
	assert_int_equal(fill(f, 247 + 248 + 1, &t), 247 + 248 + 1);
	r->lost_old -= 248;
	r->pages_old -= 1;
	/* a final pass takes page 4 all the same */
	assert_int_equal(ft_rb_consume(f->a, 0, 0, 1, f->page, &info), 1);
	assert_int_equal(info.number, 4);
	assert_int_equal(pg->lost, 0);
	read += info.nev;
	r->lost_old += 248;
	r->pages_old += 1;
	while (ft_rb_consume(f->a, 0, 0, 1, f->page, &info) == 1) {
		read += info.nev;
		shown += pg->lost;
	}
	ft_rb_area_totals(f->a, &tot);
	assert_int_equal(tot.lost_old, 2 * 248);
	assert_int_equal(shown, tot.lost_old); /* every loss shown once */
	assert_int_equal(read + tot.lost, 248 * 7 + 1);
	freearea(f);
}

static void test_levels(void **state)
{
	struct fixture *f = mkarea(1024, 4, 1, 0);
	struct ft_rb_pageinfo info;
	struct ft_rb_totals tot;
	struct ft_page *pg = (struct ft_page *)f->page;
	struct ft_rb_wlevel *w0, *w1, *w2, *w3;
	uint32_t d, *p;

	assert_int_equal(ft_rb_thread_attach(&f->t, f->a, 1, 2), 0);
	/* a write in progress at level 0 ... */
	w0 = ft_rb_begin(&f->t);
	assert_ptr_equal(w0, &f->t.lv[0]);
	p = ft_rb_reserve(&f->t, w0, 10, 1, FT_REC_EDELTA_MAX, &d);
	assert_non_null(p);
	/* ... interrupted: the "handler" writes at level 1, and nests to 2, 3 */
	assert_int_equal(ft_rb_entry(&f->t, 100, 20), 0);
	w1 = ft_rb_begin(&f->t);
	assert_ptr_equal(w1, &f->t.lv[1]);
	w2 = ft_rb_begin(&f->t);
	w3 = ft_rb_begin(&f->t);
	assert_ptr_equal(w3, &f->t.lv[3]);
	assert_int_equal(ft_rb_entry(&f->t, 101, 30), -1); /* a fifth level: lost */
	ft_rb_end(&f->t);
	ft_rb_end(&f->t);
	(void)w2;
	assert_int_equal(ft_rb_entry(&f->t, 102, 40), 0); /* level 2 */
	ft_rb_end(&f->t);
	p[0] = ft_rec_entry(1, d);
	ft_rb_commit(w0, 1, 1);
	ft_rb_end(&f->t);
	assert_int_equal(f->t.nest, 0);
	ft_rb_area_totals(f->a, &tot);
	assert_int_equal(tot.lost_nest, 1);
	for (uint32_t l = 0; l < 3; l++) {
		assert_int_equal(ft_rb_consume(f->a, 0, l, 1, f->page, &info), 1);
		assert_int_equal(pg->level, l);
		assert_int_equal(ft_rb_id_level(info.buf_id), l);
		assert_int_equal(info.nev, 1);
	}
	assert_int_equal(ft_rb_consume(f->a, 0, 3, 1, f->page, &info), 0);
	freearea(f);
}

static void test_slots(void **state)
{
	struct fixture *f = mkarea(1024, 4, 2, 0);
	struct ft_rb_thread t2, t3;
	struct ft_rb_slotinfo si;
	struct ft_rb_totals tot;
	struct ft_rb_pageinfo info;
	uint64_t t = 1;

	assert_int_equal(ft_rb_thread_attach(&f->t, f->a, 10, 11), 0);
	assert_int_equal(ft_rb_thread_attach(&t2, f->a, 10, 12), 0);
	assert_true(f->t.slot_idx != t2.slot_idx);
	assert_int_equal(ft_rb_thread_attach(&t3, f->a, 10, 13), -1); /* none left */
	assert_int_equal(ft_rb_entry(&t3, 1, 5), -1);
	assert_int_equal(ft_rb_entry(&t3, 1, 6), -1);
	ft_rb_area_totals(f->a, &tot);
	assert_int_equal(tot.lost_noslot, 2);
	assert_int_equal(tot.claim_fails, 1);

	fill(f, 300, &t); /* 248 + 52: two pages */
	ft_rb_slot_info(f->a, f->t.slot_idx, &si);
	assert_int_equal(si.state, FT_RB_ACTIVE);
	assert_int_equal(si.tid, 11);
	/* recycle refuses an ACTIVE slot */
	assert_int_equal(ft_rb_slot_recycle(f->a, f->t.slot_idx), -1);
	ft_rb_thread_detach(&f->t);
	assert_null(f->t.area);
	ft_rb_slot_info(f->a, 0, &si);
	{
		uint32_t s = si.tid == 11 ? 0 : 1, n = 0;

		ft_rb_slot_info(f->a, s, &si);
		assert_int_equal(si.state, FT_RB_EXITED);
		while (ft_rb_consume(f->a, s, 0, 1, f->page, &info) == 1)
			n += info.nev;
		assert_int_equal(n, 300);
		assert_int_equal(ft_rb_slot_recycle(f->a, s), 0);
		ft_rb_slot_info(f->a, s, &si);
		assert_int_equal(si.state, FT_RB_FREE);
		assert_int_equal(si.gen, 1);
		/* the recycled slot reads empty and is claimable; counters are retired */
		ft_rb_area_totals(f->a, &tot);
		assert_int_equal(tot.written, 300);
		assert_int_equal(ft_rb_thread_attach(&t3, f->a, 10, 14), 0);
		assert_int_equal(t3.slot_idx, s);
		assert_int_equal(t3.gen, 1);
		assert_int_equal(ft_rb_consume(f->a, s, 0, 1, f->page, &info), 0);
		assert_int_equal(ft_rb_entry(&t3, 3, 100), 0);
		assert_int_equal(ft_rb_consume(f->a, s, 0, 1, f->page, &info), 1);
		assert_int_equal(info.nev, 1);
		assert_int_equal(ft_rb_id_gen(info.buf_id), 1);
		assert_int_equal(((struct ft_page *)f->page)->seq, 0);
	}
	/* exec: the new image reaps every ACTIVE slot of its pid */
	assert_int_equal(ft_rb_area_reap_pid(f->a, 10), 2);
	assert_int_equal(ft_rb_area_reap_pid(f->a, 10), 0);
	/* fork child: forget without touching */
	ft_rb_thread_forget(&t2);
	assert_null(t2.slot);
	freearea(f);
}

static void test_peek(void **state)
{
	struct fixture *f = mkarea(1024, 4, 1, 1);
	struct ft_rb_pageinfo info;
	uint64_t t = 1, first, last, n = 0;

	assert_int_equal(ft_rb_thread_attach(&f->t, f->a, 1, 2), 0);
	fill(f, 248 * 6 + 3, &t);
	ft_rb_peek_range(f->a, 0, 0, &first, &last);
	assert_int_equal(first, 3);
	assert_int_equal(last, 6);
	for (uint64_t p = first; p <= last; p++) {
		assert_int_equal(ft_rb_peek(f->a, 0, 0, p, f->page, &info), 1);
		assert_int_equal(info.number, p);
		n += info.nev;
	}
	assert_int_equal(n, 248 * 3 + 3);
	assert_int_equal(ft_rb_peek(f->a, 0, 0, 2, f->page, &info), 0); /* overwritten */
	/* peeking consumed nothing */
	assert_int_equal(ft_rb_consume(f->a, 0, 0, 0, f->page, &info), 1);
	assert_int_equal(info.number, 3);
	freearea(f);
}

static void test_ext_limits(void **state)
{
	struct fixture *f = mkarea(1024, 4, 1, 0);
	static char big[2048];
	struct ft_rb_totals tot;

	assert_int_equal(ft_rb_thread_attach(&f->t, f->a, 1, 2), 0);
	assert_int_equal(ft_rb_ext(&f->t, FT_EXT_MARKER, big, sizeof(big), 1, 1, 1), -1);
	assert_int_equal(
		ft_rb_ext(&f->t, FT_EXT_MARKER, big, ft_rb_max_words(f->a) * 4 - 4, 1, 1, 1), 0);
	ft_rb_area_totals(f->a, &tot);
	assert_int_equal(tot.lost_new, 1);
	freearea(f);
}

static void test_count_lost(void **state)
{
	struct fixture *f = mkarea(1024, 4, 1, 0);
	struct ft_rb_pageinfo info;
	struct ft_rb_totals tot;
	struct ft_page *pg = (struct ft_page *)f->page;
	uint32_t *r = (uint32_t *)(pg + 1);
	uint64_t t = 1;

	assert_int_equal(ft_rb_thread_attach(&f->t, f->a, 1, 2), 0);
	ft_rb_count_lost(&f->t, 3); /* no page yet: next page's header */
	assert_int_equal(ft_rb_entry(&f->t, 1, t++), 0);
	ft_rb_count_lost(&f->t, 5); /* in place */
	assert_int_equal(ft_rb_entry(&f->t, 2, t++), 0);
	ft_rb_area_totals(f->a, &tot);
	assert_int_equal(tot.lost_new, 8);
	assert_int_equal(ft_rb_consume(f->a, 0, 0, 1, f->page, &info), 1);
	assert_int_equal(pg->lost, 3);
	assert_int_equal(info.nev, 2);
	assert_int_equal(r[1], ft_rec_ext(FT_EXT_LOST, 1, 0));
	assert_int_equal(r[2], 5);
	assert_int_equal(ft_rec_fid(r[3]), 2);
	freearea(f);
}

/* Ticks of FT_EXT_MARKER records "%u" in a page copy: first and last, count. */
struct ticks {
	uint32_t first, last, n;
};

static int tick_cb(const uint32_t *rec, uint32_t nw, uint64_t ts, void *arg)
{
	struct ticks *tk = arg;
	uint32_t v;

	(void)ts;
	if (ft_rec_kind(rec[0]) != FT_REC_EXT || ft_ext_type(rec[0]) != FT_EXT_MARKER || nw < 2)
		return 0;
	memcpy(&v, &rec[1], 4);
	if (!tk->n++)
		tk->first = v;
	tk->last = v;
	return 0;
}

static void put(struct fixture *f, uint32_t v, uint64_t now)
{
	assert_int_equal(ft_rb_ext(&f->t, FT_EXT_MARKER, &v, 4, now, 1, 1), 0);
}

/* Copy (snap_range + peek_set) every page of ring (0, set, 0) into tk. */
static void snap_ticks(struct fixture *f, uint32_t set, struct ticks *tk)
{
	struct ft_rb_pageinfo info;
	uint64_t first, last;

	memset(tk, 0, sizeof(*tk));
	ft_rb_snap_range(f->a, 0, set, 0, &first, &last);
	for (uint64_t p = first; first <= last && p <= last; p++) {
		assert_int_equal(ft_rb_peek_set(f->a, 0, set, 0, p, f->page, &info), 1);
		assert_int_equal(ft_rb_page_walk((void *)f->page, info.len, tick_cb, tk), 0);
	}
}

/*
 * The swap: writers move to the spare set at their next write; the old set
 * holds what the buffer held (consumed pages too); the table's refusals.
 */
static void test_snapshot_swap(void **state)
{
	struct fixture *f = mkarea(1024, 8, 2, 0);
	struct ft_rb_pageinfo info;
	struct ticks tk, all = { 0 };
	uint32_t v = 0;

	(void)state;
	assert_int_equal(ft_rb_thread_attach(&f->t, f->a, 1, 2), 0);
	/* not allocated: a miss, counted */
	assert_int_equal(ft_rb_snapshot_state(f->a), FT_RB_SNAP_FREE);
	assert_int_equal(ft_rb_snapshot_swap(f->a, 1), -ENOENT);
	assert_int_equal(f->a->snap_missed, 1);
	for (; v < 300; v++)
		put(f, v, 100 + v);
	/* the recorder consumed some pages: they stay in the snapshot */
	assert_int_equal(ft_rb_consume(f->a, 0, 0, 0, f->page, &info), 1);
	assert_int_equal(ft_rb_page_walk((void *)f->page, info.len, tick_cb, &all), 0);
	assert_int_equal(ft_rb_snapshot_alloc(f->a), 0);
	assert_int_equal(ft_rb_snapshot_state(f->a), FT_RB_SNAP_READY);
	assert_int_equal(ft_rb_snapshot_swap(f->a, 5000), 0);
	assert_int_equal(ft_rb_snapshot_state(f->a), FT_RB_SNAP_SAVING);
	assert_int_equal(f->a->snap_gen, 1);
	/* a second swap before the save: refused, counted */
	assert_int_equal(ft_rb_snapshot_swap(f->a, 5001), -EBUSY);
	assert_int_equal(f->a->snap_skipped, 1);
	/* idle writer, not inside a write: every old ring is frozen at once */
	for (uint32_t l = 0; l < FT_RB_LEVELS; l++)
		assert_true(ft_rb_ring_frozen(f->a, 0, 0, l));
	assert_false(ft_rb_ring_frozen(f->a, 0, 1, 0)); /* the live set never is */
	/* the writer goes on: into set 1 */
	for (; v < 320; v++)
		put(f, v, 100 + v);
	assert_ptr_equal(f->t.lv[0].ring, &ft_rb_slot_at(f->a, 0)->sring[0]);
	assert_int_equal(ft_rb_slot_at(f->a, 0)->entered[1][0], 1);
	/* the old set: the last 8 pages, ending with tick 299 */
	snap_ticks(f, 0, &tk);
	assert_int_equal(tk.last, 299);
	assert_int_equal(tk.n, tk.last - tk.first + 1);
	assert_true(tk.n > 100);
	/* consume: the old set's pages first (oldest), then the live set's */
	while (ft_rb_consume(f->a, 0, 0, 1, f->page, &info) == 1)
		assert_int_equal(ft_rb_page_walk((void *)f->page, info.len, tick_cb, &all), 0);
	assert_int_equal(all.first, 0);
	assert_int_equal(all.last, 319);
	assert_int_equal(all.n, 320); /* every tick once: the snapshot is a copy */
	/* save done: reset the old set, READY again; it becomes live at the next swap */
	for (uint32_t l = 0; l < FT_RB_LEVELS; l++)
		ft_rb_ring_reset(f->a, 0, 0, l);
	ft_rb_snapshot_saved(f->a);
	assert_int_equal(ft_rb_snapshot_state(f->a), FT_RB_SNAP_READY);
	assert_int_equal(ft_rb_snapshot_swap(f->a, 6000), 0);
	for (; v < 330; v++)
		put(f, v, 100 + v);
	assert_ptr_equal(f->t.lv[0].ring, &ft_rb_slot_at(f->a, 0)->ring[0]);
	snap_ticks(f, 1, &tk);
	assert_int_equal(tk.first, 300);
	assert_int_equal(tk.last, 319);
	snap_ticks(f, 0, &tk);
	assert_int_equal(tk.first, 320);
	assert_int_equal(tk.last, 329);
	/* free while saving: FREE once saved, and a swap is a miss again */
	assert_int_equal(ft_rb_snapshot_free(f->a), 0);
	assert_int_equal(ft_rb_snapshot_state(f->a), FT_RB_SNAP_SAVING);
	ft_rb_snapshot_saved(f->a);
	assert_int_equal(ft_rb_snapshot_state(f->a), FT_RB_SNAP_FREE);
	assert_int_equal(ft_rb_snapshot_swap(f->a, 7000), -ENOENT);
	/* alloc again: READY */
	assert_int_equal(ft_rb_snapshot_alloc(f->a), 0);
	assert_int_equal(ft_rb_snapshot_state(f->a), FT_RB_SNAP_READY);
	ft_rb_thread_detach(&f->t);
	freearea(f);
}

/*
 * A swap in the middle of a write, and a signal handler nested in it: the
 * interrupted write finishes in the old set, the handler's goes to the new
 * one; the old level-0 ring is frozen only once the write ended.
 */
static void test_snapshot_mid_write(void **state)
{
	struct fixture *f = mkarea(1024, 8, 2, 0);
	struct ft_rb_wlevel *w0, *w1;
	struct ft_rb_slot *s;
	struct ticks tk;
	uint32_t *p, d, v;

	(void)state;
	assert_int_equal(ft_rb_thread_attach(&f->t, f->a, 1, 2), 0);
	s = ft_rb_slot_at(f->a, 0);
	put(f, 1, 10);
	assert_int_equal(ft_rb_snapshot_alloc(f->a), 0);
	/* thread context: begin and reserve, then the swap lands */
	w0 = ft_rb_begin(&f->t);
	assert_non_null(w0);
	assert_int_equal(s->busy, 1);
	p = ft_rb_reserve(&f->t, w0, 20, 2, 0, &d);
	assert_non_null(p);
	assert_int_equal(ft_rb_snapshot_swap(f->a, 15), 0);
	assert_false(ft_rb_ring_frozen(f->a, 0, 0, 0)); /* a write is in progress there */
	assert_true(ft_rb_ring_frozen(f->a, 0, 0, 1));	/* nothing deeper is */
	/* a handler interrupts: level 1, moves to the new set */
	w1 = ft_rb_begin(&f->t);
	assert_ptr_equal(w1, &f->t.lv[1]);
	assert_int_equal(s->busy, 2);
	assert_ptr_equal(w1->ring, &s->sring[1]);
	v = 3;
	{
		uint32_t *q = ft_rb_reserve(&f->t, w1, 25, 2, 0, &d);

		assert_non_null(q);
		q[0] = ft_rec_ext(FT_EXT_MARKER, 1, 0);
		q[1] = v;
		ft_rb_commit(w1, 2, 1);
	}
	ft_rb_end(&f->t);
	assert_int_equal(s->busy, 1);
	assert_false(ft_rb_ring_frozen(f->a, 0, 0, 0));
	/* the interrupted write completes in the old set */
	v = 2;
	p[0] = ft_rec_ext(FT_EXT_MARKER, 1, 0);
	p[1] = v;
	ft_rb_commit(w0, 2, 1);
	ft_rb_end(&f->t);
	assert_int_equal(s->busy, 0);
	assert_true(ft_rb_ring_frozen(f->a, 0, 0, 0));
	snap_ticks(f, 0, &tk);
	assert_int_equal(tk.n, 2);
	assert_int_equal(tk.first, 1);
	assert_int_equal(tk.last, 2);
	/* the next thread-context write goes to the new set too */
	put(f, 4, 30);
	assert_ptr_equal(f->t.lv[0].ring, &s->sring[0]);
	assert_int_equal(s->entered[1][0], 1);
	ft_rb_thread_detach(&f->t);
	freearea(f);
}

/* Area totals count both sets; a reset ring's counts are kept (retired). */
static void test_snapshot_totals(void **state)
{
	struct fixture *f = mkarea(1024, 2, 1, 0);
	struct ft_rb_totals tot;
	uint32_t v;

	(void)state;
	assert_int_equal(ft_rb_thread_attach(&f->t, f->a, 1, 2), 0);
	for (v = 0; v < 1000; v++)
		ft_rb_ext(&f->t, FT_EXT_MARKER, &v, 4, v, 1, 1); /* 2 pages: most are lost */
	ft_rb_snapshot_alloc(f->a);
	assert_int_equal(ft_rb_snapshot_swap(f->a, 2000), 0);
	for (; v < 1100; v++)
		ft_rb_ext(&f->t, FT_EXT_MARKER, &v, 4, v, 1, 1);
	ft_rb_area_totals(f->a, &tot);
	assert_int_equal(tot.written + tot.lost, 1100);
	for (uint32_t l = 0; l < FT_RB_LEVELS; l++)
		ft_rb_ring_reset(f->a, 0, 0, l);
	ft_rb_area_totals(f->a, &tot);
	assert_int_equal(tot.written + tot.lost, 1100);
	assert_true(tot.lost > 0);
	ft_rb_thread_detach(&f->t);
	freearea(f);
}

/* A blocking-mode area of 4 pages of 1 KiB (248 entries each), waits of block_ms. */
static struct fixture *mkblock(uint32_t block_ms)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct ft_rb_params p = { 0 };

	assert_non_null(f);
	p.page_size = 1024;
	p.npages[0] = 4;
	p.npages[1] = p.npages[2] = p.npages[3] = 2;
	p.nr_slots = 1;
	p.flags = FT_RB_F_BLOCK;
	p.block_ms = block_ms;
	f->len = ft_rb_area_size(&p);
	f->mem = mmap(NULL, f->len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(f->mem != MAP_FAILED);
	f->a = ft_rb_area_init(f->mem, f->len, &p);
	assert_non_null(f->a);
	return f;
}

/* Blocking mode without a reader: one bounded wait, then drops, counted. */
static void test_block_timeout(void **state)
{
	struct fixture *f = mkblock(30);
	struct ft_rb_pageinfo info;
	struct ft_rb_totals tot;
	uint64_t t = 1, read = 0;
	uint32_t ok;

	(void)state;
	assert_int_equal(ft_rb_thread_attach(&f->t, f->a, 1, 2), 0);
	ok = fill(f, 4 * 248 + 100, &t);
	/* 4 pages, then the wait for page 0 gives up: that event and the rest drop */
	assert_int_equal(ok, 4 * 248);
	ft_rb_area_totals(f->a, &tot);
	assert_int_equal(tot.lost_new, 100);
	assert_int_equal(tot.block_waits, 1);	 /* a dead reader costs one wait, */
	assert_int_equal(tot.block_timeouts, 1); /* not one per event */
	assert_true(tot.block_wait_ns >= 30000000ull);
	/* the reader comes back: writers may wait again, and the freed page is used */
	ft_rb_reader_alive(f->a);
	assert_int_equal(ft_rb_consume(f->a, 0, 0, 0, f->page, &info), 1);
	read += info.nev;
	assert_int_equal(fill(f, 248, &t), 248);
	ft_rb_area_totals(f->a, &tot);
	assert_int_equal(tot.block_waits, 1);
	/* a reader that is done: no wait at all */
	ft_rb_reader_done(f->a);
	assert_int_equal(fill(f, 10, &t), 0);
	ft_rb_area_totals(f->a, &tot);
	assert_int_equal(tot.block_waits, 1);
	while (ft_rb_consume(f->a, 0, 0, 1, f->page, &info) == 1)
		read += info.nev;
	ft_rb_area_totals(f->a, &tot);
	assert_int_equal(read + tot.lost, 4 * 248 + 100 + 248 + 10);
	ft_rb_thread_detach(&f->t);
	freearea(f);
}

static int writer_done; /* atomic: the writer of test_block_lossless detached */

static void *slow_reader(void *arg)
{
	struct fixture *f = arg;
	struct ft_rb_pageinfo info;
	static char page[1024];
	uint64_t read = 0;
	struct timespec ms = { 0, 1000000 };

	while (!__atomic_load_n(&writer_done, __ATOMIC_ACQUIRE)) {
		nanosleep(&ms, NULL); /* far slower than the writer */
		ft_rb_reader_alive(f->a);
		if (ft_rb_consume(f->a, 0, 0, 0, page, &info) == 1)
			read += info.nev;
	}
	while (ft_rb_consume(f->a, 0, 0, 1, page, &info) == 1)
		read += info.nev;
	return (void *)(uintptr_t)read;
}

/* Blocking mode with a slow reader: the writer waits, nothing is lost. */
static void test_block_lossless(void **state)
{
	struct fixture *f = mkblock(0);
	struct ft_rb_totals tot;
	pthread_t rd;
	void *read;
	uint64_t t = 1;

	(void)state;
	assert_int_equal(pthread_create(&rd, NULL, slow_reader, f), 0);
	assert_int_equal(ft_rb_thread_attach(&f->t, f->a, 1, 2), 0);
	assert_int_equal(fill(f, 20 * 248, &t), 20 * 248); /* 20 pages through a 4-page ring */
	ft_rb_thread_detach(&f->t);
	/* release: the detach (EXITED, the last commits) before the reader's final pass */
	__atomic_store_n(&writer_done, 1, __ATOMIC_RELEASE);
	pthread_join(rd, &read);
	ft_rb_area_totals(f->a, &tot);
	assert_int_equal(tot.lost, 0);
	assert_int_equal((uintptr_t)read, 20 * 248);
	assert_true(tot.block_waits >= 10);
	assert_int_equal(tot.block_timeouts, 0);
	freearea(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_encoding),
		cmocka_unit_test(test_entry_exit_ext),
		cmocka_unit_test(test_walk_rejects),
		cmocka_unit_test(test_producer_consumer),
		cmocka_unit_test(test_overwrite),
		cmocka_unit_test(test_overwrite_gap_pending),
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_slots),
		cmocka_unit_test(test_peek),
		cmocka_unit_test(test_ext_limits),
		cmocka_unit_test(test_count_lost),
		cmocka_unit_test(test_snapshot_swap),
		cmocka_unit_test(test_snapshot_mid_write),
		cmocka_unit_test(test_snapshot_totals),
		cmocka_unit_test(test_block_timeout),
		cmocka_unit_test(test_block_lossless),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
