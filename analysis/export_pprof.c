// SPDX-License-Identifier: GPL-2.0
#include "analysis/export_pprof.h"

#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdw.h>

#include "analysis/kevents.h"
#include "analysis/offcpu.h"
#include "analysis/offcpu_file.h"
#include "analysis/pprof.h"
#include "analysis/trace.h"
#include "core/hash.h"
#include "core/hashtab.h"
#include "core/symbols.h"
#include "core/tracefile.h"
#include "core/util.h"

#define KERNEL_MAPPING "[kernel.kallsyms]"

/* One MODULES line, with its pprof mapping and DWARF made on first use. */
struct xmod {
	uint32_t pid;
	uint64_t start, end, off;
	char *bid; /* NULL when "-" */
	char *path;
	uint64_t map_id;
	int dw_tried;
	int fd;
	Elf *elf;
	Dwarf *dw;
	uint64_t bias; /* ELF vaddr = module offset + bias */
};

struct xloc {
	struct ft_hentry h; /* key: address ^ kind */
	uint64_t id;
};

struct ctx {
	struct ft_pprof *p;
	struct ft_trace *t;
	struct ft_kevents *k;
	struct ft_offcpu_file *of;
	struct xmod *mods;
	size_t nmods;
	uint64_t kmap;	     /* the kernel's mapping id, 0 until needed */
	struct ft_htab locs; /* struct xloc: address -> location id */
	char *err;
	size_t errlen;
};

/* The module holding ip, preferring process pid's (0: any). */
static struct xmod *find_mod(struct ctx *c, uint32_t pid, uint64_t ip)
{
	struct xmod *any = NULL;

	for (size_t i = c->nmods; i-- > 0;) {
		struct xmod *m = &c->mods[i];

		if (ip < m->start || ip >= m->end)
			continue;
		if (!pid || m->pid == pid)
			return m;
		if (!any)
			any = m;
	}
	return any;
}

/*
 * DWARF of the module's file, when it is on this machine with the build id
 * the trace recorded (a rebuilt binary's lines would be wrong).
 */
static Dwarf *mod_dwarf(struct xmod *m)
{
	char bid[128];
	size_t nph;

	if (m->dw_tried)
		return m->dw;
	m->dw_tried = 1;
	if (m->path[0] != '/' ||
	    (m->bid && (ft_elf_build_id(m->path, bid, sizeof(bid)) || strcmp(bid, m->bid))))
		return NULL;
	m->elf = ft_elf_open(m->path, &m->fd, NULL, 0);
	if (!m->elf)
		return NULL;
	if (!elf_getphdrnum(m->elf, &nph)) {
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(m->elf, (int)i, &ph) && ph.p_type == PT_LOAD) {
				m->bias = ph.p_vaddr - ph.p_offset;
				break;
			}
		}
	}
	m->dw = dwarf_begin_elf(m->elf, DWARF_C_READ, NULL);
	return m->dw;
}

/* File and line of ip in m's DWARF: 0, or -1 when unknown. */
static int src_line(struct xmod *m, uint64_t ip, const char **file, int *line)
{
	Dwarf *dw = m ? mod_dwarf(m) : NULL;
	uint64_t vaddr;
	Dwarf_Die cu;
	Dwarf_Line *l;

	if (!dw)
		return -1;
	vaddr = ip - (m->start - m->off) + m->bias;
	if (!dwarf_addrdie(dw, vaddr, &cu))
		return -1;
	l = dwarf_getsrc_die(&cu, vaddr);
	if (!l || dwarf_lineno(l, line))
		return -1;
	*file = dwarf_linesrc(l, NULL, NULL);
	return *file ? 0 : -1;
}

static uint64_t mod_mapping(struct ctx *c, struct xmod *m)
{
	if (!m->map_id)
		m->map_id = ft_pprof_mapping(c->p, m->start, m->end, m->off, m->path, m->bid,
					     mod_dwarf(m) != NULL);
	return m->map_id;
}

