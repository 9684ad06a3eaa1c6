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

/*
 * A kernel_stack record (size entries at 8, ips from 16) of the given ips,
 * as the kernel writes it for an event made by rec_event(..., ctx): its
 * common fields (flags, preempt count, pid) are the event's, all ctx bytes.
 * The record is as long as its frames: shorter than the format's caller[8]
 * when there are fewer.
 */
static void rec_kstack(struct page *pg, uint32_t delta, const uint64_t *ips, int n, uint8_t ctx)
{
	size_t len = 16 + 8 * (size_t)n;
	unsigned char *d;
	uint16_t id = KSTACK_ID;
	int32_t size = n;

	rec_hdr(pg, (unsigned int)(len / 4), delta);
	d = pg->p + pg->off;
	memset(d, 0, len);
	memcpy(d, &id, 2);
	memset(d + 2, ctx, 6);
	memcpy(d + 8, &size, 4);
	memcpy(d + 16, ips, 8 * (size_t)n);
	pg->off += len;
}

/* A user_stack record: tgid at 8, 8 callers from 16 ended by 0. */
static void rec_ustack(struct page *pg, uint32_t delta, const uint64_t *ips, int n, uint8_t ctx)
{
	const size_t len = 16 + 8 * 8;
	unsigned char *d;
	uint16_t id = USTACK_ID;

	assert_true(n <= 8);
	rec_hdr(pg, (unsigned int)(len / 4), delta);
	d = pg->p + pg->off;
	memset(d, 0, len);
	memcpy(d, &id, 2);
	memset(d + 2, ctx, 6);
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

/*
 * Store the number of events lost before the page after its records (the
 * page then ends with MISSED_EVENTS | MISSED_STORED).
 */
static void page_store_missed(struct page *pg, uint64_t count)
{
	memcpy(pg->p + pg->off, &count, 8);
}

/* ---- decoding what the encoder wrote ---- */

struct rec {
	int kind;	/* KREC_EVENT, KREC_MISSED */
	uint8_t flags;	/* KF_* */
	uint64_t ticks; /* absolute */
	uint64_t count; /* MISSED */
	unsigned char raw[PAGE_SIZE];
	size_t len;
	uint64_t stack[8]; /* the kernel stack: stack[0] = id, or the ips */
	uint64_t nr;
	uint64_t ustack[8]; /* the user stack, the same way */
	uint64_t unr;
};

struct out {
	struct rec r[64]; /* the first 64 records, decoded; later ones are counted */
	struct rec spill; /* where the records past r[] are decoded */
	int n;
	int alone;   /* kernel_stack records that joined no event */
	int stacked; /* events carrying a kernel stack */
	int chunks;
	uint64_t addrs[64]; /* note_addr calls: the first 64 (nr_addrs counts all) */
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
		struct rec *r = o->n < 64 ? &o->r[o->n] : &o->spill;
		int tag = *c++;

		o->n++;
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
		o->alone += v >= 2 && r->raw[0] == KSTACK_ID && r->raw[1] == 0;
		o->stacked += (r->flags & (KF_KSTACK_ID | KF_KSTACK_FULL)) != 0;
		for (int f = KF_KSTACK_ID; f <= KF_USTACK_FULL; f <<= 1) {
			if (!(r->flags & f))
				continue;
			uint64_t *st = f <= KF_KSTACK_FULL ? r->stack : r->ustack;
			uint64_t *nr = f <= KF_KSTACK_FULL ? &r->nr : &r->unr;

			assert_int_equal(ft_uv_get(&c, end, &v), 0);
			if (f == KF_KSTACK_ID || f == KF_USTACK_ID) {
				st[0] = v;
				*nr = 1;
				continue;
			}
			*nr = v;
			assert_true(v <= 8 && c + 8 * v <= end);
			for (uint64_t i = 0; i < v; i++, c += 8)
				st[i] = ft_le64_get(c);
		}
	}
	return 0;
}

