/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-function call sums of a trace -- calls, total time, self time --
 * made in the reader's decoding loop (report's numbers).
 *
 * Total time of a function counts each outermost activation once: a call
 * with an open call of the same function below it in its thread's stack
 * adds its call but not its time again.  Self time is a call's duration
 * minus the durations of its direct children.  A call without its exit in
 * the trace counts as a call without time; a call whose entry was lost
 * (its exit has no duration) is not counted; function tracer records
 * count as calls.
 *
 * The stack a call is in is the reader's own (analysis/trace.c: resynced
 * at lost pages, one per user context): the sums keep their per-call
 * state in the reader's frames, so plain entries and exits -- most of any
 * trace -- are summed where they are decoded, with no event made and no
 * call per record.  Records the fast loop leaves to the reader go through
 * the ordinary decoder and the same sums.
 *
 * Rows.  A call counts in its function's row (fn[fid]; FT_FID_UNKNOWN and
 * fids past FT_CALLSUM_MAX_FID in unknown), unless the row hook picks
 * another for a call that captured arguments or a return value: the hook
 * sees the entry (rows_at_exit 0) or the exit (rows_at_exit 1) of such a
 * call and returns -1 (the function's own row) or N >= 0, row x[N] (the
 * array grows to hold it, zeroed).  A call moved at its exit leaves its
 * function's row for the picked one.
 *
 * Not thread-safe (as the reader); the sums are freed with
 * ft_callsums_free().
 */
#ifndef FTRAIL_CALLSUM_H
#define FTRAIL_CALLSUM_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/trace.h"

#define FT_CALLSUM_MAX_FID (1u << 26) /* larger fids (hostile files) count as unknown */

struct ft_callsum {
	uint64_t calls, total, self;
	int timed;     /* some call of the row had a duration */
	uint32_t open; /* ft_trace_call_sums()'s own (0 outside it) */
};

struct ft_callsums {
	/* filled by ft_trace_call_sums() */
	struct ft_callsum *fn; /* by fid, nr_fn of them */
	size_t nr_fn;
	struct ft_callsum unknown;
	struct ft_callsum *x; /* rows the hook picked (nr_x: zero rows past the last) */
	size_t nr_x;
	/* set by the caller (all zero: every call in its function's row) */
	int64_t (*row)(void *arg, const struct ft_event *ev, int at_exit);
	int rows_at_exit;
	void *arg;
};

/**
 * ft_trace_call_sums() - sum every user buffer's calls into s
 *
 * Reads the buffers one after the other, as ft_trace_scan_buffers()
 * (added sources are not read; a later ft_trace_next() starts over).
 *
 * Return: 0, or -1 with a reason in err: a corrupt record (the reader then
 * fails as after ft_trace_next()), or out of memory.
 */
int ft_trace_call_sums(struct ft_trace *t, struct ft_callsums *s, char *err, size_t errlen);

/* Free what ft_trace_call_sums() allocated in s (not s).  Cannot fail. */
void ft_callsums_free(struct ft_callsums *s);

/*
 * uftrace's time cell, as report and graph print it: "150.829 us",
 * "1.234 ms", "2.000  s"; empty when !timed.
 */
void ft_callsum_time_cell(char *buf, size_t len, uint64_t ns, int timed);

#endif
