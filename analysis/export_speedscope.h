/* SPDX-License-Identifier: GPL-2.0 */
/*
 * speedscope's JSON file format
 * (https://www.speedscope.app/file-format-schema.json): one "evented"
 * profile per thread, with "O"(pen) and "C"(lose) events at ns offsets
 * from the first event, and one shared table of frames.
 *
 *   {"$schema":"...","exporter":"ftrail ...","activeProfileIndex":0,
 *    "profiles":[{"type":"evented","unit":"nanoseconds","startValue":0,
 *                 "events":[{"type":"O","frame":0,"at":0},...],
 *                 "name":"comm (tid T)","endValue":N}, ...],
 *    "name":"...","shared":{"frames":[{"name":"main"},...]}}
 *
 * A profile must be contiguous in the file while events of all threads
 * arrive interleaved.  The first thread with a call has its events
 * written to out as they come (the first profile; what is known only at
 * the end -- its name, its end, the document's name with the lost count,
 * the frames -- follows the events: JSON members have no order); every
 * other thread's are kept in a small buffer that is spilled to an
 * unlinked temporary file when full, and copied out per thread, in tid
 * order, at the end.  A single-threaded trace goes out once, with no
 * temporary file.  Memory: per thread, that buffer and its stack of open
 * frames; plus the frame table (one entry per distinct name).  Disk:
 * about the size of the other threads' profiles.
 *
 * speedscope rejects unbalanced profiles, so exits without an entry are
 * dropped (counted) and calls still open at the end are closed at the last
 * timestamp.  Kernel events and lost markers have no place in this format:
 * they are counted, and the lost total goes into the document's name.
 */
#ifndef FTRAIL_EXPORT_SPEEDSCOPE_H
#define FTRAIL_EXPORT_SPEEDSCOPE_H

#include <stdint.h>
#include <stdio.h>

#include "analysis/export_event.h"

struct ft_speedscope_stats {
	uint64_t profiles; /* threads written */
	uint64_t frames;   /* distinct names */
	uint64_t calls;
	uint64_t unmatched_exits;
	uint64_t closed_at_end;
	uint64_t skipped; /* instants (kernel events) not representable */
	uint64_t lost_events;
	uint64_t spilled; /* bytes that went through the temporary file */
};

struct ft_speedscope;

/*
 * Start a document for out (not owned); name is the document's name (e.g.
 * the trace file).  tmpdir: where the spill file goes (NULL: $TMPDIR or
 * /tmp).  Returns NULL with errno.
 */
struct ft_speedscope *ft_speedscope_open(FILE *out, const char *name, const char *tmpdir);

/* Take one event.  Returns 0, or -1 with errno (ENOMEM, spill write error). */
int ft_speedscope_event(struct ft_speedscope *s, const struct ft_xevent *ev);

/*
 * Write the document and free s (also on error).  stats may be NULL.
 * Returns 0, or -1 with errno.
 */
int ft_speedscope_close(struct ft_speedscope *s, struct ft_speedscope_stats *stats);

#endif
