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
#include "core/version.h"

struct open_call {	 /* X mode only */
	size_t name_off; /* into the thread's name buffer: the name, then nargs
			    * key\0value\0 pairs */
	uint64_t start;
	size_t nargs;
};

static int is_json_int(const char *v);

struct cthread {
	struct ft_hentry h; /* first (hashtab.h): key tid, aux pid */
	uint64_t depth;	    /* open calls */
	struct open_call *calls;
	size_t ccap;
	char *names; /* X mode: names of the open calls, NUL-separated */
	size_t nlen, ncap;
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
static size_t event_head(struct ft_chrome *c, char *buf, const char *ph, uint64_t ts, uint32_t pid,
			 uint32_t tid);

static void begin_event(struct ft_chrome *c, const char *ph, uint64_t ts, uint32_t pid,
			uint32_t tid)
{
	char buf[160];

	fwrite_unlocked(buf, 1, event_head(c, buf, ph, ts, pid, tid), out_of(c));
}

/* begin_event()'s text into buf (160 bytes); returns its length. */
static size_t event_head(struct ft_chrome *c, char *buf, const char *ph, uint64_t ts, uint32_t pid,
			 uint32_t tid)
{
	char *p = buf;
	uint64_t t = ts;
	size_t l = strlen(ph);

	if (!c->o.absolute_time)
		t = ts > c->base ? ts - c->base : 0;
	if (c->st.events) {
		memcpy(p, ",\n", 2);
		p += 2;
	}
	memcpy(p, "{\"ph\":\"", 7);
	p += 7;
	if (l > 16)
		l = 16; /* phases are one letter */
	memcpy(p, ph, l);
	p += l;
	memcpy(p, "\",\"ts\":", 7);
	p += 7;
	p += ft_ns_as_us(p, t);
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

	if (t->depth == t->ccap) {
		size_t n = t->ccap ? t->ccap * 2 : 32;
		struct open_call *nc = realloc(t->calls, n * sizeof(*nc));

		if (!nc)
			return -1;
		t->calls = nc;
		t->ccap = n;
	}
	if (t->nlen + l > t->ncap) {
		size_t n = t->ncap ? t->ncap * 2 : 1024;
		char *nn;

		while (n < t->nlen + l)
			n *= 2;
		nn = realloc(t->names, n);
		if (!nn)
			return -1;
		t->names = nn;
		t->ncap = n;
	}
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
		size_t n = event_head(c, buf, "X", oc->start, t->h.aux, (uint32_t)t->h.key);

		memcpy(buf + n, ",\"dur\":", 7);
		n += 7 + ft_ns_as_us(buf + n + 7, dur);
		/* a call without arguments: the whole event in one write */
		if (!oc->nargs && !nrv && nl < 256 && json_plain(p, nl)) {
			static const char tail[] = "\",\"cat\":\"function\"}";

			memcpy(buf + n, ",\"name\":\"", 9);
			memcpy(buf + n + 9, p, nl);
			n += 9 + nl;
			memcpy(buf + n, tail, sizeof(tail) - 1);
			c->olen += n + sizeof(tail) - 1;
			t->nlen = oc->name_off;
			t->depth--;
			c->st.calls++;
			return;
		}
		c->olen += n; /* the rest follows through out_of() */
		put_name_cat(c, p, "function");
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
		size_t n = event_head(c, buf, "E", ts, t->h.aux, (uint32_t)t->h.key);

		buf[n] = '}';
		c->olen += n + 1;
	} else {
		begin_event(c, "E", ts, t->h.aux, (uint32_t)t->h.key);
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

int ft_chrome_event(struct ft_chrome *c, const struct ft_xevent *ev)
{
	size_t nl;

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
		} else if (!ev->nargs && ev->name && (!ev->cat || !strcmp(ev->cat, "function")) &&
			   plain_name(c, ev, &nl)) {
			/* a call without arguments: the whole event in one write */
			static const char tail[] = "\",\"cat\":\"function\"}";
			char *buf = ob_room(c);
			size_t n = event_head(c, buf, "B", ev->ts, ev->pid, ev->tid);

			memcpy(buf + n, ",\"name\":\"", 9);
			memcpy(buf + n + 9, ev->name, nl);
			n += 9 + nl;
			memcpy(buf + n, tail, sizeof(tail) - 1);
			c->olen += n + sizeof(tail) - 1;
		} else {
			begin_event(c, "B", ev->ts, ev->pid, ev->tid);
			put_name_cat(c, ev->name, ev->cat ? ev->cat : "function");
			if (ev->nargs) {
				fputs(",\"args\":{", out_of(c));
				put_args_members(c, ev->args, ev->nargs, 0);
				fputc('}', out_of(c));
			}
			fputc('}', out_of(c));
		}
		t->depth++;
		break;
	case FT_XEV_EXIT:
		t = get_thread(c, ev->tid, ev->pid);
		if (!t)
			goto nomem;
		if (!t->depth) {
			c->st.unmatched_exits++;
			break;
		}
		end_call(c, t, ev->ts, ev->args, ev->nargs);
		break;
	case FT_XEV_INSTANT:
		begin_event(c, "i", ev->ts, ev->pid, ev->tid);
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
		begin_event(c, "M", ev->ts, ev->pid, ev->tid);
		fputs(ev->type == FT_XEV_THREAD_NAME
			      ? ",\"name\":\"thread_name\",\"args\":{\"name\":"
			      : ",\"name\":\"process_name\",\"args\":{\"name\":",
		      out_of(c));
		ft_json_str(out_of(c), ev->name);
		fputs("}}", out_of(c));
		break;
	case FT_XEV_LOST:
		begin_event(c, "i", ev->ts, ev->pid, ev->tid);
		fprintf(out_of(c),
			",\"s\":\"%s\",\"name\":\"lost events\",\"cat\":\"ftrail\",\"args\":{\"count\":%" PRIu64
			"}}",
			ev->tid ? "t" : "g", ev->count);
		c->st.lost_markers++;
		c->st.lost_events += ev->count;
		break;
	}
	if (ferror(c->out)) { /* what ob holds is checked when it goes */
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
		}
	}
	ft_htab_free(&c->threads);
	ft_xmemo_free(&c->plain_len);
	free(c);
	return ret;
}
