// SPDX-License-Identifier: GPL-2.0
/*
 * The unified trace reader's decoding (see trace.h for the contract):
 * records of the UDATA buffers into events, merged by time.  Opening the
 * file and its tables are trace_tables.c's.
 *
 * Structure: one stream per UDATA buffer (a cursor decoding pages of
 * record.h) plus one per added source; a binary min-heap over the streams'
 * head events gives the time order.  After an event is handed out, its
 * stream is refilled lazily at the next call (or by a peek), so what the
 * event points to stays valid until then: user stream heads alternate
 * between two scratch arrays for inline stacks, and a buffer keeps its
 * previous chunk window when it moves to the next one (see
 * trace_fill_page()).
 *
 * Not thread-safe: one ft_trace per thread.
 */
#include "analysis/trace_int.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/record.h"
#include "core/tracefile.h"
#include "core/util.h"

/*
 * Make sure a whole page starts at c->pos: when the window holds less than
 * a page header, or less than the page it announces, join the rest of the
 * window with the following chunks (as many as the page needs) into a new
 * window.  The window switches at most once per call.  Returns 0 (also
 * when the chunks run out: decoding then reports the cut page), or -1 with
 * err on a section that does not load.
 */
int trace_fill_page(struct ft_trace *t, struct cursor *c, char *err, size_t errlen)
{
	size_t have = c->len - c->pos, nlen;
	unsigned char *nb;
	uint32_t size;

	if (have >= sizeof(struct ft_page)) {
		memcpy(&size, c->data + c->pos + offsetof(struct ft_page, size), 4);
		if (size <= have - sizeof(struct ft_page))
			return 0;
	}
	if (c->next_sec >= c->nr_secs)
		return 0;
	if (!have) {
		/*
		 * The window ended on a page's end (the recorder writes whole
		 * pages per chunk): the next chunk becomes the window as it is,
		 * without a copy, when it starts with a whole page; else it is
		 * the start of the joined window below.
		 */
		const struct ft_section *s = ft_reader_section(t->r, c->secs[c->next_sec]);

		nb = ft_reader_load(t->r, s, &nlen, err, errlen);
		if (!nb)
			return -1;
		c->next_sec++;
		if (nlen >= sizeof(struct ft_page)) {
			memcpy(&size, nb + offsetof(struct ft_page, size), 4);
			if (size <= nlen - sizeof(struct ft_page))
				goto swap;
		}
		goto join;
	}
	nb = malloc(have);
	if (!nb) {
		ft_seterr(err, errlen, "out of memory");
		return -1;
	}
	memcpy(nb, c->data + c->pos, have);
	nlen = have;
join:
	while (c->next_sec < c->nr_secs) {
		const struct ft_section *s = ft_reader_section(t->r, c->secs[c->next_sec]);
		unsigned char *chunk, *n;
		size_t l;

		if (nlen >= sizeof(struct ft_page)) {
			memcpy(&size, nb + offsetof(struct ft_page, size), 4);
			if (size <= nlen - sizeof(struct ft_page))
				break;
		}
		chunk = ft_reader_load(t->r, s, &l, err, errlen);
		if (!chunk) {
			free(nb);
			return -1;
		}
		c->next_sec++;
		n = realloc(nb, nlen + l ? nlen + l : 1);
		if (!n) {
			free(chunk);
			free(nb);
			ft_seterr(err, errlen, "out of memory");
			return -1;
		}
		nb = n;
		memcpy(nb + nlen, chunk, l);
		nlen += l;
		free(chunk);
	}
swap:
	free(c->prev);
	c->prev = c->data;
	c->data = nb;
	c->len = nlen;
	c->pos = 0;
	return 0;
}

/* ---- decoding ---- */

/* push_frame()'s slow path: room for one more frame.  0, or -1. */
static __attribute__((noinline)) int grow_frames(struct cursor *c)
{
	size_t ncap = c->cap_frames ? c->cap_frames * 2 : 64;
	struct frame *n;

	if (ncap > MAX_FRAMES)
		return -1;
	n = realloc(c->frames, ncap * sizeof(*n));
	if (!n)
		return -1;
	c->frames = n;
	c->cap_frames = ncap;
	return 0;
}

/*
 * The helpers of decode_next() that every call record goes through are
 * inlined into it: as calls, their prologues and argument moves cost
 * about as much as their bodies.
 */
#define DECODE_INLINE static inline __attribute__((always_inline))

DECODE_INLINE int push_frame(struct cursor *c, uint32_t fid, int known, uint64_t ts)
{
	if (c->nr_frames == c->cap_frames && grow_frames(c) < 0)
		return -1;
	c->frames[c->nr_frames].fid = fid;
	c->frames[c->nr_frames].known = known;
	c->frames[c->nr_frames].ts = ts;
	c->nr_frames++;
	return 0;
}

/*
 * Every field of ev, set one by one: a memset() of the whole event was a
 * third of the decoder's time (rep stos, then narrow stores over it).
 * A new field of struct ft_event needs its line here (the assert says so).
 */
