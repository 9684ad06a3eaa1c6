// SPDX-License-Identifier: GPL-2.0
/*
 * Per-function call sums made while decoding (see callsum.h).
 *
 * Why a loop of its own rather than ft_trace_scan_buffers() and a
 * callback: report's whole work is a few additions per record, and the
 * callback's cost -- an event written field by field, read back behind an
 * indirect call, and a second frame stack kept beside the reader's --
 * was three times the additions.  Here a run of plain entries and exits
 * is summed in one loop over the page, with the per-call state (children's
 * time, row) in the reader's own frames; anything else (a new page,
 * attachments, losses, long records, context switches) goes through
 * trace_decode_next() and sum_event(), which make the same sums.
 */
#include "analysis/callsum.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/trace_int.h"
#include "core/util.h"

/*
 * frame->row: 0 the function's own row (fid < s->nr_fn), ROW_UNKNOWN
 * s->unknown, ROW_SKIP no row (a frame a lost page left, or a call
 * entered before a flight recorder's window: left out, as a call whose
 * entry was lost), else 1 + its index in s->x.  The fast loop takes
 * exits of row 0 only.
 */
#define ROW_SKIP FT_FRAME_NO_ROW
#define ROW_UNKNOWN (FT_FRAME_NO_ROW - 1)

/* The row of fid, growing s->fn; NULL when out of memory. */
static struct ft_callsum *fn_grow(struct ft_callsums *s, uint32_t fid)
{
	size_t n;
	struct ft_callsum *nf;

	if (fid == FT_FID_UNKNOWN || fid > FT_CALLSUM_MAX_FID)
		return &s->unknown;
	n = fid + 1 > s->nr_fn * 2 ? fid + 1 : s->nr_fn * 2;
	if (n > FT_CALLSUM_MAX_FID + 1)
		n = FT_CALLSUM_MAX_FID + 1;
	nf = realloc(s->fn, n * sizeof(*nf));
	if (!nf)
		return NULL;
	memset(nf + s->nr_fn, 0, (n - s->nr_fn) * sizeof(*nf));
	s->fn = nf;
	s->nr_fn = n;
	return &s->fn[fid];
}

static inline struct ft_callsum *fn_of(struct ft_callsums *s, uint32_t fid)
{
	return fid < s->nr_fn ? &s->fn[fid] : fn_grow(s, fid);
}

/* The row of a frame's call (row as in frame->row, not ROW_SKIP). */
static inline struct ft_callsum *row_of(struct ft_callsums *s, uint32_t fid, uint32_t row)
{
	if (row == ROW_UNKNOWN)
		return &s->unknown;
	return row ? &s->x[row - 1] : fn_of(s, fid);
}

/* The hook's row for ev as frame->row: 0 (its function's), 1 + N, or ROW_SKIP on ENOMEM. */
static uint32_t pick(struct ft_callsums *s, const struct ft_event *ev, int at_exit)
{
	int64_t n = s->row(s->arg, ev, at_exit);

	if (n < 0)
		return 0;
	if (n >= (int64_t)ROW_UNKNOWN - 1)
		return ROW_SKIP;
	if ((size_t)n >= s->nr_x) {
		size_t old = s->nr_x;

		if (FT_GROW(s->x, s->nr_x, (size_t)n + 1, 16) < 0)
			return ROW_SKIP;
		memset(s->x + old, 0, (s->nr_x - old) * sizeof(*s->x));
	}
	return (uint32_t)n + 1;
}

/*
 * The exit of a timed call of frames[d] in row st: times, and the
 * parent's children's.  recursive: whether a frame below d is of the same
 * function (recursion counts once in the total), -1 to look.
 */
static inline void sum_exit(struct ft_callsum *st, struct frame *frames, size_t d, uint32_t fid,
			    uint64_t dur, int recursive)
{
	st->timed = 1;
	st->self += dur > frames[d].child ? dur - frames[d].child : 0;
	if (recursive < 0) {
		recursive = 0;
		for (size_t i = d; i--;) /* nearest first */
			if (frames[i].fid == fid) {
				recursive = 1;
				break;
			}
	}
	if (!recursive)
		st->total += dur;
	if (d)
		frames[d - 1].child += dur;
}

