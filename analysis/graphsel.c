// SPDX-License-Identifier: GPL-2.0
/*
 * Read-time selection of function_graph calls (see analysis/graphsel.h).
 *
 * Per buffer (a thread's stream), -g (functions) and -N (notrace) are
 * states opened by a matching entry and closed by the exit at its depth;
 * -D compares depths.  -t needs to know at an entry how long the call
 * will last, and a leaf whether all its callees are hidden: a first pass
 * (scan) numbers each buffer's ENTRY/EXIT records and keeps the spans
 * [entry, exit] of the calls shorter than the threshold, outermost ones
 * only, adjacent ones merged, and the collapses; the reading pass numbers
 * the records the same way.  Both passes see the same
 * records in the same per-buffer order (ft_trace_scan_buffers reads each
 * buffer in its order, ft_trace_next keeps it while merging by time).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/graphsel.h"
#include "core/glob.h"
#include "core/hashtab.h"
#include "core/util.h"

struct span {
	uint64_t start, end; /* record numbers of an entry and of its exit */
};

/* A shown call whose callees are all hidden: its exit, for the leaf line. */
struct collapse {
	uint64_t idx; /* its entry's record number */
	uint64_t ts, duration;
	void *data; /* the return value captured (core/argspec.h items), or NULL */
	size_t len;
};

/* First pass: an open call. */
struct frame {
	uint64_t idx; /* its entry's record number; UINT64_MAX: no call open */
	uint8_t shown, callees, shown_callee;
};

struct gs_buf {
	struct ft_hentry h; /* key: the buffer id */
	uint64_t idx;	    /* ENTRY/EXIT records seen */
	int sel_depth;	    /* depth of the open -g call, -1: none */
	int nt_depth;	    /* depth of the open -N call, -1: none */
	int in_short;	    /* the last record is inside a span, not its end */
	int func_hidden;    /* function tracer: the last FUNC record was not shown */
	size_t cur;	    /* first span not left behind */
	struct span *spans;
	size_t nspans, cap;
	size_t ccur; /* first collapse not left behind */
	struct collapse *coll;
	size_t ncoll, ccap;
	struct frame *open; /* first pass: by depth */
	size_t nopen;
};

#define M_KNOWN 1u
#define M_SEL 2u
#define M_NOT 4u

struct ft_graphsel {
	struct ft_trace *t;
	char **functions, **notrace;
	size_t n_functions, n_notrace;
	int max_depth;
	uint64_t thresh_ns;
	int graph; /* a function_graph trace (else the function tracer's) */
	struct ft_htab bufs;
	uint8_t *match; /* per fid: M_* */
	uint32_t nr_funcs;
	struct ft_event copy, next_copy, exit;
	/* the last buffer looked up (an entry moves when the table grows) */
	uint64_t last_id;
	struct gs_buf *last_b;
	/* the event ft_graphsel_event() showed last: for ft_graphsel_next() */
	int shown_base, shown_leaf;
};

int ft_graphsel_wanted(const struct ft_graphsel_opts *o)
{
	return o->n_functions || o->n_notrace || o->max_depth > 0 || o->thresh_ns;
}

static int any_match(char *const *globs, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (ft_glob_match(globs[i], name))
			return 1;
	return 0;
}

/* M_SEL / M_NOT of fid, by the name the readers print. */
static unsigned int match_of(struct ft_graphsel *gs, uint32_t fid)
{
	char buf[512];
	const char *name;
	unsigned int m;

	if (fid < gs->nr_funcs && (gs->match[fid] & M_KNOWN))
		return gs->match[fid];
	name = ft_trace_func_name(gs->t, fid, 0, buf, sizeof(buf));
	m = M_KNOWN | (any_match(gs->functions, gs->n_functions, name) ? M_SEL : 0) |
	    (any_match(gs->notrace, gs->n_notrace, name) ? M_NOT : 0);
	if (fid < gs->nr_funcs)
		gs->match[fid] = (uint8_t)m;
	return m;
}

static struct gs_buf *buf_of(struct ft_graphsel *gs, uint64_t id)
{
	struct gs_buf *b;

	if (gs->last_b && gs->last_id == id)
		return gs->last_b;
	b = ft_htab_find(&gs->bufs, id);
	if (!b) {
		b = ft_htab_get(&gs->bufs, id, 1);
		if (!b)
			return NULL;
		b->sel_depth = -1;
		b->nt_depth = -1;
	}
	gs->last_id = id;
	gs->last_b = b;
	return b;
}

static int place_shown(const struct ft_graphsel *gs, const struct gs_buf *b,
		       const struct ft_event *ev, int *base);
static int entry_shown(struct ft_graphsel *gs, struct gs_buf *b, const struct ft_event *ev,
		       int *base);