static void out_note(void *arg, uint64_t addr)
{
	struct out *o = arg;

	if (o->nr_addrs < 64) /* the first 64 kept; the rest counted */
		o->addrs[o->nr_addrs] = addr;
	o->nr_addrs++;
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

/* r carries flags, and its kernel stack in full is the nr frames of ips. */
static void assert_kfull(const struct rec *r, uint8_t flags, const uint64_t *ips, uint64_t nr)
{
	assert_int_equal(r->flags, flags);
	assert_int_equal(r->nr, nr);
	assert_memory_equal(r->stack, ips, nr * 8);
}

/* ---- each case's encoder, its output and the page it builds ---- */

struct fx {
	struct out o;
	struct page pg;
	struct ft_kenc *e;
};

static int fx_setup_with(void **state, int with_lost_total)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->e = enc_new(&f->o, with_lost_total);
	page_start(&f->pg);
	*state = f;
	return 0;
}

static int fx_setup(void **state)
{
	return fx_setup_with(state, 0);
}

/* An encoder that can read the kernel's loss counters (o.lost_known, o.lost_sum). */
static int fx_setup_lost(void **state)
{
	return fx_setup_with(state, 1);
}

static int fx_teardown(void **state)
{
	struct fx *f = *state;

	ft_kenc_free(f->e);
	free(f->pg.p);
	free(f);
	return 0;
}

/* Fill in the page's header, hand the page to the encoder, start the next. */
static void send_page(struct fx *f, uint64_t ts, uint64_t flags)
{
	page_end(&f->pg, ts, flags);
	feed(f->e, &f->pg);
	page_start(&f->pg);
}

/* The last page, sent without flags, and the encoder finished. */
static void send_last(struct fx *f, uint64_t ts)
{
	send_page(f, ts, 0);
	ft_kenc_finish(f->e);
}

/* ---- the cases ---- */

/* Deltas add up from the page's time stamp; a long event keeps its length. */
static void test_deltas(void **state)
{
	struct fx *f = *state;
	struct ft_kenc_stats st;

	rec_event(&f->pg, 10, EV_ID, 8, 0xa1);
	rec_event(&f->pg, 5, EV_ID, 200, 0xa2); /* longer than type_len can say */
	rec_event(&f->pg, 0, EV_ID, 12, 0xa3);
	send_last(f, 1000);
	assert_int_equal(f->o.chunks, 1);
	assert_int_equal(f->o.n, 3);
	assert_event(&f->o.r[0], 1010, EV_ID, 8, 0xa1);
	assert_event(&f->o.r[1], 1015, EV_ID, 200, 0xa2);
	assert_event(&f->o.r[2], 1015, EV_ID, 12, 0xa3);
	ft_kenc_get_stats(f->e, &st);
	assert_int_equal(st.events, 3);
	assert_int_equal(st.lost, 0);
	assert_int_equal(ft_kenc_error(f->e), 0);
}

/*
 * An event 1 tick into a page stamped 1000, a time record of @type holding
 * @t ticks, an event 2 ticks later: the second event's time is @second.
 */
static void check_time_record(struct fx *f, unsigned int type, uint64_t t, uint64_t second)
{
	rec_event(&f->pg, 1, EV_ID, 8, 0xb1);
	rec_time(&f->pg, type, t);
	rec_event(&f->pg, 2, EV_ID, 8, 0xb2);
	send_last(f, 1000);
	assert_int_equal(f->o.n, 2);
	assert_event(&f->o.r[0], 1001, EV_ID, 8, 0xb1);
	assert_event(&f->o.r[1], second, EV_ID, 8, 0xb2);
}

/* A time extend carries a delta too large for 27 bits. */
static void test_time_extend(void **state)
{
	const uint64_t big = (5ull << 27) + 77;

	check_time_record(*state, T_EXTEND, big, 1001 + big + 2);
}

/* Padding (a discarded event, the unused end of a page) writes nothing. */
static void test_padding(void **state)
{
	struct fx *f = *state;

	rec_event(&f->pg, 4, EV_ID, 8, 0xc1);
	rec_padding(&f->pg, 0, 24);
	rec_event(&f->pg, 6, EV_ID, 8, 0xc2);
	rec_padding(&f->pg, 0, 64); /* the rest of the commit */
	send_last(f, 3000);
	assert_int_equal(f->o.n, 2);
	assert_event(&f->o.r[0], 3004, EV_ID, 8, 0xc1);
	assert_event(&f->o.r[1], 3010, EV_ID, 8, 0xc2);
}