/* Count (dir 1) or uncount (-1) the open frames of c in their functions' open. */
static void count_open(struct ft_callsums *s, const struct cursor *c, int dir)
{
	for (size_t i = 0; i < c->nr_frames; i++)
		if (c->frames[i].fid < s->nr_fn)
			s->fn[c->frames[i].fid].open += (uint32_t)dir;
}

/*
 * One event from the reader (c's frames as it left them: an ENTRY's frame
 * pushed, an EXIT's popped but still in place).  0, or -1 out of memory.
 */
static int sum_event(struct ft_callsums *s, struct cursor *c, const struct ft_event *ev,
		     int in_window)
{
	struct ft_callsum *st;
	struct frame *f;
	uint32_t row;

	switch (ev->type) {
	case FT_EV_FUNC:
		if (!in_window)
			return 0;
		st = fn_of(s, ev->fid);
		if (!st)
			return -1;
		st->calls++;
		return 0;
	case FT_EV_ENTRY:
		f = &c->frames[ev->depth];
		f->child = 0;
		f->row = ROW_SKIP;
		if (!in_window)
			return 0;
		row = 0;
		if (s->row && !s->rows_at_exit && ev->data && ev->fid != FT_FID_UNKNOWN)
			row = pick(s, ev, 0);
		if (row == ROW_SKIP)
			return -1;
		st = row_of(s, ev->fid, row);
		if (!st)
			return -1;
		st->calls++;
		f->row = st == &s->unknown ? ROW_UNKNOWN : row;
		return 0;
	case FT_EV_EXIT:
		if (!ev->has_entry || !in_window)
			return 0;
		f = &c->frames[ev->depth];
		if (f->row == ROW_SKIP)
			return 0;
		row = f->row;
		if (s->row && s->rows_at_exit && ev->data && ev->fid != FT_FID_UNKNOWN) {
			/* the call moves from its function's row to its value's */
			uint32_t r = pick(s, ev, 1);

			if (r == ROW_SKIP)
				return -1;
			if (r) {
				st = fn_of(s, ev->fid);
				if (!st)
					return -1;
				st->calls--;
				s->x[r - 1].calls++;
				row = r;
			}
		}
		st = row_of(s, ev->fid, row);
		if (!st)
			return -1;
		sum_exit(st, c->frames, (size_t)ev->depth, ev->fid, ev->duration, -1);
		return 0;
	default:
		return 0;
	}
}

/*
 * The run of plain entries and exits at c's position in its page, summed
 * as sum_event() sums their events (trace.c's decode_call() decodes the
 * same records); stops, with the cursor stored back, before the first
 * record that needs the reader or a row of another kind: a record other
 * than ENTRY/EXIT, one with an attachment when the hook may want it, a
 * frame to grow, a function beyond s->fn, an exit of an unknown or
 * hooked call.  clocked and hooked are constants where it is inlined.
 */