static int exit_shown(struct ft_graphsel *gs, struct gs_buf *b, const struct ft_event *ev,
		      int *base);

/* Records a selection places in a thread's calls (the others always show). */
static int is_placed(enum ft_ev_type type)
{
	switch (type) {
	case FT_EV_ENTRY:
	case FT_EV_EXIT:
	case FT_EV_MARKER:
	case FT_EV_BINMARKER:
	case FT_EV_EVENT:
	case FT_EV_STACK:
	case FT_EV_SIGNAL:
	case FT_EV_SIGRET:
		return 1;
	default:
		return 0;
	}
}

/* A call [s, e] shorter than the threshold: it covers the spans of its callees. */
static int add_span(struct gs_buf *b, uint64_t s, uint64_t e)
{
	while (b->nspans && b->spans[b->nspans - 1].start >= s)
		b->nspans--;
	if (b->nspans && b->spans[b->nspans - 1].end + 1 == s) {
		b->spans[b->nspans - 1].end = e;
		return 0;
	}
	if (FT_GROW(b->spans, b->cap, b->nspans + 1, 16))
		return -1;
	b->spans[b->nspans++] = (struct span){ s, e };
	return 0;
}

/*
 * The first pass, per buffer: the -g/-N/-D states as the reading pass
 * keeps them, and for each open call whether it is shown so far, whether
 * it has callees and whether one of them (or a marker directly in it) is
 * shown.  At an exit, a call shorter than the threshold becomes a span; a
 * shown call whose callees are all hidden is kept as a collapse, so that
 * the reading pass prints it as a leaf, as uftrace does.
 */
static int scan_call(struct ft_graphsel *gs, struct gs_buf *b, const struct ft_event *ev)
{
	size_t d = ev->depth < 0 ? 0 : (size_t)ev->depth;
	uint64_t i = b->idx++;
	struct frame *fr;
	int base, pre, hidden;

	if (ev->type == FT_EV_ENTRY) {
		size_t cap = b->nopen;

		pre = entry_shown(gs, b, ev, &base);
		if (d >= cap) {
			if (FT_GROW(b->open, cap, d + 1, 16))
				return -1;
			for (size_t k = b->nopen; k < cap; k++)
				b->open[k].idx = UINT64_MAX;
			b->nopen = cap;
		}
		if (d && b->open[d - 1].idx != UINT64_MAX)
			b->open[d - 1].callees = 1;
		b->open[d] = (struct frame){ .idx = i, .shown = (uint8_t)pre };
		return 0;
	}
	pre = exit_shown(gs, b, ev, &base);
	if (d >= b->nopen || b->open[d].idx == UINT64_MAX || !ev->has_entry)
		return 0;
	fr = &b->open[d];
	hidden = !pre || !fr->shown;
	if (gs->thresh_ns && ev->duration < gs->thresh_ns) {
		hidden = 1;
		if (add_span(b, fr->idx, i))
			return -1;
	}
	if (!hidden && fr->callees && !fr->shown_callee && !ev->unwound) {
		struct collapse c = { fr->idx, ev->ts, ev->duration, NULL, ev->len };

		if (ev->data && ev->len && !(c.data = malloc(ev->len)))
			return -1;
		if (c.data)
			memcpy(c.data, ev->data, ev->len);
		if (FT_GROW(b->coll, b->ccap, b->ncoll + 1, 16)) {
			free(c.data);
			return -1;
		}
		b->coll[b->ncoll++] = c;
	}
	if (!hidden && d && b->open[d - 1].idx != UINT64_MAX)
		b->open[d - 1].shown_callee = 1;
	fr->idx = UINT64_MAX;
	return 0;
}

static int scan_cb(const struct ft_event *ev, void *arg)
{
	struct ft_graphsel *gs = arg;
	struct gs_buf *b;
	int base;

	if (!is_placed(ev->type))
		return 0;
	b = buf_of(gs, ev->buffer);
	if (!b)
		return ENOMEM;
	if (ev->type == FT_EV_ENTRY || ev->type == FT_EV_EXIT)
		return scan_call(gs, b, ev) ? ENOMEM : 0;
	/* a marker (stack, event...) shown directly in a call: no leaf */
	if (place_shown(gs, b, ev, &base) && ev->depth > 0 && (size_t)ev->depth - 1 < b->nopen &&
	    b->open[ev->depth - 1].idx != UINT64_MAX)
		b->open[ev->depth - 1].shown_callee = 1;
	return 0;
}

static int scan(struct ft_graphsel *gs, char *err, size_t errlen)
{
	int ret = ft_trace_scan_buffers(gs->t, scan_cb, gs, err, errlen);

	if (ret == ENOMEM) {
		ft_seterr(err, errlen, "out of memory");
		return -1;
	}
	if (ret)
		return -1;
	for (size_t i = 0; i < gs->bufs.cap; i++) {
		struct gs_buf *b = ft_htab_slot(&gs->bufs, i);

		if (!b)
			continue;
		free(b->open);
		b->open = NULL;
		b->nopen = 0;
	}
	ft_graphsel_rewind(gs);
	return ft_trace_rewind(gs->t, err, errlen);
}

