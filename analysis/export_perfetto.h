/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Perfetto's protobuf trace format (what its trace processor and UI load),
 * written as exporter events (export_event.h) arrive:
 *
 *   process and thread tracks    TrackDescriptor packets (pid, tid, names),
 *                                before a thread's first event; a renamed
 *                                thread gets its descriptor again
 *   calls                        TrackEvent TYPE_SLICE_BEGIN / _END on the
 *                                thread's track, names interned
 *   kernel events, markers...    TYPE_INSTANT on the thread's track with the
 *                                event's fields as debug annotations (integers
 *                                as int_value, the rest as strings), the
 *                                category interned
 *   lost events                  a "lost events" counter track (the running
 *                                total, TYPE_COUNTER) and an instant with
 *                                the count where they were lost
 *
 * All packets are one sequence (trusted_packet_sequence_id 1) whose first
 * packet clears the incremental state; names, categories and annotation
 * names are interned on it.  Timestamps are the trace's ns.  Encoding is
 * protobuf-c's on third_party/perfetto/perfetto_trace.proto (a subset of
 * the published schema, same field numbers): each packet is packed as a
 * Trace message holding that one packet, and concatenated Trace messages
 * are one Trace.  Memory: the intern tables and, per thread, its depth.
 * Calls still open at the end are closed at the last timestamp; exits
 * without an entry are dropped (counted).
 */
#ifndef FTRAIL_EXPORT_PERFETTO_H
#define FTRAIL_EXPORT_PERFETTO_H

#include <stdint.h>
#include <stdio.h>

#include "analysis/export_event.h"

struct ft_perfetto_stats {
	uint64_t packets;
	uint64_t slices;   /* begin/end pairs */
	uint64_t instants; /* kernel events, markers... (lost-event instants apart) */
	uint64_t lost_markers, lost_events;
	uint64_t unmatched_exits, closed_at_end;
	uint64_t threads, processes;
};

struct ft_perfetto;

/* Start a trace on out (not owned).  NULL (errno ENOMEM). */
struct ft_perfetto *ft_perfetto_open(FILE *out);

/* One event.  0, or -1 with errno (ENOMEM, a write error). */
int ft_perfetto_event(struct ft_perfetto *p, const struct ft_xevent *ev);

/*
 * Close what is open, free p (also on error).  stats may be NULL.  0, or
 * -1 with errno on a write error.
 */
int ft_perfetto_close(struct ft_perfetto *p, struct ft_perfetto_stats *stats);

#endif
