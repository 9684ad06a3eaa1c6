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

struct ft_kenc {
	struct ft_kenc_conf conf;
	struct ft_kenc_ops ops;
	void *arg;
	struct kbuffer *kbuf;
	/* the chunk being filled (kdata.h encoding) */
	unsigned char *chunk;
	size_t len, cap;
	uint64_t last_ticks;
	/* the event waiting for the stack records that may follow it */
	unsigned char *pend;
	size_t pend_len, pend_cap;
	uint64_t pend_ticks;
	int pending;
	uint8_t pend_flags;
	unsigned char pend_stacks[2 * (10 + 10 + FT_KENC_MAX_STACK * 8)];
	size_t pend_stacks_len;
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
	if (!e->kbuf) {
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

static void put_missed(struct ft_kenc *e, uint64_t ticks, uint64_t count)
{
	if (chunk_begin(e, 21, ticks)) {
		kenc_fail(e, ENOMEM);
		return;
	}
	e->chunk[e->len++] = KREC_MISSED;
	e->len += ft_uv_put(e->chunk + e->len, delta(e, ticks));
	e->len += ft_uv_put(e->chunk + e->len, count);
}

/* Write the pending event (with the stacks attached to it) into the chunk. */
static void flush_pending(struct ft_kenc *e)
{
	size_t need;

	if (!e->pending)
		return;
	e->pending = 0;
	need = 1 + 10 + 10 + e->pend_len + e->pend_stacks_len;
	if (chunk_begin(e, need, e->pend_ticks)) {
		kenc_fail(e, ENOMEM);
		return;
	}
	e->chunk[e->len++] = (unsigned char)(KREC_EVENT | e->pend_flags);
	e->len += ft_uv_put(e->chunk + e->len, delta(e, e->pend_ticks));
	e->len += ft_uv_put(e->chunk + e->len, e->pend_len);
	memcpy(e->chunk + e->len, e->pend, e->pend_len);
	e->len += e->pend_len;
	memcpy(e->chunk + e->len, e->pend_stacks, e->pend_stacks_len);
	e->len += e->pend_stacks_len;
	e->st.events++;
}

static void kenc_note_addr(struct ft_kenc *e, uint64_t v)
{
	if (e->ops.note_addr)
		e->ops.note_addr(e->arg, v);
}

static void set_pending(struct ft_kenc *e, const void *data, size_t len, uint64_t ticks)
{
	const struct ft_kenc_ptrs *ptrs = e->conf.ptrs;

	flush_pending(e);
	if (len > e->pend_cap) {
		unsigned char *n = realloc(e->pend, len);

		if (!n) {
			kenc_fail(e, ENOMEM);
			return;
		}
		e->pend = n;
		e->pend_cap = len;
	}
	memcpy(e->pend, data, len);
	e->pend_len = len;
	if (ptrs && ptrs->idx && len >= 2) {
		uint16_t id;

		memcpy(&id, data, 2);
		if (ptrs->idx[id]) {
			const struct ft_kenc_ptrf *pf = &ptrs->f[ptrs->idx[id] - 1];

			for (int i = 0; i < pf->n; i++) {
				uint64_t v;

				if ((size_t)pf->off[i] + 8 > len)
					continue;
				memcpy(&v, (const char *)data + pf->off[i], 8);
				if (v >= FT_KTEXT_MIN)
					kenc_note_addr(e, v);
			}
		}
	}
	e->pend_ticks = ticks;
	e->pend_flags = 0;
	e->pend_stacks_len = 0;
	e->pending = 1;
}

/*
 * Attach a stack (ips, innermost first) to the pending event as a stack_id
 * when the map serves it, else in full.  user selects the KF_U* flags.
 */
static void attach_stack(struct ft_kenc *e, const uint64_t *ips, uint32_t nr, int user)
{
	unsigned char *p = e->pend_stacks + e->pend_stacks_len;
	int id = -1;

	if (nr > FT_KENC_MAX_STACK)
		nr = FT_KENC_MAX_STACK;
	e->st.stacks++;
	if (e->conf.map && nr)
		id = ft_stackmap_get_id(e->conf.map, ips, nr);
	if (id >= 0) {
		e->pend_flags |= user ? KF_USTACK_ID : KF_KSTACK_ID;
		p += ft_uv_put(p, (uint64_t)id);
		e->st.stack_ids++;
	} else {
		e->pend_flags |= user ? KF_USTACK_FULL : KF_KSTACK_FULL;
		p += ft_uv_put(p, nr);
		for (uint32_t i = 0; i < nr; i++, p += 8) {
			ft_le64_put(p, ips[i]);
			if (!user)
				kenc_note_addr(e, ips[i]);
		}
	}
	e->pend_stacks_len = (size_t)(p - e->pend_stacks);
}

/*
 * A kernel_stack record: int size at 8, callers from 16 (size entries,
 * bounded by the record).  A user_stack one: 8 callers from 16, ended by 0.
 */
static void handle_stack(struct ft_kenc *e, const unsigned char *data, int size, int user,
			 uint64_t ticks)
{
	uint64_t ips[FT_KENC_MAX_STACK];
	uint32_t nr = 0, max;
	int32_t n;

	if (size < 16) {
		set_pending(e, data, (size_t)(size > 0 ? size : 0), ticks);
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
	/* a stack that does not follow an event of this CPU stays an event */
	if (!e->pending || (e->pend_flags & (user ? (KF_USTACK_ID | KF_USTACK_FULL)
						  : (KF_KSTACK_ID | KF_KSTACK_FULL)))) {
		set_pending(e, data, (size_t)size, ticks);
		return;
	}
	attach_stack(e, ips, nr, user);
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
	/* the pending event stays pending (its stack may follow): the mark goes at its time */
	return sync_lost(e, e->pending && e->pend_ticks > e->last_ticks ? e->pend_ticks
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
			set_pending(e, data, (size_t)len, ts);
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