void ft_graphsel_rewind(struct ft_graphsel *gs)
{
	for (size_t i = 0; i < gs->bufs.cap; i++) {
		struct gs_buf *b = ft_htab_slot(&gs->bufs, i);

		if (!b)
			continue;
		b->idx = 0;
		b->cur = b->ccur = 0;
		b->sel_depth = b->nt_depth = -1;
		b->in_short = b->func_hidden = 0;
	}
}

static char **copy_globs(const char *const *v, size_t n)
{
	char **c = calloc(n ? n : 1, sizeof(*c));

	for (size_t i = 0; c && i < n; i++)
		if (!(c[i] = strdup(v[i]))) {
			while (i--)
				free(c[i]);
			free(c);
			return NULL;
		}
	return c;
}

struct ft_graphsel *ft_graphsel_new(struct ft_trace *t, const struct ft_graphsel_opts *o, char *err,
				    size_t errlen)
{
	struct ft_graphsel *gs = calloc(1, sizeof(*gs));

	if (!gs || ft_htab_init(&gs->bufs, sizeof(struct gs_buf))) {
		free(gs);
		ft_seterr(err, errlen, "out of memory");
		return NULL;
	}
	gs->t = t;
	gs->graph = !strcmp(ft_trace_tracer(t), "function_graph");
	gs->max_depth = o->max_depth;
	gs->thresh_ns = o->thresh_ns;
	gs->n_functions = o->n_functions;
	gs->n_notrace = o->n_notrace;
	gs->nr_funcs = ft_trace_nr_funcs(t);
	gs->functions = copy_globs(o->functions, o->n_functions);
	gs->notrace = copy_globs(o->notrace, o->n_notrace);
	gs->match = calloc(gs->nr_funcs ? gs->nr_funcs : 1, 1);
	if (!gs->functions || !gs->notrace || !gs->match) {
		ft_graphsel_free(gs);
		ft_seterr(err, errlen, "out of memory");
		return NULL;
	}
	/*
	 * functions alone hide nothing inside a call they show, and a function
	 * tracer's records are chosen one by one: no first pass
	 */
	if (gs->graph && (gs->thresh_ns || gs->n_notrace || gs->max_depth > 0) &&
	    scan(gs, err, errlen)) {
		ft_graphsel_free(gs);
		return NULL;
	}
	return gs;
}

void ft_graphsel_free(struct ft_graphsel *gs)
{
	if (!gs)
		return;
	for (size_t i = 0; i < gs->bufs.cap; i++) {
		struct gs_buf *b = ft_htab_slot(&gs->bufs, i);

		if (!b)
			continue;
		free(b->spans);
		free(b->open);
		for (size_t k = 0; k < b->ncoll; k++)
			free(b->coll[k].data);
		free(b->coll);
	}
	ft_htab_free(&gs->bufs);
	for (size_t i = 0; gs->functions && i < gs->n_functions; i++)
		free(gs->functions[i]);
	for (size_t i = 0; gs->notrace && i < gs->n_notrace; i++)
		free(gs->notrace[i]);
	free(gs->functions);
	free(gs->notrace);
	free(gs->match);
	free(gs);
}

/* Whether record number i is inside a short call's span; *end: it is the span's last. */
static int in_span(struct gs_buf *b, uint64_t i, int *end)
{
	while (b->cur < b->nspans && b->spans[b->cur].end < i)
		b->cur++;
	if (b->cur == b->nspans || b->spans[b->cur].start > i)
		return 0;
	*end = b->spans[b->cur].end == i;
	return 1;
}

/*
 * An entry: shown by -g, -N and -D (the threshold aside), with the states
 * it opens; *base: the depth its shown depth counts from.
 */
static int entry_shown(struct ft_graphsel *gs, struct gs_buf *b, const struct ft_event *ev,
		       int *base)
{
	unsigned int m = gs->n_functions || gs->n_notrace ? match_of(gs, ev->fid) : 0;
	int d = ev->depth;

	if (gs->n_notrace && b->nt_depth < 0 && (m & M_NOT))
		b->nt_depth = d;
	if (gs->n_functions && b->sel_depth < 0 && (m & M_SEL))
		b->sel_depth = d;
	*base = gs->n_functions ? b->sel_depth : 0;
	return b->nt_depth < 0 && (!gs->n_functions || b->sel_depth >= 0) &&
	       !(gs->max_depth > 0 && d - *base >= gs->max_depth);
}