/* An absolute time stamp replaces the running time, forward here. */
static void test_absolute_stamp(void **state)
{
	const uint64_t abs = (1ull << 40) + 123;

	check_time_record(*state, T_STAMP, abs, abs + 2);
}

/* A MISSED record of count at ticks. */
static void assert_missed(const struct rec *r, uint64_t ticks, uint64_t count)
{
	assert_int_equal(r->kind, KREC_MISSED);
	assert_int_equal(r->ticks, ticks);
	assert_int_equal(r->count, count);
}

/*
 * A page marked with lost events: a KREC_MISSED before its first event,
 * with the stored count, or 0 ("unknown") when the page had no room for
 * it; the event held back from the page before goes out first.
 */
static void test_lost_flag(void **state)
{
	struct fx *f = *state;
	struct ft_kenc_stats st;

	rec_event(&f->pg, 1, EV_ID, 8, 0xe1);
	send_page(f, 100, 0);
	rec_event(&f->pg, 5, EV_ID, 8, 0xe2);
	page_store_missed(&f->pg, 42);
	send_page(f, 200, MISSED_EVENTS | MISSED_STORED);
	rec_event(&f->pg, 5, EV_ID, 8, 0xe3);
	send_page(f, 300, MISSED_EVENTS); /* count not stored */
	ft_kenc_finish(f->e);

	assert_int_equal(f->o.n, 5);
	assert_event(&f->o.r[0], 101, EV_ID, 8, 0xe1);
	assert_missed(&f->o.r[1], 205, 42); /* at the page's first event's time */
	assert_event(&f->o.r[2], 205, EV_ID, 8, 0xe2);
	assert_missed(&f->o.r[3], 305, 0);
	assert_event(&f->o.r[4], 305, EV_ID, 8, 0xe3);
	ft_kenc_get_stats(f->e, &st);
	assert_int_equal(st.events, 3);
	assert_int_equal(st.lost, 43); /* an unknown number counts as one */
}

/*
 * With the kernel's counters readable, they set the MISSED counts (a page's
 * stored count is only what fitted), and losses no page marks are found by
 * ft_kenc_sync_lost(), at the time of the last event.
 */
static void test_lost_counters(void **state)
{
	struct fx *f = *state;
	struct ft_kenc_stats st;

	f->o.lost_known = 1;
	f->o.lost_sum = 50;
	rec_event(&f->pg, 5, EV_ID, 8, 0xf1);
	page_store_missed(&f->pg, 42);
	send_page(f, 400, MISSED_EVENTS | MISSED_STORED);
	assert_int_equal(ft_kenc_sync_lost(f->e), 0); /* nothing new */
	f->o.lost_sum = 57;
	assert_int_equal(ft_kenc_sync_lost(f->e), 1);
	ft_kenc_finish(f->e);

	assert_int_equal(f->o.n, 3);
	assert_missed(&f->o.r[0], 405, 50);
	/*
	 * the event is still held back (a stack may follow): the mark, for
	 * entries lost after what was read, goes after it, at its time
	 */
	assert_event(&f->o.r[1], 405, EV_ID, 8, 0xf1);
	assert_missed(&f->o.r[2], 405, 7);
	ft_kenc_get_stats(f->e, &st);
	assert_int_equal(st.lost, 57);
}

/*
 * A kernel_stack record after an event is attached to it, in full without
 * a stack map, each frame noted; one with no event before it stays an event.
 */
static void test_stacks(void **state)
{
	static const uint64_t ips[] = { 0xffffffff81000010ull, 0xffffffff81000020ull,
					0xffffffff81000030ull };
	struct fx *f = *state;
	struct ft_kenc_stats st;

	rec_kstack(&f->pg, 1, ips, 1, 0x11); /* nothing before it */
	rec_event(&f->pg, 2, EV_ID, 8, 0x11);
	rec_kstack(&f->pg, 0, ips, 3, 0x11);
	send_last(f, 700);

	assert_int_equal(f->o.n, 2);
	assert_event(&f->o.r[0], 701, KSTACK_ID, 24, 0xff); /* ips[0]'s top byte */
	assert_int_equal(f->o.r[0].flags, 0);
	assert_event(&f->o.r[1], 703, EV_ID, 8, 0x11);
	assert_kfull(&f->o.r[1], KF_KSTACK_FULL, ips, 3);
	assert_int_equal(f->o.nr_addrs, 3);
	assert_memory_equal(f->o.addrs, ips, sizeof(ips));
	ft_kenc_get_stats(f->e, &st);
	assert_int_equal(st.events, 2);
	assert_int_equal(st.stacks, 1);
	assert_int_equal(st.stack_ids, 0);
}

