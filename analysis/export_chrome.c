// SPDX-License-Identifier: GPL-2.0
/*
 * Chrome Trace Event JSON writer (see export_chrome.h).
 */
#include "analysis/export_chrome.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/escape.h"
#include "analysis/numfmt.h"
#include "core/hashtab.h"
#include "core/util.h"
#include "core/version.h"

struct open_call {	 /* X mode only */
	size_t name_off; /* into the thread's name buffer: the name, then nargs
			    * key\0value\0 pairs */
	uint64_t start;
	size_t nargs;
};

static int is_json_int(const char *v);

/*
 * B/E mode: a call or a return that waits in its thread's queue.  A call
 * whose return comes while it still waits is written as one "X" event;
 * one still open when the queue goes out is written as "B", and its
 * return later as "E".
 */
enum qkind {
	Q_OPEN, /* entered, not returned yet */
	Q_DONE, /* returned: an X event */
	Q_END,	/* the return of a call written as B: an E event */
};

struct qitem {
	uint64_t ts;	 /* OPEN, DONE: the call's start; END: its return */
	uint64_t dur;	 /* DONE */
	uint32_t off;	 /* into the thread's arena: OPEN, DONE: the name, its
		       * category when not "function", then nargs key\0value\0
		       * pairs; END: nrv pairs */
	uint32_t rv_off; /* DONE: its nrv return-value pairs */
	uint32_t nargs, nrv;
	uint32_t nl;	 /* the name's length */
	uint8_t kind;	 /* enum qkind */
	uint8_t plain;	 /* the name goes into JSON as it is; no category, no args */
	uint8_t has_cat; /* a category other than "function" follows the name */
};

/* The queue goes out when it holds this many items or arena bytes. */
#define Q_MAX 4096
#define Q_ARENA_MAX (64u << 10)
#define NOT_QUEUED UINT32_MAX /* open[]: the call went out as B */

struct cthread {
	struct ft_hentry h; /* first (hashtab.h): key tid, aux pid */
	uint64_t depth;	    /* open calls */
	struct open_call *calls;
	size_t ccap;
	char *names; /* X mode: names of the open calls, NUL-separated */
	size_t nlen, ncap;
	/* B/E mode */
	uint32_t *open; /* per open call, innermost last: its queue index, or NOT_QUEUED */
	size_t ocap;
	struct qitem *q; /* in time order of their ts */
	size_t qn, qcap;
	size_t q_open; /* OPEN items in q: the innermost q_open calls of open[] */
	char *arena;
	size_t alen, acap;
};

struct ft_chrome {
	FILE *out;
	struct ft_chrome_opts o;
	struct ft_htab threads;	     /* struct cthread */
	struct cthread *last_thread; /* the latest lookup (a create may move the others) */
	/* ",\"pid\":P,\"tid\":T" of the last event's pid and tid (ids_len 0: none yet) */
	uint32_t ids_pid, ids_tid;
	char ids[48];
	size_t ids_len;
	int have_base;
	uint64_t base, last;
	struct ft_chrome_stats st;
	int err;
	/*
	 * The plain calls' events are written here and go to out in large
	 * pieces: an fwrite per event cost more than making the event.  Every
	 * other write takes out through out_of(), which empties this first,
	 * so the order stays.
	 */
	size_t olen;
	char ob[1 << 16];
	/* by an ENTRY's name_id: 1 + its name's length when it goes into JSON
	 * as it is (0: not known yet, or it does not) */
	struct ft_xmemo plain_len;
	const char *function_cat;  /* an ENTRY's cat that was "function" */
	struct ft_decmemo ts_text; /* the last event's "ts" */
};

#define OB_EVENT 512 /* room for one plain event */

/* out_of(c) for a write of its own, after what ob holds. */
static FILE *out_of(struct ft_chrome *c)
{
	if (c->olen) {
		fwrite_unlocked(c->ob, 1, c->olen, c->out);
		c->olen = 0;
	}
	return c->out;
}

/* Where a plain event of up to OB_EVENT bytes is made (c->olen += its length). */
static char *ob_room(struct ft_chrome *c)
{
	if (c->olen > sizeof(c->ob) - OB_EVENT)
		out_of(c);
	return c->ob + c->olen;
}

