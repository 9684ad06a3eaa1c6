// SPDX-License-Identifier: GPL-2.0
/*
 * The call graph of a trace (see analysis/callgraph.h).
 *
 * A tree of nodes, node 0 the root above every thread's outermost calls;
 * a node's children are found by (parent, fid) in a hash table and kept
 * in first-call order in a sibling list.  Each buffer (a thread's
 * stream) keeps the node open at each depth.  Walks are iterative: a
 * recursion thousands of calls deep is a path thousands of nodes long.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/callgraph.h"
#include "analysis/callsum.h"
#include "core/glob.h"
#include "core/hashtab.h"
#include "core/util.h"

#define NONE UINT32_MAX

struct node {
	uint32_t fid, parent;
	uint32_t first, last, next; /* children in first-call order */
	uint32_t timed;
	uint64_t calls, total;
};

struct tree {
	struct node *v;
	size_t n, cap;
	struct ft_htab kids; /* (parent << 32 | fid) -> node */
};

struct kid {
	struct ft_hentry h;
	uint32_t node;
};

/* A buffer's open calls: the node at each depth. */
struct open {
	struct ft_hentry h; /* key: buffer id */
	uint32_t *at;
	size_t n, cap;
};

struct ft_callgraph {
	struct tree tree;
	struct ft_htab bufs;
};

static int tree_init(struct tree *tr)
{
	memset(tr, 0, sizeof(*tr));
	if (ft_htab_init(&tr->kids, sizeof(struct kid)))
		return -1;
	tr->v = calloc(16, sizeof(*tr->v));
	if (!tr->v) {
		ft_htab_free(&tr->kids);
		return -1;
	}
	tr->cap = 16;
	tr->n = 1;
	tr->v[0] = (struct node){
		.fid = NONE, .parent = NONE, .first = NONE, .last = NONE, .next = NONE
	};
	return 0;
}

static void tree_free(struct tree *tr)
{
	free(tr->v);
	ft_htab_free(&tr->kids);
}

/* The child of parent for fid, made when new.  NONE when out of memory. */
static uint32_t child(struct tree *tr, uint32_t parent, uint32_t fid)
{
	struct kid *k = ft_htab_get(&tr->kids, (uint64_t)parent << 32 | fid, 1);
	struct node *p;
	uint32_t c;

	if (!k)
		return NONE;
	if (k->node)
		return k->node;
	if (tr->n == tr->cap) {
		struct node *v = tr->n >= NONE / 2 ? NULL
						   : realloc(tr->v, 2 * tr->cap * sizeof(*v));

		if (!v)
			return NONE;
		tr->v = v;
		tr->cap *= 2;
	}
	c = (uint32_t)tr->n++;
	tr->v[c] = (struct node){
		.fid = fid, .parent = parent, .first = NONE, .last = NONE, .next = NONE
	};
	p = &tr->v[parent];
	if (p->last == NONE)
		p->first = c;
	else
		tr->v[p->last].next = c;
	p->last = c;
	k->node = c;
	return c;
}

static int build_cb(const struct ft_event *ev, void *arg)
{
	struct ft_callgraph *g = arg;
	struct open *o;
	size_t d;
	uint32_t c, parent;

	if (ev->type != FT_EV_ENTRY && ev->type != FT_EV_EXIT)
		return 0;
	o = ft_htab_get(&g->bufs, ev->buffer, 1);
	if (!o)
		return ENOMEM;
	d = ev->depth < 0 ? 0 : (size_t)ev->depth;
	if (ev->type == FT_EV_EXIT) {
		/* the call open at its depth, if it is this function's */
		if (d < o->n && o->at[d] != NONE && g->tree.v[o->at[d]].fid == ev->fid &&
		    ev->has_entry) {
			g->tree.v[o->at[d]].total += ev->duration;
			g->tree.v[o->at[d]].timed = 1;
		}
		if (d < o->n)
			o->n = d;
		return 0;
	}
	if (FT_GROW(o->at, o->cap, d + 1, 16))
		return ENOMEM;
	/* depths above d the reader resynced past: no caller known there */
	for (size_t k = o->n; k < d; k++)
		o->at[k] = NONE;
	parent = d && o->at[d - 1] != NONE ? o->at[d - 1] : 0;
	c = child(&g->tree, parent, ev->fid);
	if (c == NONE)
		return ENOMEM;
	g->tree.v[c].calls++;
	o->at[d] = c;
	o->n = d + 1;
	return 0;
}

struct ft_callgraph *ft_callgraph_build(struct ft_trace *t, char *err, size_t errlen)
{
	struct ft_callgraph *g = calloc(1, sizeof(*g));
	int ret;