static void load_modules(struct ctx *c, struct ft_reader *r)
{
	char lerr[256] = "", *text, *p, *end;
	size_t len;

	text = ft_reader_load_all(r, FT_SEC_MODULES, UINT64_MAX, &len, lerr, sizeof(lerr));
	if (!text)
		return; /* no modules: addresses only (the readers reported corruption) */
	for (p = text, end = text + len; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
		unsigned long long start, mend, off;
		char bid[128];
		unsigned int pid;
		int n = 0;
		struct xmod *m;

		*le = 0;
		if (sscanf(p, "%u %llx %llx %llx %127s %n", &pid, &start, &mend, &off, bid, &n) ==
			    5 &&
		    n > 0 && mend >= start && off <= start) {
			m = realloc(c->mods, (c->nmods + 1) * sizeof(*m));
			if (!m)
				break;
			c->mods = m;
			m = &c->mods[c->nmods];
			memset(m, 0, sizeof(*m));
			m->pid = pid;
			m->start = start;
			m->end = mend;
			m->off = off;
			m->fd = -1;
			m->bid = strcmp(bid, "-") ? strdup(bid) : NULL;
			m->path = strdup(p + n);
			if (m->path)
				c->nmods++;
			else
				free(m->bid);
		}
		p = le + 1;
	}
	free(text);
	/* pprof takes mapping 1 for the main program: the first object recorded */
	if (c->nmods)
		mod_mapping(c, &c->mods[0]);
}

/*
 * The location of a user address: function named by name (or resolved),
 * starting at fstart (0: unknown); lookup: the address whose line to give
 * (a return address minus one for callers' frames).
 */
/*
 * A library call's location (fid a PLT import): in its library's mapping,
 * at no address (the trace has the import's, in the caller's object, not
 * the function's in the library), so pprof names the library; 0 when fid
 * is not a library call or its library is not among pid's modules.
 */
static uint64_t lib_loc(struct ctx *c, uint32_t pid, uint32_t fid, const char *name)
{
	const char *lib = ft_trace_func_library(c->t, fid);
	struct xmod *any = NULL;

	if (!lib)
		return 0;
	for (size_t i = c->nmods; i-- > 0;) {
		struct xmod *m = &c->mods[i];

		if (strcmp(m->path, lib))
			continue;
		if (m->pid == pid) {
			any = m;
			break;
		}
		if (!any)
			any = m;
	}
	if (!any)
		return 0;
	return ft_pprof_location(c->p, mod_mapping(c, any), 0,
				 ft_pprof_function(c->p, name, NULL, 0), 0);
}

static uint64_t user_loc(struct ctx *c, uint32_t pid, uint64_t ip, uint64_t lookup,
			 const char *name, uint64_t fstart)
{
	struct xmod *m = find_mod(c, pid, ip);
	const char *file = NULL, *ffile = NULL;
	int line = 0, fline = 0;
	uint64_t fn;

	if (m && src_line(m, lookup, &file, &line))
		file = NULL, line = 0;
	if (m && fstart && src_line(m, fstart, &ffile, &fline))
		ffile = NULL, fline = 0;
	fn = ft_pprof_function(c->p, name, ffile ? ffile : file, fline);
	return ft_pprof_location(c->p, m ? mod_mapping(c, m) : 0, ip, fn, line);
}

static uint64_t kernel_loc(struct ctx *c, uint64_t ip, const char *name)
{
	if (!c->kmap)
		c->kmap = ft_pprof_mapping(c->p, 0, UINT64_MAX, 0, KERNEL_MAPPING, NULL, 0);
	return ft_pprof_location(c->p, c->kmap, ip, ft_pprof_function(c->p, name, NULL, 0), 0);
}