/* Context bytes (common_flags, preempt count, pid) of the events below. */
#define CTX_TASK 0x01  /* irqs off, no interrupt */
#define CTX_TASK2 0x05 /* the same level, another state (need-resched) */
#define CTX_SOFTIRQ 0x10
#define CTX_HARDIRQ 0x09

static const uint64_t kips[] = { 0xffffffff81000110ull, 0xffffffff81000120ull,
				 0xffffffff81000130ull, 0xffffffff81000140ull };
static const uint64_t uips[] = { 0x401010, 0x401020 };

/*
 * An interrupt's event and its stack land between an event and its own
 * stack ("event, irq event, irq stack, stack"): each stack joins its own
 * event, by context and common fields, and both go out in the kernel's
 * order.  Both stacks are short (fewer than the format's 8 callers).
 */
static void test_stack_after_irq(void **state)
{
	struct fx *f = *state;
	struct ft_kenc_stats st;

	rec_event(&f->pg, 1, EV_ID, 8, CTX_TASK);
	rec_event(&f->pg, 2, EV_ID, 12, CTX_HARDIRQ);
	rec_kstack(&f->pg, 0, kips + 2, 2, CTX_HARDIRQ);
	rec_kstack(&f->pg, 1, kips, 3, CTX_TASK);
	rec_event(&f->pg, 5, EV_ID, 8, CTX_TASK); /* the next event of the task */
	send_last(f, 100);

	assert_int_equal(f->o.n, 3);
	assert_event(&f->o.r[0], 101, EV_ID, 8, CTX_TASK);
	assert_kfull(&f->o.r[0], KF_KSTACK_FULL, kips, 3);
	assert_event(&f->o.r[1], 103, EV_ID, 12, CTX_HARDIRQ);
	assert_kfull(&f->o.r[1], KF_KSTACK_FULL, kips + 2, 2);
	assert_event(&f->o.r[2], 109, EV_ID, 8, CTX_TASK);
	assert_int_equal(f->o.r[2].flags, 0);
	ft_kenc_get_stats(f->e, &st);
	assert_int_equal(st.events, 3);
	assert_int_equal(st.stacks, 2);
}

/*
 * Nested: a softirq interrupts the task, a hardirq the softirq, each
 * event's kernel and user stacks after the inner ones; the event's stacks
 * come across a page boundary.
 */
static void test_stack_nested_pages(void **state)
{
	struct fx *f = *state;

	rec_event(&f->pg, 1, EV_ID, 8, CTX_TASK);
	rec_event(&f->pg, 1, EV_ID, 8, CTX_SOFTIRQ);
	rec_event(&f->pg, 1, EV_ID, 8, CTX_HARDIRQ);
	send_page(f, 200, 0);
	assert_int_equal(f->o.n, 0); /* all three may still get stacks */

	rec_kstack(&f->pg, 1, kips, 1, CTX_HARDIRQ);
	rec_kstack(&f->pg, 1, kips + 1, 1, CTX_SOFTIRQ);
	rec_ustack(&f->pg, 0, uips, 1, CTX_SOFTIRQ);
	rec_kstack(&f->pg, 1, kips + 2, 2, CTX_TASK);
	rec_ustack(&f->pg, 0, uips, 2, CTX_TASK);
	send_last(f, 300);

	assert_int_equal(f->o.n, 3);
	assert_event(&f->o.r[0], 201, EV_ID, 8, CTX_TASK);
	assert_kfull(&f->o.r[0], KF_KSTACK_FULL | KF_USTACK_FULL, kips + 2, 2);
	assert_int_equal(f->o.r[0].unr, 2);
	assert_memory_equal(f->o.r[0].ustack, uips, 2 * 8);
	assert_event(&f->o.r[1], 202, EV_ID, 8, CTX_SOFTIRQ);
	assert_kfull(&f->o.r[1], KF_KSTACK_FULL | KF_USTACK_FULL, kips + 1, 1);
	assert_int_equal(f->o.r[1].unr, 1);
	assert_event(&f->o.r[2], 203, EV_ID, 8, CTX_HARDIRQ);
	assert_kfull(&f->o.r[2], KF_KSTACK_FULL, kips, 1);
}

