// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the kernel sub-buffer encoder (kernel/kencode.h): pages
 * built by hand in the kernel ring buffer's layout (x86-64: a u64
 * timestamp, a u64 commit word with the lost-events flags, then 4-byte
 * aligned records whose header packs type_len:5 and time_delta:27), fed
 * to ft_kenc_page(), and the KDATA records it writes (core/kdata.h)
 * decoded and checked: time deltas and time extends, padding, absolute
 * time stamps, the lost-events flag with and without a stored count, the
 * kernel's own loss counters, stacks attached to their event, and a
 * record that runs past the end of its page.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/kdata.h"
#include "kernel/kencode.h"

#define PAGE_SIZE 4096
#define HDR 16 /* u64 timestamp, u64 commit */

/* The kernel ring buffer's record types (type_len values above 28). */
#define T_PADDING 29
#define T_EXTEND 30
#define T_STAMP 31

#define MISSED_EVENTS (1ull << 31)
#define MISSED_STORED (1ull << 30)

#define EV_ID 7	     /* an ordinary event's common_type */
#define KSTACK_ID 9  /* ftrace/kernel_stack */
#define USTACK_ID 10 /* ftrace/user_stack */

/* ---- building pages ---- */

struct page {
	unsigned char *p; /* PAGE_SIZE bytes, malloc'ed: ASan sees any read past it */
	size_t off;	  /* next record, from the page start */
};

static void page_start(struct page *pg)
{
	pg->p = calloc(1, PAGE_SIZE);
	assert_non_null(pg->p);
	pg->off = HDR;
}

static void put32(struct page *pg, uint32_t v)
{
	assert_true(pg->off + 4 <= PAGE_SIZE);
	memcpy(pg->p + pg->off, &v, 4);
	pg->off += 4;
}

static void rec_hdr(struct page *pg, unsigned int type_len, uint32_t delta)
{
	assert_true(delta < (1u << 27));
	put32(pg, type_len | delta << 5);
}

/* An event of len bytes (a multiple of 4): common_type id, then the byte tag. */
static void rec_event(struct page *pg, uint32_t delta, uint16_t id, size_t len, uint8_t tag)
{
	assert_true(len % 4 == 0 && len >= 8);
	if (len <= 28 * 4) {
		rec_hdr(pg, (unsigned int)(len / 4), delta);
	} else {
		rec_hdr(pg, 0, delta);
		put32(pg, (uint32_t)len + 4); /* array[0]: the length with itself */
	}
	assert_true(pg->off + len <= PAGE_SIZE);
	memset(pg->p + pg->off, tag, len);
	memcpy(pg->p + pg->off, &id, 2);
	pg->off += len;
}

/* A time extend (or, with type T_STAMP, an absolute stamp) of t ticks. */
static void rec_time(struct page *pg, unsigned int type, uint64_t t)
{
	rec_hdr(pg, type, (uint32_t)(t & ((1u << 27) - 1)));
	put32(pg, (uint32_t)(t >> 27));
}

/* Padding (a discarded event) of len bytes in all. */
static void rec_padding(struct page *pg, uint32_t delta, size_t len)
{
	rec_hdr(pg, T_PADDING, delta);
	put32(pg, (uint32_t)len - 4);
	pg->off += len - 8;
}

/* A kernel_stack record (size entries at 8, ips from 16) of the given ips. */
static void rec_kstack(struct page *pg, uint32_t delta, const uint64_t *ips, int n)
{
	size_t len = 16 + 8 * (size_t)n;
	unsigned char *d;
	uint16_t id = KSTACK_ID;
	int32_t size = n;

	rec_hdr(pg, (unsigned int)(len / 4), delta);
	d = pg->p + pg->off;
	memset(d, 0, len);
	memcpy(d, &id, 2);
	memcpy(d + 8, &size, 4);
	memcpy(d + 16, ips, 8 * (size_t)n);
	pg->off += len;
}