/* Location of frame ip of a stack (leaf: not a return address), cached. */
static uint64_t frame_loc(struct ctx *c, char kind, uint32_t pid, uint64_t ip, int leaf)
{
	uint64_t key = ip ^ (kind == 'k' ? 1ull << 63 : 0) ^ (leaf ? 1ull << 62 : 0);
	struct xloc *e = ft_htab_get(&c->locs, key, 1);
	char name[512];
	uint64_t start = 0, id;

	if (!e)
		return 0;
	if (e->id)
		return e->id;
	if (kind == 'k') {
		uint64_t off;
		const char *n = c->k ? ft_kevents_sym_name(c->k, ip, &off) : NULL;

		if (n)
			snprintf(name, sizeof(name), "%s", n);
		else if (!c->of || ft_offcpu_file_sym(ip, 1, 0, name, sizeof(name), c->of))
			snprintf(name, sizeof(name), "0x%llx", (unsigned long long)ip);
		id = kernel_loc(c, ip, name);
	} else {
		const char *path;

		if (c->t) {
			ft_trace_addr_name_pid(c->t, pid, ip, 0, name, sizeof(name));
			if (!ft_symbols_find(ft_trace_symbols(c->t), ip, &start, &path))
				start = 0;
		} else if (!c->of || ft_offcpu_file_sym(ip, 0, 0, name, sizeof(name), c->of)) {
			snprintf(name, sizeof(name), "0x%llx", (unsigned long long)ip);
		}
		id = user_loc(c, pid, ip, leaf ? ip : ip - 1, name, start);
	}
	/* the table may have moved while the builder interned */
	e = ft_htab_get(&c->locs, key, 1);
	if (e)
		e->id = id;
	return id;
}

static void ctx_free(struct ctx *c)
{
	for (size_t i = 0; i < c->nmods; i++) {
		struct xmod *m = &c->mods[i];

		if (m->dw)
			dwarf_end(m->dw);
		if (m->elf)
			elf_end(m->elf);
		if (m->fd >= 0)
			close(m->fd);
		free(m->bid);
		free(m->path);
	}
	free(c->mods);
	ft_htab_free(&c->locs);
}

/* --- graph ----------------------------------------------------------- */

struct gnode {
	struct ft_hentry h; /* key: parent << 32 | fid */
	uint32_t id;
};

struct gframe {
	uint32_t node, fid;
	uint64_t child; /* ns of the children that returned */
};

struct gbuf {
	struct ft_hentry h; /* key: buffer id */
	struct gframe *f;
	size_t cap;
};

struct gsample {
	struct ft_hentry h; /* key: tid << 32 | node */
	uint32_t pid;
	uint64_t calls, self;
};

struct graph {
	struct ft_htab nodes, bufs, samples;
	uint32_t *parent, *fid; /* by node id; node 0 is the root */
	size_t nr_nodes, cap_nodes;
	uint64_t calls, timed;
};

static uint32_t node_of(struct graph *g, uint32_t parent, uint32_t fid)
{
	struct gnode *n = ft_htab_get(&g->nodes, (uint64_t)parent << 32 | fid, 1);

	if (!n)
		return UINT32_MAX;
	if (n->id)
		return n->id;
	if (g->nr_nodes == g->cap_nodes) {
		size_t cap = g->cap_nodes ? g->cap_nodes * 2 : 1024;
		uint32_t *a = realloc(g->parent, cap * sizeof(*a)), *b;

		if (!a)
			return UINT32_MAX;
		g->parent = a;
		b = realloc(g->fid, cap * sizeof(*b));
		if (!b)
			return UINT32_MAX;
		g->fid = b;
		g->cap_nodes = cap;
	}
	g->parent[g->nr_nodes] = parent;
	g->fid[g->nr_nodes] = fid;
	n->id = (uint32_t)g->nr_nodes++;
	return n->id;
}

static struct gframe *gframe_at(struct graph *g, uint64_t buffer, size_t d)
{
	struct gbuf *b = ft_htab_get(&g->bufs, buffer, 1);

	if (!b)
		return NULL;
	if (d >= b->cap) {
		size_t n = d + 1 > b->cap * 2 ? d + 1 : b->cap * 2;
		struct gframe *f = realloc(b->f, n * sizeof(*f));

		if (!f)
			return NULL;
		memset(f + b->cap, 0, (n - b->cap) * sizeof(*f));
		b->f = f;
		b->cap = n;
	}
	return &b->f[d];
}

static struct gsample *gsample_of(struct graph *g, uint32_t tid, uint32_t pid, uint32_t node)
{
	struct gsample *s = ft_htab_get(&g->samples, (uint64_t)tid << 32 | node, 1);

	if (s)
		s->pid = pid;
	return s;
}