	if (!g || tree_init(&g->tree)) {
		free(g);
		ft_seterr(err, errlen, "out of memory");
		return NULL;
	}
	if (ft_htab_init(&g->bufs, sizeof(struct open))) {
		ft_callgraph_free(g);
		ft_seterr(err, errlen, "out of memory");
		return NULL;
	}
	ret = ft_trace_scan_buffers(t, build_cb, g, err, errlen);
	if (ret) {
		if (ret == ENOMEM)
			ft_seterr(err, errlen, "out of memory");
		ft_callgraph_free(g);
		return NULL;
	}
	return g;
}

void ft_callgraph_free(struct ft_callgraph *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->bufs.cap && g->bufs.tab; i++) {
		struct open *o = ft_htab_slot(&g->bufs, i);

		if (o)
			free(o->at);
	}
	ft_htab_free(&g->bufs);
	tree_free(&g->tree);
	free(g);
}

/* ------------------------------------------------------------------ views */

struct printer {
	struct ft_trace *t;
	FILE *out;
	char *cont; /* the tree's drawing on the left, two characters a level */
	size_t cont_cap;
};

static const char *name_of(struct printer *p, uint32_t fid, char *buf, size_t len)
{
	return ft_trace_func_name(p->t, fid, 0, buf, len);
}

/*
 * Print the tree under root (root's own line first, at level 0), as
 * uftrace graph draws it: " +-" before each call, "| " below a call that
 * has later siblings.
 */
static int print_tree(struct printer *p, const struct tree *tr, uint32_t root, int max_depth)
{
	struct item {
		uint32_t node, level;
	} *st = NULL;
	size_t n = 0, cap = 0;
	int ret = 0;

	if (FT_GROW(st, cap, 1, 16))
		return -1;
	st[n++] = (struct item){ root, 0 };
	while (n) {
		struct item it = st[--n];
		const struct node *node = &tr->v[it.node];
		char tcell[32], name[512];
		size_t w = it.level ? 2 * (size_t)(it.level - 1) : 0;
		uint32_t c, k = 0;

		ft_callsum_time_cell(tcell, sizeof(tcell), node->total, node->timed);
		fprintf(p->out, "  %10s : %.*s%s(%llu) %s\n", tcell, (int)w, p->cont,
			it.level ? "+-" : "", (unsigned long long)node->calls,
			name_of(p, node->fid, name, sizeof(name)));
		if ((max_depth > 0 && (int)it.level >= max_depth) || node->first == NONE)
			continue;
		if (it.level) {
			if (FT_GROW(p->cont, p->cont_cap, w + 2, 64)) {
				ret = -1;
				break;
			}
			memcpy(p->cont + w, node->next != NONE ? "| " : "  ", 2);
		}
		/* children pushed last first: popped in call order */
		for (c = node->first; c != NONE; c = tr->v[c].next)
			k++;
		if (FT_GROW(st, cap, n + k, 16)) {
			ret = -1;
			break;
		}
		n += k;
		k = 0;
		for (c = node->first; c != NONE; c = tr->v[c].next)
			st[n - 1 - k++] = (struct item){ c, it.level + 1 };
	}
	free(st);
	return ret;
}

struct hit {
	uint32_t node;
	uint64_t calls, total;
};

static int cmp_hits(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;

	if (x->calls != y->calls)
		return x->calls < y->calls ? 1 : -1;
	return x->node < y->node ? -1 : x->node > y->node;
}

/* Add src's subtree below s into dst's node d (counts merged by function). */
static int merge(struct tree *dst, uint32_t d, const struct tree *src, uint32_t s)
{
	struct pair {
		uint32_t d, s;
	} *st = NULL;
	size_t n = 0, cap = 0;

	if (FT_GROW(st, cap, 1, 16))
		return -1;
	st[n++] = (struct pair){ d, s };
	while (n) {
		struct pair pr = st[--n];

		for (uint32_t c = src->v[pr.s].first; c != NONE; c = src->v[c].next) {
			uint32_t m = child(dst, pr.d, src->v[c].fid);

			if (m == NONE || FT_GROW(st, cap, n + 1, 16)) {
				free(st);
				return -1;
			}
			dst->v[m].calls += src->v[c].calls;
			dst->v[m].total += src->v[c].total;
			dst->v[m].timed |= src->v[c].timed;
			st[n++] = (struct pair){ m, c };
		}
	}
	free(st);
	return 0;
}

