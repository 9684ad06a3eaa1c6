/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A trace file as a CTF 1.8 trace (TSDL metadata plus binary stream
 * files) laid out as LTTng's user-space traces are, so that babeltrace2,
 * Trace Compass and the other readers of LTTng traces open it:
 *
 *   DIR/metadata      TSDL text: trace (le, uuid, packet header), env
 *                     (domain "ust", tracer_name "lttng-ust": readers pick
 *                     their LTTng UST analyses by these), one 1 GHz clock
 *                     on the trace's ns, three stream classes and the
 *                     event classes
 *   DIR/ust_0         user records, in time order (stream class 0)
 *   DIR/kernel_N      kernel events of CPU N (stream class 1)
 *   DIR/stackmap_0    the stack map as a side stream (stream class 2): one
 *                     ftrail:stack_map_entry per stack id the trace uses
 *                     (ips and symbolised frames), at its first use
 *
 * Packets carry LTTng's packet context (timestamp_begin/end, content and
 * packet size, packet_seq_num, events_discarded, cpu_id); every event has
 * LTTng's stream event context (_vpid, _vtid, _procname), kernel events
 * also their stack ids.  Lost events end the packet and raise the stream's
 * events_discarded counter, which readers report as discarded events
 * between the two packets.
 *
 * Events: function_graph calls as lttng_ust_cyg_profile:func_entry /
 * func_exit (the events of LTTng's -finstrument-functions helper, fields
 * addr and call_site, plus name, depth and, on exit, duration); function
 * tracer hits, markers, task events and stacks as ftrail:*; user events
 * (UFORMATS) as SYS:NAME with their typed fields; kernel events under
 * their tracefs names with their format's fields typed (integers by size
 * and sign, strings, other arrays as byte sequences).
 *
 * No maintained C library writes CTF 1.8 outside LTTng's own tracer
 * internals, so TSDL and packets are written here by hand; babeltrace2
 * reads them back in tests/e2e/t0712.
 *
 * Memory: one packet buffer per stream (a CPU's kernel stream, the user
 * stream), a set of stack ids already described, never the events.
 */
#ifndef FTRAIL_EXPORT_CTF_H
#define FTRAIL_EXPORT_CTF_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/export_progress.h"

struct ft_ctf_stats {
	uint64_t events;		 /* events written (all streams) */
	uint64_t entries, exits;	 /* func_entry / func_exit */
	uint64_t kernel;		 /* kernel events */
	uint64_t uevents;		 /* user events (UFORMATS) */
	uint64_t stacks;		 /* ftrail:stack events */
	uint64_t map_entries;		 /* stack map entries in the side stream */
	uint64_t lost_user, lost_kernel; /* events counted as discarded */
	uint64_t packets, bytes;	 /* stream packets and bytes, all files */
};

/*
 * Write the trace file at path as CTF into dir, an existing empty
 * directory (files are created 0600, new, not through links).  kernel: 0
 * leaves the kernel events out.  Returns 0, or -1 with a one-line reason
 * in err (files already written in dir are left for the caller to remove).
 */
int ft_ctf_export(const char *path, const char *dir, int kernel, struct ft_progress *progress,
		  struct ft_ctf_stats *st, char *err, size_t errlen);

#endif
