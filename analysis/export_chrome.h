/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Chrome Trace Event JSON (the format chrome://tracing, Perfetto's UI and
 * speedscope open), written as events arrive:
 *
 *   {"traceEvents":[
 *     {"ph":"M","name":"thread_name","pid":P,"tid":T,"args":{"name":"..."}},
 *     {"ph":"X","ts":12.345,"pid":P,"tid":T,"dur":0.656,"name":"f"},
 *     {"ph":"B","ts":12.345,"pid":P,"tid":T,"name":"f","args":{..}},
 *     {"ph":"E","ts":13.001,"pid":P,"tid":T},
 *     {"ph":"i","s":"t","name":"sched_switch","cat":"sched","ts":..,"args":{..}},
 *       (argument values: strings, or numbers when they are decimal integers)
 *     {"ph":"i","s":"g","name":"lost events","ts":..,"args":{"count":N}},
 *   ...],"displayTimeUnit":"ns","otherData":{...}}
 *
 * Timestamps are microseconds with the nanoseconds as a 3-digit fraction
 * (exact in a double up to ~104 days of clock), relative to the first
 * event unless absolute time is asked for.
 *
 * Calls: each thread's calls and returns wait in a queue, in order; a
 * call whose return comes while it waits becomes one "X" event at its
 * start's place (a thread's events stay in time order, a parent's X
 * before its children's).  The queue goes out when none of its calls is
 * open any more, when it is full, before any other event of the thread
 * and at lost events: a call still open then is a "B", its return an "E".
 * With complete set, every call is one "X" event written when it returns
 * (ordered by end time, which viewers accept).
 *
 * Memory: per thread, its open calls and its queue (at most 4096 items
 * and 64 KiB of names and arguments).  Nothing else is kept.  Exits
 * without an entry (the trace began inside a call) are dropped and
 * counted; calls still open at the end are closed at the last timestamp.
 */
#ifndef FTRAIL_EXPORT_CHROME_H
#define FTRAIL_EXPORT_CHROME_H

#include <stdint.h>
#include <stdio.h>

#include "analysis/export_event.h"

struct ft_chrome_opts {
	int complete;	    /* X events instead of B/E pairs */
	int absolute_time;  /* ts from the trace clock's zero, not the first event */
	const char *source; /* recorded in otherData (e.g. the trace file name) */
};

struct ft_chrome_stats {
	uint64_t events; /* JSON events written */
	uint64_t calls;	 /* calls (B/E pairs or X events) */
	uint64_t instants;
	uint64_t lost_markers, lost_events;
	uint64_t unmatched_exits;
	uint64_t closed_at_end;
};

struct ft_chrome;

/*
 * Start a document on out (not owned).  Returns NULL (errno ENOMEM).
 */
struct ft_chrome *ft_chrome_open(FILE *out, const struct ft_chrome_opts *opts);

/* Write one event.  Returns 0, or -1 with errno (ENOMEM, or a write error). */
int ft_chrome_event(struct ft_chrome *c, const struct ft_xevent *ev);

/*
 * Close calls still open, end the document and free c (also on error).
 * stats may be NULL.  Returns 0, or -1 with errno on a write error.
 */
int ft_chrome_close(struct ft_chrome *c, struct ft_chrome_stats *stats);

#endif