static void fill_event(struct ft_trace *t, struct cursor *c, struct ft_event *ev,
		       enum ft_ev_type type)
{
	_Static_assert(sizeof(struct ft_event) == 160,
		       "struct ft_event changed: set the new field in fill_event()");
	ev->type = type;
	ev->ts = trace_ns(t, c->t);
	ev->pid = c->hdr.pid;
	ev->tid = c->hdr.tid;
	ev->cpu = -1;
	ev->level = (uint16_t)(c->hdr.level + c->sig_level);
	ev->buffer = c->id;
	ev->depth = (int)c->nr_frames;
	ev->fid = 0;
	ev->parent_fid = FT_FID_UNKNOWN;
	ev->parent_addr = 0;
	ev->duration = 0;
	ev->has_entry = 0;
	ev->unwound = 0;
	ev->count = 0;
	ev->event_id = 0;
	ev->data = NULL;
	ev->len = 0;
	ev->stack_id = -1;
	ev->ips = NULL;
	ev->nr_ips = 0;
	ev->comm = NULL;
	ev->src = NULL;
	ev->priv = NULL;
}

/* An event other than a call's: every field, and ev is no longer a lean slot. */
static void base_event(struct ft_trace *t, struct cursor *c, struct ft_event *ev,
		       enum ft_ev_type type)
{
	fill_event(t, c, ev, type);
	if (c->lean[0] == ev)
		c->lean[0] = NULL;
	if (c->lean[1] == ev)
		c->lean[1] = NULL;
}

/*
 * An ENTRY or EXIT.  When ev (one of the stream's two head slots) last
 * held an ENTRY or EXIT of the same page, only the fields those two set
 * differ: 9 stores instead of 24 on the path most records take.
 */
DECODE_INLINE void call_event(struct ft_trace *t, struct cursor *c, struct ft_event *ev,
			      enum ft_ev_type type)
{
	if (ev != c->lean[0] && ev != c->lean[1]) {
		fill_event(t, c, ev, type);
		c->lean[c->lean[0] ? 1 : 0] = ev;
		return;
	}
	ev->type = type;
	ev->ts = trace_ns(t, c->t);
	ev->depth = (int)c->nr_frames;
	ev->fid = 0;
	ev->duration = 0;
	ev->has_entry = 0;
	ev->unwound = 0;
	ev->data = NULL; /* an attachment (FT_EXT_ARGS / RETVAL) sets it again */
	ev->len = 0;
}

DECODE_INLINE void make_exit(struct ft_trace *t, struct cursor *c, struct ft_event *ev)
{
	call_event(t, c, ev, FT_EV_EXIT);
	if (c->nr_frames) {
		struct frame *f = &c->frames[--c->nr_frames];

		ev->fid = f->fid;
		ev->has_entry = f->known;
		if (f->known)
			ev->duration = ev->ts >= f->ts ? ev->ts - f->ts : 0;
	} else {
		ev->fid = FT_FID_UNKNOWN;
	}
	ev->depth = (int)c->nr_frames;
}

DECODE_INLINE void make_entry(struct ft_trace *t, struct cursor *c, struct ft_event *ev,
			      uint32_t fid)
{
	call_event(t, c, ev, FT_EV_ENTRY);
	ev->fid = fid;
	ev->depth = (int)c->nr_frames;
	c->last_fid = fid;
}

/*
 * The thread switched to user context id: park the open calls of the
 * running one, take up id's (none when new).  Returns -1 when too many
 * contexts are parked (a hostile file) or out of memory.
 */
static int switch_ctx(struct cursor *c, uint32_t id)
{
	struct ctx_stack *n;
	size_t i;

	if (id == c->ctx)
		return 0;
	for (i = 0; i < c->nr_ctxs && c->ctxs[i].id != id; i++)
		;
	if (i == c->nr_ctxs) { /* a new one: its slot holds the running one */
		if (c->nr_ctxs >= MAX_CTXS)
			return -1;
		n = realloc(c->ctxs, (c->nr_ctxs + 1) * sizeof(*n));
		if (!n)
			return -1;
		c->ctxs = n;
		c->nr_ctxs++;
		c->ctxs[i] = (struct ctx_stack){ id, NULL, 0, 0 };
	}
	n = &c->ctxs[i];
	{
		struct ctx_stack run = { c->ctx, c->frames, c->nr_frames, c->cap_frames };

		c->frames = n->frames;
		c->nr_frames = n->nr;
		c->cap_frames = n->cap;
		*n = run;
	}
	c->ctx = id;
	c->unwind_pending = 0;
	return 0;
}

/*
 * Bring the tracked depth to the page's (frames lost with dropped pages).
 * After a loss (hdr.lost: records dropped or overwritten before the page,
 * or other contexts' losses shown here -- the count does not say which),
 * the calls open before it may have returned and others begun at the
 * same depth: an exit after the gap must not pair with an entry before it
 * (wrong function, duration, leaf line).  So every open frame keeps its
 * place but becomes unknown, as function_graph prints an exit whose entry
 * it lost.  Both decoders start pages here (scan_run stays within one).
 */
static int resync_depth(struct cursor *c)
{
	if (c->hdr.depth == FT_PAGE_DEPTH_CONT)
		return 0; /* a piece of the page before: the depth carries on */
	if (c->hdr.lost)
		for (size_t i = 0; i < c->nr_frames; i++)
			c->frames[i] =
				(struct frame){ .fid = FT_FID_UNKNOWN, .row = FT_FRAME_NO_ROW };
	if (c->nr_frames > c->hdr.depth)
		c->nr_frames = c->hdr.depth;
	while (c->nr_frames < c->hdr.depth) {
		if (push_frame(c, FT_FID_UNKNOWN, 0, 0) < 0)
			return -1;
		c->frames[c->nr_frames - 1].row = FT_FRAME_NO_ROW;
	}
	return 0;
}