/* report's accounting (cmd/report.c), per call path instead of per function */
static int graph_event(struct graph *g, const struct ft_event *ev)
{
	struct gframe *fr, *up;
	struct gsample *s;
	uint32_t parent, node;

	switch (ev->type) {
	case FT_EV_FUNC:
		parent = ev->parent_fid != FT_FID_UNKNOWN ? node_of(g, 0, ev->parent_fid) : 0;
		node = parent == UINT32_MAX ? UINT32_MAX : node_of(g, parent, ev->fid);
		s = node == UINT32_MAX ? NULL : gsample_of(g, ev->tid, ev->pid, node);
		if (!s)
			return -1;
		s->calls++;
		g->calls++;
		return 0;
	case FT_EV_ENTRY:
		parent = 0;
		if (ev->depth > 0) {
			up = gframe_at(g, ev->buffer, (size_t)ev->depth - 1);
			if (!up)
				return -1;
			parent = up->node;
		}
		node = node_of(g, parent, ev->fid);
		s = node == UINT32_MAX ? NULL : gsample_of(g, ev->tid, ev->pid, node);
		if (!s)
			return -1;
		s->calls++;
		g->calls++;
		if (ev->depth < 0)
			return 0;
		fr = gframe_at(g, ev->buffer, (size_t)ev->depth);
		if (!fr)
			return -1;
		fr->node = node;
		fr->fid = ev->fid;
		fr->child = 0;
		return 0;
	case FT_EV_EXIT:
		if (!ev->has_entry || ev->depth < 0)
			return 0;
		fr = gframe_at(g, ev->buffer, (size_t)ev->depth);
		if (!fr)
			return -1;
		if (fr->fid != ev->fid || !fr->node)
			return 0; /* depth resynchronised under us: no reliable frame */
		s = gsample_of(g, ev->tid, ev->pid, fr->node);
		if (!s)
			return -1;
		s->self += ev->duration > fr->child ? ev->duration - fr->child : 0;
		g->timed++;
		if (ev->depth > 0) {
			up = gframe_at(g, ev->buffer, (size_t)ev->depth - 1);
			if (!up)
				return -1;
			up->child += ev->duration;
		}
		return 0;
	default:
		return 0;
	}
}

static void thread_labels(struct ft_pprof_label *l, uint32_t pid, uint32_t tid, const char *comm)
{
	l[0] = (struct ft_pprof_label){ .key = "pid", .num = pid };
	l[1] = (struct ft_pprof_label){ .key = "tid", .num = tid };
	l[2] = (struct ft_pprof_label){ .key = "thread", .str = comm ? comm : "<...>" };
}

static int graph_write(struct ctx *c, struct graph *g)
{
	uint64_t *fidloc = NULL, *stack = NULL;
	size_t nfid = 0, cap = 0;
	int rc = 0;

	for (size_t i = 0; i < g->samples.cap && !rc; i++) {
		struct gsample *s = ft_htab_slot(&g->samples, i);
		struct ft_pprof_label l[3];
		int64_t v[2];
		size_t n = 0;

		if (!s)
			continue;
		for (uint32_t node = (uint32_t)s->h.key; node; node = g->parent[node]) {
			uint32_t fid = g->fid[node];
			size_t slot = fid == FT_FID_UNKNOWN ? 0 : (size_t)fid + 1;

			if (slot >= nfid) {
				size_t nn = slot + 1 > nfid * 2 ? slot + 1 : nfid * 2;
				uint64_t *q = realloc(fidloc, nn * sizeof(*q));

				if (!q)
					goto oom;
				memset(q + nfid, 0, (nn - nfid) * sizeof(*q));
				fidloc = q;
				nfid = nn;
			}
			if (!fidloc[slot]) {
				char name[512];
				uint64_t addr =
					fid == FT_FID_UNKNOWN ? 0 : ft_trace_func_addr(c->t, fid);

				if (fid == FT_FID_UNKNOWN)
					snprintf(name, sizeof(name), "[unknown]");
				else
					ft_trace_func_name(c->t, fid, 0, name, sizeof(name));
				fidloc[slot] = lib_loc(c, s->pid, fid, name);
				if (!fidloc[slot])
					fidloc[slot] = user_loc(c, s->pid, addr, addr, name, addr);
			}
			if (n == cap) {
				size_t nc = cap ? cap * 2 : 64;
				uint64_t *q = realloc(stack, nc * sizeof(*q));

				if (!q)
					goto oom;
				stack = q;
				cap = nc;
			}
			stack[n++] = fidloc[slot];
		}
		v[0] = (int64_t)s->calls;
		v[1] = (int64_t)s->self;
		thread_labels(l, s->pid, (uint32_t)(s->h.key >> 32),
			      ft_trace_comm(c->t, (uint32_t)(s->h.key >> 32)));
		rc = ft_pprof_sample(c->p, stack, n, v, l, 3);
	}
	free(fidloc);
	free(stack);
	return rc;
oom:
	free(fidloc);
	free(stack);
	errno = ENOMEM;
	return -1;
}

