// SPDX-License-Identifier: GPL-2.0
/*
 * The kbuffer -> KDATA encoder (see kencode.h).
 */
#include "kernel/kencode.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <kbuffer.h>

#include "core/kdata.h"
#include "core/stackmap.h"

#define KENC_CHUNK_BYTES (1u << 20)

/* The sub-buffer's commit word: bytes of records, and the kernel's RB_MISSED_* flags. */
#define SUBBUF_COMMIT_MASK ((1ul << 27) - 1)
#define SUBBUF_MISSED_STORED (1ul << 30)

/*
 * An event held back until its stacks have come, or cannot come any more.
 *
 * The kernel writes an event's stacks right after it (ftrace_trace_stack(),
 * then ftrace_trace_userstack(), with preemption off) and with the event's
 * own trace_ctx: common_flags, common_preempt_count and common_pid are the
 * event's.  Only an interrupt (softirq, hardirq, NMI) can write in between,
 * and it writes its own events and stacks, so a CPU's ring may hold
 * "event, irq event, irq stack, stack".  A stack therefore belongs to the
 * last event of its own context level on its CPU, when that event's
 * common fields are the stack's.
 */
struct kenc_pend {
	unsigned char *raw; /* the event's bytes */
	size_t len, cap;
	uint64_t ticks;
	uint8_t flags;	/* KF_* of the stacks attached */
	uint8_t level;	/* rec_level() */
	uint8_t open;	/* its stacks may still come */
	uint8_t missed; /* not an event: a KREC_MISSED of count */
	uint64_t count;
	/* the stacks attached, encoded (kdata.h): kernel, then user */
	unsigned char kst[10 + FT_KENC_MAX_STACK * 8], ust[10 + FT_KENC_MAX_STACK * 8];
	size_t kst_len, ust_len;
};

/*
 * Events held back at once.  At most one per context level is open (a
 * later record of a level closes the earlier event of that level and
 * those of the levels above it); closed ones wait behind the oldest open
 * one so that records go out in the kernel's order.  The ring starts with
 * KENC_PEND_MIN slots and doubles while the oldest is still open, up to
 * FT_KENC_MAX_HELD (kencode.h): a softirq run at an interrupt's exit may
 * write hundreds of records (timers, wake-ups, each with its stack)
 * between a task's event and its stack, and writing the event out before
 * its stack came leaves that stack alone.  At the bound (a task's event
 * whose stack never comes while interrupts go on), the oldest is written
 * as it is.
 */
#define KENC_PEND_MIN 32

struct ft_kenc {
	struct ft_kenc_conf conf;
	struct ft_kenc_ops ops;
	void *arg;
	struct kbuffer *kbuf;
	/* the chunk being filled (kdata.h encoding) */
	unsigned char *chunk;
	size_t len, cap;
	uint64_t last_ticks;
	/* the events held back, oldest first: a ring of pend_cap slots */
	struct kenc_pend *pend;
	unsigned int pend_head, pend_nr, pend_cap;
	struct ft_kenc_stats st;
	int err; /* errno of the first failure, 0 */
};

struct ft_kenc *ft_kenc_create(const struct ft_kenc_conf *conf, const struct ft_kenc_ops *ops,
			       void *arg)
{
	struct ft_kenc *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->conf = *conf;
	e->ops = *ops;
	e->arg = arg;
	e->kbuf = kbuffer_alloc(KBUFFER_LSIZE_SAME_AS_HOST, KBUFFER_ENDIAN_SAME_AS_HOST);
	e->pend = calloc(KENC_PEND_MIN, sizeof(*e->pend));
	e->pend_cap = KENC_PEND_MIN;
	if (!e->kbuf || !e->pend) {
		if (e->kbuf)
			kbuffer_free(e->kbuf);
		free(e->pend);
		free(e);
		return NULL;
	}
	return e;
}

void ft_kenc_free(struct ft_kenc *e)
{
	if (!e)
		return;
	kbuffer_free(e->kbuf);
	free(e->chunk);
	for (unsigned int i = 0; i < e->pend_cap; i++)
		free(e->pend[i].raw);
	free(e->pend);
	free(e);
}