#define CORRUPT(fmt, ...)                                                                          \
	do {                                                                                       \
		ft_seterr(err, errlen, "buffer %llu, page %llu (offset %zu): " fmt,                \
			  (unsigned long long)c->id, (unsigned long long)c->seq, c->rec,           \
			  ##__VA_ARGS__);                                                          \
		return -1;                                                                         \
	} while (0)

static uint64_t *scratch_ips(struct cursor *c, uint32_t nr)
{
	int w = c->which ^= 1;

	if (c->scratch_cap[w] < nr) {
		uint64_t *n = realloc(c->scratch[w], nr * sizeof(*n));

		if (!n)
			return NULL;
		c->scratch[w] = n;
		c->scratch_cap[w] = nr;
	}
	return c->scratch[w];
}

/*
 * An attachment of the record just decoded (FT_EXT_ARGS after an entry,
 * FT_EXT_RETVAL after an exit), which the writer puts in the same page:
 * its payload becomes ev->data / ev->len and the cursor moves past it.
 */
DECODE_INLINE void attachment(struct cursor *c, struct ft_event *ev, uint32_t type)
{
	size_t left = (c->page_end - c->rec) / 4;
	uint32_t x, nw, pad;

	if (left < 1)
		return;
	x = rd32(c->data + c->rec);
	if (ft_rec_kind(x) != FT_REC_EXT || ft_ext_type(x) != type)
		return;
	nw = ft_ext_words(x);
	pad = ft_ext_pad(x);
	if (nw > left - 1 || pad > nw * 4)
		return; /* not ours: the generic path reports the corruption */
	ev->data = c->data + c->rec + 4;
	ev->len = (size_t)nw * 4 - pad;
	c->rec += 4 + (size_t)nw * 4;
}

/*
 * Decode the next event of cursor c into ev.  1 event, 0 end of buffer,
 * -1 corrupt (err).
 */
static int decode_next(struct ft_trace *t, struct cursor *c, struct ft_event *ev, char *err,
		       size_t errlen)
{
	for (;;) {
		const unsigned char *p;
		uint32_t w, type, nw, pad;
		size_t avail;

		if (c->unwind_pending) {
			c->unwind_pending--;
			make_exit(t, c, ev);
			ev->unwound = 1;
			return 1;
		}
		if (!c->in_page) {
			if (trace_fill_page(t, c, err, errlen) < 0)
				return -1;
			if (c->pos >= c->len)
				return 0;
			c->rec = c->pos;
			c->seq++;
			if (c->len - c->pos < sizeof(struct ft_page))
				CORRUPT("page header cut short (%zu bytes left)", c->len - c->pos);
			memcpy(&c->hdr, c->data + c->pos, sizeof(c->hdr));
			if (c->hdr.size > c->len - c->pos - sizeof(struct ft_page))
				CORRUPT("page size %u runs past the end of the buffer",
					c->hdr.size);
			if (c->hdr.size & 3)
				CORRUPT("page size %u is not a multiple of 4", c->hdr.size);
			c->rec = c->pos + sizeof(struct ft_page);
			c->page_end = c->rec + c->hdr.size;
			c->pos = c->page_end;
			c->in_page = 1;
			c->lean[0] = c->lean[1] = NULL; /* pid, tid, level are the page's */
			c->t = c->hdr.ts;
			if (resync_depth(c) < 0)
				CORRUPT("out of memory tracking depth %u", c->hdr.depth);
			if (c->hdr.lost) {
				base_event(t, c, ev, FT_EV_LOST);
				ev->count = c->hdr.lost;
				t->lost += c->hdr.lost;
				return 1;
			}
		}
		if (c->rec >= c->page_end) {
			c->in_page = 0;
			continue;
		}
		p = c->data + c->rec;
		avail = (c->page_end - c->rec) / 4;
		w = rd32(p);
		t->decoded++;
		switch (ft_rec_kind(w)) {
		case FT_REC_ENTRY:
			c->t += ft_rec_edelta(w);
			c->rec += 4;
			make_entry(t, c, ev, ft_rec_fid(w));
			if (push_frame(c, ev->fid, 1, ev->ts) < 0)
				CORRUPT("call depth beyond %u", MAX_FRAMES);
			attachment(c, ev, FT_EXT_ARGS);
			return 1;
		case FT_REC_EXIT:
			c->t += ft_rec_xdelta(w);
			c->rec += 4;
			make_exit(t, c, ev);
			attachment(c, ev, FT_EXT_RETVAL);
			return 1;
		case FT_REC_FUNC: {
			uint32_t parent;

			if (avail < 2)
				CORRUPT("FUNC record cut short");
			parent = rd32(p + 4);
			c->t += ft_rec_edelta(w);
			c->rec += 8;
			base_event(t, c, ev, FT_EV_FUNC);
			ev->fid = ft_rec_fid(w);
			c->last_fid = ev->fid;
			ev->parent_fid = parent ? parent - 1 : FT_FID_UNKNOWN;
			goto parent_addr;
		}
		default:
			break;
		}
		/* FT_REC_EXT */
		type = ft_ext_type(w);
		nw = ft_ext_words(w);
		pad = ft_ext_pad(w);
		if (nw > avail - 1)
			CORRUPT("extended record %u of %u words runs past the page", type, nw);
		if (pad > nw * 4)
			CORRUPT("extended record %u pads %u bytes of %u", type, pad, nw * 4);
		c->rec += 4 + (size_t)nw * 4;
		p += 4;
#define NEED(n)                                                                                    \
	do {                                                                                       \
		if (nw < (n))                                                                      \
			CORRUPT("extended record %u too short (%u words)", type, nw);              \
	} while (0)
		switch (type) {
		case FT_EXT_TIME:
			NEED(2);
			c->t = rd64(p);
			continue;
		case FT_EXT_TDELTA:
			c->t += ft_ext_tdelta(w);
			continue;
		case FT_EXT_ENTRY_LONG:
			NEED(1);
			make_entry(t, c, ev, rd32(p));
			if (push_frame(c, ev->fid, 1, ev->ts) < 0)
				CORRUPT("call depth beyond %u", MAX_FRAMES);
			attachment(c, ev, FT_EXT_ARGS);
			return 1;
		case FT_EXT_EXIT_LONG:
			NEED(2);
			c->t += rd64(p);
			make_exit(t, c, ev);
			attachment(c, ev, FT_EXT_RETVAL);
			return 1;
		case FT_EXT_FUNC_LONG: {
			uint32_t parent;

			NEED(2);
			base_event(t, c, ev, FT_EV_FUNC);
			ev->fid = rd32(p);
			parent = rd32(p + 4);
			c->last_fid = ev->fid;
			ev->parent_fid = parent ? parent - 1 : FT_FID_UNKNOWN;
			goto parent_addr;
		}
		case FT_EXT_STACK_ID: {
			uint32_t nr;
			const uint64_t *ips;

			NEED(1);
			base_event(t, c, ev, FT_EV_STACK);
			ev->fid = c->last_fid;
			ev->stack_id = rd32(p);
			if (ft_trace_stack(t, 0, rd32(p), &ips, &nr) == 0) {
				ev->ips = ips;
				ev->nr_ips = nr;
			}
			return 1;
		}
		case FT_EXT_STACK: {
			uint32_t nr;
			uint64_t *ips;

			NEED(2);
			nr = rd32(p);
			if (nr > (nw - 2) / 2)
				CORRUPT("stack of %u frames in %u words", nr, nw);
			base_event(t, c, ev, FT_EV_STACK);
			ev->fid = c->last_fid;
			ips = scratch_ips(c, nr ? nr : 1);
			if (!ips)
				CORRUPT("out of memory");
			memcpy(ips, p + 8, (size_t)nr * 8);
			ev->ips = ips;
			ev->nr_ips = nr;
			return 1;
		}
		case FT_EXT_LOST:
			NEED(1);
			base_event(t, c, ev, FT_EV_LOST);
			ev->count = rd32(p);
			t->lost += ev->count;
			return 1;
		case FT_EXT_MARKER:
		case FT_EXT_BINMARKER:
		case FT_EXT_COMM:
		case FT_EXT_TNAME:
		case FT_EXT_EXEC:
			base_event(t, c, ev,
				   type == FT_EXT_MARKER      ? FT_EV_MARKER
				   : type == FT_EXT_BINMARKER ? FT_EV_BINMARKER
				   : type == FT_EXT_COMM      ? FT_EV_COMM
				   : type == FT_EXT_TNAME     ? FT_EV_TNAME
							      : FT_EV_EXEC);
			ev->data = p;
			ev->len = (size_t)nw * 4 - pad;
			return 1;
		case FT_EXT_ULAT:
			NEED(1);
			base_event(t, c, ev, FT_EV_ULAT);
			ev->data = p;
			ev->len = (size_t)nw * 4 - pad;
			return 1;
		case FT_EXT_EVENT:
			NEED(1);
			base_event(t, c, ev, FT_EV_EVENT);
			ev->event_id = rd32(p);
			ev->data = p + 4;
			ev->len = (size_t)nw * 4 - 4 - (pad <= nw * 4 - 4 ? pad : 0);
			return 1;
		case FT_EXT_SIGNAL:
			NEED(1);
			base_event(t, c, ev, FT_EV_SIGNAL);
			ev->count = rd32(p);
			ev->event_id = nw >= 2 ? rd32(p + 4) : 0;
			/* with its level (runtime/signal.c), the handler's calls
			 * follow in this stream, a level in, until its SIGRET */
			if (nw >= 2 && c->sig_level < 0xff)
				c->sig_level++;
			/* the level changed: no lean slot keeps the old one */
			c->lean[0] = c->lean[1] = NULL;
			return 1;
		case FT_EXT_SIGRET:
			NEED(1);
			if (c->sig_level)
				c->sig_level--;
			base_event(t, c, ev, FT_EV_SIGRET);
			ev->count = rd32(p);
			ev->unwound = nw >= 3 && rd32(p + 8) != 0;
			c->lean[0] = c->lean[1] = NULL; /* as at FT_EXT_SIGNAL */
			return 1;
		case FT_EXT_FORK:
		case FT_EXT_EXIT:
			NEED(1);
			base_event(t, c, ev, type == FT_EXT_FORK ? FT_EV_FORK : FT_EV_TEXIT);
			ev->count = type == FT_EXT_EXIT ? (uint64_t)(int64_t)(int32_t)rd32(p)
							: rd32(p);
			return 1;
		case FT_EXT_TRACE_ON:
		case FT_EXT_TRACE_OFF:
			base_event(t, c, ev,
				   type == FT_EXT_TRACE_ON ? FT_EV_TRACE_ON : FT_EV_TRACE_OFF);
			return 1;
		case FT_EXT_CTXSW:
			NEED(1);
			if (switch_ctx(c, rd32(p)) < 0)
				CORRUPT("more than %u user contexts", MAX_CTXS);
			continue;
		case FT_EXT_UNWIND:
			NEED(1);
			c->unwind_pending = rd32(p) < c->nr_frames ? rd32(p)
								   : (uint32_t)c->nr_frames;
			continue;
		default: /* PAD, a stray PARENT_ADDR, or a newer subtype: skip */
			continue;
		}
#undef NEED
parent_addr:
		/* FUNC with no traced parent: PARENT_ADDR follows in the page */
		if (c->page_end - c->rec >= 12) {
			uint32_t x = rd32(c->data + c->rec);

			if (ft_rec_kind(x) == FT_REC_EXT && ft_ext_type(x) == FT_EXT_PARENT_ADDR &&
			    ft_ext_words(x) >= 2 &&
			    ft_ext_words(x) <= (c->page_end - c->rec) / 4 - 1) {
				ev->parent_addr = rd64(c->data + c->rec + 4);
				c->rec += 4 + (size_t)ft_ext_words(x) * 4;
			}
		}
		return 1;
	}
}

/*
 * decode_next()'s path for the records most traces are made of, inlined
 * into the readers' loops: an ENTRY or EXIT inside the current page with
 * no attachment after it and nothing else pending.  Decodes it exactly as
 * decode_next() would and returns 1, or returns 0 having consumed and
 * changed nothing: decode_next() then takes the record.
 */
DECODE_INLINE int decode_call(struct ft_trace *t, struct cursor *c, struct ft_event *ev)
{
	size_t rec = c->rec;
	uint32_t w, x;

	if (!c->in_page || c->unwind_pending || rec >= c->page_end)
		return 0;
	w = rd32(c->data + rec);
	if (ft_rec_kind(w) > FT_REC_EXIT)
		return 0;
	if (rec + 4 < c->page_end) {
		x = rd32(c->data + rec + 4);
		if (ft_rec_kind(x) == FT_REC_EXT &&
		    (ft_ext_type(x) == FT_EXT_ARGS || ft_ext_type(x) == FT_EXT_RETVAL))
			return 0;
	}
	if (ft_rec_kind(w) == FT_REC_ENTRY) {
		if (c->nr_frames == c->cap_frames)
			return 0; /* push_frame() would grow: decode_next()'s business */
		t->decoded++;
		c->t += ft_rec_edelta(w);
		c->rec = rec + 4;
		make_entry(t, c, ev, ft_rec_fid(w));
		push_frame(c, ev->fid, 1, ev->ts); /* cannot fail: there is room */
		return 1;
	}
	t->decoded++;
	c->t += ft_rec_xdelta(w);
	c->rec = rec + 4;
	make_exit(t, c, ev);
	return 1;
}

/* ---- merging ---- */

static int stream_less(const struct ft_trace *t, size_t a, size_t b)
{
	const struct stream *x = &t->streams[a], *y = &t->streams[b];

	if (x->ev[x->hi].ts != y->ev[y->hi].ts)
		return x->ev[x->hi].ts < y->ev[y->hi].ts;
	return a < b;
}

static void sift_down_slow(struct ft_trace *t, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i, tmp;

		if (l < t->heap_n && stream_less(t, t->heap[l], t->heap[m]))
			m = l;
		if (r < t->heap_n && stream_less(t, t->heap[r], t->heap[m]))
			m = r;
		if (m == i)
			return;
		tmp = t->heap[i];
		t->heap[i] = t->heap[m];
		t->heap[m] = tmp;
		i = m;
	}
}

