/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A trace file (analysis/trace.h, with its kernel events from
 * analysis/kevents.h merged in time) as a stream of exporter events
 * (export_event.h), one at a time:
 *
 *   function_graph entry/exit  -> FT_XEV_ENTRY / FT_XEV_EXIT, balanced per
 *       buffer: where the reader resynchronised its depth after lost pages,
 *       the missing exits (or "[unknown]" entries) are supplied, and exits
 *       of calls entered before the recording began are left out (counted)
 *   function tracer hits, markers, trace events, fork/exec/exit/signal,
 *       tracing on/off and kernel events -> FT_XEV_INSTANT with their fields
 *   lost events (user pages, kernel CPUs) -> FT_XEV_LOST
 *   thread names (TASKS, comm changes, kernel comms) -> FT_XEV_THREAD_NAME
 *       (and FT_XEV_PROCESS_NAME for a process's main thread), before the
 *       thread's first event
 *
 * Memory: one small entry per buffer and per thread; events are not kept.
 */
#ifndef FTRAIL_EXPORT_TRACE_H
#define FTRAIL_EXPORT_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/export_event.h"
#include "analysis/export_progress.h"

struct ft_xtrace;

struct ft_xtrace_stats {
	uint64_t user_events;	 /* read from the user buffers */
	uint64_t kernel_events;	 /* read from the kernel side */
	uint64_t xevents;	 /* handed to the callback */
	uint64_t lost;		 /* events reported lost (user + kernel) */
	uint64_t skipped_exits;	 /* exits of calls entered before the recording */
	uint64_t resync_exits;	 /* exits supplied after lost records */
	uint64_t resync_entries; /* "[unknown]" entries supplied after lost records */
};

/*
 * Open path.  kernel: also merge its kernel events (when it has any).
 * Returns NULL with a one-line reason in err.  Warnings of the reader (a
 * file cut short...) are available from ft_xtrace_warning().
 */
struct ft_xtrace *ft_xtrace_open(const char *path, int kernel, char *err, size_t errlen);

/* Close the file and free x (NULL is fine). */
void ft_xtrace_close(struct ft_xtrace *x);

/* The reader's warnings so far: their number, and warning i (valid until close). */
size_t ft_xtrace_nr_warnings(const struct ft_xtrace *x);
const char *ft_xtrace_warning(const struct ft_xtrace *x, size_t i);

/*
 * Feed every event to fn, in time order; fn returns 0 to go on, non-zero
 * to stop (run then returns -1 with "write error" in err unless fn set
 * errno-based text itself).  progress may be NULL.  Returns 0, or -1 with a
 * reason in err (corrupt file, out of memory, fn failure).
 */
int ft_xtrace_run(struct ft_xtrace *x, int (*fn)(const struct ft_xevent *ev, void *arg), void *arg,
		  struct ft_progress *progress, char *err, size_t errlen);

/* The counters of the events read and passed on so far.  Cannot fail. */
void ft_xtrace_get_stats(const struct ft_xtrace *x, struct ft_xtrace_stats *st);

#endif