/* An exit: inside the states its entry opened, which it closes. */
static int exit_shown(struct ft_graphsel *gs, struct gs_buf *b, const struct ft_event *ev,
		      int *base)
{
	int d = ev->depth, shown = b->nt_depth < 0;

	if (b->nt_depth >= 0 && d <= b->nt_depth)
		b->nt_depth = -1;
	*base = gs->n_functions ? b->sel_depth : 0;
	if (gs->n_functions) {
		shown &= b->sel_depth >= 0 && d >= b->sel_depth;
		if (b->sel_depth >= 0 && d <= b->sel_depth)
			b->sel_depth = -1;
	}
	return shown && !(gs->max_depth > 0 && d - *base >= gs->max_depth);
}

/* The reading pass: an ENTRY or EXIT, by every rule. */
static int call_shown(struct ft_graphsel *gs, struct gs_buf *b, const struct ft_event *ev,
		      int *base)
{
	uint64_t i = b->idx++;
	int shown, end = 0, in = gs->thresh_ns && in_span(b, i, &end);

	b->in_short = in && !end;
	shown = ev->type == FT_EV_ENTRY ? entry_shown(gs, b, ev, base)
					: exit_shown(gs, b, ev, base);
	return shown && !in;
}

/* A marker, user event, stack or signal arrow: shown where a call there would be. */
static int place_shown(const struct ft_graphsel *gs, const struct gs_buf *b,
		       const struct ft_event *ev, int *base)
{
	*base = gs->n_functions ? b->sel_depth : 0;
	if (gs->n_functions && b->sel_depth < 0)
		return 0;
	if (b->nt_depth >= 0 || b->in_short)
		return 0;
	/* depth: open frames here; the innermost shown call is max_depth - 1 deep */
	return !(gs->max_depth > 0 && ev->depth - *base > gs->max_depth);
}

/*
 * Whether the entry just counted (record number b->idx - 1) is a collapse:
 * then gs->exit is its exit as the formatter's lookahead, so that it
 * prints as a leaf (the real exit, when it comes, is then skipped).
 */
static int leaf_exit(struct ft_graphsel *gs, struct gs_buf *b, const struct ft_event *ev)
{
	uint64_t i = b->idx - 1;
	const struct collapse *c;

	while (b->ccur < b->ncoll && b->coll[b->ccur].idx < i)
		b->ccur++;
	if (b->ccur == b->ncoll || b->coll[b->ccur].idx != i)
		return 0;
	c = &b->coll[b->ccur];
	gs->exit = *ev;
	gs->exit.type = FT_EV_EXIT;
	gs->exit.ts = c->ts;
	gs->exit.duration = c->duration;
	gs->exit.has_entry = 1;
	gs->exit.unwound = 0;
	gs->exit.data = c->data;
	gs->exit.len = c->len;
	return 1;
}

static const struct ft_event *shifted(struct ft_event *copy, const struct ft_event *ev, int base)
{
	if (base <= 0)
		return ev;
	*copy = *ev;
	copy->depth = ev->depth > base ? ev->depth - base : 0;
	return copy;
}

const struct ft_event *ft_graphsel_event(struct ft_graphsel *gs, const struct ft_event *ev,
					 int *err_nomem)
{
	struct gs_buf *b;
	unsigned int m;
	int base = 0, shown;

	*err_nomem = 0;
	gs->shown_base = 0;
	gs->shown_leaf = 0;
	/* losses, kernel events, thread and process records: always */
	if (ev->type != FT_EV_FUNC && !is_placed(ev->type))
		return ev;
	b = buf_of(gs, ev->buffer);
	if (!b) {
		*err_nomem = 1;
		errno = ENOMEM;
		return NULL;
	}
	if (!gs->graph) {
		/* the function tracer: each record by its own name, its stack with it */
		if (ev->type == FT_EV_FUNC) {
			m = gs->n_functions || gs->n_notrace ? match_of(gs, ev->fid) : 0;
			b->func_hidden = (gs->n_functions && !(m & M_SEL)) || (m & M_NOT);
		} else if (ev->type != FT_EV_STACK) {
			b->func_hidden = 0;
		}
		return b->func_hidden ? NULL : ev;
	}
	if (ev->type == FT_EV_ENTRY || ev->type == FT_EV_EXIT)
		shown = call_shown(gs, b, ev, &base);
	else
		shown = place_shown(gs, b, ev, &base);
	if (!shown)
		return NULL;
	gs->shown_base = base;
	gs->shown_leaf = ev->type == FT_EV_ENTRY && leaf_exit(gs, b, ev);
	return shifted(&gs->copy, ev, base);
}

const struct ft_event *ft_graphsel_next(struct ft_graphsel *gs, const struct ft_event *next)
{
	if (gs->shown_leaf)
		next = &gs->exit;
	return next ? shifted(&gs->next_copy, next, gs->shown_base) : NULL;
}