/* Restore the heap below i; one stream (most user traces): nothing to do. */
static inline void sift_down(struct ft_trace *t, size_t i)
{
	if (t->heap_n > 1)
		sift_down_slow(t, i);
}

/* Refill stream s's head (into the slot not handed out).  1, 0 (ended) or -1. */
static inline __attribute__((always_inline)) int refill(struct ft_trace *t, struct stream *s,
							char *err, size_t errlen)
{
	struct ft_event *head;
	int ret;

	if (s->failed) {
		ft_seterr(err, errlen, "%s", t->failure);
		return -1;
	}
	if (s->ended)
		return 0;
	s->hi ^= 1;
	head = &s->ev[s->hi];
	if (s->c) {
		ret = decode_call(t, s->c, head);
		if (!ret)
			ret = decode_next(t, s->c, head, err, errlen);
		/* a flight recorder's window: older records go, losses stay */
		while (ret == 1 && head->ts < t->snap_since && head->type != FT_EV_LOST &&
		       head->type != FT_EV_TNAME) {
			ret = decode_call(t, s->c, head);
			if (!ret)
				ret = decode_next(t, s->c, head, err, errlen);
		}
	} else {
		memset(head, 0, sizeof(*head));
		ret = s->src->next(s->src->arg, head, err, errlen);
		head->type = FT_EV_SOURCE;
		head->src = s->src;
		head->buffer = UINT64_MAX;
	}
	if (ret < 0) {
		s->failed = 1;
		snprintf(t->failure, sizeof(t->failure), "%s", err ? err : "corrupt record");
	}
	if (ret <= 0) {
		/* nothing decoded: the head is the event handed out last (ft_trace_unget()) */
		if (!ret)
			s->hi ^= 1;
		s->ended = 1;
		s->fresh = 0;
		return ret;
	}
	s->fresh = 1;
	return 1;
}

