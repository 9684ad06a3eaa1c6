/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A decoding thread ahead of the formatter.  show spends about half its
 * time decoding (zstd, records, the merge by time) and half formatting;
 * on two CPUs the two halves can overlap.  ft_prefetch runs
 * ft_trace_next() on a thread of its own and hands the events over in
 * order, in batches of self-contained copies: payloads (marker text, event
 * fields, stack addresses) and the thread's name at that point of the
 * stream are copied with each event, and each function_graph entry comes
 * with the next event of its buffer (what ft_trace_peek_buffer() would
 * say), so the consumer never touches the reader while it runs.
 *
 * Memory is bounded: FT_PREFETCH_BATCHES batches of FT_PREFETCH_EVENTS
 * events and their payloads.  Only for traces without added sources
 * (kernel events): their events point into state of their own.
 *
 * While a prefetch runs, the trace may be used by its consumer only for
 * what decoding does not change: tables (names, symbols, META); not
 * ft_trace_next(), ft_trace_peek_buffer() or ft_trace_comm().
 */
#ifndef FTRAIL_PREFETCH_H
#define FTRAIL_PREFETCH_H

#include <stddef.h>

#include "analysis/trace.h"

#define FT_PREFETCH_BATCHES 8
#define FT_PREFETCH_EVENTS 256

struct ft_prefetch;

/**
 * ft_prefetch_start() - start decoding t on a thread of its own
 *
 * Return: the prefetcher, or NULL with a reason in err (out of memory, no
 * thread).  t must be at its first event, without added sources.
 */
struct ft_prefetch *ft_prefetch_start(struct ft_trace *t, char *err, size_t errlen);

/**
 * ft_prefetch_next() - the next event in time order
 * @ev:   the event (ev->comm holds its thread's name)
 * @next: for an ENTRY, the next event of the same buffer, or NULL when
 *        the buffer has none; NULL for other events
 *
 * Return: 1, 0 at the end, -1 with the reader's reason in err.  The
 * pointers stay valid until the next call.
 */
int ft_prefetch_next(struct ft_prefetch *p, const struct ft_event **ev,
		     const struct ft_event **next, char *err, size_t errlen);

/* Stop the thread (at any point) and free everything.  Cannot fail. */
void ft_prefetch_stop(struct ft_prefetch *p);

#endif