static int export_graph(struct ctx *c, const char *path, struct ft_progress *pr,
			struct ft_pprof_export_stats *st)
{
	struct graph g = { 0 };
	struct ft_event ev;
	int r, rc = -1;

	if (ft_htab_init(&g.nodes, sizeof(struct gnode)) ||
	    ft_htab_init(&g.bufs, sizeof(struct gbuf)) ||
	    ft_htab_init(&g.samples, sizeof(struct gsample)) || node_of(&g, 0, 0) == UINT32_MAX) {
		ft_seterr(c->err, c->errlen, "out of memory");
		goto out;
	}
	g.nr_nodes = 1; /* node 0: the root, no function */
	while ((r = ft_trace_next(c->t, &ev, c->err, c->errlen)) == 1) {
		st->events++;
		if (pr)
			ft_progress_update(pr, 0, 0, st->events);
		if (graph_event(&g, &ev)) {
			ft_seterr(c->err, c->errlen, "out of memory");
			goto out;
		}
	}
	if (r < 0)
		goto out;
	if (!g.calls) {
		errno = ENODATA;
		ft_seterr(c->err, c->errlen,
			  "the graph profile is empty: the trace has no function calls (record a "
			  "program with 'ftrail record -p function_graph' or '-p function')");
		goto out;
	}
	ft_pprof_sample_type(c->p, "calls", "count");
	ft_pprof_sample_type(c->p, "wall", "nanoseconds");
	ft_pprof_default_type(c->p, "wall");
	ft_pprof_comment(c->p, "ftrail function_graph: wall = self time of the call path; "
			       "cum = total time");
	if (graph_write(c, &g)) {
		ft_seterr(c->err, c->errlen, "writing the profile: %s", strerror(errno));
		goto out;
	}
	rc = 0;
out:
	for (size_t i = 0; g.bufs.tab && i < g.bufs.cap; i++) {
		struct gbuf *b = ft_htab_slot(&g.bufs, i);

		if (b)
			free(b->f);
	}
	ft_htab_free(&g.nodes);
	ft_htab_free(&g.bufs);
	ft_htab_free(&g.samples);
	free(g.parent);
	free(g.fid);
	return rc;
}

/* --- stacks ---------------------------------------------------------- */

struct sstack {
	struct ft_hentry h; /* key: hash of (kind, tid, frames) */
	char kind;
	uint32_t pid, tid, nr;
	uint64_t count;
	uint64_t *ips;
	char *comm;
};

struct skey {
	char kind;
	uint32_t tid, nr;
	const uint64_t *ips;
};

static int sstack_eq(const void *entry, const void *key)
{
	const struct sstack *a = entry;
	const struct skey *b = key;

	return a->kind == b->kind && a->tid == b->tid && a->nr == b->nr &&
	       !memcmp(a->ips, b->ips, b->nr * sizeof(*b->ips));
}