/* Fill in the header: time stamp, commit (the records so far) and flags. */
static void page_end(struct page *pg, uint64_t ts, uint64_t flags)
{
	uint64_t commit = (pg->off - HDR) | flags;

	memcpy(pg->p, &ts, 8);
	memcpy(pg->p + 8, &commit, 8);
}

/* Mark the page as following lost events, their number stored after the records. */
static void page_end_missed(struct page *pg, uint64_t ts, uint64_t count)
{
	size_t off = pg->off;

	memcpy(pg->p + off, &count, 8);
	page_end(pg, ts, MISSED_EVENTS | MISSED_STORED);
}

/* ---- decoding what the encoder wrote ---- */

struct rec {
	int kind;	/* KREC_EVENT, KREC_MISSED */
	uint8_t flags;	/* KF_* */
	uint64_t ticks; /* absolute */
	uint64_t count; /* MISSED */
	unsigned char raw[PAGE_SIZE];
	size_t len;
	uint64_t stack[8]; /* the first stack: ids[0] = id, or the ips */
	uint64_t nr;
};

struct out {
	struct rec r[64];
	int n;
	int chunks;
	uint64_t addrs[64]; /* note_addr calls */
	int nr_addrs;
	int lost_known; /* lost_total answers */
	uint64_t lost_sum;
};

static int out_write(void *arg, const unsigned char *c, size_t len)
{
	struct out *o = arg;
	const unsigned char *end = c + len;
	uint64_t t, v = 0;

	o->chunks++;
	assert_true(len >= 9);
	assert_int_equal(c[0], KREC_TIME); /* every chunk decodes on its own */
	t = ft_le64_get(c + 1);
	c += 9;
	while (c < end) {
		struct rec *r = &o->r[o->n++];
		int tag = *c++;

		assert_true(o->n <= 64);
		memset(r, 0, sizeof(*r));
		r->kind = tag & KREC_KIND_MASK;
		r->flags = (uint8_t)(tag & ~KREC_KIND_MASK);
		assert_int_equal(ft_uv_get(&c, end, &v), 0);
		t += v;
		r->ticks = t;
		if (r->kind == KREC_MISSED) {
			assert_int_equal(ft_uv_get(&c, end, &r->count), 0);
			continue;
		}
		assert_int_equal(r->kind, KREC_EVENT);
		assert_int_equal(ft_uv_get(&c, end, &v), 0);
		assert_true(v <= sizeof(r->raw) && c + v <= end);
		memcpy(r->raw, c, v);
		r->len = v;
		c += v;
		for (int f = KF_KSTACK_ID; f <= KF_USTACK_FULL; f <<= 1) {
			if (!(r->flags & f))
				continue;
			assert_int_equal(ft_uv_get(&c, end, &v), 0);
			if (f == KF_KSTACK_ID || f == KF_USTACK_ID) {
				r->stack[0] = v;
				r->nr = 1;
				continue;
			}
			r->nr = v;
			assert_true(v <= 8 && c + 8 * v <= end);
			for (uint64_t i = 0; i < v; i++, c += 8)
				r->stack[i] = ft_le64_get(c);
		}
	}
	return 0;
}

static void out_note(void *arg, uint64_t addr)
{
	struct out *o = arg;

	assert_true(o->nr_addrs < 64);
	o->addrs[o->nr_addrs++] = addr;
}

static int out_lost(void *arg, uint64_t *sum)
{
	struct out *o = arg;

	if (!o->lost_known)
		return -1;
	*sum = o->lost_sum;
	return 0;
}

static struct ft_kenc *enc_new(struct out *o, int with_lost_total)
{
	static const struct ft_kenc_ops ops = { out_write, out_note, out_lost };
	static const struct ft_kenc_ops ops_nolost = { out_write, out_note, NULL };
	struct ft_kenc_conf conf = { .kstack_id = KSTACK_ID, .ustack_id = USTACK_ID };
	struct ft_kenc *e;