/* Remember the first failure (EIO when it left errno 0); later ones are not kept. */
static void kenc_fail(struct ft_kenc *e, int err)
{
	if (!e->err)
		e->err = err ? err : EIO;
}

static int chunk_reserve(struct ft_kenc *e, size_t more)
{
	if (e->len + more <= e->cap)
		return 0;
	size_t ncap = e->cap ? e->cap : KENC_CHUNK_BYTES + 4096;

	while (ncap < e->len + more)
		ncap *= 2;
	unsigned char *n = realloc(e->chunk, ncap);

	if (!n)
		return -1;
	e->chunk = n;
	e->cap = ncap;
	return 0;
}

void ft_kenc_flush(struct ft_kenc *e)
{
	if (!e->len)
		return;
	if (e->ops.write(e->arg, e->chunk, e->len))
		kenc_fail(e, errno);
	e->len = 0;
}

/* Make sure the chunk has room and starts with a KREC_TIME. */
static int chunk_begin(struct ft_kenc *e, size_t need, uint64_t ticks)
{
	if (e->len && e->len + need > KENC_CHUNK_BYTES)
		ft_kenc_flush(e);
	if (chunk_reserve(e, need + 9))
		return -1;
	if (!e->len) {
		e->chunk[e->len++] = KREC_TIME;
		ft_le64_put(e->chunk + e->len, ticks);
		e->len += 8;
		e->last_ticks = ticks;
	}
	return 0;
}

static uint64_t delta(struct ft_kenc *e, uint64_t ticks)
{
	/* the kernel's per-CPU clock never goes back; be safe if it does */
	uint64_t d = ticks >= e->last_ticks ? ticks - e->last_ticks : 0;

	e->last_ticks += d;
	return d;
}

/* ftrace's TRACE_FLAG_* bits of common_flags (kernel/trace/trace.h;
 * libtraceevent's enum trace_flag_type names the first of them) */
#define KFLAG_HARDIRQ 0x08
#define KFLAG_SOFTIRQ 0x10
#define KFLAG_NMI 0x40

/* The context a record was written in: 0 task, 1 softirq, 2 hardirq, 3 NMI. */
static uint8_t rec_level(const unsigned char *raw)
{
	uint8_t f = raw[2];

	return f & KFLAG_NMI ? 3 : f & KFLAG_HARDIRQ ? 2 : f & KFLAG_SOFTIRQ ? 1 : 0;
}

static struct kenc_pend *pend_at(struct ft_kenc *e, unsigned int i)
{
	return &e->pend[(e->pend_head + i) % e->pend_cap];
}

static void put_missed_now(struct ft_kenc *e, uint64_t ticks, uint64_t count)
{
	if (chunk_begin(e, 21, ticks)) {
		kenc_fail(e, ENOMEM);
		return;
	}
	e->chunk[e->len++] = KREC_MISSED;
	e->len += ft_uv_put(e->chunk + e->len, delta(e, ticks));
	e->len += ft_uv_put(e->chunk + e->len, count);
}

/* Write the oldest record held back (an event with its stacks, or a mark) into the chunk. */
static void write_oldest(struct ft_kenc *e)
{
	struct kenc_pend *p = pend_at(e, 0);
	size_t need = 1 + 10 + 10 + p->len + p->kst_len + p->ust_len;

	e->pend_head = (e->pend_head + 1) % e->pend_cap;
	e->pend_nr--;
	if (p->missed) {
		put_missed_now(e, p->ticks, p->count);
		return;
	}
	if (chunk_begin(e, need, p->ticks)) {
		kenc_fail(e, ENOMEM);
		return;
	}
	e->chunk[e->len++] = (unsigned char)(KREC_EVENT | p->flags);
	e->len += ft_uv_put(e->chunk + e->len, delta(e, p->ticks));
	e->len += ft_uv_put(e->chunk + e->len, p->len);
	memcpy(e->chunk + e->len, p->raw, p->len);
	e->len += p->len;
	/* kdata.h: the kernel stack first, then the user one */
	memcpy(e->chunk + e->len, p->kst, p->kst_len);
	e->len += p->kst_len;
	memcpy(e->chunk + e->len, p->ust, p->ust_len);
	e->len += p->ust_len;
	e->st.events++;
}