static void reset_cursor(struct cursor *c)
{
	if (c->next_sec > 1) {
		/* back to the first chunk (loaded again by the next decode) */
		free(c->prev);
		free(c->data);
		c->prev = c->data = NULL;
		c->len = 0;
		c->next_sec = 0;
	}
	c->pos = 0;
	c->in_page = 0;
	c->lean[0] = c->lean[1] = NULL;
	c->nr_frames = 0;
	c->unwind_pending = 0;
	for (size_t k = 0; k < c->nr_ctxs; k++)
		free(c->ctxs[k].frames);
	c->nr_ctxs = 0;
	c->ctx = 0;
	c->t = 0;
	c->seq = 0;
	c->last_fid = FT_FID_UNKNOWN;
}

/* Before a pass over the events: counters at zero, names as TASKS has them. */
static void new_pass(struct ft_trace *t)
{
	t->failed = 0;
	if (t->passes++ && t->tasks_text) {
		/* forget renames seen by the previous pass */
		trace_forget_tasks(t);
		trace_load_tasks(t, t->tasks_text, t->tasks_len);
	}
	t->decoded = t->lost = 0;
}

static int start(struct ft_trace *t, char *err, size_t errlen)
{
	size_t n = t->nr_cursors + t->nr_srcs;

	free(t->streams);
	free(t->heap);
	t->streams = calloc(n ? n : 1, sizeof(*t->streams));
	t->heap = calloc(n ? n : 1, sizeof(*t->heap));
	if (!t->streams || !t->heap) {
		ft_seterr(err, errlen, "out of memory");
		return -1;
	}
	t->nr_streams = n;
	t->heap_n = 0;
	new_pass(t);
	for (size_t i = 0; i < n; i++) {
		struct stream *s = &t->streams[i];
		int ret;

		if (i < t->nr_cursors) {
			s->c = &t->cursors[i];
			reset_cursor(s->c);
		} else {
			s->src = t->srcs[i - t->nr_cursors];
		}
		ret = refill(t, s, err, errlen);
		if (ret < 0)
			return -1;
		if (ret)
			t->heap[t->heap_n++] = i;
	}
	for (size_t i = t->heap_n / 2; i-- > 0;)
		sift_down(t, i);
	t->started = 1;
	t->root_stale = 0;
	return 0;
}

