// SPDX-License-Identifier: GPL-2.0
/*
 * The trace reader's tables (see trace.h for the contract): opening a
 * file; its META, FUNCS, MODULES/SYMTAB, KALLSYMS, TASKS and STACKMAP
 * sections; the index of UDATA (or SNAPSHOT) sections per buffer; names
 * of functions and addresses.  Decoding the buffers is trace.c's.
 *
 * Not thread-safe: one ft_trace per thread.
 */
#include "analysis/trace_int.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/snapshot.h"
#include "core/stackmap.h"
#include "core/tracefile.h"
#include "core/util.h"

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

/* ---- tasks ---- */

void trace_task_set(struct ft_trace *t, uint32_t tid, const char *comm, size_t len)
{
	struct task *s;
	char *c;

	if (!t->tasks.tab && ft_htab_init(&t->tasks, sizeof(struct task)) < 0)
		return;
	c = strndup(comm, len);
	if (!c)
		return;
	/* no control characters in names that end up in text output */
	for (char *p = c; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	s = ft_htab_get(&t->tasks, tid, 1);
	if (!s) {
		free(c);
		return;
	}
	free(s->comm);
	s->comm = c;
	t->names_gen++;
}

void trace_forget_tasks(struct ft_trace *t)
{
	for (size_t i = 0; t->tasks.tab && i < t->tasks.cap; i++) {
		struct task *s = ft_htab_slot(&t->tasks, i);

		if (s)
			free(s->comm);
	}
	ft_htab_clear(&t->tasks);
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

uint64_t ft_trace_names_gen(const struct ft_trace *t)
{
	return t->names_gen;
}

const char *ft_trace_comm(const struct ft_trace *t, uint32_t tid)
{
	const struct task *s = ft_htab_find(&t->tasks, tid);

	return s && s->comm ? s->comm : "<...>";
}

void trace_load_tasks(struct ft_trace *t, const char *text, size_t len)
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
				trace_task_set(t, tid, line + n, strlen(line + n));
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
	if (FT_GROW(s->e, s->cap, s->nr + 1, 256))
		return -1;
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
		/* id and count apart: a huge id must not wrap the sum below MAX_FIDS */
		if (s->raw_size < 4 || (s->raw_size - 4) % 16 || s->id < total ||
		    s->id > MAX_FIDS || (s->raw_size - 4) / 16 > MAX_FIDS - s->id) {
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
			t->funcs[s->id + k].lib = (rd32(p + 4 + k * 16 + 12) >> FT_FUNC_LIB_SHIFT) &
						  FT_FUNC_LIB_MASK;
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

/* One MODULES chunk s; *lines: how many module indexes it covers.  0 or -1. */
static int load_modules_sec(struct ft_trace *t, const struct ft_section *s, size_t *lines,
			    char *err, size_t errlen)
{
	size_t len;
	char *text, *z;
	int r;

	*lines = 0;
	text = ft_reader_load(t->r, s, &len, err, errlen);
	if (!text)
		return -1;
	z = realloc(text, len + 1); /* lines are cut in place */
	if (!z) {
		free(text);
		ft_seterr(err, errlen, "out of memory");
		return -1;
	}
	text = z;
	text[len] = 0;
	for (size_t k = 0; k < len; k++)
		*lines += text[k] == '\n';
	if (len && text[len - 1] != '\n')
		(*lines)++;
	r = load_modules_text(t, text, len, (size_t)s->id, err, errlen);
	free(text);
	return r;
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
		size_t lines;
		int r;

		if (s->type != FT_SEC_MODULES)
			continue;
		if (s->id < next || s->id > UINT32_MAX) {
			ft_seterr(err, errlen, "corrupt MODULES section (module %llu after %llu)",
				  (unsigned long long)s->id, (unsigned long long)next);
			return -1;
		}
		r = load_modules_sec(t, s, &lines, err, errlen);
		if (r < 0)
			return -1;
		next = s->id + lines;
	}
	return 0;
}

/* Free what stack set s holds. */
static void free_stackset(struct stackset *s)
{
	for (size_t i = 0; i < s->nr; i++)
		free(s->e[i].ips);
	free(s->e);
	memset(s, 0, sizeof(*s));
}

/*
 * Stack map m (0 user, 1 kernel): every STACKMAP chunk of it, merged.  On
 * a refresh, a stack known before keeps its addresses where they were: an
 * event decoded ahead (a stream's head) may point to them.  0 or -1.
 */
static int load_stackmap(struct ft_trace *t, int m, char *err, size_t errlen)
{
	struct stackset old = t->maps[m], *nw = &t->maps[m];
	char perr[256];
	size_t len, j = 0;
	char *p;

	memset(nw, 0, sizeof(*nw));
	p = ft_reader_load_fsmb(t->r, (uint64_t)m, &len, err, errlen);
	if (!p) {
		*nw = old;
		return err[0] ? -1 : 0;
	}
	if (ft_fsmb_parse(p, len, stack_cb, nw, perr, sizeof(perr)) < 0) {
		ft_seterr(err, errlen, "corrupt %s STACKMAP section: %s", m ? "kernel" : "user",
			  perr);
		free(p);
		free_stackset(nw);
		*nw = old;
		return -1;
	}
	free(p);
	if (nw->nr > 1)
		qsort(nw->e, nw->nr, sizeof(*nw->e), stack_ent_cmp);
	/* both in id order */
	for (size_t i = 0; i < nw->nr && j < old.nr; i++) {
		struct stack_ent *e = &nw->e[i];

		while (j < old.nr && old.e[j].id < e->id)
			j++;
		if (j < old.nr && old.e[j].id == e->id && old.e[j].nr == e->nr &&
		    !memcmp(old.e[j].ips, e->ips, e->nr * sizeof(*e->ips))) {
			free(e->ips);
			e->ips = old.e[j].ips;
			old.e[j].ips = NULL;
		}
	}
	free_stackset(&old);
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
	p = ft_reader_load_all(t->r, FT_SEC_ARGSPEC, UINT64_MAX, &len, err, errlen);
	if (p) {
		char *z = realloc(p, len + 1);

		if (!z) {
			free(p);
			ft_seterr(err, errlen, "out of memory");
			return -1;
		}
		z[len] = '\0';
		t->argspec = z;
		t->argspec_len = len;
	} else if (err[0]) {
		return -1;
	}
	p = ft_reader_load_all(t->r, FT_SEC_TASKS, UINT64_MAX, &len, err, errlen);
	if (p) {
		/* kept: names are reset to these at each rewind (COMM events rename) */
		t->tasks_text = p;
		t->tasks_len = len;
		trace_load_tasks(t, p, len);
	} else if (err[0]) {
		return -1;
	}
	for (int m = 0; m < 2; m++)
		if (load_stackmap(t, m, err, errlen) < 0)
			return -1;
	return 0;
}

/* What cursor c holds. */
static void free_cursor(struct cursor *c)
{
	free(c->data);
	free(c->prev);
	free(c->frames);
	for (size_t k = 0; k < c->nr_ctxs; k++)
		free(c->ctxs[k].frames);
	free(c->ctxs);
	free(c->scratch[0]);
	free(c->scratch[1]);
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
 * The cursors of the UDATA chunks refs (nr of them, sorted here): one per
 * buffer id, in id order, its chunks in file order (t->sec_idx).  A buffer
 * that had a cursor keeps it, decoding state and all, at its new place:
 * old_to_new (when not NULL) gets each old cursor's new index, or SIZE_MAX
 * for one no chunk names any more (freed).  A new buffer's cursor starts
 * empty.  0, or -1 (out of memory; nothing changed).
 */
static int index_buffers(struct ft_trace *t, struct sec_ref *refs, size_t nr, size_t *old_to_new,
			 char *err, size_t errlen)
{
	size_t *idx = malloc((nr ? nr : 1) * sizeof(*idx)), n = 0, cap = 0, old = 0;
	struct cursor *nc = NULL;

	if (!idx)
		goto oom;
	if (nr > 1)
		qsort(refs, nr, sizeof(*refs), sec_ref_cmp);
	for (size_t i = 0; i < nr; i++) {
		idx[i] = refs[i].idx;
		if (i && refs[i].id == refs[i - 1].id) {
			nc[n - 1].nr_secs++;
			continue;
		}
		if (FT_GROW(nc, cap, n + 1, 16))
			goto oom;
		memset(&nc[n], 0, sizeof(nc[n]));
		nc[n].id = refs[i].id;
		nc[n].last_fid = FT_FID_UNKNOWN;
		nc[n].secs = &idx[i];
		nc[n].nr_secs = 1;
		n++;
	}
	/* both in id order: carry the old cursors' state over */
	for (size_t i = 0; i < n; i++) {
		const size_t *secs = nc[i].secs;
		size_t nsec = nc[i].nr_secs;

		for (; old < t->nr_cursors && t->cursors[old].id < nc[i].id; old++)
			if (old_to_new)
				old_to_new[old] = SIZE_MAX;
		if (old < t->nr_cursors && t->cursors[old].id == nc[i].id) {
			nc[i] = t->cursors[old];
			nc[i].secs = secs;
			nc[i].nr_secs = nsec;
			/* head slots of the streams, which move too (see call_event()) */
			nc[i].lean[0] = nc[i].lean[1] = NULL;
			if (old_to_new)
				old_to_new[old] = i;
			old++;
		}
	}
	for (size_t o = old; o < t->nr_cursors; o++)
		if (old_to_new)
			old_to_new[o] = SIZE_MAX;
	for (size_t o = 0; o < t->nr_cursors; o++)
		if (old_to_new && old_to_new[o] == SIZE_MAX)
			free_cursor(&t->cursors[o]);
	free(t->cursors);
	free(t->sec_idx);
	t->cursors = nc;
	t->nr_cursors = n;
	t->sec_idx = idx;
	return 0;
oom:
	free(idx);
	free(nc);
	ft_seterr(err, errlen, "out of memory");
	return -1;
}

/* One cursor per UDATA id, with its chunks in file order; first page loaded. */
static int load_buffers(struct ft_trace *t, char *err, size_t errlen)
{
	size_t n = ft_reader_nr_sections(t->r), nr = 0;
	struct sec_ref *refs = malloc((n ? n : 1) * sizeof(*refs));

	if (!refs) {
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
	if (index_buffers(t, refs, nr, NULL, err, errlen) < 0) {
		free(refs);
		return -1;
	}
	free(refs);
	for (size_t i = 0; i < t->nr_cursors; i++)
		if (trace_fill_page(t, &t->cursors[i], err, errlen) < 0)
			return -1;
	return 0;
}

int trace_extend(struct ft_trace *t, size_t from, size_t **moved, char *err, size_t errlen)
{
	size_t n = ft_reader_nr_sections(t->r), nr = 0;
	int funcs = 0, udata = 0, maps[2] = { 0, 0 };
	struct sec_ref *refs;

	*moved = NULL;
	for (size_t i = from; i < n; i++) {
		const struct ft_section *s = ft_reader_section(t->r, i);
		size_t len, lines;
		char *p, *all;

		switch (s->type) {
		case FT_SEC_FUNCS:
			funcs = 1;
			break;
		case FT_SEC_MODULES:
			if (load_modules_sec(t, s, &lines, err, errlen) < 0)
				return -1;
			break;
		case FT_SEC_STACKMAP:
			if (s->id < 2)
				maps[s->id] = 1;
			break;
		case FT_SEC_UDATA:
			udata = 1;
			break;
		case FT_SEC_TASKS:
			p = ft_reader_load(t->r, s, &len, err, errlen);
			if (!p)
				return -1;
			/* kept whole: names go back to these at a rewind */
			all = realloc(t->tasks_text, t->tasks_len + len + 1);
			if (!all) {
				free(p);
				ft_seterr(err, errlen, "out of memory");
				return -1;
			}
			memcpy(all + t->tasks_len, p, len);
			t->tasks_text = all;
			t->tasks_len += len;
			trace_load_tasks(t, p, len);
			free(p);
			break;
		default:
			break;
		}
	}
	if (funcs) {
		struct func *old = t->funcs;
		uint32_t nold = t->nr_funcs;

		t->funcs = NULL;
		if (load_funcs(t, err, errlen) < 0) {
			free(t->funcs);
			t->funcs = old;
			t->nr_funcs = nold;
			return -1;
		}
		if (!t->funcs) {
			t->funcs = old;
			t->nr_funcs = nold;
		} else {
			free(old);
		}
		/* the names resolved so far stay; the new fids have none yet */
		for (int k = 0; k < 2; k++) {
			char **c;

			if (!t->names[k] || t->nr_funcs <= nold)
				continue;
			c = realloc(t->names[k], t->nr_funcs * sizeof(*c));
			if (!c) {
				for (uint32_t i = 0; i < nold; i++)
					free(t->names[k][i]);
				free(t->names[k]);
				t->names[k] = NULL; /* made again when a name is asked */
				continue;
			}
			memset(c + nold, 0, (t->nr_funcs - nold) * sizeof(*c));
			t->names[k] = c;
		}
	}
	for (int m = 0; m < 2; m++)
		if (maps[m] && load_stackmap(t, m, err, errlen) < 0)
			return -1;
	if (!udata)
		return 0;
	refs = malloc(n * sizeof(*refs));
	*moved = malloc((t->nr_cursors ? t->nr_cursors : 1) * sizeof(**moved));
	if (!refs || !*moved) {
		free(refs);
		free(*moved);
		*moved = NULL;
		ft_seterr(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const struct ft_section *s = ft_reader_section(t->r, i);

		if (s->type == FT_SEC_UDATA) {
			refs[nr].id = s->id;
			refs[nr].idx = i;
			nr++;
		}
	}
	if (index_buffers(t, refs, nr, *moved, err, errlen) < 0) {
		free(refs);
		free(*moved);
		*moved = NULL;
		return -1;
	}
	free(refs);
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
	if (t->snap_hdr) {
		char v[32], ts[32];

		/* a flight recorder's --last: the window before the snapshot's time */
		if (ft_trace_snapshot_info(t, "last_ns", v, sizeof(v)) &&
		    ft_trace_snapshot_info(t, "swap_ts", ts, sizeof(ts))) {
			uint64_t at = ft_trace_tsc_to_ns(t, strtoull(ts, NULL, 10)),
				 last = strtoull(v, NULL, 10);

			t->snap_since = at > last ? at - last : 0;
		}
	}
	return t;
}

void ft_trace_close(struct ft_trace *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nr_cursors; i++)
		free_cursor(&t->cursors[i]);
	free(t->cursors);
	free(t->sec_idx);
	free(t->snap_hdr);
	for (int m = 0; m < 2; m++)
		free_stackset(&t->maps[m]);
	trace_forget_tasks(t);
	ft_htab_free(&t->tasks);
	free(t->tasks_text);
	free(t->argspec);
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
	return trace_ns(t, ticks);
}

const char *ft_trace_tracer(const struct ft_trace *t)
{
	return t->tracer;
}

const char *ft_trace_argspec(const struct ft_trace *t, size_t *len)
{
	*len = t->argspec_len;
	return t->argspec;
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

const char *ft_trace_func_library(const struct ft_trace *t, uint32_t fid)
{
	if (fid >= t->nr_funcs || !t->funcs[fid].lib)
		return NULL;
	return ft_symbols_module_path(t->syms, t->funcs[fid].lib - 1);
}

const char *ft_trace_func_object(const struct ft_trace *t, uint32_t fid)
{
	const char *lib = ft_trace_func_library(t, fid);

	if (lib || fid >= t->nr_funcs)
		return lib;
	return ft_symbols_module_path(t->syms, t->funcs[fid].module);
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
		/* snprintf("%s")'s result without its format parsing: the exporters
		 * ask for a name per call */
		if (len) {
			size_t n = strnlen(cache[fid], len - 1);

			memcpy(buf, cache[fid], n);
			buf[n] = '\0';
		}
		return buf;
	}
	/* the module FUNCS names: exact even when address spaces overlap (exec) */
	ft_symbols_resolve_module(t->syms, t->funcs[fid].module, t->funcs[fid].addr, sym_offset,
				  buf, len);
	if (cache)
		cache[fid] = strdup(buf);
	return buf;
}