struct ft_chrome *ft_chrome_open(FILE *out, const struct ft_chrome_opts *opts)
{
	struct ft_chrome *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->out = out;
	if (opts)
		c->o = *opts;
	if (ft_htab_init(&c->threads, sizeof(struct cthread))) {
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	fputs("{\"traceEvents\":[\n", out);
	return c;
}

static struct cthread *get_thread(struct ft_chrome *c, uint32_t tid, uint32_t pid)
{
	/* events come in runs of one thread */
	if (c->last_thread && c->last_thread->h.key == tid)
		return c->last_thread;
	c->last_thread = ft_htab_get_aux(&c->threads, tid, pid);
	return c->last_thread;
}

/*
 * Separator, then the fields every event has: by hand, into one buffer
 * and one fwrite (printf was the largest cost of a large export).
 */
static size_t event_head(struct ft_chrome *c, char *buf, char ph, uint64_t ts, uint32_t pid,
			 uint32_t tid);

static void begin_event(struct ft_chrome *c, char ph, uint64_t ts, uint32_t pid, uint32_t tid)
{
	char buf[160];

	fwrite_unlocked(buf, 1, event_head(c, buf, ph, ts, pid, tid), out_of(c));
}

/* begin_event()'s text into buf (160 bytes); returns its length. */
static size_t event_head(struct ft_chrome *c, char *buf, char ph, uint64_t ts, uint32_t pid,
			 uint32_t tid)
{
	char *p = buf;
	uint64_t t = ts;

	if (!c->o.absolute_time)
		t = ts > c->base ? ts - c->base : 0;
	if (c->st.events) {
		memcpy(p, ",\n", 2);
		p += 2;
	}
	memcpy(p, "{\"ph\":\"", 7);
	p[7] = ph;
	memcpy(p + 8, "\",\"ts\":", 7);
	p += 15;
	p += ft_ns_as_us_memo(&c->ts_text, p, t); /* writes 24 bytes: buf has room */
	if (!c->ids_len || c->ids_pid != pid || c->ids_tid != tid) {
		char *q = c->ids;

		q = ft_lit_u64(q, ",\"pid\":", 7, pid);
		q = ft_lit_u64(q, ",\"tid\":", 7, tid);
		c->ids_len = (size_t)(q - c->ids);
		c->ids_pid = pid;
		c->ids_tid = tid;
	}
	memcpy(p, c->ids, sizeof(c->ids)); /* fixed size: buf has room */
	p += c->ids_len;
	c->st.events++;
	return (size_t)(p - buf);
}

/* Whether s (n bytes) goes into a JSON string as it is: printable ASCII, no '"' or '\\'. */
static int json_plain(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char u = (unsigned char)s[i];

		if (u < 0x20 || u >= 0x7f || u == '"' || u == '\\')
			return 0;
	}
	return 1;
}

static void put_name_cat(struct ft_chrome *c, const char *name, const char *cat)
{
	fputs(",\"name\":", out_of(c));
	ft_json_str(out_of(c), name ? name : "?");
	if (cat) {
		fputs(",\"cat\":", out_of(c));
		ft_json_str(out_of(c), cat);
	}
}

/* The members of an "args" object (no braces), numbers as numbers. */
static void put_args_members(struct ft_chrome *c, const struct ft_xarg *args, size_t n, int comma)
{
	for (size_t i = 0; i < n; i++) {
		if (comma || i)
			fputc(',', out_of(c));
		ft_json_str(out_of(c), args[i].key);
		fputc(':', out_of(c));
		if (is_json_int(args[i].value))
			fputs(args[i].value, out_of(c));
		else
			ft_json_str(out_of(c), args[i].value ? args[i].value : "");
	}
}

/* X mode: remember the call's name, start, and its arguments (key\0value\0 pairs). */
static int push_call(struct cthread *t, const char *name, uint64_t ts, const struct ft_xarg *args,
		     size_t nargs)
{
	size_t l = strlen(name) + 1;

	for (size_t i = 0; i < nargs; i++)
		l += strlen(args[i].key) + 1 + strlen(args[i].value ? args[i].value : "") + 1;

	if (FT_GROW(t->calls, t->ccap, t->depth + 1, 32) ||
	    FT_GROW(t->names, t->ncap, t->nlen + l, 1024))
		return -1;
	t->calls[t->depth].name_off = t->nlen;
	t->calls[t->depth].start = ts;
	t->calls[t->depth].nargs = nargs;
	memcpy(t->names + t->nlen, name, strlen(name) + 1);
	t->nlen += strlen(name) + 1;
	for (size_t i = 0; i < nargs; i++) {
		const char *v = args[i].value ? args[i].value : "";

		memcpy(t->names + t->nlen, args[i].key, strlen(args[i].key) + 1);
		t->nlen += strlen(args[i].key) + 1;
		memcpy(t->names + t->nlen, v, strlen(v) + 1);
		t->nlen += strlen(v) + 1;
	}
	return 0;
}