/*
 * A stack that is not its event's stays a record of its own, where the
 * kernel wrote it: one whose common fields differ from the last event of
 * its context (that event lost its stack), a second kernel stack for one
 * event, and a kernel stack after the user one.
 */
static void test_stack_not_joined(void **state)
{
	struct fx *f = *state;
	struct ft_kenc_stats st;

	rec_event(&f->pg, 1, EV_ID, 8, CTX_TASK);
	rec_kstack(&f->pg, 1, kips, 2, CTX_TASK2); /* same level, other fields */
	rec_event(&f->pg, 1, EV_ID, 8, CTX_TASK);
	rec_kstack(&f->pg, 1, kips, 2, CTX_TASK);
	rec_kstack(&f->pg, 1, kips, 1, CTX_TASK); /* a second one */
	rec_event(&f->pg, 1, EV_ID, 8, CTX_TASK);
	rec_ustack(&f->pg, 1, uips, 1, CTX_TASK);
	rec_kstack(&f->pg, 1, kips, 3, CTX_TASK); /* after the user stack */
	send_last(f, 400);

	assert_int_equal(f->o.n, 6);
	assert_event(&f->o.r[0], 401, EV_ID, 8, CTX_TASK);
	assert_int_equal(f->o.r[0].flags, 0);
	assert_int_equal(f->o.r[1].ticks, 402);
	assert_int_equal(f->o.r[1].len, 32); /* the stack, whole, as an event */
	assert_int_equal(f->o.r[1].raw[0], KSTACK_ID);
	assert_int_equal(f->o.r[1].flags, 0);
	assert_event(&f->o.r[2], 403, EV_ID, 8, CTX_TASK);
	assert_kfull(&f->o.r[2], KF_KSTACK_FULL, kips, 2);
	assert_int_equal(f->o.r[3].raw[0], KSTACK_ID);
	assert_int_equal(f->o.r[3].len, 24);
	assert_event(&f->o.r[4], 406, EV_ID, 8, CTX_TASK);
	assert_int_equal(f->o.r[4].flags, KF_USTACK_FULL);
	assert_int_equal(f->o.r[4].unr, 1);
	assert_int_equal(f->o.r[5].raw[0], KSTACK_ID);
	assert_int_equal(f->o.r[5].ticks, 408);
	assert_int_equal(f->o.r[5].len, 40);
	ft_kenc_get_stats(f->e, &st);
	assert_int_equal(st.events, 6);
	assert_int_equal(st.stacks, 2);
}

/*
 * Pages in a row: each record one tick after the one before (a stack at
 * its event's tick), a page's time stamp the tick of the record before it.
 */
struct pages {
	uint64_t base; /* the time stamp of the page being filled */
	uint64_t now;  /* the tick of the last record */
};

/* Room for len more bytes (and 8 of lost count) in f's page, else the next page. */
static void page_room(struct fx *f, struct pages *ps, size_t len)
{
	if (f->pg.off + len + 8 > PAGE_SIZE) {
		send_page(f, ps->base, 0);
		ps->base = ps->now;
	}
}

static void pages_event(struct fx *f, struct pages *ps, uint8_t ctx)
{
	page_room(f, ps, 12);
	rec_event(&f->pg, 1, EV_ID, 8, ctx);
	ps->now++;
}

/* A kernel stack of n frames at the last event's tick (a page of its own may start: delta 0). */
static void pages_kstack(struct fx *f, struct pages *ps, const uint64_t *ips, int n, uint8_t ctx)
{
	page_room(f, ps, 4 + 16 + 8 * (size_t)n);
	rec_kstack(&f->pg, 0, ips, n, ctx);
}

/*
 * A softirq run at an interrupt's exit writes hundreds of records, each
 * event with its stack, between a task's event and the task's stack,
 * over several pages: every stack still joins its own event, none stays
 * alone, and all go out in the kernel's order.
 */
