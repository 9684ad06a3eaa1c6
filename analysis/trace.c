// SPDX-License-Identifier: GPL-2.0
/*
 * The unified trace reader (see trace.h for the contract).
 *
 * Structure: one stream per UDATA buffer (a cursor decoding pages of
 * record.h) plus one per added source; a binary min-heap over the streams'
 * head events gives the time order.  After an event is handed out, its
 * stream is refilled lazily at the next call (or by a peek), so what the
 * event points to stays valid until then: user stream heads alternate
 * between two scratch arrays for inline stacks, and a buffer keeps its
 * previous chunk window when it moves to the next one (see fill_page()).
 *
 * Not thread-safe: one ft_trace per thread.
 */
#include "analysis/trace.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/record.h"
#include "core/snapshot.h"
#include "core/stackmap.h"
#include "core/tracefile.h"
#include "core/util.h"

#define MAX_FRAMES (1u << 20) /* bound on tracked function_graph depth */

struct frame {
	uint32_t fid;
	int known;
	uint64_t ts;
};

/* The open calls of a user context the thread switched away from (FT_EXT_CTXSW). */
struct ctx_stack {
	uint32_t id;
	struct frame *frames;
	size_t nr, cap;
};

#define MAX_CTXS 4096 /* bound on contexts parked per buffer */

/*
 * One user buffer.  Its UDATA chunks are loaded one at a time (memory stays
 * bounded by about two chunks per buffer); a page cut across chunks is
 * joined by fill_page().  data/len is the current window, pos the next page
 * header in it; prev is the window before, kept so events handed out from
 * it stay valid until the following ft_trace_next().
 */
struct cursor {
	uint64_t id;
	unsigned char *data;
	size_t len;
	size_t pos; /* next page header */
	unsigned char *prev;
	const size_t *secs; /* section indexes of this buffer, file order */
	size_t nr_secs, next_sec;
	int in_page;
	size_t rec, page_end;
	struct ft_page hdr;
	uint64_t t; /* running ticks */
	uint32_t last_fid;
	struct frame *frames;
	size_t nr_frames, cap_frames;
	uint32_t unwind_pending;
	uint32_t ctx;              /* the running user context (FT_EXT_CTXSW) */
	struct ctx_stack *ctxs;    /* the parked ones */
	size_t nr_ctxs;
	uint64_t *scratch[2];
	uint32_t scratch_cap[2];
	int which;
	uint64_t seq; /* page count, for messages */
};

struct stream {
	struct cursor *c; /* user buffer, or NULL */
	const struct ft_trace_source *src;
	struct ft_event head;
	int fresh; /* head holds the next event */
	int ended;
	int failed; /* decoding failed: every later refill fails with t->failure */
};

struct stack_ent {
	uint32_t id;
	uint32_t nr;
	uint64_t *ips;
};

struct stackset {
	struct stack_ent *e;
	size_t nr, cap;
};

struct task {
	uint32_t tid;
	char *comm;
};

struct func {
	uint64_t addr;
	uint32_t module;
};

struct ft_trace {
	struct ft_reader *r;
	struct ft_clock clk;
	int have_clock;
	char tracer[32];
	char **warn;
	size_t nr_warn;

	struct func *funcs;
	uint32_t nr_funcs;
	char **names[2]; /* fid -> resolved name, without / with offset (lazy) */
	struct ft_symbols *syms;
	struct stackset maps[2];

	struct task *tasks; /* open addressing on tid, cap power of 2 */
	char *tasks_text;   /* the TASKS section */
	size_t tasks_len;
	size_t nr_tasks, cap_tasks;

	struct cursor *cursors;
	size_t nr_cursors;
	size_t *sec_idx; /* UDATA section indexes grouped by buffer id */
	const struct ft_trace_source **srcs;
	size_t nr_srcs;

	struct stream *streams;
	size_t nr_streams;
	size_t *heap; /* stream indexes */
	size_t heap_n;
	int started;
	int root_stale; /* heap[0] was handed out and needs refill + sift */

	uint64_t decoded, lost;
	int snapshot;    /* --snapshot: a SNAPSHOT's buffers instead of UDATA */
	int snap_which;  /* which one: N >= 1, or 0 for the last */
	char *snap_hdr;  /* that snapshot's header text (NULL: none in the file) */
	char failure[512];
	int failed; /* ft_trace_next failed: it fails from then on (until rewind) */
};