/* End the innermost call; rv: its return value as args (none: NULL, 0). */
static void end_call(struct ft_chrome *c, struct cthread *t, uint64_t ts, const struct ft_xarg *rv,
		     size_t nrv)
{
	if (c->o.complete) {
		struct open_call *oc = &t->calls[t->depth - 1];
		uint64_t dur = ts > oc->start ? ts - oc->start : 0;
		const char *p = t->names + oc->name_off;
		size_t nl = strlen(p);
		char *buf = ob_room(c);
		size_t n = event_head(c, buf, 'X', oc->start, t->h.aux, (uint32_t)t->h.key);

		memcpy(buf + n, ",\"dur\":", 7);
		n += 7 + ft_ns_as_us(buf + n + 7, dur);
		/* a call without arguments: the whole event in one write */
		if (!oc->nargs && !nrv && nl < 256 && json_plain(p, nl)) {
			memcpy(buf + n, ",\"name\":\"", 9);
			memcpy(buf + n + 9, p, nl);
			n += 9 + nl;
			memcpy(buf + n, "\"}", 2);
			c->olen += n + 2;
			t->nlen = oc->name_off;
			t->depth--;
			c->st.calls++;
			return;
		}
		c->olen += n; /* the rest follows through out_of() */
		put_name_cat(c, p, NULL);
		if (oc->nargs || nrv) {
			fputs(",\"args\":{", out_of(c));
			p += strlen(p) + 1;
			for (size_t i = 0; i < oc->nargs; i++) {
				struct ft_xarg a = { p, p + strlen(p) + 1 };

				put_args_members(c, &a, 1, i > 0);
				p = a.value + strlen(a.value) + 1;
			}
			put_args_members(c, rv, nrv, oc->nargs > 0);
			fputc('}', out_of(c));
		}
		fputc('}', out_of(c));
		t->nlen = oc->name_off;
	} else if (!nrv) {
		char *buf = ob_room(c);
		size_t n = event_head(c, buf, 'E', ts, t->h.aux, (uint32_t)t->h.key);

		buf[n] = '}';
		c->olen += n + 1;
	} else {
		begin_event(c, 'E', ts, t->h.aux, (uint32_t)t->h.key);
		if (nrv) {
			fputs(",\"args\":{", out_of(c));
			put_args_members(c, rv, nrv, 0);
			fputc('}', out_of(c));
		}
		fputc('}', out_of(c));
	}
	t->depth--;
	c->st.calls++;
}

/* A decimal integer small enough to stay exact in a JSON reader's double:
 * written as a number, so viewers can sort and filter on it. */
static int is_json_int(const char *v)
{
	size_t n = 0;

	if (!v)
		return 0;
	if (*v == '-')
		v++;
	if (*v == '0' && v[1])
		return 0; /* no leading zeros in JSON */
	for (; v[n]; n++)
		if (v[n] < '0' || v[n] > '9')
			return 0;
	return n > 0 && n <= 15;
}

/*
 * Whether an ENTRY's name can be written as it is (printable, no escape,
 * shorter than 256 bytes), with its length in *len; kept by name_id.
 */
static int plain_name(struct ft_chrome *c, const struct ft_xevent *ev, size_t *len)
{
	uint32_t k = ev->name_id;
	size_t n;
	int plain;

	uint64_t m = ft_xmemo_get(&c->plain_len, k);

	if (m) {
		*len = (size_t)m - 1;
		return 1;
	}
	n = strlen(ev->name);
	plain = n < 256 && json_plain(ev->name, n);
	*len = n;
	if (plain)
		ft_xmemo_set(&c->plain_len, k, n + 1);
	return plain;
}

/* Room for n more bytes in t's arena; returns where they go, or NULL (ENOMEM). */
static char *arena_room(struct cthread *t, size_t n)
{
	if (t->alen + n > t->acap && FT_GROW(t->arena, t->acap, t->alen + n, 1024))
		return NULL;
	return t->arena + t->alen;
}