/* Write out, in order, the records held back that no stack can join any more. */
static void pend_drain(struct ft_kenc *e)
{
	while (e->pend_nr && !pend_at(e, 0)->open)
		write_oldest(e);
}

/* Write out every record held back (before a lost page, at the end). */
static void flush_pending(struct ft_kenc *e)
{
	while (e->pend_nr)
		write_oldest(e);
}

/*
 * A record of context level lvl came: the interrupts above that level
 * have returned, so their events get no more stacks; with same, neither
 * does the event of that level (a new event of the context came).
 */
static void pend_close(struct ft_kenc *e, uint8_t lvl, int same)
{
	for (unsigned int i = 0; i < e->pend_nr; i++) {
		struct kenc_pend *p = pend_at(e, i);

		if (p->level > lvl || (same && p->level == lvl))
			p->open = 0;
	}
}

/*
 * Twice the slots, the records held kept in order from slot 0.  0, or -1
 * without memory (the ring is then as it was).
 */
static int pend_grow(struct ft_kenc *e)
{
	unsigned int ncap = e->pend_cap * 2;
	struct kenc_pend *n = calloc(ncap, sizeof(*n));

	if (!n)
		return -1;
	for (unsigned int i = 0; i < e->pend_cap; i++)
		n[i] = *pend_at(e, i); /* the raw buffers move with their slots */
	free(e->pend);
	e->pend = n;
	e->pend_head = 0;
	e->pend_cap = ncap;
	return 0;
}

/*
 * The slot for one more record held back: the ring grows while its oldest
 * record may still get a stack, else (or at the bound) the oldest goes out.
 */
static struct kenc_pend *pend_new(struct ft_kenc *e, uint64_t ticks)
{
	struct kenc_pend *p;

	if (e->pend_nr == e->pend_cap &&
	    (e->pend_cap >= FT_KENC_MAX_HELD || !pend_at(e, 0)->open || pend_grow(e) < 0))
		write_oldest(e);
	p = pend_at(e, e->pend_nr);
	p->len = p->kst_len = p->ust_len = 0;
	p->flags = 0;
	p->level = 0;
	p->open = 0;
	p->missed = 0;
	p->count = 0;
	/* records go out in the kernel's order: times never go back */
	p->ticks = e->pend_nr && pend_at(e, e->pend_nr - 1)->ticks > ticks
			   ? pend_at(e, e->pend_nr - 1)->ticks
			   : ticks;
	e->pend_nr++;
	return p;
}

/*
 * A KREC_MISSED at ticks: after the records held back, since what was
 * lost came after what was read (written at once when nothing is held).
 */
static void put_missed(struct ft_kenc *e, uint64_t ticks, uint64_t count)
{
	struct kenc_pend *p;

	if (!e->pend_nr) {
		put_missed_now(e, ticks, count);
		return;
	}
	p = pend_new(e, ticks);
	p->missed = 1;
	p->count = count;
}

static void kenc_note_addr(struct ft_kenc *e, uint64_t v)
{
	if (e->ops.note_addr)
		e->ops.note_addr(e->arg, v);
}

/*
 * Hold a record (len >= 8) back: an event its stacks may follow (open),
 * or a stack that joins no event.
 */
static struct kenc_pend *pend_push(struct ft_kenc *e, const unsigned char *data, size_t len,
				   uint64_t ticks, int open)
{
	const struct ft_kenc_ptrs *ptrs = e->conf.ptrs;
	struct kenc_pend *p = pend_new(e, ticks);

	if (len > p->cap) {
		unsigned char *n = realloc(p->raw, len);

		if (!n) {
			kenc_fail(e, ENOMEM);
			e->pend_nr--; /* the slot just taken */
			return NULL;
		}
		p->raw = n;
		p->cap = len;
	}
	memcpy(p->raw, data, len);
	p->len = len;
	p->level = rec_level(data);
	p->open = (uint8_t)open;
	if (ptrs && ptrs->idx) {
		uint16_t id;

		memcpy(&id, data, 2);
		if (ptrs->idx[id]) {
			const struct ft_kenc_ptrf *pf = &ptrs->f[ptrs->idx[id] - 1];

			for (int i = 0; i < pf->n; i++) {
				uint64_t v;

				if ((size_t)pf->off[i] + 8 > len)
					continue;
				memcpy(&v, data + pf->off[i], 8);
				if (v >= FT_KTEXT_MIN)
					kenc_note_addr(e, v);
			}
		}
	}
	return p;
}