static inline __attribute__((always_inline)) void
sum_run_as(struct ft_trace *t, struct cursor *c, struct ft_callsums *s, int clocked, int hooked)
{
	const struct ft_clock clk = t->clk;
	const unsigned char *data = c->data;
	size_t rec = c->rec, end = c->page_end, nr = c->nr_frames, cap = c->cap_frames;
	struct frame *fr = c->frames;
	struct ft_callsum *fn = s->fn;
	size_t nr_fn = s->nr_fn;
	uint64_t tk = c->t;
	uint32_t last_fid = c->last_fid;

	if (!c->in_page || c->unwind_pending || rec >= end)
		return;
	/* for the run, fn[f].open is the number of frames of f in the stack:
	 * a test of recursion at each exit instead of a walk down the stack */
	count_open(s, c, 1);
	while (rec < end) {
		uint32_t w = rd32(data + rec);

		if (ft_rec_kind(w) > FT_REC_EXIT)
			break;
		if (hooked && rec + 4 < end) {
			uint32_t x = rd32(data + rec + 4);

			if (ft_rec_kind(x) == FT_REC_EXT &&
			    (ft_ext_type(x) == FT_EXT_ARGS || ft_ext_type(x) == FT_EXT_RETVAL))
				break;
		}
		if (ft_rec_kind(w) == FT_REC_ENTRY) {
			uint32_t fid = ft_rec_fid(w);

			if (nr == cap || fid >= nr_fn)
				break;
			tk += ft_rec_edelta(w);
			fr[nr].fid = fid;
			fr[nr].known = 1;
			fr[nr].ts = clocked ? ft_clock_ns(&clk, tk) : tk; /* as trace_ns() */
			fr[nr].child = 0;
			fr[nr].row = 0;
			nr++;
			fn[fid].calls++;
			fn[fid].open++;
			last_fid = fid;
		} else {
			struct frame *f;
			uint64_t ns, dur;

			if (!nr)
				break;
			f = &fr[nr - 1];
			if (f->row) /* 0: known, of fid < nr_fn, in its own row */
				break;
			tk += ft_rec_xdelta(w);
			ns = clocked ? ft_clock_ns(&clk, tk) : tk;
			dur = ns >= f->ts ? ns - f->ts : 0;
			nr--;
			sum_exit(&fn[f->fid], fr, nr, f->fid, dur, fn[f->fid].open > 1);
			fn[f->fid].open--;
		}
		rec += 4;
	}
	t->decoded += (rec - c->rec) / 4; /* a record a word */
	c->rec = rec;
	c->t = tk;
	c->nr_frames = nr;
	c->last_fid = last_fid;
	count_open(s, c, -1);
}

static void sum_run(struct ft_trace *t, struct cursor *c, struct ft_callsums *s)
{
	if (s->row)
		sum_run_as(t, c, s, t->have_clock, 1);
	else if (t->have_clock)
		sum_run_as(t, c, s, 1, 0);
	else
		sum_run_as(t, c, s, 0, 0);
}

int ft_trace_call_sums(struct ft_trace *t, struct ft_callsums *s, char *err, size_t errlen)
{
	struct ft_event ev;
	uint32_t nf = ft_trace_nr_funcs(t);

	if (err && errlen)
		err[0] = 0;
	trace_scan_begin(t);
	if (nf && !fn_of(s, nf - 1 < FT_CALLSUM_MAX_FID ? nf - 1 : FT_CALLSUM_MAX_FID))
		goto nomem;
	for (size_t i = 0; i < t->nr_cursors; i++) {
		struct cursor *c = &t->cursors[i];
		int ret;

		trace_reset_cursor(c);
		for (;;) {
			/* a flight recorder's window drops events: the fast run cannot */
			if (!t->snap_since)
				sum_run(t, c, s);
			ret = trace_decode_next(t, c, &ev, err, errlen);
			if (ret != 1)
				break;
			if (sum_event(s, c, &ev, ev.ts >= t->snap_since) < 0)
				goto nomem;
		}
		if (ret < 0) {
			trace_scan_failed(t, err);
			return -1;
		}
		trace_reset_cursor(c); /* its windows go: one buffer's chunks in memory at a time */
	}
	return 0;
nomem:
	ft_seterr(err, errlen, "out of memory");
	return -1;
}

void ft_callsums_free(struct ft_callsums *s)
{
	free(s->fn);
	free(s->x);
	s->fn = s->x = NULL;
	s->nr_fn = s->nr_x = 0;
}

void ft_callsum_time_cell(char *buf, size_t len, uint64_t ns, int timed)
{
	static const char *const units[] = { "us", "ms", " s", " m", " h" };
	static const uint64_t limit[] = { 1000, 1000, 1000, 60, 24, UINT64_MAX };
	uint64_t v = ns, rem = 0;
	size_t i;

	if (!timed) {
		snprintf(buf, len, "%s", "");
		return;
	}
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		rem = v % limit[i];
		v /= limit[i];
		if (v < limit[i + 1])
			break;
	}
	if (i == ARRAY_SIZE(units))
		i--;
	snprintf(buf, len, "%llu.%03llu %s", (unsigned long long)v, (unsigned long long)rem,
		 units[i]);
}