int ft_trace_add_source(struct ft_trace *t, const struct ft_trace_source *src)
{
	const struct ft_trace_source **n = realloc(t->srcs, (t->nr_srcs + 1) * sizeof(*n));

	if (!n)
		return -1;
	t->srcs = n;
	t->srcs[t->nr_srcs++] = src;
	t->started = 0;
	return 0;
}

int ft_trace_rewind(struct ft_trace *t, char *err, size_t errlen)
{
	return start(t, err, errlen);
}

/* The event handed out last is consumed: its stream goes on from the next.  0 or -1. */
/* (inlined: show's loop calls it once per event) */
static inline __attribute__((always_inline)) int settle_root(struct ft_trace *t, char *err,
							     size_t errlen)
{
	struct stream *s = &t->streams[t->heap[0]];
	int ret;

	t->root_stale = 0;
	ret = s->fresh ? 1 : refill(t, s, err, errlen);
	if (ret < 0)
		return -1;
	if (!ret)
		t->heap[0] = t->heap[--t->heap_n];
	sift_down(t, 0);
	return 0;
}

int ft_trace_next_ref(struct ft_trace *t, const struct ft_event **evp, char *err, size_t errlen)
{
	const struct ft_event *ev;
	struct stream *s;

	if (err && errlen)
		err[0] = 0;
	if (t->failed) {
		ft_seterr(err, errlen, "%s", t->failure);
		return -1;
	}
	if (!t->started && start(t, err, errlen) < 0)
		goto fail;
	for (;;) {
		if (t->root_stale && settle_root(t, err, errlen) < 0)
			goto fail;
		if (!t->heap_n)
			return 0;
		s = &t->streams[t->heap[0]];
		ev = &s->ev[s->hi];
		s->fresh = 0;
		t->root_stale = 1;
		if (__builtin_expect(ev->type != FT_EV_COMM && ev->type != FT_EV_TNAME, 1))
			break;
		trace_task_set(t, ev->tid, ev->data, strnlen(ev->data, ev->len));
		/* a thread's name as its stream starts names it, in time order,
		 * but is no event: the next one is */
		if (ev->type == FT_EV_COMM)
			break;
	}
	*evp = ev;
	return 1;
fail:
	/* a corrupt stream stays failed: the merge order past it is unknown */
	t->failed = 1;
	if (err && err[0])
		snprintf(t->failure, sizeof(t->failure), "%s", err);
	return -1;
}

int ft_trace_unget(struct ft_trace *t)
{
	struct stream *s;

	if (!t->started || !t->root_stale || !t->heap_n)
		return -1;
	s = &t->streams[t->heap[0]];
	/* fresh: a peek decoded the next event over the cursor's state */
	if (s->fresh || s->failed)
		return -1;
	s->ended = 0;
	s->fresh = 1;
	t->root_stale = 0;
	return 0;
}