/* An event (not a stack): the end of the earlier events of its level and above. */
static void handle_event(struct ft_kenc *e, const unsigned char *data, size_t len, uint64_t ticks)
{
	pend_close(e, rec_level(data), 1);
	pend_push(e, data, len, ticks, e->conf.kstack_id >= 0 || e->conf.ustack_id >= 0);
	pend_drain(e);
}

/*
 * Attach a stack (ips, innermost first) to event p as a stack_id when the
 * map serves it, else in full.  user selects the KF_U* flags.
 */
static void attach_stack(struct ft_kenc *e, struct kenc_pend *p, const uint64_t *ips, uint32_t nr,
			 int user)
{
	unsigned char *start = user ? p->ust : p->kst, *o = start;
	int id = -1;

	if (nr > FT_KENC_MAX_STACK)
		nr = FT_KENC_MAX_STACK;
	e->st.stacks++;
	if (e->conf.map && nr)
		id = ft_stackmap_get_id(e->conf.map, ips, nr);
	if (id >= 0) {
		p->flags |= user ? KF_USTACK_ID : KF_KSTACK_ID;
		o += ft_uv_put(o, (uint64_t)id);
		e->st.stack_ids++;
	} else {
		p->flags |= user ? KF_USTACK_FULL : KF_KSTACK_FULL;
		o += ft_uv_put(o, nr);
		for (uint32_t i = 0; i < nr; i++, o += 8) {
			ft_le64_put(o, ips[i]);
			if (!user)
				kenc_note_addr(e, ips[i]);
		}
	}
	*(user ? &p->ust_len : &p->kst_len) = (size_t)(o - start);
}

/*
 * A kernel_stack record: int size at 8, callers from 16 (size entries,
 * bounded by the record).  A user_stack one: 8 callers from 16, ended by 0.
 * It joins the open event of its context level when that event's common
 * fields are its own and it has no such stack yet (a kernel stack comes
 * before the user one); otherwise it stays a record of its own, where the
 * kernel wrote it.
 */
static void handle_stack(struct ft_kenc *e, const unsigned char *data, int size, int user,
			 uint64_t ticks)
{
	uint64_t ips[FT_KENC_MAX_STACK];
	uint32_t nr = 0, max;
	uint8_t lvl = rec_level(data),
		want = user ? KF_USTACK_ID | KF_USTACK_FULL : KF_KSTACK_ID | KF_KSTACK_FULL;
	struct kenc_pend *p = NULL;
	int32_t n;

	pend_close(e, lvl, 0);
	for (unsigned int i = e->pend_nr; i-- > 0;) {
		struct kenc_pend *q = pend_at(e, i);

		if (q->open && q->level == lvl) {
			p = q;
			break;
		}
	}
	/* the 6 bytes after common_type: common_flags, common_preempt_count, common_pid */
	if (p && memcmp(p->raw + 2, data + 2, 6))
		p->open =
			0; /* a record of another task or state: that event's stacks are not coming */
	if (size < 16 || !p || !p->open || (p->flags & want) ||
	    (!user && (p->flags & (KF_USTACK_ID | KF_USTACK_FULL)))) {
		pend_push(e, data, (size_t)size, ticks, 0);
		pend_drain(e);
		return;
	}
	max = (uint32_t)(size - 16) / 8;
	if (!user) {
		memcpy(&n, data + 8, 4);
		if (n >= 0 && (uint32_t)n < max)
			max = (uint32_t)n;
	}
	for (uint32_t i = 0; i < max && nr < FT_KENC_MAX_STACK; i++) {
		uint64_t ip;

		memcpy(&ip, data + 16 + 8 * i, 8);
		if (!ip || ip == ~0ull) /* user stacks end at 0; ULONG_MAX pads */
			break;
		ips[nr++] = ip;
	}
	attach_stack(e, p, ips, nr, user);
	if (user)
		p->open = 0; /* the user stack comes last */
	pend_drain(e);
}

