/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Read-time selection of a function_graph trace: the calls a reader shows,
 * chosen after the recording as record's -g, --graph-notrace,
 * --max-graph-depth and --tracing-thresh choose them while recording (as
 * ftrace does), and as uftrace replay's -F, -N, -D and -t choose them:
 *
 *   functions  only calls of matching functions and what they call;
 *              depths then count from the outermost such call, which
 *              shows at depth 0
 *   notrace    not calls of matching functions, nor what they call
 *   max_depth  only calls less than this deep (0: no limit)
 *   thresh_ns  only calls lasting at least this long, with what they
 *              call (a shorter call's callees are shorter still)
 *
 * A shown call whose callees are all left out shows as a leaf, with the
 * duration and return value of its exit.
 *
 * Function tracer records (FT_EV_FUNC) follow functions and notrace by
 * their own name.  What always shows: lost-event notes (a view never
 * hides that events are missing), kernel events, and the thread and
 * process records (names, fork, exec, exit, tracing on/off).  Markers,
 * user events, stacks and signal arrows show when a call at their place
 * in the thread would.
 *
 * Memory: a few words per thread, plus for thresh_ns one pass over the
 * trace before reading (ft_graphsel_prepare) that keeps, per thread, the
 * spans of records that are shorter calls, adjacent spans merged: about
 * one span per call shown.
 */
#ifndef FTRAIL_ANALYSIS_GRAPHSEL_H
#define FTRAIL_ANALYSIS_GRAPHSEL_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/trace.h"

struct ft_graphsel_opts {
	const char *const *functions; /* globs (core/glob.h); n_functions of them */
	size_t n_functions;
	const char *const *notrace;
	size_t n_notrace;
	int max_depth;
	uint64_t thresh_ns;
};

struct ft_graphsel;

/* Whether opts select anything (else no selection is needed). */
int ft_graphsel_wanted(const struct ft_graphsel_opts *opts);

/*
 * A selection over t's events.  Globs are copied.  With thresh_ns, reads
 * t once (ft_trace_scan_buffers) and leaves it rewound.  NULL with a
 * reason in err (out of memory, a corrupt trace).
 */
struct ft_graphsel *ft_graphsel_new(struct ft_trace *t, const struct ft_graphsel_opts *opts,
				    char *err, size_t errlen);
void ft_graphsel_free(struct ft_graphsel *gs);

/*
 * The event to show in place of ev, in the reader's order: NULL when it
 * is not shown, else ev itself or a copy with its depth counted from the
 * selected call (valid until the next call).  Every event of the stream
 * must pass here, in order.  NULL with *err_nomem set when out of memory.
 */
const struct ft_event *ft_graphsel_event(struct ft_graphsel *gs, const struct ft_event *ev,
					 int *err_nomem);

/*
 * Back to the state before the stream's first event, for another pass
 * over it (after ft_trace_rewind()): what the first pass found is kept.
 */
void ft_graphsel_rewind(struct ft_graphsel *gs);

/*
 * The formatter's lookahead for the event ft_graphsel_event() just
 * showed, from next (its next record in its buffer, or NULL): the exit of
 * a call whose callees are all left out (so it prints as a leaf), else
 * next with the same depth shift.  Valid as long as the shown event.
 * Only an entry's lookahead (or latency-format's) matters: callers may
 * skip reading next for the others and pass NULL.
 */
const struct ft_event *ft_graphsel_next(struct ft_graphsel *gs, const struct ft_event *next);

#endif