/* The graph of matched fid: its backtraces, then its calls merged. */
static int print_func(struct printer *p, const struct tree *tr, uint32_t fid,
		      const struct hit *hits, size_t nh, int max_depth)
{
	struct tree m;
	char name[512], tcell[32];
	uint32_t root;
	size_t nb = 0;
	int ret;

	fprintf(p->out, "# Function call graph for '%s'\n\n", name_of(p, fid, name, sizeof(name)));
	fprintf(p->out, "=============== BACKTRACE ===============\n");
	if (tree_init(&m))
		return -1;
	root = child(&m, 0, fid);
	if (root == NONE) {
		tree_free(&m);
		return -1;
	}
	for (size_t i = 0; i < nh; i++) {
		const struct node *node = &tr->v[hits[i].node];
		uint32_t k = 0;

		if (node->fid != fid)
			continue;
		ft_callsum_time_cell(tcell, sizeof(tcell), node->total, node->timed);
		fprintf(p->out, " backtrace #%zu: hit %llu, time %s\n", nb++,
			(unsigned long long)node->calls, node->timed ? tcell : "-");
		for (uint32_t x = hits[i].node; x; x = tr->v[x].parent)
			fprintf(p->out, "   [%u] %s\n", k++,
				name_of(p, tr->v[x].fid, name, sizeof(name)));
		fprintf(p->out, "\n");
		m.v[root].calls += node->calls;
		m.v[root].total += node->total;
		m.v[root].timed |= node->timed;
		if (merge(&m, root, tr, hits[i].node)) {
			tree_free(&m);
			return -1;
		}
	}
	fprintf(p->out, "========== FUNCTION CALL GRAPH ==========\n");
	fprintf(p->out, "# TOTAL TIME   FUNCTION\n");
	ret = print_tree(p, &m, root, max_depth);
	tree_free(&m);
	return ret;
}

/*
 * The outermost nodes of functions matching glob (a node below another
 * match is part of that one's graph), most called first; *nr of them.
 */
static struct hit *find_hits(struct ft_trace *t, const struct tree *tr, const char *glob,
			     size_t *nr)
{
	uint32_t *st = NULL, nr_funcs = ft_trace_nr_funcs(t);
	struct hit *h = NULL;
	size_t n = 0, cap = 0, nh = 0, hcap = 0;
	/* per fid (a function is on many paths): 0 unknown, 1 no, 2 matches */
	uint8_t *memo = calloc(nr_funcs ? nr_funcs : 1, 1);

	*nr = 0;
	if (!memo || FT_GROW(st, cap, 1, 16))
		goto fail;
	st[n++] = 0;
	while (n) {
		uint32_t x = st[--n];

		for (uint32_t c = tr->v[x].first; c != NONE; c = tr->v[c].next) {
			uint32_t fid = tr->v[c].fid;
			uint8_t m = fid < nr_funcs ? memo[fid] : 0;
			char name[512];

			if (!m) {
				m = ft_glob_match(glob,
						  ft_trace_func_name(t, fid, 0, name, sizeof(name)))
					    ? 2
					    : 1;
				if (fid < nr_funcs)
					memo[fid] = m;
			}
			if (m == 2) {
				if (FT_GROW(h, hcap, nh + 1, 16))
					goto fail;
				h[nh++] = (struct hit){ c, tr->v[c].calls, tr->v[c].total };
				continue;
			}
			if (FT_GROW(st, cap, n + 1, 16))
				goto fail;
			st[n++] = c;
		}
	}
	free(st);
	free(memo);
	*nr = nh;
	if (!nh) /* (qsort's base may not be NULL) */
		return calloc(1, sizeof(*h));
	qsort(h, nh, sizeof(*h), cmp_hits);
	return h;
fail:
	free(st);
	free(memo);
	free(h);
	return NULL;
}

int ft_callgraph_print(struct ft_callgraph *g, struct ft_trace *t,
		       const struct ft_callgraph_view *v, FILE *out)
{
	struct printer p = { .t = t, .out = out };
	const struct tree *tr = &g->tree;
	struct hit *hits;
	size_t nh;
	int funcs = 0, ret = 0;

	if (!v->func) {
		fprintf(out, "# Function call graph of every thread\n\n");
		fprintf(out, "========== FUNCTION CALL GRAPH ==========\n");
		fprintf(out, "# TOTAL TIME   FUNCTION\n");
		for (uint32_t c = tr->v[0].first; c != NONE && !ret; c = tr->v[c].next)
			ret = print_tree(&p, tr, c, v->max_depth);
		free(p.cont);
		return ret || ferror(out) ? -1 : 1;
	}
	hits = find_hits(t, tr, v->func, &nh);
	if (!hits)
		return -1;
	/* one graph per function matched, the most called first */
	for (size_t i = 0; i < nh && !ret; i++) {
		size_t j;

		for (j = 0; j < i && tr->v[hits[j].node].fid != tr->v[hits[i].node].fid; j++)
			;
		if (j < i)
			continue;
		if (funcs++)
			fprintf(out, "\n");
		ret = print_func(&p, tr, tr->v[hits[i].node].fid, hits, nh, v->max_depth);
	}
	free(hits);
	free(p.cont);
	return ret || ferror(out) ? -1 : funcs;
}