static int stack_add(struct ft_htab *h, char kind, uint32_t pid, uint32_t tid, const char *comm,
		     const uint64_t *ips, uint32_t nr)
{
	struct skey k = { kind, tid, nr, ips };
	uint64_t hash = ft_hash_fnv1a((const char *)ips, nr * sizeof(*ips)) ^
			((uint64_t)tid << 8 | (unsigned char)kind) * 0x9e3779b97f4a7c15ull;
	struct sstack *s;
	int created;

	s = ft_htab_get_eq(h, hash, sstack_eq, &k, 1, &created);
	if (!s)
		return -1;
	if (created) {
		s->kind = kind;
		s->pid = pid;
		s->tid = tid;
		s->nr = nr;
		s->ips = malloc(nr * sizeof(*ips) + 1);
		s->comm = comm ? strdup(comm) : NULL;
		if (!s->ips) {
			s->nr = 0; /* never equal again; freed with the rest */
			return -1;
		}
		memcpy(s->ips, ips, nr * sizeof(*ips));
	}
	s->count++;
	return 0;
}

static int export_stacks(struct ctx *c, const char *path, struct ft_progress *pr,
			 struct ft_pprof_export_stats *st)
{
	struct ft_htab h;
	struct ft_kevent kev;
	struct ft_event ev;
	uint64_t *locs = NULL;
	size_t cap = 0;
	int r, rc = -1;

	if (ft_htab_init(&h, sizeof(struct sstack))) {
		ft_seterr(c->err, c->errlen, "out of memory");
		return -1;
	}
	if (c->k) {
		while ((r = ft_kevents_next(c->k, &kev)) == 1) {
			st->events++;
			if (pr)
				ft_progress_update(pr, 0, 0, st->events);
			if (kev.kind != FT_KEV_EVENT)
				continue;
			if ((kev.kstack_nr && stack_add(&h, 'k', 0, (uint32_t)kev.pid, kev.comm,
							kev.kstack, kev.kstack_nr)) ||
			    (kev.ustack_nr && stack_add(&h, 'u', 0, (uint32_t)kev.pid, kev.comm,
							kev.ustack, kev.ustack_nr))) {
				ft_seterr(c->err, c->errlen, "out of memory");
				goto out;
			}
		}
		if (r < 0) {
			ft_seterr(c->err, c->errlen, "%s", ft_kevents_error(c->k));
			goto out;
		}
	}
	while ((r = ft_trace_next(c->t, &ev, c->err, c->errlen)) == 1) {
		st->events++;
		if (pr)
			ft_progress_update(pr, 0, 0, st->events);
		if (ev.type == FT_EV_STACK && ev.nr_ips &&
		    stack_add(&h, 'u', ev.pid, ev.tid, ft_trace_comm(c->t, ev.tid), ev.ips,
			      ev.nr_ips)) {
			ft_seterr(c->err, c->errlen, "out of memory");
			goto out;
		}
	}
	if (r < 0)
		goto out;
	if (!h.used) {
		errno = ENODATA;
		ft_seterr(c->err, c->errlen,
			  "the stacks profile is empty: the trace has no stacks (record kernel "
			  "stacks with 'ftrail record -e SYS:EVENT -T', user stacks with "
			  "'-O stacktrace' or '-O userstacktrace')");
		goto out;
	}
	ft_pprof_sample_type(c->p, "stacks", "count");
	ft_pprof_default_type(c->p, "stacks");
	for (size_t i = 0; i < h.cap; i++) {
		struct sstack *s = ft_htab_slot(&h, i);
		struct ft_pprof_label l[4];
		int64_t v;

		if (!s || !s->nr)
			continue;
		if (s->nr > cap) {
			uint64_t *q = realloc(locs, s->nr * sizeof(*q));

			if (!q) {
				errno = ENOMEM;
				goto werr;
			}
			locs = q;
			cap = s->nr;
		}
		for (uint32_t j = 0; j < s->nr; j++)
			locs[j] = frame_loc(c, s->kind, s->pid, s->ips[j], s->kind == 'k' || !j);
		v = (int64_t)s->count;
		thread_labels(l, s->pid, s->tid, s->comm);
		l[3] = (struct ft_pprof_label){ .key = "stack",
						.str = s->kind == 'k' ? "kernel" : "user" };
		/* kernel events name the thread only (common_pid), not its process */
		if (ft_pprof_sample(c->p, locs, s->nr, &v, s->pid ? l : l + 1, s->pid ? 4 : 3))
			goto werr;
	}
	rc = 0;
	goto out;
werr:
	ft_seterr(c->err, c->errlen, "writing the profile: %s", strerror(errno));
out:
	for (size_t i = 0; i < h.cap; i++) {
		struct sstack *s = ft_htab_slot(&h, i);

		if (s) {
			free(s->ips);
			free(s->comm);
		}
	}
	ft_htab_free(&h);
	free(locs);
	return rc;
}