	memset(o, 0, sizeof(*o));
	e = ft_kenc_create(&conf, with_lost_total ? &ops : &ops_nolost, o);
	assert_non_null(e);
	return e;
}

static void feed(struct ft_kenc *e, struct page *pg)
{
	ft_kenc_page(e, pg->p, PAGE_SIZE);
	free(pg->p);
	pg->p = NULL;
}

static void assert_event(const struct rec *r, uint64_t ticks, uint16_t id, size_t len, uint8_t tag)
{
	uint16_t got;

	assert_int_equal(r->kind, KREC_EVENT);
	assert_int_equal(r->ticks, ticks);
	assert_int_equal(r->len, len);
	memcpy(&got, r->raw, 2);
	assert_int_equal(got, id);
	assert_int_equal(r->raw[len - 1], tag);
}

/* ---- the cases ---- */

/* Deltas add up from the page's time stamp; a long event keeps its length. */
static void test_deltas(void **state)
{
	struct ft_kenc_stats st;
	struct page pg;
	struct out o;
	struct ft_kenc *e = enc_new(&o, 0);

	(void)state;
	page_start(&pg);
	rec_event(&pg, 10, EV_ID, 8, 0xa1);
	rec_event(&pg, 5, EV_ID, 200, 0xa2); /* longer than type_len can say */
	rec_event(&pg, 0, EV_ID, 12, 0xa3);
	page_end(&pg, 1000, 0);
	feed(e, &pg);
	ft_kenc_finish(e);
	assert_int_equal(o.chunks, 1);
	assert_int_equal(o.n, 3);
	assert_event(&o.r[0], 1010, EV_ID, 8, 0xa1);
	assert_event(&o.r[1], 1015, EV_ID, 200, 0xa2);
	assert_event(&o.r[2], 1015, EV_ID, 12, 0xa3);
	ft_kenc_get_stats(e, &st);
	assert_int_equal(st.events, 3);
	assert_int_equal(st.lost, 0);
	assert_int_equal(ft_kenc_error(e), 0);
	ft_kenc_free(e);
}

/* A time extend carries a delta too large for 27 bits. */
static void test_time_extend(void **state)
{
	const uint64_t big = (5ull << 27) + 77;
	struct page pg;
	struct out o;
	struct ft_kenc *e = enc_new(&o, 0);

	(void)state;
	page_start(&pg);
	rec_event(&pg, 3, EV_ID, 8, 0xb1);
	rec_time(&pg, T_EXTEND, big);
	rec_event(&pg, 1, EV_ID, 8, 0xb2);
	page_end(&pg, 2000, 0);
	feed(e, &pg);
	ft_kenc_finish(e);
	assert_int_equal(o.n, 2);
	assert_event(&o.r[0], 2003, EV_ID, 8, 0xb1);
	assert_event(&o.r[1], 2003 + big + 1, EV_ID, 8, 0xb2);
	ft_kenc_free(e);
}

/* Padding (a discarded event, the unused end of a page) writes nothing. */
static void test_padding(void **state)
{
	struct page pg;
	struct out o;
	struct ft_kenc *e = enc_new(&o, 0);

	(void)state;
	page_start(&pg);
	rec_event(&pg, 4, EV_ID, 8, 0xc1);
	rec_padding(&pg, 0, 24);
	rec_event(&pg, 6, EV_ID, 8, 0xc2);
	rec_padding(&pg, 0, 64); /* the rest of the commit */
	page_end(&pg, 3000, 0);
	feed(e, &pg);
	ft_kenc_finish(e);
	assert_int_equal(o.n, 2);
	assert_event(&o.r[0], 3004, EV_ID, 8, 0xc1);
	assert_event(&o.r[1], 3010, EV_ID, 8, 0xc2);
	ft_kenc_free(e);
}