/*
 * Write what the kernel lost on this CPU since our last look as one
 * KREC_MISSED at ticks, so that the MISSED records of a CPU add up to the
 * kernel's own counters exactly, whether or not a page said how many it
 * missed (the count is stored only when the page has room for it, which
 * is where a bare "[LOST EVENTS]" came from).  Returns 1 when it wrote
 * one, 0 when nothing was lost, or -1 when the counters cannot be read
 * (the caller falls back on the page's count).
 */
static int sync_lost(struct ft_kenc *e, uint64_t ticks)
{
	uint64_t sum;

	if (!e->ops.lost_total || e->ops.lost_total(e->arg, &sum))
		return -1;
	if (sum <= e->st.lost)
		return 0;
	put_missed(e, ticks, sum - e->st.lost);
	e->st.lost = sum;
	return 1;
}

int ft_kenc_sync_lost(struct ft_kenc *e)
{
	/* events held back stay so (their stacks may follow): the mark goes after them */
	return sync_lost(e, e->pend_nr && pend_at(e, e->pend_nr - 1)->ticks > e->last_ticks
				    ? pend_at(e, e->pend_nr - 1)->ticks
				    : e->last_ticks) > 0;
}

void ft_kenc_page(struct ft_kenc *e, void *page, size_t size)
{
	const size_t hdr = 8 + sizeof(unsigned long); /* u64 time stamp, commit word */
	unsigned long long ts;
	unsigned long commit;
	const char *end;
	void *data;
	int missed;

	/*
	 * kbuffer believes the page: its commit, the lost count stored after
	 * the records, each record's length.  The kernel writes them right,
	 * but a page that said otherwise must not make us read past it: a
	 * commit beyond the page drops the page, a record beyond the commit
	 * ends it.
	 */
	if (size < hdr)
		return;
	memcpy(&commit, (const char *)page + 8, sizeof(commit));
	if ((commit & SUBBUF_COMMIT_MASK) +
		    ((commit & SUBBUF_MISSED_STORED) ? sizeof(unsigned long) : 0) >
	    size - hdr)
		return;
	end = (const char *)page + hdr + (commit & SUBBUF_COMMIT_MASK);
	if (kbuffer_load_subbuffer(e->kbuf, page) < 0)
		return;
	missed = kbuffer_missed_events(e->kbuf);
	if (missed) {
		/* the entries lost lie before this page's first one */
		flush_pending(e);
		if (sync_lost(e, kbuffer_timestamp(e->kbuf)) < 0) {
			put_missed(e, kbuffer_timestamp(e->kbuf),
				   missed > 0 ? (uint64_t)missed : 0);
			e->st.lost += missed > 0 ? (uint64_t)missed : 1;
		}
	}
	for (data = kbuffer_read_event(e->kbuf, &ts); data;
	     data = kbuffer_next_event(e->kbuf, &ts)) {
		int len = kbuffer_event_size(e->kbuf);
		uint16_t type;

		if ((const char *)data + len > end)
			break;
		if (len < 8)
			continue;
		memcpy(&type, data, 2);
		if (type == e->conf.kstack_id)
			handle_stack(e, data, len, 0, ts);
		else if (type == e->conf.ustack_id)
			handle_stack(e, data, len, 1, ts);
		else
			handle_event(e, data, (size_t)len, ts);
	}
}

void ft_kenc_finish(struct ft_kenc *e)
{
	flush_pending(e);
	ft_kenc_flush(e);
}

void ft_kenc_get_stats(const struct ft_kenc *e, struct ft_kenc_stats *st)
{
	*st = e->st;
}

int ft_kenc_error(const struct ft_kenc *e)
{
	return e->err;
}