/* --- offcpu ---------------------------------------------------------- */

struct ocw {
	struct ctx *c;
	const struct ft_offcpu *oc;
	uint64_t *locs;
	size_t cap;
};

static const char *cut_name(uint8_t cut)
{
	return cut == FT_OFFCPU_CUT_START ? "start" : cut == FT_OFFCPU_CUT_END ? "end" : "none";
}

/* kernel frames leaf..root, then user frames leaf..root (one call chain) */
static int oc_sample(struct ocw *w, uint32_t kstack, uint32_t ustack, uint32_t tgid, uint32_t tid,
		     uint32_t state, uint8_t cut, const int64_t *v, int direct, uint64_t ts)
{
	const uint64_t *kips = NULL, *uips = NULL;
	uint32_t knr = 0, unr = 0;
	struct ft_pprof_label l[7];
	char sbuf[32];
	size_t n = 0, nl = 0;

	if (kstack && ft_offcpu_stack(w->oc, kstack, &kips, &knr))
		knr = 0;
	if (ustack && ft_offcpu_stack(w->oc, ustack, &uips, &unr))
		unr = 0;
	if (knr + unr > w->cap) {
		uint64_t *q = realloc(w->locs, (knr + unr) * sizeof(*q));

		if (!q) {
			errno = ENOMEM;
			return -1;
		}
		w->locs = q;
		w->cap = knr + unr;
	}
	for (uint32_t i = 0; i < knr; i++)
		w->locs[n++] = frame_loc(w->c, 'k', tgid, kips[i], 1);
	/* user frames from function_graph records are function entries */
	for (uint32_t i = 0; i < unr; i++)
		w->locs[n++] = frame_loc(w->c, 'u', tgid, uips[i], 1);
	thread_labels(l, tgid, tid, ft_offcpu_comm(w->oc, tid));
	nl = 3;
	l[nl++] =
		(struct ft_pprof_label){ .key = "sample", .str = direct ? "direct" : "aggregate" };
	l[nl++] = (struct ft_pprof_label){ .key = "state",
					   .str = ft_offcpu_state_str(state, sbuf, sizeof(sbuf)) };
	if (cut)
		l[nl++] = (struct ft_pprof_label){ .key = "cut", .str = cut_name(cut) };
	if (direct)
		l[nl++] = (struct ft_pprof_label){ .key = "time",
						   .num = (int64_t)ts,
						   .unit = "nanoseconds" };
	return ft_pprof_sample(w->c->p, w->locs, n, v, l, nl);
}

static int oc_agg(const struct ft_offcpu_agg *a, void *arg)
{
	int64_t v[2] = { (int64_t)a->count, (int64_t)a->total };

	return oc_sample(arg, a->kstack, a->ustack, a->tgid, a->tid, a->state, a->cut, v, 0, 0);
}