/*
 * The streams again after trace_extend() moved the cursors (moved: old
 * cursor index -> new, old_nc of them): the same layout, cursors in id
 * order then the sources; a stream not in the merge (its buffer had ended)
 * and every new buffer's stream decode their next event, and those that
 * have one join the merge.  0, or -1 with err.
 */
static int restream(struct ft_trace *t, const size_t *moved, size_t old_nc, char *err,
		    size_t errlen)
{
	size_t nc = t->nr_cursors, n = nc + t->nr_srcs, hn = 0;
	struct stream *ns = calloc(n ? n : 1, sizeof(*ns));
	size_t *nh = calloc(n ? n : 1, sizeof(*nh));
	char *merged = calloc(n ? n : 1, 1);

	if (!ns || !nh || !merged) {
		free(ns);
		free(nh);
		free(merged);
		ft_seterr(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < nc; i++)
		ns[i].ended = 1; /* a new buffer: armed below */
	for (size_t j = 0; j < t->nr_streams; j++) {
		size_t to = j < old_nc ? moved[j] : nc + (j - old_nc);

		if (to != SIZE_MAX)
			ns[to] = t->streams[j];
	}
	for (size_t h = 0; h < t->heap_n; h++) {
		size_t j = t->heap[h], to = j < old_nc ? moved[j] : nc + (j - old_nc);

		if (to != SIZE_MAX) {
			nh[hn++] = to;
			merged[to] = 1;
		}
	}
	for (size_t i = 0; i < nc; i++)
		ns[i].c = &t->cursors[i];
	free(t->streams);
	free(t->heap);
	t->streams = ns;
	t->heap = nh;
	t->nr_streams = n;
	t->heap_n = hn;
	for (size_t i = 0; i < nc; i++) {
		struct stream *s = &ns[i];
		int ret;

		if (merged[i] || s->failed)
			continue;
		s->ended = 0;
		ret = refill(t, s, err, errlen);
		if (ret < 0) {
			free(merged);
			return -1;
		}
		if (ret)
			t->heap[t->heap_n++] = i;
	}
	free(merged);
	for (size_t i = t->heap_n / 2; i-- > 0;)
		sift_down(t, i);
	return 0;
}

int ft_trace_refresh(struct ft_trace *t, char *err, size_t errlen)
{
	size_t from = ft_reader_nr_sections(t->r), old_nc = t->nr_cursors, *moved = NULL;
	int added, r = 1;

	if (err && errlen)
		err[0] = 0;
	if (t->snapshot) {
		ft_seterr(err, errlen, "a snapshot does not grow");
		return -1;
	}
	if (t->failed) {
		ft_seterr(err, errlen, "%s", t->failure);
		return -1;
	}
	if (t->started && t->root_stale && settle_root(t, err, errlen) < 0)
		goto fail;
	added = ft_reader_extend(t->r, err, errlen);
	if (added <= 0)
		return added;
	if (trace_extend(t, from, &moved, err, errlen) < 0)
		return -1;
	if (moved && t->started && restream(t, moved, old_nc, err, errlen) < 0)
		r = -1;
	free(moved);
	if (r < 0)
		goto fail;
	return 1;
fail:
	/* as a failed ft_trace_next(): the merge order past it is unknown */
	trace_scan_failed(t, err);
	return -1;
}

/*
 * ft_trace_scan_buffers()'s loop over a run of plain calls in the current
 * page: the records decode_call() takes, decoded as it decodes them, into
 * ev and to fn one by one.  The cursor's state is kept in locals for the
 * run: fn is opaque, so through c the compiler would load every field
 * again after each call.  Stops before the first record decode_call()
 * would leave to decode_next() (or at the page's end) with the state
 * stored back; returns fn's nonzero value, else 0.
 */
DECODE_INLINE int scan_run_clocked(struct ft_trace *t, struct cursor *c, struct ft_event *ev,
				   int (*fn)(const struct ft_event *ev, void *arg), void *arg,
				   int clocked)
{
	const struct ft_clock clk = t->clk;
	const unsigned char *data = c->data;
	size_t rec = c->rec, end = c->page_end, nr = c->nr_frames, cap = c->cap_frames;
	struct frame *fr = c->frames;
	uint64_t tk = c->t, decoded = 0;
	uint32_t last_fid = c->last_fid;
	int ret = 0;

	if (!c->in_page || c->unwind_pending || rec >= end)
		return 0;
	if (ev != c->lean[0] && ev != c->lean[1]) { /* as call_event() */
		fill_event(t, c, ev, FT_EV_ENTRY);
		c->lean[c->lean[0] ? 1 : 0] = ev;
	}
	/* fields no call record of the run changes: once (fn sees ev as const) */
	ev->unwound = 0;
	ev->data = NULL;
	ev->len = 0;
	do {
		uint32_t w = rd32(data + rec), x;
		uint64_t ns;

		if (ft_rec_kind(w) > FT_REC_EXIT)
			break;
		if (rec + 4 < end) {
			x = rd32(data + rec + 4);
			if (ft_rec_kind(x) == FT_REC_EXT &&
			    (ft_ext_type(x) == FT_EXT_ARGS || ft_ext_type(x) == FT_EXT_RETVAL))
				break;
		}
		if (ft_rec_kind(w) == FT_REC_ENTRY) {
			if (nr == cap)
				break; /* push_frame() would grow: decode_next()'s business */
			tk += ft_rec_edelta(w);
			ns = clocked ? ft_clock_ns(&clk, tk) : tk; /* as trace_ns() */
			last_fid = ft_rec_fid(w);
			ev->type = FT_EV_ENTRY;
			ev->ts = ns;
			ev->depth = (int)nr;
			ev->fid = last_fid;
			ev->duration = 0;
			ev->has_entry = 0;
			fr[nr].fid = last_fid;
			fr[nr].known = 1;
			fr[nr].ts = ns;
			nr++;
		} else {
			tk += ft_rec_xdelta(w);
			ns = clocked ? ft_clock_ns(&clk, tk) : tk;
			ev->type = FT_EV_EXIT;
			ev->ts = ns;
			ev->duration = 0;
			if (nr) {
				const struct frame *f = &fr[--nr];

				ev->fid = f->fid;
				ev->has_entry = f->known;
				if (f->known)
					ev->duration = ns >= f->ts ? ns - f->ts : 0;
			} else {
				ev->fid = FT_FID_UNKNOWN;
				ev->has_entry = 0;
			}
			ev->depth = (int)nr;
		}
		rec += 4;
		decoded++;
		ret = fn(ev, arg);
	} while (!ret && rec < end);
	c->rec = rec;
	c->t = tk;
	c->nr_frames = nr;
	c->last_fid = last_fid;
	t->decoded += decoded;
	return ret;
}

/* scan_run_clocked() with the clock's test out of the loop. */
static int scan_run(struct ft_trace *t, struct cursor *c, struct ft_event *ev,
		    int (*fn)(const struct ft_event *ev, void *arg), void *arg)
{
	return t->have_clock ? scan_run_clocked(t, c, ev, fn, arg, 1)
			     : scan_run_clocked(t, c, ev, fn, arg, 0);
}

void trace_scan_begin(struct ft_trace *t)
{
	t->started = 0; /* a later ft_trace_next() starts over */
	new_pass(t);
}

void trace_reset_cursor(struct cursor *c)
{
	reset_cursor(c);
}

int trace_decode_next(struct ft_trace *t, struct cursor *c, struct ft_event *ev, char *err,
		      size_t errlen)
{
	return decode_next(t, c, ev, err, errlen);
}

void trace_scan_failed(struct ft_trace *t, const char *err)
{
	t->failed = 1;
	snprintf(t->failure, sizeof(t->failure), "%s", err && err[0] ? err : "corrupt record");
}

int ft_trace_scan_buffers(struct ft_trace *t, int (*fn)(const struct ft_event *ev, void *arg),
			  void *arg, char *err, size_t errlen)
{
	struct ft_event ev;

	if (err && errlen)
		err[0] = 0;
	trace_scan_begin(t);
	for (size_t i = 0; i < t->nr_cursors; i++) {
		struct cursor *c = &t->cursors[i];
		int ret;

		reset_cursor(c);
		c->lean[0] = c->lean[1] = NULL;
		for (;;) {
			/* a flight recorder's window drops events: the fast run cannot */
			if (!t->snap_since) {
				ret = scan_run(t, c, &ev, fn, arg);
				if (ret)
					return ret;
			}
			ret = decode_next(t, c, &ev, err, errlen);
			if (ret != 1)
				break;
			if (ev.type == FT_EV_TNAME) { /* names the thread; no event */
				trace_task_set(t, ev.tid, ev.data, strnlen(ev.data, ev.len));
				continue;
			}
			if (ev.ts < t->snap_since && ev.type != FT_EV_LOST)
				continue; /* outside a flight recorder's window */
			if (ev.type == FT_EV_COMM)
				trace_task_set(t, ev.tid, ev.data, strnlen(ev.data, ev.len));
			ret = fn(&ev, arg);
			if (ret)
				return ret;
		}
		if (ret < 0) {
			trace_scan_failed(t, err);
			return -1;
		}
		reset_cursor(c); /* its windows go: one buffer's chunks in memory at a time */
	}
	return 0;
}

int ft_trace_next(struct ft_trace *t, struct ft_event *ev, char *err, size_t errlen)
{
	const struct ft_event *e;
	int ret = ft_trace_next_ref(t, &e, err, errlen);

	if (ret == 1)
		*ev = *e;
	return ret;
}

int ft_trace_peek_buffer_ref(struct ft_trace *t, const struct ft_event *ev,
			     const struct ft_event **next)
{
	size_t lo = 0, hi = t->nr_cursors;
	struct stream *s;
	char err[256];

	if (ev->buffer == UINT64_MAX || !t->started)
		return 0;
	if (hi == 1) /* one user buffer: no search */
		hi = 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->cursors[mid].id < ev->buffer)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= t->nr_cursors || t->cursors[lo].id != ev->buffer)
		return 0;
	s = &t->streams[lo];
	if (!s->fresh) {
		int ret = refill(t, s, err, sizeof(err));

		if (ret <= 0)
			return ret;
	}
	*next = &s->ev[s->hi];
	return 1;
}

int ft_trace_peek_buffer(struct ft_trace *t, const struct ft_event *ev, struct ft_event *next)
{
	const struct ft_event *n;
	int ret = ft_trace_peek_buffer_ref(t, ev, &n);

	if (ret == 1)
		*next = *n;
	return ret;
}

uint64_t ft_trace_nr_decoded(const struct ft_trace *t)
{
	return t->decoded;
}

uint64_t ft_trace_nr_lost(const struct ft_trace *t)
{
	return t->lost;
}