/* An absolute time stamp replaces the running time, forward here. */
static void test_absolute_stamp(void **state)
{
	const uint64_t abs = (1ull << 40) + 123;
	struct page pg;
	struct out o;
	struct ft_kenc *e = enc_new(&o, 0);

	(void)state;
	page_start(&pg);
	rec_event(&pg, 1, EV_ID, 8, 0xd1);
	rec_time(&pg, T_STAMP, abs);
	rec_event(&pg, 2, EV_ID, 8, 0xd2);
	page_end(&pg, 5000, 0);
	feed(e, &pg);
	ft_kenc_finish(e);
	assert_int_equal(o.n, 2);
	assert_event(&o.r[0], 5001, EV_ID, 8, 0xd1);
	assert_event(&o.r[1], abs + 2, EV_ID, 8, 0xd2);
	ft_kenc_free(e);
}

/*
 * A page marked with lost events: a KREC_MISSED before its first event,
 * with the stored count, or 0 ("unknown") when the page had no room for
 * it; the event held back from the page before goes out first.
 */
static void test_lost_flag(void **state)
{
	struct ft_kenc_stats st;
	struct page pg;
	struct out o;
	struct ft_kenc *e = enc_new(&o, 0);

	(void)state;
	page_start(&pg);
	rec_event(&pg, 1, EV_ID, 8, 0xe1);
	page_end(&pg, 100, 0);
	feed(e, &pg);

	page_start(&pg);
	rec_event(&pg, 5, EV_ID, 8, 0xe2);
	page_end_missed(&pg, 200, 42);
	feed(e, &pg);

	page_start(&pg);
	rec_event(&pg, 5, EV_ID, 8, 0xe3);
	page_end(&pg, 300, MISSED_EVENTS); /* count not stored */
	feed(e, &pg);
	ft_kenc_finish(e);

	assert_int_equal(o.n, 5);
	assert_event(&o.r[0], 101, EV_ID, 8, 0xe1);
	assert_int_equal(o.r[1].kind, KREC_MISSED);
	assert_int_equal(o.r[1].ticks, 205); /* the page's first event's time */
	assert_int_equal(o.r[1].count, 42);
	assert_event(&o.r[2], 205, EV_ID, 8, 0xe2);
	assert_int_equal(o.r[3].kind, KREC_MISSED);
	assert_int_equal(o.r[3].ticks, 305);
	assert_int_equal(o.r[3].count, 0);
	assert_event(&o.r[4], 305, EV_ID, 8, 0xe3);
	ft_kenc_get_stats(e, &st);
	assert_int_equal(st.events, 3);
	assert_int_equal(st.lost, 43); /* an unknown number counts as one */
	ft_kenc_free(e);
}

/*
 * With the kernel's counters readable, they set the MISSED counts (a page's
 * stored count is only what fitted), and losses no page marks are found by
 * ft_kenc_sync_lost(), at the time of the last event.
 */
static void test_lost_counters(void **state)
{
	struct ft_kenc_stats st;
	struct page pg;
	struct out o;
	struct ft_kenc *e = enc_new(&o, 1);

	(void)state;
	o.lost_known = 1;
	o.lost_sum = 50;
	page_start(&pg);
	rec_event(&pg, 5, EV_ID, 8, 0xf1);
	page_end_missed(&pg, 400, 42);
	feed(e, &pg);
	assert_int_equal(ft_kenc_sync_lost(e), 0); /* nothing new */
	o.lost_sum = 57;
	assert_int_equal(ft_kenc_sync_lost(e), 1);
	ft_kenc_finish(e);

	assert_int_equal(o.n, 3);
	assert_int_equal(o.r[0].kind, KREC_MISSED);
	assert_int_equal(o.r[0].ticks, 405);
	assert_int_equal(o.r[0].count, 50);
	/* the event is still held back (a stack may follow): the mark goes at its time */
	assert_int_equal(o.r[1].kind, KREC_MISSED);
	assert_int_equal(o.r[1].ticks, 405);
	assert_int_equal(o.r[1].count, 7);
	assert_event(&o.r[2], 405, EV_ID, 8, 0xf1);
	ft_kenc_get_stats(e, &st);
	assert_int_equal(st.lost, 57);
	ft_kenc_free(e);
}