/* s and its NUL into t's arena (room made by the caller). */
static void arena_put(struct cthread *t, const char *s)
{
	size_t n = strlen(s) + 1;

	memcpy(t->arena + t->alen, s, n);
	t->alen += n;
}

/* The n pairs of args into t's arena, as key\0value\0; -1: ENOMEM. */
static int arena_args_n(struct cthread *t, const struct ft_xarg *args, size_t n)
{
	size_t l = 0;

	for (size_t i = 0; i < n; i++)
		l += strlen(args[i].key) + 1 + strlen(args[i].value ? args[i].value : "") + 1;
	if (!arena_room(t, l))
		return -1;
	for (size_t i = 0; i < n; i++) {
		arena_put(t, args[i].key);
		arena_put(t, args[i].value ? args[i].value : "");
	}
	return 0;
}

/* arena_args_n(), with no call for the usual call without arguments */
static inline int arena_args(struct cthread *t, const struct ft_xarg *args, size_t n)
{
	return n ? arena_args_n(t, args, n) : 0;
}

/* The members of n pairs stored as key\0value\0 at p (comma: one goes first); returns p's end. */
static const char *put_stored_args(struct ft_chrome *c, const char *p, size_t n, int comma)
{
	for (size_t i = 0; i < n; i++) {
		struct ft_xarg a = { p, p + strlen(p) + 1 };

		put_args_members(c, &a, 1, comma || i > 0);
		p = a.value + strlen(a.value) + 1;
	}
	return p;
}

/* A queued item as its JSON event: OPEN as "B", DONE as "X", END as "E". */
static void put_item(struct ft_chrome *c, struct cthread *t, const struct qitem *it)
{
	static const char phs[] = { 'B', 'X', 'E' };
	const char *p = t->arena + it->off;
	char *buf = ob_room(c);
	size_t n = event_head(c, buf, phs[it->kind], it->ts, t->h.aux, (uint32_t)t->h.key);

	if (it->kind == Q_DONE) {
		memcpy(buf + n, ",\"dur\":", 7);
		n += 7 + ft_ns_as_us(buf + n + 7, it->dur);
	}
	if (it->kind == Q_END) {
		c->olen += n; /* the rest follows through out_of() */
		if (it->nrv) {
			fputs(",\"args\":{", out_of(c));
			put_stored_args(c, p, it->nrv, 0);
			fputc('}', out_of(c));
		}
		fputc('}', out_of(c));
		return;
	}
	if (it->plain && (it->kind == Q_OPEN || !it->nrv)) {
		/* the common call: the whole event in one piece of ob */
		memcpy(buf + n, ",\"name\":\"", 9);
		memcpy(buf + n + 9, p, it->nl);
		n += 9 + it->nl;
		memcpy(buf + n, "\"}", 2);
		c->olen += n + 2;
		return;
	}
	c->olen += n;
	put_name_cat(c, p, it->has_cat ? p + it->nl + 1 : NULL);
	p += it->nl + 1;
	if (it->has_cat)
		p += strlen(p) + 1;
	if (it->nargs || (it->kind == Q_DONE && it->nrv)) {
		fputs(",\"args\":{", out_of(c));
		put_stored_args(c, p, it->nargs, 0);
		if (it->kind == Q_DONE)
			put_stored_args(c, t->arena + it->rv_off, it->nrv, it->nargs > 0);
		fputc('}', out_of(c));
	}
	fputc('}', out_of(c));
}

/*
 * Write t's queue out, in order.  Its OPEN calls go out as B: their
 * returns will be E events.
 */
static void q_flush(struct ft_chrome *c, struct cthread *t)
{
	for (size_t i = 0; i < t->qn; i++)
		put_item(c, t, &t->q[i]);
	/* the queued open calls are the innermost ones (earlier ones went out before) */
	for (size_t i = t->depth - t->q_open; i < t->depth; i++)
		t->open[i] = NOT_QUEUED;
	t->q_open = 0;
	t->qn = 0;
	t->alen = 0;
}

/* A new item at the end of t's queue (NULL: ENOMEM). */
static struct qitem *q_push(struct cthread *t)
{
	if (t->qn == t->qcap && FT_GROW(t->q, t->qcap, t->qn + 1, 16))
		return NULL;
	return memset(&t->q[t->qn++], 0, sizeof(struct qitem));
}