static int export_offcpu(struct ctx *c, const char *path, const struct ft_pprof_opts *o)
{
	struct ft_offcpu_stats s;
	struct ocw w = { .c = c };
	int rc = 0;

	c->of = ft_offcpu_file_open(path, o->offcpu_thresh_ns, o->pid, c->err, c->errlen);
	if (!c->of) {
		size_t pl = strlen(path);
		char why[512];

		/* "PATH has no kernel events (...)": say which profile is empty */
		if (!strncmp(c->err, path, pl) && !strncmp(c->err + pl, " has no ", 8)) {
			snprintf(why, sizeof(why), "%s", c->err + pl + 1);
			ft_seterr(c->err, c->errlen, "the offcpu profile is empty: the trace %s",
				  why);
			errno = ENODATA;
		}
		return -1;
	}
	w.oc = ft_offcpu_file_engine(c->of);
	ft_offcpu_get_stats(w.oc, &s);
	if (!s.intervals) {
		errno = ENODATA;
		ft_seterr(c->err, c->errlen,
			  "the offcpu profile is empty: the trace has no off-CPU intervals (record "
			  "with 'ftrail offcpu --record -- PROG' or 'ftrail record -e "
			  "sched:sched_switch -e sched:sched_wakeup -T')");
		return -1;
	}
	ft_pprof_sample_type(c->p, "intervals", "count");
	ft_pprof_sample_type(c->p, "offcpu", "nanoseconds");
	ft_pprof_default_type(c->p, "offcpu");
	ft_pprof_comment(c->p, "ftrail offcpu: sample=direct (period >= threshold) or "
			       "sample=aggregate (shorter intervals summed)");
	for (size_t i = 0; i < ft_offcpu_nr_samples(w.oc) && !rc; i++) {
		const struct ft_offcpu_sample *d = ft_offcpu_sample(w.oc, i);
		int64_t v[2] = { 1, (int64_t)d->period };

		rc = oc_sample(&w, d->kstack, d->ustack, d->tgid, d->tid, d->state, d->cut, v, 1,
			       d->ts_out);
	}
	if (!rc)
		rc = ft_offcpu_foreach_agg(w.oc, oc_agg, &w);
	free(w.locs);
	if (rc)
		ft_seterr(c->err, c->errlen, "writing the profile: %s", strerror(errno));
	return rc ? -1 : 0;
}

/* --- entry ----------------------------------------------------------- */

int ft_pprof_kind_from_name(const char *name, enum ft_pprof_kind *kind)
{
	if (!strcmp(name, "graph"))
		*kind = FT_PPROF_GRAPH;
	else if (!strcmp(name, "stacks"))
		*kind = FT_PPROF_STACKS;
	else if (!strcmp(name, "offcpu"))
		*kind = FT_PPROF_OFFCPU;
	else
		return -1;
	return 0;
}

int ft_pprof_export(const char *path, const struct ft_pprof_opts *o, FILE *out,
		    struct ft_progress *progress, struct ft_pprof_export_stats *st, char *err,
		    size_t errlen)
{
	struct ctx c = { .err = err, .errlen = errlen };
	struct ft_pprof_export_stats dummy;
	int rc = -1;

	if (!st)
		st = &dummy;
	memset(st, 0, sizeof(*st));
	err[0] = 0;
	if (ft_htab_init(&c.locs, sizeof(struct xloc))) {
		ft_seterr(err, errlen, "out of memory");
		return -1;
	}
	c.p = ft_pprof_open(out);
	if (!c.p) {
		ft_seterr(err, errlen, "out of memory");
		goto out;
	}
	if (o->kind == FT_PPROF_OFFCPU) {
		struct ft_reader *r = ft_reader_open(path, err, errlen);

		if (!r)
			goto out;
		load_modules(&c, r);
		ft_reader_close(r);
		rc = export_offcpu(&c, path, o);
	} else {
		c.t = ft_trace_open(path, err, errlen);
		if (!c.t)
			goto out;
		load_modules(&c, ft_trace_reader(c.t));
		if (o->kind == FT_PPROF_STACKS) {
			c.k = ft_kevents_open(ft_trace_reader(c.t), err, errlen);
			if (!c.k && err[0])
				goto out;
			if (c.k)
				ft_kevents_fix_user_stacks(c.k, path);
			rc = export_stacks(&c, path, progress, st);
		} else {
			rc = export_graph(&c, path, progress, st);
		}
	}
	if (rc)
		goto out;
	st->samples = ft_pprof_nr_samples(c.p);
	rc = ft_pprof_finish(c.p);
	c.p = NULL;
	if (rc)
		ft_seterr(err, errlen, "writing the profile: %s", strerror(errno));
out : {
	int e = errno;

	ft_pprof_abort(c.p);
	ft_kevents_close(c.k);
	if (c.t)
		ft_trace_close(c.t);
	ft_offcpu_file_close(c.of);
	ctx_free(&c);
	errno = e;
}
	return rc;
}