static void add_warning(struct ft_trace *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void add_warning(struct ft_trace *t, const char *fmt, ...)
{
	char buf[512], **n;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	n = realloc(t->warn, (t->nr_warn + 1) * sizeof(*n));
	if (!n)
		return;
	t->warn = n;
	t->warn[t->nr_warn] = strdup(buf);
	if (t->warn[t->nr_warn])
		t->nr_warn++;
}

static uint32_t rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t rd64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* ---- tasks ---- */

static struct task *task_slot(struct ft_trace *t, uint32_t tid)
{
	size_t mask = t->cap_tasks - 1, i = (tid * 2654435761u) & mask;

	while (t->tasks[i].comm && t->tasks[i].tid != tid)
		i = (i + 1) & mask;
	return &t->tasks[i];
}

static void task_set(struct ft_trace *t, uint32_t tid, const char *comm, size_t len)
{
	struct task *s;
	char *c;

	if ((t->nr_tasks + 1) * 2 > t->cap_tasks) {
		size_t ocap = t->cap_tasks, ncap = ocap ? ocap * 2 : 64;
		struct task *old = t->tasks, *n = calloc(ncap, sizeof(*n));

		if (!n)
			return;
		t->tasks = n;
		t->cap_tasks = ncap;
		for (size_t i = 0; i < ocap; i++)
			if (old[i].comm)
				*task_slot(t, old[i].tid) = old[i];
		free(old);
	}
	c = strndup(comm, len);
	if (!c)
		return;
	/* no control characters in names that end up in text output */
	for (char *p = c; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	s = task_slot(t, tid);
	if (s->comm)
		free(s->comm);
	else
		t->nr_tasks++;
	s->tid = tid;
	s->comm = c;
}

size_t ft_trace_nr_threads(const struct ft_trace *t)
{
	size_t n = 0;

	/* a buffer id is one thread life at one nesting level (core/ringbuf.h) */
	for (size_t i = 0; i < t->nr_cursors; i++) {
		size_t j = 0;

		while (j < i && (t->cursors[j].id & ~3ull) != (t->cursors[i].id & ~3ull))
			j++;
		n += j == i;
	}
	return n;
}

const char *ft_trace_comm(const struct ft_trace *t, uint32_t tid)
{
	const struct task *s;

	if (!t->cap_tasks)
		return "<...>";
	s = task_slot((struct ft_trace *)t, tid);
	return s->comm ? s->comm : "<...>";
}

static void load_tasks(struct ft_trace *t, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
		char line[256];
		unsigned int pid, tid;
		int n = 0;
		size_t l = (size_t)(le - p);

		if (l < sizeof(line)) {
			memcpy(line, p, l);
			line[l] = 0;
			if (sscanf(line, "%u %u %n", &pid, &tid, &n) == 2 && n > 0 && line[n])
				task_set(t, tid, line + n, strlen(line + n));
		}
		p = le + 1;
	}
}

/* ---- stacks ---- */

static int stack_cb(uint32_t id, const uint64_t *ips, uint32_t nr, uint32_t ref, void *arg)
{
	struct stackset *s = arg;
	uint64_t *copy;

	(void)ref;
	if (s->nr == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 256;
		struct stack_ent *n = realloc(s->e, ncap * sizeof(*n));

		if (!n)
			return -1;
		s->e = n;
		s->cap = ncap;
	}
	copy = malloc((nr ? nr : 1) * sizeof(*copy));
	if (!copy)
		return -1;
	memcpy(copy, ips, nr * sizeof(*copy));
	s->e[s->nr].id = id;
	s->e[s->nr].nr = nr;
	s->e[s->nr].ips = copy;
	s->nr++;
	return 0;
}

static int stack_ent_cmp(const void *a, const void *b)
{
	const struct stack_ent *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

int ft_trace_stack(const struct ft_trace *t, int map, uint32_t id, const uint64_t **ips,
		   uint32_t *nr)
{
	const struct stackset *s;
	size_t lo = 0, hi;

	if (map < 0 || map > 1)
		return -1;
	s = &t->maps[map];
	hi = s->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->e[mid].id == id) {
			*ips = s->e[mid].ips;
			*nr = s->e[mid].nr;
			return 0;
		}
		if (s->e[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* ---- tables ---- */

static const char *meta_get(void *arg, const char *key)
{
	return ft_reader_meta(arg, key);
}

/* Most fids a trace may name (a hostile FUNCS id must not size the table). */
#define MAX_FIDS (1u << 24)

/*
 * FUNCS chunks: each is "u32 count, count entries" for the fids from its
 * section id on, written as the program registered them (tracefile.h).
 * Chunks come in fid order; a gap (a chunk dropped as corrupt) leaves those
 * fids without an address.
 */
static int load_funcs(struct ft_trace *t, char *err, size_t errlen)
{
	size_t nsec = ft_reader_nr_sections(t->r);
	uint64_t total = 0;

	/* first pass: the table's size */
	for (size_t i = 0; i < nsec; i++) {
		const struct ft_section *s = ft_reader_section(t->r, i);

		if (s->type != FT_SEC_FUNCS)
			continue;
		if (s->raw_size < 4 || (s->raw_size - 4) % 16 || s->id < total ||
		    s->id + (s->raw_size - 4) / 16 > MAX_FIDS) {
			ft_seterr(err, errlen, "corrupt FUNCS section (fid %llu, %llu bytes)",
				  (unsigned long long)s->id, (unsigned long long)s->raw_size);
			return -1;
		}
		total = s->id + (s->raw_size - 4) / 16;
	}
	if (!total)
		return 0;
	t->funcs = calloc(total, sizeof(*t->funcs));
	if (!t->funcs) {
		ft_seterr(err, errlen, "out of memory");
		return -1;
	}
	t->nr_funcs = (uint32_t)total;
	for (size_t i = 0; i < nsec; i++) {
		const struct ft_section *s = ft_reader_section(t->r, i);
		unsigned char *p;
		size_t len;
		uint32_t n;

		if (s->type != FT_SEC_FUNCS)
			continue;
		p = ft_reader_load(t->r, s, &len, err, errlen);
		if (!p)
			return -1;
		if (len < 4 || (n = rd32(p)) != (len - 4) / 16 || len != 4 + (size_t)n * 16) {
			ft_seterr(err, errlen, "corrupt FUNCS section (%zu bytes)", len);
			free(p);
			return -1;
		}
		for (uint32_t k = 0; k < n; k++) {
			t->funcs[s->id + k].addr = rd64(p + 4 + k * 16);
			t->funcs[s->id + k].module = rd32(p + 4 + k * 16 + 8);
		}
		free(p);
	}
	return 0;
}

/* MODULES lines and their SYMTABs (or the local ELF when the build id matches). */
static int load_modules_text(struct ft_trace *t, char *text, size_t len, size_t idx, char *err,
			     size_t errlen)
{
	char *p, *end;

	for (p = text, end = text + len; p < end; idx++) {
		char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
		unsigned long long start, mend, off;
		char bid[128], *path;
		struct ft_symtab *st = NULL;
		unsigned int pid;
		size_t slen;
		void *sp;
		int n = 0;

		*le = 0;
		if (sscanf(p, "%u %llx %llx %llx %127s %n", &pid, &start, &mend, &off, bid, &n) !=
			5 ||
		    n <= 0 || mend < start || off > start) {
			ft_seterr(err, errlen, "corrupt MODULES line %zu", idx + 1);
			return -1;
		}
		path = p + n;
		sp = ft_reader_load_all(t->r, FT_SEC_SYMTAB, idx, &slen, err, errlen);
		if (sp) {
			st = ft_symtab_decode(sp, slen, err, errlen);
			free(sp);
			if (!st) {
				char e2[256];

				snprintf(e2, sizeof(e2), "module %zu (%s): %s", idx, path, err);
				ft_seterr(err, errlen, "%s", e2);
				return -1;
			}
		} else if (err[0]) {
			return -1;
		} else if (*path == '/') {
			char lbid[128];
			struct ft_symtab *local =
			    ft_symtab_from_elf(path, lbid, sizeof(lbid), NULL, 0);

			if (local && (!strcmp(bid, "-") || !strcmp(bid, lbid)))
				st = local;
			else
				ft_symtab_free(local);
		}
		if (ft_symbols_add_module_pid(t->syms, pid, start, mend, start - off, path, st) <
		    0) {
			ft_seterr(err, errlen, "out of memory");
			return -1;
		}
		p = le + 1;
	}
	return 0;
}

/*
 * MODULES chunks: lines for the module indexes from the section id on
 * (tracefile.h), in order; a gap (a chunk dropped as corrupt) leaves those
 * modules unknown rather than shifting the others.
 */
static int load_modules(struct ft_trace *t, char *err, size_t errlen)
{
	size_t nsec = ft_reader_nr_sections(t->r);
	uint64_t next = 0;

	for (size_t i = 0; i < nsec; i++) {
		const struct ft_section *s = ft_reader_section(t->r, i);
		size_t len, lines = 0;
		char *text;
		int r;

		if (s->type != FT_SEC_MODULES)
			continue;
		if (s->id < next || s->id > UINT32_MAX) {
			ft_seterr(err, errlen, "corrupt MODULES section (module %llu after %llu)",
				  (unsigned long long)s->id, (unsigned long long)next);
			return -1;
		}
		text = ft_reader_load(t->r, s, &len, err, errlen);
		if (!text)
			return -1;
		{
			char *z = realloc(text, len + 1); /* lines are cut in place */

			if (!z) {
				free(text);
				ft_seterr(err, errlen, "out of memory");
				return -1;
			}
			text = z;
			text[len] = 0;
		}
		for (size_t k = 0; k < len; k++)
			lines += text[k] == '\n';
		if (len && text[len - 1] != '\n')
			lines++;
		r = load_modules_text(t, text, len, (size_t)s->id, err, errlen);
		free(text);
		if (r < 0)
			return -1;
		next = s->id + lines;
	}
	return 0;
}

static int load_tables(struct ft_trace *t, char *err, size_t errlen)
{
	const char *tr;
	size_t len;
	char *p;

	if (ft_clock_from_meta(&t->clk, meta_get, t->r) == 0) {
		t->have_clock = 1;
	} else {
		t->clk.mult = 1;
		t->clk.shift = 0;
		add_warning(t, "no clock in META: timestamps taken as nanoseconds");
	}
	tr = ft_reader_meta(t->r, "tracer");
	if (tr)
		snprintf(t->tracer, sizeof(t->tracer), "%s", tr);
	if (load_funcs(t, err, errlen) < 0)
		return -1;
	t->syms = ft_symbols_new();
	if (!t->syms) {
		ft_seterr(err, errlen, "out of memory");
		return -1;
	}
	if (load_modules(t, err, errlen) < 0)
		return -1;
	p = ft_reader_load_all(t->r, FT_SEC_KALLSYMS, UINT64_MAX, &len, err, errlen);
	if (p) {
		struct ft_symtab *k = ft_kallsyms_parse(p, len, err, errlen);

		free(p);
		if (!k)
			return -1;
		ft_symbols_set_kernel(t->syms, k);
	} else if (err[0]) {
		return -1;
	}
	p = ft_reader_load_all(t->r, FT_SEC_TASKS, UINT64_MAX, &len, err, errlen);
	if (p) {
		/* kept: names are reset to these at each rewind (COMM events rename) */
		t->tasks_text = p;
		t->tasks_len = len;
		load_tasks(t, p, len);
	} else if (err[0]) {
		return -1;
	}
	for (int m = 0; m < 2; m++) {
		char perr[256];

		p = ft_reader_load_fsmb(t->r, (uint64_t)m, &len, err, errlen);
		if (!p) {
			if (err[0])
				return -1;
			continue;
		}
		if (ft_fsmb_parse(p, len, stack_cb, &t->maps[m], perr, sizeof(perr)) < 0) {
			ft_seterr(err, errlen, "corrupt %s STACKMAP section: %s",
			       m ? "kernel" : "user", perr);
			free(p);
			return -1;
		}
		free(p);
		if (t->maps[m].nr > 1)
			qsort(t->maps[m].e, t->maps[m].nr, sizeof(*t->maps[m].e), stack_ent_cmp);
	}
	return 0;
}

struct sec_ref {
	uint64_t id;
	size_t idx;
};

static int sec_ref_cmp(const void *a, const void *b)
{
	const struct sec_ref *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/*
 * Make sure a whole page starts at c->pos: when the window holds less than
 * a page header, or less than the page it announces, join the rest of the
 * window with the following chunks (as many as the page needs) into a new
 * window.  The window switches at most once per call.  Returns 0 (also
 * when the chunks run out: decoding then reports the cut page), or -1 with
 * err on a section that does not load.
 */
static int fill_page(struct ft_trace *t, struct cursor *c, char *err, size_t errlen)
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
	nb = malloc(have ? have : 1);
	if (!nb) {
		ft_seterr(err, errlen, "out of memory");
		return -1;
	}
	if (have)
		memcpy(nb, c->data + c->pos, have);
	nlen = have;
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
	free(c->prev);
	c->prev = c->data;
	c->data = nb;
	c->len = nlen;
	c->pos = 0;
	return 0;
}

/* One cursor per UDATA id, with its chunks in file order; first page loaded. */
static int load_buffers(struct ft_trace *t, char *err, size_t errlen)
{
	size_t n = ft_reader_nr_sections(t->r), nr = 0;
	struct sec_ref *refs = malloc((n ? n : 1) * sizeof(*refs));
	size_t *idx = malloc((n ? n : 1) * sizeof(*idx));

	t->sec_idx = idx;
	if (!refs || !idx) {
		free(refs);
		ft_seterr(err, errlen, "out of memory");
		return -1;
	}
	size_t from = 0, to = n;
	int nth = 0;

	/* snapshot: the sections after the chosen snapshot header (snapshot.h) */
	for (size_t i = 0; t->snapshot && i < n; i++) {
		const struct ft_section *s = ft_reader_section(t->r, i);

		if (s->type == FT_SEC_SNAPSHOT && s->id == FT_SNAP_HDR_ID) {
			if (t->snap_which && nth == t->snap_which) {
				to = i; /* the next header ends the chosen one */
				break;
			}
			nth++;
			if (t->snap_which && nth != t->snap_which)
				continue;
			size_t l;
			char *h = ft_reader_load(t->r, s, &l, err, errlen), *z;

			if (!h || !(z = realloc(h, l + 1))) {
				free(h);
				free(refs);
				return -1;
			}
			z[l] = 0;
			free(t->snap_hdr);
			t->snap_hdr = z;
			from = i + 1;
		}
	}
	if (t->snapshot && !t->snap_hdr)
		from = n; /* no snapshot was ever saved (or not that many) */
	for (size_t i = from; i < to; i++) {
		const struct ft_section *s = ft_reader_section(t->r, i);

		if (t->snapshot ? s->type == FT_SEC_SNAPSHOT && s->id != FT_SNAP_HDR_ID
				: s->type == FT_SEC_UDATA) {
			refs[nr].id = s->id;
			refs[nr].idx = i;
			nr++;
		}
	}
	if (nr > 1)
		qsort(refs, nr, sizeof(*refs), sec_ref_cmp);
	for (size_t i = 0; i < nr; i++) {
		idx[i] = refs[i].idx;
		if (i && refs[i].id == refs[i - 1].id) {
			t->cursors[t->nr_cursors - 1].nr_secs++;
			continue;
		}
		if (!t->nr_cursors || (t->nr_cursors & (t->nr_cursors - 1)) == 0) {
			size_t ncap = t->nr_cursors ? t->nr_cursors * 2 : 16;
			struct cursor *c = realloc(t->cursors, ncap * sizeof(*c));

			if (!c) {
				free(refs);
				ft_seterr(err, errlen, "out of memory");
				return -1;
			}
			t->cursors = c;
		}
		memset(&t->cursors[t->nr_cursors], 0, sizeof(struct cursor));
		t->cursors[t->nr_cursors].id = refs[i].id;
		t->cursors[t->nr_cursors].secs = &idx[i];
		t->cursors[t->nr_cursors].nr_secs = 1;
		t->nr_cursors++;
	}
	free(refs);
	for (size_t i = 0; i < t->nr_cursors; i++)
		if (fill_page(t, &t->cursors[i], err, errlen) < 0)
			return -1;
	return 0;
}

/* Guess the tracer from the first record kinds when META does not say it. */
static void guess_tracer(struct ft_trace *t)
{
	int entry = 0, func = 0;

	if (t->tracer[0])
		return;
	for (size_t i = 0; i < t->nr_cursors; i++) {
		const struct cursor *c = &t->cursors[i];
		struct ft_page h;
		size_t end;

		if (c->len < sizeof(h))
			continue;
		memcpy(&h, c->data, sizeof(h));
		end = sizeof(h) + (h.size < c->len - sizeof(h) ? h.size : c->len - sizeof(h));
		for (size_t p = sizeof(h); p + 4 <= end && p < 4096;) {
			uint32_t w = rd32(c->data + p);

			if (ft_rec_kind(w) == FT_REC_ENTRY || ft_rec_kind(w) == FT_REC_EXIT)
				entry = 1;
			if (ft_rec_kind(w) == FT_REC_FUNC)
				func = 1;
			p += 4 * (ft_rec_kind(w) == FT_REC_EXT	  ? 1 + (size_t)ft_ext_words(w)
				  : ft_rec_kind(w) == FT_REC_FUNC ? 2
								  : 1);
		}
	}
	snprintf(t->tracer, sizeof(t->tracer), "%s",
		 entry	? "function_graph"
		 : func ? "function"
			: "nop");
}

static struct ft_trace *open_trace(const char *path, int snapshot, char *err, size_t errlen);

struct ft_trace *ft_trace_open(const char *path, char *err, size_t errlen)
{
	return open_trace(path, 0, err, errlen);
}

struct ft_trace *ft_trace_open_snapshot(const char *path, int which, char *err, size_t errlen)
{
	return open_trace(path, which < 0 ? 1 : which + 1, err, errlen);
}

const char *ft_trace_snapshot_info(struct ft_trace *t, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key);

	for (const char *p = t->snap_hdr; p && *p;) {
		const char *e = strchr(p, '\n');
		size_t ll = e ? (size_t)(e - p) : strlen(p);

		if (ll > kl && p[kl] == '=' && !strncmp(p, key, kl)) {
			snprintf(buf, len, "%.*s", (int)(ll - kl - 1), p + kl + 1);
			return buf;
		}
		p += ll + (e ? 1 : 0);
	}
	return NULL;
}

static struct ft_trace *open_trace(const char *path, int snapshot, char *err, size_t errlen)
{
	struct ft_trace *t = calloc(1, sizeof(*t));

	if (err && errlen)
		err[0] = 0;
	if (!t) {
		ft_seterr(err, errlen, "out of memory");
		return NULL;
	}
	t->snapshot = snapshot != 0;
	t->snap_which = snapshot > 1 ? snapshot - 1 : 0;
	t->r = ft_reader_open(path, err, errlen);
	if (!t->r) {
		free(t);
		return NULL;
	}
	/* cut short, corrupt sections left out */
	for (size_t i = 0; i < ft_reader_nr_warnings(t->r); i++)
		add_warning(t, "%s", ft_reader_warning(t->r, i));
	if (load_tables(t, err, errlen) < 0 || load_buffers(t, err, errlen) < 0) {
		char e2[512];

		/* the file layer's messages already name the file */
		if (err && strncmp(err, path, strlen(path))) {
			snprintf(e2, sizeof(e2), "%s: %s", path, err);
			ft_seterr(err, errlen, "%s", e2);
		}
		ft_trace_close(t);
		return NULL;
	}
	guess_tracer(t);
	return t;
}

void ft_trace_close(struct ft_trace *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nr_cursors; i++) {
		free(t->cursors[i].data);
		free(t->cursors[i].prev);
		free(t->cursors[i].frames);
		for (size_t k = 0; k < t->cursors[i].nr_ctxs; k++)
			free(t->cursors[i].ctxs[k].frames);
		free(t->cursors[i].ctxs);
		free(t->cursors[i].scratch[0]);
		free(t->cursors[i].scratch[1]);
	}
	free(t->cursors);
	free(t->sec_idx);
	free(t->snap_hdr);
	for (int m = 0; m < 2; m++) {
		for (size_t i = 0; i < t->maps[m].nr; i++)
			free(t->maps[m].e[i].ips);
		free(t->maps[m].e);
	}
	for (size_t i = 0; i < t->cap_tasks; i++)
		free(t->tasks[i].comm);
	free(t->tasks);
	free(t->tasks_text);
	for (size_t i = 0; i < t->nr_warn; i++)
		free(t->warn[i]);
	free(t->warn);
	free(t->srcs);
	free(t->streams);
	free(t->heap);
	for (int k = 0; k < 2; k++) {
		for (uint32_t i = 0; t->names[k] && i < t->nr_funcs; i++)
			free(t->names[k][i]);
		free(t->names[k]);
	}
	free(t->funcs);
	ft_symbols_free(t->syms);
	ft_reader_close(t->r);
	free(t);
}

size_t ft_trace_nr_warnings(const struct ft_trace *t)
{
	return t->nr_warn;
}

const char *ft_trace_warning(const struct ft_trace *t, size_t i)
{
	return i < t->nr_warn ? t->warn[i] : NULL;
}

struct ft_reader *ft_trace_reader(struct ft_trace *t)
{
	return t->r;
}

const char *ft_trace_meta(struct ft_trace *t, const char *key)
{
	return ft_reader_meta(t->r, key);
}

uint64_t ft_trace_tsc_to_ns(const struct ft_trace *t, uint64_t ticks)
{
	if (!t->have_clock)
		return ticks;
	return ft_clock_ns(&t->clk, ticks);
}

const char *ft_trace_tracer(const struct ft_trace *t)
{
	return t->tracer;
}

uint32_t ft_trace_nr_funcs(const struct ft_trace *t)
{
	return t->nr_funcs;
}

uint64_t ft_trace_func_addr(const struct ft_trace *t, uint32_t fid)
{
	return fid < t->nr_funcs ? t->funcs[fid].addr : 0;
}

const struct ft_symbols *ft_trace_symbols(const struct ft_trace *t)
{
	return t->syms;
}

const char *ft_trace_addr_name(const struct ft_trace *t, uint64_t addr, int sym_offset, char *buf,
			       size_t len)
{
	ft_symbols_resolve(t->syms, addr, sym_offset, buf, len);
	return buf;
}

const char *ft_trace_addr_name_pid(const struct ft_trace *t, uint32_t pid, uint64_t addr,
				   int sym_offset, char *buf, size_t len)
{
	ft_symbols_resolve_pid(t->syms, pid, addr, sym_offset, buf, len);
	return buf;
}

const char *ft_trace_func_name(const struct ft_trace *t, uint32_t fid, int sym_offset, char *buf,
			       size_t len)
{
	struct ft_trace *mt = (struct ft_trace *)t;
	char **cache;
	int k = sym_offset ? 1 : 0;

	if (fid >= t->nr_funcs) {
		if (fid == FT_FID_UNKNOWN)
			snprintf(buf, len, "?");
		else
			snprintf(buf, len, "fid#%u", fid);
		return buf;
	}
	/* names are resolved once per fid (a trace names few functions often) */
	if (!mt->names[k])
		mt->names[k] = calloc(t->nr_funcs, sizeof(char *));
	cache = mt->names[k];
	if (cache && cache[fid]) {
		snprintf(buf, len, "%s", cache[fid]);
		return buf;
	}
	/* the module FUNCS names: exact even when address spaces overlap (exec) */
	ft_symbols_resolve_module(t->syms, t->funcs[fid].module, t->funcs[fid].addr, sym_offset,
				  buf, len);
	if (cache)
		cache[fid] = strdup(buf);
	return buf;
}

/* ---- decoding ---- */

static int push_frame(struct cursor *c, uint32_t fid, int known, uint64_t ts)
{
	if (c->nr_frames == c->cap_frames) {
		size_t ncap = c->cap_frames ? c->cap_frames * 2 : 64;
		struct frame *n;

		if (ncap > MAX_FRAMES)
			return -1;
		n = realloc(c->frames, ncap * sizeof(*n));
		if (!n)
			return -1;
		c->frames = n;
		c->cap_frames = ncap;
	}
	c->frames[c->nr_frames].fid = fid;
	c->frames[c->nr_frames].known = known;
	c->frames[c->nr_frames].ts = ts;
	c->nr_frames++;
	return 0;
}

static void base_event(struct ft_trace *t, struct cursor *c, struct ft_event *ev,
		       enum ft_ev_type type)
{
	memset(ev, 0, sizeof(*ev));
	ev->type = type;
	ev->ts = ft_trace_tsc_to_ns(t, c->t);
	ev->pid = c->hdr.pid;
	ev->tid = c->hdr.tid;
	ev->cpu = -1;
	ev->level = c->hdr.level;
	ev->buffer = c->id;
	ev->depth = (int)c->nr_frames;
	ev->parent_fid = FT_FID_UNKNOWN;
	ev->stack_id = -1;
}

static void make_exit(struct ft_trace *t, struct cursor *c, struct ft_event *ev)
{
	base_event(t, c, ev, FT_EV_EXIT);
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

static void make_entry(struct ft_trace *t, struct cursor *c, struct ft_event *ev, uint32_t fid)
{
	base_event(t, c, ev, FT_EV_ENTRY);
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

/* Bring the tracked depth to the page's (frames lost with dropped pages). */
static int resync_depth(struct cursor *c)
{
	if (c->nr_frames > c->hdr.depth)
		c->nr_frames = c->hdr.depth;
	while (c->nr_frames < c->hdr.depth)
		if (push_frame(c, FT_FID_UNKNOWN, 0, 0) < 0)
			return -1;
	return 0;
}

#define CORRUPT(fmt, ...)                                                                          \
	do {                                                                                       \
		ft_seterr(err, errlen, "buffer %llu, page %llu (offset %zu): " fmt,                   \
		       (unsigned long long)c->id, (unsigned long long)c->seq, c->rec,              \
		       ##__VA_ARGS__);                                                             \
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
			if (fill_page(t, c, err, errlen) < 0)
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
			return 1;
		case FT_REC_EXIT:
			c->t += ft_rec_xdelta(w);
			c->rec += 4;
			make_exit(t, c, ev);
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
			return 1;
		case FT_EXT_EXIT_LONG:
			NEED(2);
			c->t += rd64(p);
			make_exit(t, c, ev);
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
		case FT_EXT_EXEC:
			base_event(t, c, ev,
				   type == FT_EXT_MARKER      ? FT_EV_MARKER
				   : type == FT_EXT_BINMARKER ? FT_EV_BINMARKER
				   : type == FT_EXT_COMM      ? FT_EV_COMM
							      : FT_EV_EXEC);
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
		case FT_EXT_FORK:
		case FT_EXT_EXIT:
		case FT_EXT_SIGNAL:
			NEED(1);
			base_event(t, c, ev,
				   type == FT_EXT_FORK	 ? FT_EV_FORK
				   : type == FT_EXT_EXIT ? FT_EV_TEXIT
							 : FT_EV_SIGNAL);
			ev->count =
			    type == FT_EXT_EXIT ? (uint64_t)(int64_t)(int32_t)rd32(p) : rd32(p);
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
			c->unwind_pending =
			    rd32(p) < c->nr_frames ? rd32(p) : (uint32_t)c->nr_frames;
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

/* ---- merging ---- */

static int stream_less(const struct ft_trace *t, size_t a, size_t b)
{
	const struct stream *x = &t->streams[a], *y = &t->streams[b];

	if (x->head.ts != y->head.ts)
		return x->head.ts < y->head.ts;
	return a < b;
}

static void sift_down(struct ft_trace *t, size_t i)
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

/* Refill stream s's head.  1, 0 (ended) or -1. */
static int refill(struct ft_trace *t, struct stream *s, char *err, size_t errlen)
{
	int ret;

	if (s->failed) {
		ft_seterr(err, errlen, "%s", t->failure);
		return -1;
	}
	if (s->ended)
		return 0;
	if (s->c) {
		ret = decode_next(t, s->c, &s->head, err, errlen);
	} else {
		memset(&s->head, 0, sizeof(s->head));
		ret = s->src->next(s->src->arg, &s->head, err, errlen);
		s->head.type = FT_EV_SOURCE;
		s->head.src = s->src;
		s->head.buffer = UINT64_MAX;
	}
	if (ret < 0) {
		s->failed = 1;
		snprintf(t->failure, sizeof(t->failure), "%s", err ? err : "corrupt record");
	}
	if (ret <= 0) {
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
	t->failed = 0;
	if (t->started && t->tasks_text) {
		/* forget renames seen by the previous pass */
		for (size_t i = 0; i < t->cap_tasks; i++) {
			free(t->tasks[i].comm);
			t->tasks[i].comm = NULL;
		}
		t->nr_tasks = 0;
		load_tasks(t, t->tasks_text, t->tasks_len);
	}
	t->decoded = t->lost = 0;
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

int ft_trace_next(struct ft_trace *t, struct ft_event *ev, char *err, size_t errlen)
{
	struct stream *s;

	if (err && errlen)
		err[0] = 0;
	if (t->failed) {
		ft_seterr(err, errlen, "%s", t->failure);
		return -1;
	}
	if (!t->started && start(t, err, errlen) < 0)
		goto fail;
	if (t->root_stale) {
		int ret;

		t->root_stale = 0;
		s = &t->streams[t->heap[0]];
		ret = s->fresh ? 1 : refill(t, s, err, errlen);
		if (ret < 0)
			goto fail;
		if (!ret)
			t->heap[0] = t->heap[--t->heap_n];
		sift_down(t, 0);
	}
	if (!t->heap_n)
		return 0;
	s = &t->streams[t->heap[0]];
	*ev = s->head;
	s->fresh = 0;
	t->root_stale = 1;
	if (ev->type == FT_EV_COMM)
		task_set(t, ev->tid, ev->data, strnlen(ev->data, ev->len));
	return 1;
fail:
	/* a corrupt stream stays failed: the merge order past it is unknown */
	t->failed = 1;
	if (err && err[0])
		snprintf(t->failure, sizeof(t->failure), "%s", err);
	return -1;
}

int ft_trace_peek_buffer(struct ft_trace *t, const struct ft_event *ev, struct ft_event *next)
{
	size_t lo = 0, hi = t->nr_cursors;
	struct stream *s;
	char err[256];

	if (ev->buffer == UINT64_MAX || !t->started)
		return 0;
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
	*next = s->head;
	return 1;
}

uint64_t ft_trace_nr_decoded(const struct ft_trace *t)
{
	return t->decoded;
}

uint64_t ft_trace_nr_lost(const struct ft_trace *t)
{
	return t->lost;
}