static void test_stack_after_long_softirq(void **state)
{
	struct fx *f = *state;
	struct pages ps = { 100, 100 };
	const int n = 600;

	pages_event(f, &ps, CTX_TASK);
	for (int i = 0; i < n; i++) {
		pages_event(f, &ps, CTX_SOFTIRQ);
		pages_kstack(f, &ps, kips + 1, 1, CTX_SOFTIRQ);
	}
	pages_kstack(f, &ps, kips, 2, CTX_TASK);
	send_last(f, ps.base);

	assert_int_equal(f->o.n, n + 1);
	assert_int_equal(f->o.alone, 0);
	assert_int_equal(f->o.stacked, n + 1);
	assert_event(&f->o.r[0], 101, EV_ID, 8, CTX_TASK);
	assert_kfull(&f->o.r[0], KF_KSTACK_FULL, kips, 2);
	for (int i = 1; i < 64; i++) {
		assert_event(&f->o.r[i], 101 + (uint64_t)i, EV_ID, 8, CTX_SOFTIRQ);
		assert_kfull(&f->o.r[i], KF_KSTACK_FULL, kips + 1, 1);
	}
}

/*
 * A task's event whose stack never comes while interrupts go on: the
 * records held behind it are bounded (FT_KENC_MAX_HELD), and all go out
 * in order.
 */
static void test_stack_hold_bound(void **state)
{
	struct fx *f = *state;
	struct pages ps = { 500, 500 };
	const int n = FT_KENC_MAX_HELD + 100;

	pages_event(f, &ps, CTX_TASK);
	for (int i = 0; i < n; i++)
		pages_event(f, &ps, CTX_HARDIRQ);
	send_page(f, ps.base, 0);
	ft_kenc_flush(f->e);
	assert_true(f->o.n > 0 && f->o.n < n + 1); /* some went out before the end */
	ft_kenc_finish(f->e);
	assert_int_equal(f->o.n, n + 1);
	assert_int_equal(f->o.stacked, 0);
	assert_event(&f->o.r[0], 501, EV_ID, 8, CTX_TASK);
	for (int i = 1; i < 64; i++)
		assert_event(&f->o.r[i], 501 + (uint64_t)i, EV_ID, 8, CTX_HARDIRQ);
}

/*
 * A record whose length runs past the page's commit (and past the page):
 * the records before it are kept, it and whatever follows are not, and
 * nothing is read beyond the page (ASan would say so).
 */
static void test_record_past_end(void **state)
{
	struct fx *f = *state;
	size_t len2;

	rec_event(&f->pg, 1, EV_ID, 8, 0x21);
	/* fill up to 12 bytes before the page's end (8 bytes of header) */
	len2 = PAGE_SIZE - 12 - f->pg.off - 8;
	rec_event(&f->pg, 1, EV_ID, len2, 0x22);
	assert_int_equal(f->pg.off, PAGE_SIZE - 12);
	/* a header saying 28 words of data, with 8 bytes left in the page */
	rec_hdr(&f->pg, 28, 1);
	f->pg.off = PAGE_SIZE; /* the commit covers the whole page */
	send_last(f, 900);
	assert_int_equal(f->o.n, 2);
	assert_event(&f->o.r[0], 901, EV_ID, 8, 0x21);
	assert_event(&f->o.r[1], 902, EV_ID, len2, 0x22);

	/* a commit larger than the page itself: the page is not read at all */
	rec_event(&f->pg, 1, EV_ID, 8, 0x23);
	f->pg.off = PAGE_SIZE + 64;
	send_last(f, 1000);
	assert_int_equal(f->o.n, 2);
}

#define KENC_TEST(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		KENC_TEST(test_deltas),
		KENC_TEST(test_time_extend),
		KENC_TEST(test_padding),
		KENC_TEST(test_absolute_stamp),
		KENC_TEST(test_lost_flag),
		cmocka_unit_test_setup_teardown(test_lost_counters, fx_setup_lost, fx_teardown),
		KENC_TEST(test_stacks),
		KENC_TEST(test_stack_after_irq),
		KENC_TEST(test_stack_nested_pages),
		KENC_TEST(test_stack_not_joined),
		KENC_TEST(test_stack_after_long_softirq),
		KENC_TEST(test_stack_hold_bound),
		KENC_TEST(test_record_past_end),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