/* B/E mode: a call of ev's begins on t. */
static int q_entry(struct ft_chrome *c, struct cthread *t, const struct ft_xevent *ev)
{
	const char *name = ev->name ? ev->name : "?";
	/* "function" is the usual category: the last pointer seen to hold it is kept */
	int has_cat = ev->cat && ev->cat != c->function_cat && strcmp(ev->cat, "function");
	size_t nl;
	int plain = ev->name && !has_cat && !ev->nargs && plain_name(c, ev, &nl);
	struct qitem *it;

	if (ev->cat && !has_cat)
		c->function_cat = ev->cat;
	if (!plain)
		nl = strlen(name);
	if (t->depth == t->ocap && FT_GROW(t->open, t->ocap, t->depth + 1, 32))
		return -1;
	if (!arena_room(t, nl + 1 + (has_cat ? strlen(ev->cat) + 1 : 0)) || !(it = q_push(t)))
		return -1;
	it->kind = Q_OPEN;
	it->ts = ev->ts;
	it->off = (uint32_t)t->alen;
	it->nl = (uint32_t)nl;
	it->plain = (uint8_t)plain;
	it->has_cat = (uint8_t)has_cat;
	memcpy(t->arena + t->alen, name, nl);
	t->arena[t->alen + nl] = 0;
	t->alen += nl + 1;
	if (has_cat)
		arena_put(t, ev->cat);
	if (arena_args(t, ev->args, ev->nargs)) {
		t->qn--;
		return -1;
	}
	it->nargs = (uint32_t)ev->nargs;
	t->open[t->depth++] = (uint32_t)(t->qn - 1);
	t->q_open++;
	if (t->qn >= Q_MAX || t->alen >= Q_ARENA_MAX)
		q_flush(c, t);
	return 0;
}

/* B/E mode: the innermost open call of t returns (t->depth > 0). */
static int q_exit(struct ft_chrome *c, struct cthread *t, const struct ft_xevent *ev)
{
	uint32_t i = t->open[t->depth - 1];
	size_t off = t->alen;
	struct qitem *it;

	if (arena_args(t, ev->args, ev->nargs))
		return -1;
	if (i != NOT_QUEUED) {
		/* still waiting: one X event */
		it = &t->q[i];
		it->kind = Q_DONE;
		it->dur = ev->ts > it->ts ? ev->ts - it->ts : 0;
		it->rv_off = (uint32_t)off;
		it->nrv = (uint32_t)ev->nargs;
		t->q_open--;
	} else {
		if (!(it = q_push(t)))
			return -1;
		it->kind = Q_END;
		it->ts = ev->ts;
		it->off = (uint32_t)off;
		it->nrv = (uint32_t)ev->nargs;
	}
	t->depth--;
	c->st.calls++;
	/* nothing left to wait for: out in order, the queue starts again empty */
	if (!t->q_open || t->qn >= Q_MAX || t->alen >= Q_ARENA_MAX)
		q_flush(c, t);
	return 0;
}

/* Before another kind of event of tid: its queued calls go first (tid 0: every thread's). */
static void flush_tid(struct ft_chrome *c, uint32_t tid)
{
	if (c->o.complete)
		return;
	if (!tid) {
		for (size_t i = 0; i < c->threads.cap; i++) {
			struct cthread *t = ft_htab_slot(&c->threads, i);

			if (t && t->qn)
				q_flush(c, t);
		}
		return;
	}
	struct cthread *t = c->last_thread && c->last_thread->h.key == tid
				    ? c->last_thread
				    : ft_htab_find(&c->threads, tid);

	if (t && t->qn)
		q_flush(c, t);
}