/*
 * A kernel_stack record after an event is attached to it, in full without
 * a stack map, each frame noted; one with no event before it stays an event.
 */
static void test_stacks(void **state)
{
	static const uint64_t ips[] = { 0xffffffff81000010ull, 0xffffffff81000020ull,
					0xffffffff81000030ull };
	struct ft_kenc_stats st;
	struct page pg;
	struct out o;
	struct ft_kenc *e = enc_new(&o, 0);

	(void)state;
	page_start(&pg);
	rec_kstack(&pg, 1, ips, 1); /* nothing before it */
	rec_event(&pg, 2, EV_ID, 8, 0x11);
	rec_kstack(&pg, 0, ips, 3);
	page_end(&pg, 700, 0);
	feed(e, &pg);
	ft_kenc_finish(e);

	assert_int_equal(o.n, 2);
	assert_event(&o.r[0], 701, KSTACK_ID, 24, 0xff); /* ips[0]'s top byte */
	assert_int_equal(o.r[0].flags, 0);
	assert_event(&o.r[1], 703, EV_ID, 8, 0x11);
	assert_int_equal(o.r[1].flags, KF_KSTACK_FULL);
	assert_int_equal(o.r[1].nr, 3);
	assert_memory_equal(o.r[1].stack, ips, sizeof(ips));
	assert_int_equal(o.nr_addrs, 3);
	assert_memory_equal(o.addrs, ips, sizeof(ips));
	ft_kenc_get_stats(e, &st);
	assert_int_equal(st.events, 2);
	assert_int_equal(st.stacks, 1);
	assert_int_equal(st.stack_ids, 0);
	ft_kenc_free(e);
}

/*
 * A record whose length runs past the page's commit (and past the page):
 * the records before it are kept, it and whatever follows are not, and
 * nothing is read beyond the page (ASan would say so).
 */
static void test_record_past_end(void **state)
{
	struct page pg;
	struct out o;
	struct ft_kenc *e = enc_new(&o, 0);
	size_t len2;

	(void)state;
	page_start(&pg);
	rec_event(&pg, 1, EV_ID, 8, 0x21);
	/* fill up to 12 bytes before the page's end (8 bytes of header) */
	len2 = PAGE_SIZE - 12 - pg.off - 8;
	rec_event(&pg, 1, EV_ID, len2, 0x22);
	assert_int_equal(pg.off, PAGE_SIZE - 12);
	/* a header saying 28 words of data, with 8 bytes left in the page */
	rec_hdr(&pg, 28, 1);
	pg.off = PAGE_SIZE; /* the commit covers the whole page */
	page_end(&pg, 900, 0);
	feed(e, &pg);
	ft_kenc_finish(e);
	assert_int_equal(o.n, 2);
	assert_event(&o.r[0], 901, EV_ID, 8, 0x21);
	assert_event(&o.r[1], 902, EV_ID, len2, 0x22);

	/* a commit larger than the page itself: the page is not read at all */
	page_start(&pg);
	rec_event(&pg, 1, EV_ID, 8, 0x23);
	pg.off = PAGE_SIZE + 64;
	page_end(&pg, 1000, 0);
	feed(e, &pg);
	ft_kenc_finish(e);
	assert_int_equal(o.n, 2);
	ft_kenc_free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deltas),	  cmocka_unit_test(test_time_extend),
		cmocka_unit_test(test_padding),	  cmocka_unit_test(test_absolute_stamp),
		cmocka_unit_test(test_lost_flag), cmocka_unit_test(test_lost_counters),
		cmocka_unit_test(test_stacks),	  cmocka_unit_test(test_record_past_end),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
