// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "analysis/graphret.h"
#include "analysis/trace.h"
#include "core/symbols.h"

/* One function_graph call of a thread. */
struct gr_frame {
	uint64_t entry, exit; /* ns; exit UINT64_MAX while open (or never closed) */
	uint64_t ret;	      /* its real return address; 0 when unknown or not hijacked */
	uint64_t caller;      /* hash of its stack past its own entry: its caller's state */
	int tail;	      /* tail-called: shares the slot of the frame around it */
	int64_t parent;	      /* index of the frame it was called in, -1 */
};

struct gr_thread {
	uint32_t tid;
	struct gr_frame *v; /* by entry time */
	size_t n, cap;
	int64_t open; /* innermost open frame while reading, -1 */
	int64_t last; /* the frame the last record opened, for its STACK; -1 */
};

#define GR_TRAMPS 16

struct ft_graphret {
	char *path;
	struct ft_trace *t; /* opened at the first user stack; NULL before */
	int failed;	    /* it could not be opened */
	int built;	    /* frames read (1), failed (-1), not yet (0) */
	struct gr_thread *th;
	size_t nth, capth;
	uint64_t tramp[GR_TRAMPS], other[GR_TRAMPS]; /* addresses known to be / not to be it */
	unsigned int ntramp, nother, next_other;
};

struct ft_graphret *ft_graphret_open(const char *path, char *err, size_t errlen)
{
	struct ft_graphret *g = calloc(1, sizeof(*g));

	if (g)
		g->path = strdup(path);
	if (!g || !g->path) {
		free(g);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	return g;
}

void ft_graphret_free(struct ft_graphret *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->nth; i++)
		free(g->th[i].v);
	free(g->th);
	if (g->t)
		ft_trace_close(g->t);
	free(g->path);
	free(g);
}

static struct gr_thread *thread_of(struct ft_graphret *g, uint32_t tid, int add)
{
	struct gr_thread *n;

	for (size_t i = 0; i < g->nth; i++)
		if (g->th[i].tid == tid)
			return &g->th[i];
	if (!add)
		return NULL;
	if (g->nth == g->capth) {
		size_t cap = g->capth ? 2 * g->capth : 16;

		n = realloc(g->th, cap * sizeof(*n));
		if (!n)
			return NULL;
		g->th = n;
		g->capth = cap;
	}
	n = &g->th[g->nth++];
	memset(n, 0, sizeof(*n));
	n->tid = tid;
	n->open = n->last = -1;
	return n;
}

/* Read every user record once: each thread's calls with their return addresses. */
static int build(struct ft_graphret *g)
{
	struct ft_event ev;
	char err[256];
	int ret;

	while ((ret = ft_trace_next(g->t, &ev, err, sizeof(err))) == 1) {
		struct gr_thread *th;

		if (ev.type != FT_EV_ENTRY && ev.type != FT_EV_EXIT && ev.type != FT_EV_STACK)
			continue;
		th = thread_of(g, ev.tid, 1);
		if (!th)
			return -1;
		if (ev.type == FT_EV_ENTRY) {
			struct gr_frame *f;

			if (th->n == th->cap) {
				size_t cap = th->cap ? 2 * th->cap : 64;
				struct gr_frame *v = realloc(th->v, cap * sizeof(*v));

				if (!v)
					return -1;
				th->v = v;
				th->cap = cap;
			}
			f = &th->v[th->n];
			f->entry = ev.ts;
			f->exit = UINT64_MAX;
			f->ret = 0;
			f->caller = 0;
			f->tail = 0;
			f->parent = th->open;
			th->open = th->last = (int64_t)th->n++;
		} else if (ev.type == FT_EV_EXIT) {
			if (th->open >= 0) {
				th->v[th->open].exit = ev.ts;
				th->open = th->v[th->open].parent;
			}
			th->last = -1;
		} else {
			/* the hook's stack: the function's entry, then its return address */
			if (th->last >= 0 && ev.nr_ips >= 2 &&
			    ev.ips[0] == ft_trace_func_addr(g->t, ev.fid)) {
				struct gr_frame *f = &th->v[th->last];
				uint64_t h = 1469598103934665603ull;

				for (uint32_t i = 1; i < ev.nr_ips; i++)
					h = (h ^ ev.ips[i]) * 1099511628211ull;
				f->caller = h;
				/*
				 * Entered from the very same state as the frame open
				 * around it: a tail call (jmp), which found that
				 * frame's hijacked slot and shares it -- one
				 * trampoline address in a stack for both.
				 */
				f->ret = ev.ips[1];
				f->tail = f->parent >= 0 && th->v[f->parent].caller == h &&
					  th->v[f->parent].ret == ev.ips[1];
			}
			th->last = -1;
		}
	}
	return ret < 0 ? -1 : 0;
}

/* Is ip function_graph's return trampoline (in the runtime of tid's process)? */
static int is_tramp(struct ft_graphret *g, uint32_t tid, uint64_t ip)
{
	char name[256];
	int yes;

	for (unsigned int i = 0; i < g->ntramp; i++)
		if (g->tramp[i] == ip)
			return 1;
	for (unsigned int i = 0; i < g->nother; i++)
		if (g->other[i] == ip)
			return 0;
	ft_symbols_resolve_pid(ft_trace_symbols(g->t), tid, ip, 1, name, sizeof(name));
	/* its first byte: what function_graph stores in a slot ("name+0x0/0xsize") */
	yes = !strncmp(name, "ft_rt_return+0x0/", 17);
	if (yes && g->ntramp < GR_TRAMPS) {
		g->tramp[g->ntramp++] = ip;
	} else if (!yes) {
		g->other[g->next_other] = ip;
		g->next_other = (g->next_other + 1) % GR_TRAMPS;
		if (g->nother < GR_TRAMPS)
			g->nother++;
	}
	return yes;
}

uint32_t ft_graphret_fix(struct ft_graphret *g, uint32_t tid, uint64_t ts, uint64_t *ips,
			 uint32_t nr)
{
	struct gr_thread *th;
	uint32_t done = 0, i = 0;
	int64_t f;
	size_t lo, hi;

	if (!g || g->failed || !nr)
		return 0;
	if (!g->t) {
		char err[256];

		/* a second reader of the file, for its symbols and user records */
		g->t = ft_trace_open(g->path, err, sizeof(err));
		if (!g->t) {
			g->failed = 1;
			return 0;
		}
	}
	while (i < nr && !is_tramp(g, tid, ips[i]))
		i++;
	if (i == nr)
		return 0;
	if (!g->built)
		g->built = build(g) ? -1 : 1;
	th = thread_of(g, tid, 0);
	if (!th || !th->n)
		return 0;
	/* the last call entered at or before ts; the innermost open one is it or a caller */
	lo = 0;
	hi = th->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (th->v[mid].entry <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return 0;
	f = (int64_t)lo - 1;
	while (f >= 0 && th->v[f].exit <= ts)
		f = th->v[f].parent;
	/* the n-th trampoline is the n-th open hijacked frame, innermost first */
	for (; i < nr && f >= 0; i++) {
		if (!is_tramp(g, tid, ips[i]))
			continue;
		while (f >= 0 && (!th->v[f].ret || th->v[f].tail))
			f = th->v[f].parent;
		if (f < 0)
			break;
		ips[i] = th->v[f].ret;
		f = th->v[f].parent;
		done++;
	}
	return done;
}