int ft_chrome_event(struct ft_chrome *c, const struct ft_xevent *ev)
{
	struct cthread *t;

	if (!c->have_base) {
		c->base = ev->ts;
		c->have_base = 1;
	}
	if (ev->ts > c->last)
		c->last = ev->ts;
	switch (ev->type) {
	case FT_XEV_ENTRY:
		t = get_thread(c, ev->tid, ev->pid);
		if (!t)
			goto nomem;
		if (c->o.complete) {
			if (push_call(t, ev->name ? ev->name : "?", ev->ts, ev->args, ev->nargs))
				goto nomem;
			t->depth++;
		} else if (q_entry(c, t, ev)) {
			goto nomem;
		}
		break;
	case FT_XEV_EXIT:
		t = get_thread(c, ev->tid, ev->pid);
		if (!t)
			goto nomem;
		if (!t->depth) {
			c->st.unmatched_exits++;
			break;
		}
		if (!c->o.complete) {
			if (q_exit(c, t, ev))
				goto nomem;
		} else {
			end_call(c, t, ev->ts, ev->args, ev->nargs);
		}
		break;
	case FT_XEV_INSTANT:
		flush_tid(c, ev->tid);
		begin_event(c, 'i', ev->ts, ev->pid, ev->tid);
		fputs(",\"s\":\"t\"", out_of(c));
		put_name_cat(c, ev->name, ev->cat);
		fputs(",\"args\":{", out_of(c));
		for (size_t i = 0; i < ev->nargs; i++) {
			if (i)
				fputc(',', out_of(c));
			ft_json_str(out_of(c), ev->args[i].key);
			fputc(':', out_of(c));
			if (is_json_int(ev->args[i].value))
				fputs(ev->args[i].value, out_of(c));
			else
				ft_json_str(out_of(c), ev->args[i].value);
		}
		if (ev->cpu >= 0)
			fprintf(out_of(c), "%s\"cpu\":%d", ev->nargs ? "," : "", ev->cpu);
		fputs("}}", out_of(c));
		c->st.instants++;
		break;
	case FT_XEV_THREAD_NAME:
	case FT_XEV_PROCESS_NAME:
		flush_tid(c, ev->tid);
		begin_event(c, 'M', ev->ts, ev->pid, ev->tid);
		fputs(ev->type == FT_XEV_THREAD_NAME
			      ? ",\"name\":\"thread_name\",\"args\":{\"name\":"
			      : ",\"name\":\"process_name\",\"args\":{\"name\":",
		      out_of(c));
		ft_json_str(out_of(c), ev->name);
		fputs("}}", out_of(c));
		break;
	case FT_XEV_LOST:
		/* calls open across a loss are not paired here: B, then E */
		flush_tid(c, ev->tid);
		begin_event(c, 'i', ev->ts, ev->pid, ev->tid);
		fprintf(out_of(c),
			",\"s\":\"%s\",\"name\":\"lost events\",\"cat\":\"ftrail\",\"args\":{\"count\":%" PRIu64
			"}}",
			ev->tid ? "t" : "g", ev->count);
		c->st.lost_markers++;
		c->st.lost_events += ev->count;
		break;
	}
	if (ferror_unlocked(c->out)) { /* what ob holds is checked when it goes */
		c->err = errno ? errno : EIO;
		return -1;
	}
	return 0;
nomem:
	errno = ENOMEM;
	return -1;
}

int ft_chrome_close(struct ft_chrome *c, struct ft_chrome_stats *stats)
{
	int ret = 0;

	flush_tid(c, 0);
	for (size_t i = 0; i < c->threads.cap; i++) {
		struct cthread *t = ft_htab_slot(&c->threads, i);

		if (!t)
			continue;
		while (t->depth) {
			end_call(c, t, c->last, NULL, 0);
			c->st.closed_at_end++;
		}
	}
	fprintf(out_of(c),
		"\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"producer\":\"ftrail %s\"",
		FTRAIL_VERSION);
	if (c->o.source) {
		fputs(",\"source\":", out_of(c));
		ft_json_str(out_of(c), c->o.source);
	}
	fprintf(out_of(c),
		",\"base_ns\":\"%" PRIu64 "\",\"calls\":\"%" PRIu64 "\",\"lost_events\":\"%" PRIu64
		"\",\"unmatched_exits\":\"%" PRIu64 "\",\"closed_at_end\":\"%" PRIu64 "\"}}\n",
		c->o.absolute_time ? 0 : c->base, c->st.calls, c->st.lost_events,
		c->st.unmatched_exits, c->st.closed_at_end);
	if (fflush(out_of(c)) || ferror(out_of(c))) {
		ret = -1;
		if (!errno)
			errno = EIO;
	}
	if (stats)
		*stats = c->st;
	for (size_t i = 0; i < c->threads.cap; i++) {
		struct cthread *t = ft_htab_slot(&c->threads, i);

		if (t) {
			free(t->calls);
			free(t->names);
			free(t->open);
			free(t->q);
			free(t->arena);
		}
	}
	ft_htab_free(&c->threads);
	ft_xmemo_free(&c->plain_len);
	free(c);
	return ret;
}
